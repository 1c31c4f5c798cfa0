"""``agent.py tournament`` and ``agent.py play``: matches between agents, and a person against ours."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from rich.markup import escape

from arena.human import HumanPlayer, disc, render_board
from arena.match import FOUR, GameAbandoned, PlayedGame, play_game
from arena.report import print_report, write_report
from arena.results import summarize
from arena.tournament import (
    TournamentGame,
    TournamentPlan,
    make_plan,
    run_tournament,
    uneven_starts_warning,
    worker_count,
)
from arena.work import GAMES_WORK, TournamentWork
from batch import announce_stopping, open_executor
from board import Board, moves_to_string
from ecosystems.players import parse_spec
from engine.cli import with_mode
from engine.games import PlayedMove
from engine.players import OursPlayer
from settings import AgentSettings, SolverSettings, UsageError, load_settings
from terminal import progress

# --- tournament -----------------------------------------------------------------------------

DEFAULT_GAMES = 10  # per pairing


def tournament_command(args: argparse.Namespace, started: float) -> int:
    settings = load_settings(args.config)
    # The one place a tournament's time is read: an ``ours`` without one plays --time, else
    # the configured time per move, and carries it in its spec to the workers.
    seconds = settings.agent.seconds_per_move if args.time is None else args.time
    specs = [parse_spec(part, seconds=seconds) for part in args.players.split(",")
             if part.strip()]
    games = args.games
    if games is None:
        games = 2 * 7**args.opening_plies if args.every_opening else DEFAULT_GAMES
    plan = make_plan(specs, games, args.seed, settings.agent, settings.solver,
                     opening_plies=args.opening_plies, every_opening=args.every_opening)
    out_dir = _check_out_dir(args.out)
    work = TournamentWork(out_dir / GAMES_WORK) if out_dir is not None else None
    done: dict[int, TournamentGame] = {}
    if work is not None:
        plan, done = work.resume(plan, seed_given=args.seed is not None)
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

    with open_executor(worker_count(plan, args.workers), args.scheduler) as executor:
        if work is not None:
            work.begin(plan, _command_line(args, plan))
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
                        elapsed=time.monotonic() - start)

    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        print_report(summary)
    if out_dir is not None:
        written = write_report(summary, out_dir, _command_line(args, plan))
        print(f"wrote {', '.join(str(p) for p in written)}", file=sys.stderr)
        if work is not None:
            work.remove()
    return 0


def _check_out_dir(out: str | None) -> Path | None:
    """``--out`` as a directory we can write, checked before hours of games are played."""
    if out is None:
        return None
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise UsageError(f"--out {out}: exists and is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write there ({exc.strerror or exc})") from None
    return path


def _command_line(args: argparse.Namespace, plan: TournamentPlan) -> str:
    """The command that repeats this tournament (with its seed), for the report."""
    parts = ["python", "agent.py", "tournament", "--players", args.players,
             "--games", str(plan.games), "--seed", str(plan.seed)]
    if args.opening_plies:
        parts += ["--opening-plies", str(args.opening_plies)]
    if args.every_opening:
        parts += ["--every-opening"]
    if args.time is not None:
        parts += ["--time", f"{args.time:g}"]
    if args.workers is not None:
        parts += ["--workers", str(args.workers)]
    if args.scheduler is not None:
        parts += ["--scheduler", args.scheduler]
    if args.out is not None:
        parts += ["--out", args.out]
    if args.config is not None:
        parts += ["--config", args.config]
    return shlex.join(parts)


# --- play -----------------------------------------------------------------------------------

def play_command(args: argparse.Namespace, started: float) -> int:
    settings = load_settings(args.config)
    agent = with_mode(settings.agent, args.mode)
    seconds = agent.seconds_per_move if args.time is None else args.time
    return play_terminal(agent, seconds=seconds, human_first=args.first == "me",
                         stdin=sys.stdin, stdout=sys.stdout, solver=settings.solver)


def play_terminal(agent: AgentSettings, *, seconds: float, human_first: bool, stdin: TextIO,
                  stdout: TextIO, colour: bool | None = None,
                  solver: SolverSettings | None = None) -> int:
    """One game of a person against our agent in the terminal.

    ``agent`` and ``solver`` configure the engine (``solver`` None: the built-in defaults);
    ``seconds`` is the agent's time per move.
    Returns 0 when the game ends or the person quits (``q`` or end of input), 130 on Ctrl-C.
    """
    human = HumanPlayer(stdin, stdout, colour)

    def say(markup: str = "") -> None:
        human.say(markup)

    say("Loading the agent (the very first run compiles the search, which takes a while)...")
    ours = OursPlayer(agent, solver, seconds=seconds)
    you, it = disc(human_first), disc(not human_first)
    say(f"You play {you}, the agent plays {it} in {agent.mode} mode with {seconds:g} s per"
        f" move. {'You start.' if human_first else 'The agent starts.'}")
    say("Drop a disc by typing its column number; connect four to win.")

    def on_move(board: Board, move: PlayedMove) -> None:
        agent_moved = (move.side == 0) != human_first
        if agent_moved:
            detail = f"{move.seconds:.2f} s"
            if move.depth is not None:
                detail += f", depth {move.depth}, {move.source}, {move.mode} mode"
            say(f"The agent plays column {move.column} ({detail}).")
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
        return 130
    _announce(record, human_first, say)
    return 0


def _announce(record: PlayedGame, human_first: bool, say: Callable[..., None]) -> None:
    board = Board.from_moves(record.columns, one_based=False)
    last = record.moves[-1].column if record.moves else None
    say()
    say(render_board(board, last=last))
    human_side = 0 if human_first else 1
    if record.winner is None:
        say("Draw: the board is full.")
    elif record.winner == human_side:
        say("You win! Four in a row." if record.reason == FOUR
            else f"You win: {escape(record.detail)}.")
    else:
        say("The agent wins: four in a row." if record.reason == FOUR
            else f"You lose: {escape(record.detail)}.")
    say(f"Columns played: {' '.join(map(str, record.columns))}")
    say(f"As a move string for `agent.py analyze` (Pons' notation, 1-based):"
        f" {moves_to_string(record.columns)}")


__all__ = ["play_command", "play_terminal", "tournament_command"]
