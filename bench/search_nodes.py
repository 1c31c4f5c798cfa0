"""Nodes the heuristic search needs to reach a fixed depth: a count that does not depend on the
machine, to compare two versions of the search (run it in each checkout).

    python bench/search_nodes.py [--depth 9] [--per 40] [--json FILE]

For ``--per`` positions spread over each of four of Pons' sets (Middle-Easy, Middle-Medium,
Begin-Easy, Begin-Medium), iterative deepening to ``--depth`` with a fresh table of 2**20
entries per position and a clock that never moves (so that the node slices between clock
readings, and with them the count, are the same on every run).  Prints the total nodes per set.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board import Board  # noqa: E402
from search import TranspositionTable, iterative_deepening  # noqa: E402
from search.iterative import deepest  # noqa: E402

DATA = ROOT / "tests" / "data" / "pons"
SETS = {"middle-easy": "Test_L2_R1", "middle-medium": "Test_L2_R2", "begin-easy": "Test_L1_R1",
        "begin-medium": "Test_L1_R2"}


def total_nodes(file: str, depth: int, per: int) -> int:
    lines = [line for line in (DATA / file).read_text().splitlines() if line.strip()]
    total = 0
    for line in lines[:: max(1, len(lines) // per)][:per]:
        board = Board.from_moves(line.split()[0])
        result = deepest(iterative_deepening(board, 1e9, clock=lambda: 0.0, max_depth=depth,
                                             table=TranspositionTable(bits=20)))
        total += result.nodes
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=9)
    parser.add_argument("--per", type=int, default=40, metavar="N")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = parser.parse_args(argv)
    counts = {name: total_nodes(file, args.depth, args.per) for name, file in SETS.items()}
    for name, nodes in counts.items():
        print(f"{name:15s} {nodes:12,d} nodes to depth {args.depth} over {args.per} positions")
    if args.json:
        args.json.write_text(json.dumps({"depth": args.depth, "per": args.per, "nodes": counts},
                                        indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
