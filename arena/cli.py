"""``agent.py tournament``, ``sprt`` and ``play``: matches between agents, a sequential test of
one against another, and a person against ours.

Declarations at the top; the handlers import the games' machinery (the engine, the executor,
the plots) when they run, so that ``--help`` loads no compiled code.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from commandline import (
    Command,
    Context,
    flag,
    json_flag,
    mode_option,
    option,
    positional,
    repeat_command,
    sandbox_option,
    scheduler_option,
    time_option,
    whole,
    workers_option,
    writable_folder,
)
from ecosystems.players import SPEC_HELP, parse_spec, sandbox_layers, split_specs
from rating.sprt_params import DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_ELO0, DEFAULT_ELO1, Model
from settings import UsageError
from vocabulary import Ending, ExitStatus, Mode, Sandbox, column_label

if TYPE_CHECKING:
    from arena.sprt import PlayedPair, SprtRun
    from arena.tournament import TournamentGame, TournamentPlan
    from engine.games import PlayedGame
    from settings import AgentSettings, SolverSettings

def seed_option() -> Any:
    """``--seed X`` of a run of games."""
    return option("--seed", type=int, metavar="X",
                  help="seed of every random choice (default: a random one, printed)")


def python_option() -> Any:
    """``--python PATH`` for the ``connectx:`` players of a run."""
    return option("--python", metavar="PATH",
                  help="the Python that runs the connectx: agent files (default: this one; a"
                       " spec's python=PATH wins)")


# --- tournament -----------------------------------------------------------------------------

DEFAULT_GAMES = 10  # per pairing
MAX_OPENING_PLIES = 10


@dataclass(frozen=True)
class TournamentOptions:
    """``agent.py tournament``'s options."""

    players: str = option("--players", required=True, metavar="A,B[,C...]",
                          help=f"player specs, comma-separated: {SPEC_HELP}")
    games: int | None = option("--games", type=whole(1), metavar="N",
                               help=f"games per pairing (default {DEFAULT_GAMES}; with"
                                    " --every-opening, 2 x 7^K)")
    time: float | None = time_option("agent.seconds_per_move, for an `ours` given without a time")
    workers: int | None = workers_option()
    scheduler: str | None = scheduler_option()
    seed: int | None = seed_option()
    opening_plies: int = option("--opening-plies", default=0, type=whole(0, MAX_OPENING_PLIES),
                                metavar="K",
                                help=f"open each pair of games with K random moves (even,"
                                     f" 0-{MAX_OPENING_PLIES}), played once with each starter"
                                     " (default 0: from the empty board)")
    every_opening: bool = flag("--every-opening",
                               help="play every opening of --opening-plies K plies (2 or 4)"
                                    " instead of random ones, each once with each starter")
    json: bool = json_flag()
    out: str | None = option("--out", metavar="DIR",
                             help="write plots and a summary here, and keep the games as they"
                                  " finish (a rerun resumes)")
    python: str | None = python_option()
    sandbox: Sandbox | None = sandbox_option()



def tournament_command(options: TournamentOptions, context: Context) -> int:
    from arena.report import print_report, write_report
    from arena.results import summarize
    from arena.tournament import make_plan, run_tournament, uneven_starts_warning, worker_count
    from arena.work import GAMES_WORK, TournamentWork
    from batch import announce_stopping, open_executor
    from terminal import progress

    settings = context.settings
    # The one place a tournament's time is read: an ``ours`` without one plays --time, else
    # the configured time per move, and carries it in its spec to the workers.
    seconds = settings.agent.seconds_per_move if options.time is None else options.time
    sandbox = options.sandbox or settings.outside.sandbox
    specs = [parse_spec(part, seconds=seconds, python=options.python, sandbox=sandbox)
             for part in split_specs(options.players)]
    layers = sandbox_layers(specs)
    if layers is not None:
        print(layers.line(), file=sys.stderr)
    games = options.games
    if games is None:
        games = 2 * 7**options.opening_plies if options.every_opening else DEFAULT_GAMES
    plan = make_plan(specs, games, options.seed, settings.agent, settings.solver,
                     opening_plies=options.opening_plies, every_opening=options.every_opening)
    out_dir = writable_folder(options.out) if options.out is not None else None
    work = TournamentWork(out_dir / GAMES_WORK) if out_dir is not None else None
    done: dict[int, TournamentGame] = {}
    if work is not None:
        plan, done = work.resume(plan, seed_given=options.seed is not None)
        if done:
            print(f"resuming: {len(done)} of {plan.total_games} games already played"
                  f" ({work.path})", file=sys.stderr)

    warning = uneven_starts_warning(plan.games)
    if warning:
        print(warning, file=sys.stderr)
    start = time.monotonic()
    kept = len(done)

    def keep(game: TournamentGame) -> None:
        nonlocal kept
        if work is not None:
            work.add(game)
            kept += 1

    with open_executor(worker_count(plan, options.workers), options.scheduler) as executor:
        if work is not None:
            work.begin(plan, _command_line(options, plan, context.config))
        try:
            with progress(plan.total_games - len(done), "games") as advance:
                outcomes = run_tournament(plan, executor, lambda _d, _t, _g: advance(1),
                                          done=done, record=keep, on_stopping=announce_stopping("game"))
        except (KeyboardInterrupt, UsageError):  # Ctrl-C, lost workers, a lost scheduler
            if work is not None:
                print(f"{kept} of {plan.total_games} games kept in {work.path}; the same"
                      " command plays the rest", file=sys.stderr)
            raise
    summary = summarize(plan, outcomes, workers=executor.slots,
                        elapsed=time.monotonic() - start, sandbox=layers)

    if options.json:
        print(json.dumps(summary.to_dict()))
    else:
        print_report(summary)
    if out_dir is not None:
        written = write_report(summary, out_dir, _command_line(options, plan, context.config))
        print(f"wrote {', '.join(str(p) for p in written)}", file=sys.stderr)
        if work is not None:
            work.remove()
    return 0


