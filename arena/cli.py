"""``agent.py tournament`` and ``agent.py play``: matches between agents, and a person against ours."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from arena.human import HumanPlayer, disc, render_board, use_colour
from arena.match import FOUR, GameAbandoned, GameRecord, MoveRecord, play_game
from arena.players import OursPlayer, PlayerSpecError, check_seconds, parse_spec
from arena.progress import ProgressBar
from arena.report import text_report, write_report
from arena.results import summarize
from arena.tournament import (
    ArenaError,
    GameOutcome,
    make_plan,
    run_tournament,
    uneven_starts_warning,
    worker_count,
)
from board import Board, moves_to_string
from settings import AgentSettings, SolverSettings, load_settings

USER_ERRORS = (PlayerSpecError, ArenaError)


def _check_time(value: float | None) -> None:
    if value is not None:
        check_seconds(value, "--time")


# --- tournament -----------------------------------------------------------------------------

def tournament_command(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    _check_time(args.time)
    specs = [parse_spec(part, seconds=args.time) for part in args.players.split(",")
             if part.strip()]
    plan = make_plan(specs, args.games, args.seed, settings.agent, settings.solver)
    workers = worker_count(plan, args.workers)
    out_dir = _check_out_dir(args.out)

    warning = uneven_starts_warning(plan.games)
    if warning:
        print(warning, file=sys.stderr)
    bar = ProgressBar(plan.total_games, sys.stderr)
    bar.update(0)

    def progress(done: int, _total: int, _outcome: GameOutcome) -> None:
        bar.update(done)

    start = time.monotonic()
    outcomes = run_tournament(plan, workers, progress)
    summary = summarize(plan, outcomes, workers=workers, elapsed=time.monotonic() - start)

    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        print(text_report(summary))
    if out_dir is not None:
        command = _command_line(args, plan.seed)
        written = write_report(summary, out_dir, command)
        print(f"wrote {', '.join(str(p) for p in written)}", file=sys.stderr)
    return 0


def _check_out_dir(out: str | None) -> Path | None:
    """``--out`` as a directory we can write, checked before hours of games are played."""
    if out is None:
        return None
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ArenaError(f"--out {out}: exists and is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ArenaError(f"--out {out}: cannot write there ({exc.strerror or exc})") from None
    return path


def _command_line(args: argparse.Namespace, seed: int) -> str:
    """The command that repeats this tournament (with its seed), for the report."""
    parts = ["python", "agent.py", "tournament", "--players", args.players,
             "--games", str(args.games), "--seed", str(seed)]
    if args.time is not None:
        parts += ["--time", f"{args.time:g}"]
    if args.workers is not None:
        parts += ["--workers", str(args.workers)]
    if args.out is not None:
        parts += ["--out", args.out]
    if args.config is not None:
        parts += ["--config", args.config]
    return shlex.join(parts)


# --- play -----------------------------------------------------------------------------------

def play_command(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    _check_time(args.time)
    agent = settings.agent
    if args.time is not None:
        agent = replace(agent, seconds_per_move=args.time)
    return play_terminal(agent, human_first=args.first == "me", stdin=sys.stdin,
                         stdout=sys.stdout, solver=settings.solver)


def play_terminal(agent: AgentSettings, *, human_first: bool, stdin: TextIO, stdout: TextIO,
                  colour: bool | None = None, solver: SolverSettings | None = None) -> int:
    """One game of a person against our agent in the terminal.

    ``agent`` and ``solver`` configure the engine (``solver`` None: the built-in defaults).
    Returns 0 when the game ends or the person quits (``q`` or end of input), 130 on Ctrl-C.
    """
    colour = use_colour(stdout) if colour is None else colour

    def say(text: str = "") -> None:
        stdout.write(text + "\n")
        stdout.flush()

    say("Loading the agent (the very first run compiles the search, which takes a while)...")
    ours = OursPlayer(agent, solver)
    human = HumanPlayer(stdin, stdout, colour)
    you, it = disc(human_first, colour), disc(not human_first, colour)
    say(f"You play {you}, the agent plays {it} with {agent.seconds_per_move:g} s per move. "
        f"{'You start.' if human_first else 'The agent starts.'}")
    say("Drop a disc by typing its column number; connect four to win.")

    def on_move(board: Board, move: MoveRecord) -> None:
        agent_moved = (move.side == 0) != human_first
        if agent_moved:
            detail = f"{move.seconds:.2f} s"
            if move.depth is not None:
                detail += f", depth {move.depth}, {move.source}"
            say(f"The agent plays column {move.column + 1} ({detail}).")
        elif not board.is_over():
            say(f"The agent is thinking (up to {agent.seconds_per_move:g} s)...")

    if not human_first:
        say(f"The agent is thinking (up to {agent.seconds_per_move:g} s)...")
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
    _announce(record, human_first, colour, say)
    return 0


def _announce(record: GameRecord, human_first: bool, colour: bool, say: Callable[..., None]) -> None:
    board = Board.from_moves(record.columns, one_based=False)
    last = record.moves[-1].column if record.moves else None
    say()
    say(render_board(board, colour=colour, last=last))
    human_side = 0 if human_first else 1
    if record.winner is None:
        say("Draw: the board is full.")
    elif record.winner == human_side:
        say("You win! Four in a row." if record.reason == FOUR else f"You win: {record.detail}.")
    else:
        say("The agent wins: four in a row." if record.reason == FOUR
            else f"You lose: {record.detail}.")
    say(f"Moves (1-based columns, for `agent.py analyze`): {moves_to_string(record.columns)}")


__all__ = ["USER_ERRORS", "play_command", "play_terminal", "tournament_command"]
