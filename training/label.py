"""Positions labelled with their game-theoretic outcome by our own solver: the data the fitted
heuristics (``windows_tuned``, ``learned``) are trained on.

    python -m training.label [--games N] [--seed S] [--out FILE] [--seconds S]
                             [--discs A-B] [--per-game K]

Games are played at varied strengths (uniformly random, or the course search at a small fixed
depth with some random moves mixed in, so that both balanced and lopsided positions appear);
from each game ``--per-game`` positions (default 2) with ``--discs`` discs (default 6-30) are
kept, deduplicated up to mirror symmetry, and solved for their outcome from the side to move's
view (1 win, 0 draw, -1 loss): by the book up to its complete layer, by the solver beyond.  A
position the solver does not prove within ``--seconds`` is dropped (rare from 9 discs on; said
in the summary).

The work file (``--out``, default ``training/data/labels.jsonl``: one ``{"game": g, "moves":
"4453", "outcome": 1}`` per line, moves 1-based as in Pons' notation) is appended to as
positions are solved and is the resume point: a run starts at the game after the last one
recorded, and game ``g``'s moves depend only on ``--seed`` and ``g`` (and on ``--discs``'s
upper end, where play stops), so an interrupted run, restarted with the same options, goes on
where it stopped.  ``training/data/labels-late.jsonl`` was made with ``--seed 2 --discs 14-32
--per-game 4``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from board import Board
from board.board import disc_range, disc_range_problem, moves_to_string
from board.keys import canonical_key
from board.tactics import winning_moves
from search import TranspositionTable, deepest, iterative_deepening
from solver import Solver
from solver.book import load_book

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


def _drop_torn_line(path: Path) -> None:
    """Cut a last line without its newline (a run killed while writing it), so that the rows
    appended next start on a line of their own."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)


def label(games: int, seed: int, out: Path, seconds: float,
          discs: range = range(MIN_DISCS, MAX_DISCS + 1),
          per_game: int = PER_GAME) -> tuple[int, int]:
    """Play and label games until ``games`` are recorded in ``out``, keeping up to
    ``per_game`` positions of each with a number of discs in ``discs``; returns (added,
    dropped)."""
    _drop_torn_line(out)
    done, last = read_labels(out)
    seen = {canonical_key(Board.from_moves(row.moves))[0] for row in done}
    start = last + 1
    book = load_book()
    solver = Solver(book=book)
    table = TranspositionTable(bits=18)
    added = dropped = 0
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as work:
        for game in range(start, games):
            columns = play_game(game, seed, table, discs.stop - 1)
            rng = random.Random(seed * 7_919 + game)
            rows = []
            for board in sample_positions(columns, rng, discs, per_game):
                key = canonical_key(board)[0]
                if key in seen:
                    continue
                seen.add(key)
                solution = solver.solve(board, weak=True,
                                        deadline=time.perf_counter() + seconds)
                if solution is None:
                    dropped += 1
                    continue
                moves = moves_to_string(columns[:board.moves])
                rows.append(json.dumps({"game": game, "moves": moves,
                                        "outcome": solution.score}))
            # A game with nothing new still records its number, so a resume skips it.
            if not rows:
                rows.append(json.dumps({"game": game}))
            work.write("\n".join(rows) + "\n")
            work.flush()
            added += sum('"moves"' in row for row in rows)
            if game % 500 == 0:
                print(f"game {game}: {len(seen)} positions", file=sys.stderr, flush=True)
    return added, dropped


def main(argv: list[str] | None = None) -> int:
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
        return 2
    added, dropped = label(args.games, args.seed, args.out, args.seconds, discs, args.per_game)
    print(f"{added} rows added to {args.out}; {dropped} positions not proven in time, dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