def _command_line(options: TournamentOptions, plan: TournamentPlan, config: str | None) -> str:
    """The command that repeats this tournament (with its seed), for the report."""
    return repeat_command("tournament", players=options.players, games=plan.games,
                          seed=plan.seed, opening_plies=options.opening_plies or None,
                          every_opening=options.every_opening, time=options.time,
                          workers=options.workers, scheduler=options.scheduler,
                          out=options.out, python=options.python, sandbox=options.sandbox,
                          config=config)


# --- sprt -----------------------------------------------------------------------------------

DEFAULT_MAX_PAIRS = 1000
SPRT_DESCRIPTION = """Is CANDIDATE stronger than BASE?  Plays them in pairs of games, the same opening
with each colour (a suite of balanced openings, arena/openings.py), and after each pair runs a
sequential probability ratio test on the pairs' points (the pentanomial), as fishtest does:
it stops as soon as H1 (CANDIDATE is stronger by ELO1) or H0 (not stronger than ELO0) is
accepted with the error rates asked, or at --max-pairs.  With --out the pairs are kept as they
finish, and the same command goes on after a stop (docs/sprt.md)."""


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"must be between 0 and 0.5, not {value:g}")
    return value


def _elo(text: str) -> float:
    """A bound: a finite number (its range is the test's to check, ``rating.sprt.Sprt``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


@dataclass(frozen=True)
class SprtOptions:
    """``agent.py sprt``'s options."""

    base: str = positional(metavar="BASE", help=f"the player to beat (a player spec: {SPEC_HELP})")
    candidate: str = positional(metavar="CANDIDATE", help="the player that may be stronger")
    elo0: float = option("--elo0", type=_elo, default=DEFAULT_ELO0, metavar="ELO",
                         help=f"H0: CANDIDATE is this much stronger, in the model's unit"
                              f" (default {DEFAULT_ELO0:g})")
    elo1: float = option("--elo1", type=_elo, default=DEFAULT_ELO1, metavar="ELO",
                         help=f"H1: CANDIDATE is this much stronger (default {DEFAULT_ELO1:g})")
    alpha: float = option("--alpha", type=_probability, default=DEFAULT_ALPHA, metavar="P",
                          help=f"the chance of accepting H1 when H0 holds (default"
                               f" {DEFAULT_ALPHA:g})")
    beta: float = option("--beta", type=_probability, default=DEFAULT_BETA, metavar="P",
                         help=f"the chance of accepting H0 when H1 holds (default {DEFAULT_BETA:g})")
    model: Model = option("--model", type=Model, choices=list(Model), default=Model.NORMALIZED,
                          help="the unit of ELO0, ELO1 and the estimate: normalized Elo (nElo,"
                               " the same test length whatever the draw rate) or logistic Elo"
                               f" (default {Model.NORMALIZED})")
    time: float | None = time_option("agent.seconds_per_move, for an `ours` given without a time")
    openings: str | None = option("--openings", metavar="FILE",
                                  help="the suite of openings: a move string a line, each an"
                                       " even number of moves (default: the shipped one, every"
                                       " position of 6 discs whose exact value is a draw)")
    max_pairs: int = option("--max-pairs", type=whole(1), default=DEFAULT_MAX_PAIRS, metavar="N",
                            help=f"stop without a verdict after N pairs (default"
                                 f" {DEFAULT_MAX_PAIRS})")
    workers: int | None = workers_option()
    scheduler: str | None = scheduler_option()
    seed: int | None = seed_option()
    out: str | None = option("--out", metavar="DIR",
                             help="keep the pairs here as they finish, with results.json and"
                                  " llr.png (a rerun goes on)")
    python: str | None = python_option()
    sandbox: Sandbox | None = sandbox_option()


