"""How often the exact solver proves a position's outcome in a short time, by disc count.

    python bench/proof_coverage.py [--discs 4-20] [--per 50] [--seconds 0.5] [--seed 1]
                                   [--book] [--table-bits B] [--json FILE]

For each disc count, ``--per`` positions reached by uniformly random play (not over, and the
side to move cannot win at once: those are trivial), each solved for its outcome (win, draw or
loss: ``Solver.solve(weak=True)``) from a cold table (cleared before each position, as a fresh
engine has it at worst) within ``--seconds``.  Reports the share proven and the mean time of
the proofs, by disc count.  With ``--book`` the shipped book's complete layers bound the
search (positions with at most that many discs are then proven at once).

This is the figure behind perfect play in strongest mode: a position the solver cannot prove
in its share of a move is left to the heuristic search.  Run it on a quiet machine: the share
depends on the speed of the core.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board import Board  # noqa: E402
from board.board import disc_range, disc_range_problem  # noqa: E402
from board.tactics import winning_moves  # noqa: E402
from solver import Solver  # noqa: E402
from solver.book import load_book  # noqa: E402


def random_positions(discs: int, count: int, rng: random.Random) -> list[Board]:
    """``count`` distinct positions of ``discs`` discs reached by random play, not over and
    without a win at once for the side to move."""
    found: dict[int, Board] = {}
    while len(found) < count:
        board = Board()
        while board.moves < discs and not board.is_over():
            board = board.play_unchecked(rng.choice(board.legal_moves()))
        if board.moves == discs and not board.is_over() and not winning_moves(board.position,
                                                                               board.mask):
            found.setdefault(board.key, board)
    return list(found.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--discs", default="4-20", metavar="A-B")
    parser.add_argument("--per", type=int, default=50, metavar="N")
    parser.add_argument("--seconds", type=float, default=0.5, metavar="S")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--table-bits", type=int, default=24, metavar="B")
    parser.add_argument("--book", action="store_true", help="bound the search by the book")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = parser.parse_args(argv)
    disc_counts = disc_range(args.discs)
    if disc_counts is None:
        parser.error(disc_range_problem(args.discs))
    rng = random.Random(args.seed)
    solver = Solver(args.table_bits, book=load_book() if args.book else None)
    solver.warm_up()  # load the compiled code
    rows = []
    print(f"{'discs':>5}{'positions':>10}{'proven':>8}{'share':>8}{'mean s (proven)':>17}")
    for discs in disc_counts:
        times = []
        proven = 0
        positions = random_positions(discs, args.per, rng)
        for board in positions:
            solver.table.clear()
            start = time.perf_counter()
            solution = solver.solve(board, weak=True, deadline=start + args.seconds)
            if solution is not None:
                proven += 1
                times.append(time.perf_counter() - start)
        row = {"discs": discs, "positions": len(positions), "proven": proven,
               "share": proven / len(positions),
               "mean_seconds_proven": statistics.fmean(times) if times else None}
        rows.append(row)
        mean = f"{row['mean_seconds_proven']:.3f}" if times else "-"
        print(f"{discs:>5}{len(positions):>10}{proven:>8}{row['share']:>8.0%}{mean:>17}",
              flush=True)
    if args.json:
        args.json.write_text(json.dumps({"seconds": args.seconds, "seed": args.seed,
                                         "book": args.book, "table_bits": args.table_bits,
                                         "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
