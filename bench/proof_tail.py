"""Where the hard proofs of 13-16 discs lie, and what dividing them among two threads would
give: node counts (exact, the same on any machine), not times.

    python bench/proof_tail.py [--discs 13-16] [--per 150] [--seed 7] [--budget 153000]
                               [--book] [--json FILE]

For ``--per`` positions per disc count, reached by random play as in ``proof_coverage.py``,
each question is asked of a fresh solver (a cleared table):

- ``lost``: "is it lost?" (is the score at most -1), ``won``: "is it won?" (is it above 0);
- ``sequence``: the engine's order, ``lost`` and then, unless lost, ``won`` (the nodes of the
  two questions added: the second starts on the first's table, so slightly fewer in fact);
- ``together``: both questions at once on two cores (the larger of the two, or ``lost``
  alone where it settles the position);
- for the won positions, ``root_split``: "is it won?" divided at the root between two
  threads, each taking the next column in the solver's order (most threats, centre first)
  and asking whether it wins, until one does (simulated from each column's proof size alone);
  ``cheapest_win``: the smallest proof of any winning column.

With ``--book`` the solver has the shipped book, as the engine's has: one disc past its
complete layers, its floor (``Solver.book_bounds``) may answer either question without a node;
``floor`` counts the positions whose outcome it settles (won, or a draw proven not lost).

It prints, by disc count and outcome, how many positions need more than ``--budget`` nodes
(153,000: 9 ms of the engine's 10 ms, at 17 million nodes a second, the solver's speed on these
positions on the project's machine) under each scheme.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.proof_coverage import random_positions  # noqa: E402
from board import Board, bits  # noqa: E402
from board.board import disc_range, disc_range_problem  # noqa: E402
from board.tactics import CELL_BITS, non_losing_moves, order_moves  # noqa: E402
from solver import Solver, core  # noqa: E402
from solver.book import load_book  # noqa: E402


def question(solver: Solver, board: Board, value: int) -> tuple[bool, int]:
    """Whether the score of ``board`` is at most ``value``, and the nodes, from a cold table."""
    solver.table.clear()
    before = solver.nodes
    answer = solver.is_at_most(board, value)
    assert answer is not None  # no deadline
    return answer, solver.nodes - before


def root_split(solver: Solver, board: Board, order: Any) -> tuple[int, int]:
    """The nodes until the first winning column is proven with two threads taking columns in
    the solver's order, and the cheapest winning column's proof."""
    candidates = int(non_losing_moves(board.position, board.mask))
    count = order_moves(board.position, board.mask, candidates, 0, order, 0)
    busy = [0, 0]
    first = cheapest = None
    for i in range(count):
        col = int(bits.lowest_col(int(order[0, i]) & CELL_BITS))
        wins, nodes = question(solver, board.play_unchecked(col), -1)
        thread = 0 if busy[0] <= busy[1] else 1
        busy[thread] += nodes
        if wins:
            first = busy[thread] if first is None else min(first, busy[thread])
            cheapest = nodes if cheapest is None else min(cheapest, nodes)
    assert first is not None and cheapest is not None  # the position is won
    return first, cheapest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--discs", default="13-16", metavar="A-B")
    parser.add_argument("--per", type=int, default=150, metavar="N")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--budget", type=int, default=153_000, metavar="NODES")
    parser.add_argument("--book", action="store_true",
                        help="give the solver the shipped book (its floor past the complete layers)")
    parser.add_argument("--json", type=Path, metavar="FILE")
    args = parser.parse_args(argv)
    discs_range = disc_range(args.discs)
    if discs_range is None:
        parser.error(disc_range_problem(args.discs))
    solver = Solver(24, book=load_book() if args.book else None)
    order = core.new_work()
    rng = random.Random(args.seed)
    over: dict[tuple[int, int], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for discs in discs_range:
        for board in random_positions(discs, args.per, rng):
            lost, lost_nodes = question(solver, board, -1)
            not_won, won_nodes = question(solver, board, 0)
            outcome = -1 if lost else (0 if not_won else 1)
            row = over[(discs, outcome)]
            row["positions"] += 1
            floor = solver.book_bounds(board)[0]
            row["floor"] += floor >= 1 or (floor >= 0 and outcome == 0)
            sequence = lost_nodes if lost else lost_nodes + won_nodes
            together = lost_nodes if lost else max(lost_nodes, won_nodes)
            row["sequence"] += sequence > args.budget
            row["together"] += together > args.budget
            if outcome == 1:
                row["won"] += won_nodes > args.budget
                split, cheapest = root_split(solver, board, order)
                row["root_split"] += split > args.budget
                row["cheapest_win"] += cheapest > args.budget
    names = ("positions", "floor", "sequence", "together", "won", "root_split", "cheapest_win")
    print(f"positions over {args.budget:,} nodes, by disc count and outcome")
    print(f"{'discs':>5} {'outcome':>7} " + " ".join(f"{name:>12}" for name in names))
    for (discs, outcome), row in sorted(over.items()):
        print(f"{discs:>5} {outcome:>7} " + " ".join(
            f"{row[name] if name in row or outcome == 1 else '':>12}" for name in names))
    if args.json:
        args.json.write_text(json.dumps({
            "discs": args.discs, "per": args.per, "seed": args.seed, "budget": args.budget,
            "book_complete_discs": load_book().complete_discs if args.book else None,
            "rows": [{"discs": d, "outcome": o, **row} for (d, o), row in sorted(over.items())],
        }, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