def sprt_command(options: SprtOptions, context: Context) -> int:
    from arena.openings import load_openings
    from arena.sprt import SprtFolder, make_sprt_plan, play_on, start_run
    from arena.tournament import worker_count
    from batch import announce_stopping, open_executor
    from rating.sprt import Sprt, SprtError
    from terminal import live_line

    settings = context.settings
    seconds = settings.agent.seconds_per_move if options.time is None else options.time
    try:
        sprt = Sprt(options.elo0, options.elo1, options.alpha, options.beta, options.model)
    except SprtError as error:
        raise UsageError(str(error)) from None
    sandbox = options.sandbox or settings.outside.sandbox
    base = parse_spec(options.base, seconds=seconds, python=options.python, sandbox=sandbox)
    candidate = parse_spec(options.candidate, seconds=seconds, python=options.python,
                           sandbox=sandbox)
    layers = sandbox_layers([base, candidate])
    if layers is not None:
        print(layers.line(), file=sys.stderr)
    openings = load_openings(Path(options.openings) if options.openings is not None else None)
    plan = make_sprt_plan(base, candidate, sprt, options.max_pairs, openings, options.seed,
                          settings.agent, settings.solver)
    folder = SprtFolder(writable_folder(options.out), sprt) if options.out is not None else None
    done: list[PlayedPair] = []
    if folder is not None:
        plan, done = folder.resume(plan, seed_given=options.seed is not None)
    command = repeat_command("sprt", options.base, options.candidate,
                             elo0=_unless(options.elo0, DEFAULT_ELO0),
                             elo1=_unless(options.elo1, DEFAULT_ELO1),
                             alpha=_unless(options.alpha, DEFAULT_ALPHA),
                             beta=_unless(options.beta, DEFAULT_BETA),
                             model=None if options.model is Model.NORMALIZED else str(options.model),
                             time=options.time, openings=options.openings,
                             max_pairs=_unless(options.max_pairs, DEFAULT_MAX_PAIRS),
                             workers=options.workers, scheduler=options.scheduler,
                             seed=plan.tournament.seed, out=options.out, python=options.python,
                             sandbox=options.sandbox, config=context.config)
    run = start_run(plan, done)
    run.sandbox = layers
    lower, upper = sprt.bounds
    print(f"sprt: is {plan.candidate} stronger than {plan.base}? {sprt.describe()}: LLR bounds"
          f" {lower:+.2f} and {upper:+.2f}; at most {plan.max_pairs:,} pairs from"
          f" {len(openings):,} openings; seed {plan.tournament.seed}", file=sys.stderr)
    if folder is not None and run.resumed:
        print(f"resuming: {run.resumed} pairs already played ({folder.work.path})",
              file=sys.stderr)
    workers = worker_count(plan.tournament, options.workers)
    try:
        with live_line() as show, open_executor(workers, options.scheduler) as executor:
            if folder is not None:
                folder.begin(plan, command)
            if run.pairs:
                show(run.status())
            play_on(run, executor, record=folder.add if folder is not None else None,
                    on_pair=lambda current, _pair: show(current.status()),
                    on_stopping=announce_stopping("pair"))
    except (KeyboardInterrupt, UsageError):  # Ctrl-C, lost workers, a lost scheduler
        if folder is not None:
            folder.write(run, command)
            print(f"{len(run.pairs)} pairs kept in {folder.work.path}; the same command goes on",
                  file=sys.stderr)
        raise
    print(run.words)
    print(_estimates_line(run))
    print(_length_line(run))
    if folder is not None:
        written = folder.write(run, command)
        print(f"wrote {', '.join(str(path) for path in written)}", file=sys.stderr)
    return 0


def _unless(value: float, default: float) -> float | None:
    """``value`` for the command that repeats a run, None (left out) when it is the default."""
    return None if value == default else value


def _estimates_line(run: SprtRun) -> str:
    tracker = run.tracker
    counts = " ".join(str(count) for count in tracker.counts)
    found = [tracker.estimate(model) for model in (Model.LOGISTIC, Model.NORMALIZED)]
    if None in found:
        return f"No estimate yet: the pairs all scored alike (pairs 0, 1/2, 1, 3/2, 2: {counts})."
    return (f"Strength of {run.plan.candidate} over {run.plan.base}:"
            f" {', '.join(str(estimate) for estimate in found)} (95 % intervals); pairs scoring"
            f" 0, 1/2, 1, 3/2, 2 for it: {counts}.")


