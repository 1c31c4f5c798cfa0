"""Positions labelled with their game-theoretic outcome by our own solver: the data the fitted
heuristics (``windows_tuned``, ``learned``) are trained on.

    python -m training.label [--games N] [--seed S] [--out FILE] [--seconds S]
                             [--discs A-B] [--per-game K] [--workers K | --scheduler ADDRESS]

Games are played at varied strengths (uniformly random, or the course search at a small fixed
depth with some random moves mixed in, so that both balanced and lopsided positions appear);
from each game ``--per-game`` positions (default 2) with ``--discs`` discs (default 6-30) are
kept, deduplicated up to mirror symmetry, and solved for their outcome from the side to move's
view (1 win, 0 draw, -1 loss): by the book up to its complete layer, by the solver beyond.  A
position the solver does not prove within ``--seconds`` is dropped (rare from 9 discs on; said
in the summary).

The games are played and their positions solved by the ``batch`` executor: ``--workers K``
local processes (default one per core; 1: this process), or the workers of a Dask cluster with
``--scheduler ADDRESS``.  Each worker keeps one solver and one search table for all its games.

The work file (``--out``, default ``training/data/labels.jsonl``: one ``{"game": g, "moves":
"4453", "outcome": 1}`` per line, moves 1-based as in Pons' notation) is appended to as games
come back, in game order, and is the resume point: a run starts at the game after the last one
recorded, and game ``g``'s moves depend only on ``--seed`` and ``g`` (and on ``--discs``'s
upper end, where play stops), so an interrupted run, restarted with the same options, goes on
where it stopped, and the file is the same whatever ran the games.
``training/data/labels-late.jsonl`` was made with ``--seed 2 --discs 14-32 --per-game 4``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from batch import (
    BatchExecutor,
    announce_stopping,
    open_executor,
    worker_state,
)
from batch.lines import append_lines
from board import Board
from board.board import disc_range, disc_range_problem, moves_to_string
from board.keys import canonical_key
from board.tactics import winning_moves
from commandline import add_executor_arguments
from search import TranspositionTable, deepest, iterative_deepening
from settings import UsageError
from solver import Solver
from solver.book import load_book
from terminal import progress
from vocabulary import ExitStatus

DATA_DIR = Path(__file__).resolve().parent / "data"
DEFAULT_LABELS = DATA_DIR / "labels.jsonl"
MIN_DISCS = 6
MAX_DISCS = 30
PER_GAME = 2

# (search depth, share of random moves); depth 0 is uniformly random play.
STRENGTHS = ((0, 1.0), (2, 0.3), (4, 0.2), (6, 0.1), (8, 0.05))


@dataclass(frozen=True, slots=True)
class Labelled:
    game: int
    moves: str  # 1-based columns
    outcome: int  # for the side to move: 1 win, 0 draw, -1 loss


def play_game(game: int, seed: int, table: TranspositionTable,
              max_discs: int = MAX_DISCS) -> list[int]:
    """The 0-based columns of game ``game`` (up to ``max_discs`` of them): a function of
    ``seed``, ``game`` and ``max_discs`` only."""
    rng = random.Random(seed * 1_000_003 + game)
    table.clear()  # what an earlier game left in it would change this game's moves
    depths = [rng.choice(STRENGTHS) for _ in range(2)]  # one strength per side
    board = Board()
    columns: list[int] = []
    while board.moves < max_discs and not board.is_over():
        depth, noise = depths[board.moves % 2]
        if depth == 0 or rng.random() < noise:
            col = rng.choice(board.legal_moves())
        else:
            col = deepest(iterative_deepening(board, float("inf"), max_depth=depth,
                                              table=table)).column
        columns.append(col)
        board = board.play_unchecked(col)
    return columns


def sample_positions(columns: list[int], rng: random.Random,
                     discs: range = range(MIN_DISCS, MAX_DISCS + 1),
                     per_game: int = PER_GAME) -> Iterator[Board]:
    """Up to ``per_game`` positions of the game with a number of discs in ``discs``, not
    over, no win at once."""
    boards = []
    board = Board()
    for col in columns:
        board = board.play_unchecked(col)
        if board.is_over():
            break
        if board.moves in discs and not winning_moves(board.position, board.mask):
            boards.append(board)
    rng.shuffle(boards)
    yield from boards[:per_game]


def read_labels(path: Path) -> tuple[list[Labelled], int]:
    """The labelled positions of a work file and the number of the last game it records (-1
    for none; no file is an empty one).  A game that gave nothing new is a row without
    ``moves``; a torn last line (a run killed while writing) is skipped."""
    if not path.exists():
        return [], -1
    found = []
    last = -1
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
            last = max(last, int(row["game"]))
            if "moves" in row:
                found.append(Labelled(int(row["game"]), str(row["moves"]), int(row["outcome"])))
        except (ValueError, KeyError, TypeError):
            continue
    return found, last


def _labeller() -> tuple[Solver, TranspositionTable]:
    return Solver(book=load_book()), TranspositionTable(bits=18)


def label_game(game: int, seed: int, discs: range, per_game: int, seconds: float
               ) -> list[tuple[str, int | None]]:
    """Play game ``game`` and solve the positions kept from it (in a worker): for each, its
    move string and its outcome, None when the solver did not prove it within ``seconds``."""
    solver, table = worker_state("label", None, _labeller)  # kept for the worker's next games
    columns = play_game(game, seed, table, discs.stop - 1)
    rng = random.Random(seed * 7_919 + game)
    found: list[tuple[str, int | None]] = []
    for board in sample_positions(columns, rng, discs, per_game):
        solution = solver.solve(board, weak=True, deadline=time.perf_counter() + seconds)
        found.append((moves_to_string(columns[:board.moves]),
                      None if solution is None else solution.score))
    return found


def label(games: int, seed: int, out: Path, seconds: float,
          discs: range = range(MIN_DISCS, MAX_DISCS + 1), per_game: int = PER_GAME,
          executor: BatchExecutor | None = None,
          progress: Callable[[int], None] | None = None) -> tuple[int, int]:
    """Play and label games until ``games`` are recorded in ``out``, keeping up to
    ``per_game`` positions of each with a number of discs in ``discs``; returns (added,
    dropped).

    The games run in ``executor``'s workers (default: this process) and come back in any
    order; they are written in game order (a game that finishes early waits for the ones
    before it), each position the first time it appears, so the file is the same whoever
    played which game.  ``progress(1)`` is called for each game back.
    """
    done, last = read_labels(out)
    seen = {canonical_key(Board.from_moves(row.moves))[0] for row in done}
    waiting: dict[int, list[tuple[str, int | None]]] = {}
    next_game = last + 1
    added = dropped = 0

    def finished(args: tuple[Any, ...], found: list[tuple[str, int | None]]) -> None:
        nonlocal next_game, added, dropped
        waiting[args[0]] = found
        while next_game in waiting:
            rows = []
            for moves, outcome in waiting.pop(next_game):
                key = canonical_key(Board.from_moves(moves))[0]
                if key in seen:
                    continue
                seen.add(key)
                if outcome is None:
                    dropped += 1
                else:
                    rows.append(json.dumps({"game": next_game, "moves": moves,
                                            "outcome": outcome}))
            added += len(rows)
            # A game with nothing new still records its number, so a resume skips it.
            append_lines(out, rows or [json.dumps({"game": next_game})])
            next_game += 1
        if progress is not None:
            progress(1)

    tasks = ((game, seed, discs, per_game, seconds) for game in range(last + 1, games))
    if executor is None:
        with open_executor(1) as here:
            here.run(label_game, tasks, finished)
    else:
        executor.run(label_game, tasks, finished, on_stopping=announce_stopping("game"))
    return added, dropped


def main(argv: list[str] | None = None) -> ExitStatus:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=DEFAULT_LABELS)
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="the solver's time per position (default 3)")
    parser.add_argument("--discs", default=f"{MIN_DISCS}-{MAX_DISCS}", metavar="A-B",
                        help=f"the positions' disc counts (default {MIN_DISCS}-{MAX_DISCS})")
    parser.add_argument("--per-game", type=int, default=PER_GAME, metavar="K",
                        help=f"positions kept per game (default {PER_GAME})")
    add_executor_arguments(parser)
    args = parser.parse_args(argv)
    discs = disc_range(args.discs)
    problem = None
    if discs is None:
        problem = disc_range_problem(args.discs)
    elif args.per_game < 1:
        problem = f"--per-game must be at least 1, not {args.per_game}"
    elif not 0 < args.seconds < float("inf"):  # refuses nan too
        problem = f"--seconds must be a positive number, not {args.seconds:g}"
    if problem is not None or discs is None:
        print(f"error: {problem}", file=sys.stderr)
        return ExitStatus.USAGE
    left = max(0, args.games - read_labels(args.out)[1] - 1)
    try:
        with open_executor(args.workers, args.scheduler) as executor, \
                progress(left, "games") as advance:
            added, dropped = label(args.games, args.seed, args.out, args.seconds, discs,
                                   args.per_game, executor, advance)
    except UsageError as exc:  # a cluster that cannot be reached, workers lost
        print(f"error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    except KeyboardInterrupt:
        print(f"interrupted: the games labelled are in {args.out}; the same command goes on",
              file=sys.stderr)
        return ExitStatus.INTERRUPTED
    print(f"{added} rows added to {args.out}; {dropped} positions not proven in time, dropped")
    return ExitStatus.OK


if __name__ == "__main__":
    sys.exit(main())