def _length_line(run: SprtRun) -> str:
    tracker = run.tracker
    line = f"{tracker.pairs:,} pairs ({2 * tracker.pairs:,} games) counted"
    extra = sum(tracker.after)
    if extra:
        line += f" ({extra} more played after the verdict, not counted)"
    played = len(run.pairs) - run.resumed
    if played:
        line += f"; {run.elapsed / 60:.1f} min"
        if run.resumed:
            line += f" for the {played} pairs of this run"
    games = run.fixed_games
    if games is not None:
        line += (f". A test of a fixed number of games with the same error rates at these"
                 f" bounds needs {games:,} games.")
    return line


# --- play -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayOptions:
    """``agent.py play``'s options."""

    first: str = option("--first", default="me", choices=("me", "agent"),
                        help="who starts (default me)")
    time: float | None = time_option()
    mode: Mode | None = mode_option()


def play_command(options: PlayOptions, context: Context) -> int:
    from engine.overrides import with_mode

    settings = context.settings
    agent = with_mode(settings.agent, options.mode)
    seconds = agent.seconds_per_move if options.time is None else options.time
    return play_terminal(agent, seconds=seconds, human_first=options.first == "me",
                         stdin=sys.stdin, stdout=sys.stdout, solver=settings.solver)


def play_terminal(agent: AgentSettings, *, seconds: float, human_first: bool, stdin: TextIO,
                  stdout: TextIO, colour: bool | None = None,
                  solver: SolverSettings | None = None) -> int:
    """One game of a person against our agent in the terminal.

    ``agent`` and ``solver`` configure the engine (``solver`` None: the built-in defaults);
    ``seconds`` is the agent's time per move.
    Returns 0 when the game ends or the person quits (``q`` or end of input), 130 on Ctrl-C.
    """
    from arena.human import HumanPlayer, disc
    from arena.match import GameAbandoned, play_game
    from board import Board
    from engine.games import PlayedMove
    from engine.players import OursPlayer

    human = HumanPlayer(stdin, stdout, colour)

    def say(markup: str = "") -> None:
        human.say(markup)

    say("Loading the agent (the very first run compiles the search, which takes a while)...")
    ours = OursPlayer(agent, solver, seconds=seconds)
    you, it = disc(human_first), disc(not human_first)
    say(f"You play {you} ({'first' if human_first else 'second'}), the agent plays {it} in"
        f" {agent.mode} mode with {seconds:g} s per"
        f" move. {'You start.' if human_first else 'The agent starts.'}")
    say("Drop a disc by typing its column number, 1-7 as in move strings; connect four to win.")

    def on_move(board: Board, move: PlayedMove) -> None:
        agent_moved = (move.side == 0) != human_first
        if agent_moved:
            detail = f"{move.seconds or 0.0:.2f} s"
            if move.depth is not None:
                detail += f", depth {move.depth}, {move.source}, {move.mode} mode"
            say(f"The agent plays column {column_label(move.column)} ({detail}).")
        elif not board.is_over():
            say(f"The agent is thinking (up to {seconds:g} s)...")

    if not human_first:
        say(f"The agent is thinking (up to {seconds:g} s)...")
    players = (human, ours) if human_first else (ours, human)
    names = ("you", "agent") if human_first else ("agent", "you")
    try:
        record = play_game(*players, names=names, on_move=on_move)
    except GameAbandoned:
        say("Game abandoned. Bye!")
        return 0
    except KeyboardInterrupt:
        say()
        say("Game abandoned. Bye!")
        return ExitStatus.INTERRUPTED
    _announce(record, human_first, say)
    return 0


def _announce(record: PlayedGame, human_first: bool, say: Callable[..., None]) -> None:
    from rich.markup import escape

    from arena.human import render_board

    last = record.moves[-1].column if record.moves else None
    say()
    say(render_board(record.board, last=last))
    human_side = 0 if human_first else 1
    four = record.ending is Ending.FOUR
    if record.winner is None:
        say("Draw: the board is full.")
    elif record.winner == human_side:
        say("You win! Four in a row." if four else f"You win: {escape(record.detail)}.")
    else:
        say("The agent wins: four in a row." if four else f"You lose: {escape(record.detail)}.")
    say(f"Move string (for `agent.py analyze`): {record.move_string}")


__all__ = ["play_command", "play_terminal", "sprt_command", "tournament_command"]


COMMANDS = [
    Command("tournament", "matches between players, with tables and plots", TournamentOptions,
            tournament_command, compiles=True),
    Command("sprt", "is a candidate stronger than a base? pairs of games until a sequential"
                    " test decides", SprtOptions, sprt_command, compiles=True,
            description=SPRT_DESCRIPTION),
    Command("play", "play against the agent in the terminal", PlayOptions, play_command,
            compiles=True),
]
