"""Speed of the heuristic search: nodes per second and depth reached within 0.1 s, 1 s and 5 s.

    python bench/search_bench.py [--positions N] [--budgets 0.1,1,5] [--heuristic NAME] [--json FILE]

Measures, in one run:

1. the compiled iterative-deepening search (``windows5000`` at the leaves) from the empty board
   and from ``N`` positions of each of three of Pons' test sets, per time budget: the depth
   completed and the nodes per second;
2. two references searching the same positions to a fixed depth (one negamax call each, the
   table cleared in between, only the search timed), reported as ratios of nodes per second:
   the same search run un-compiled (``NUMBA_DISABLE_JIT=1``, in a child process) and a plain
   alpha-beta over the course's 6x7 NumPy grid that copies the grid per node, as the seed
   solutions did;
3. ``agent.py move "4453" --time 1`` in a fresh process, in the config's mode (``course`` as
   shipped: the search alone): wall time in total, numba's on-disk cache warm as after the
   first run.  The budget counts from when its search starts; the wall time adds the start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board import Board  # noqa: E402
from search import TranspositionTable, iterative_deepening  # noqa: E402
from search.iterative import deepest  # noqa: E402
from tests import reference  # noqa: E402  (the naive grid rules the tests check against)

# The sets whose positions the search cannot prove at once (the "Easy" ones are quick wins).
SETS = {"Begin-Hard": "Test_L1_R3", "Begin-Medium": "Test_L1_R2", "Middle-Medium": "Test_L2_R2"}
DATA = ROOT / "tests" / "data" / "pons"


def sample_positions(n: int) -> dict[str, list[str]]:
    result = {}
    for name, file in SETS.items():
        lines = (DATA / file).read_text().split("\n")
        step = max(1, len(lines) // n)
        result[name] = [line.split()[0] for line in lines[::step][:n] if line.strip()]
    return result


def timed_search(
    board: Board, seconds: float, heuristic: str, table: TranspositionTable
) -> tuple[int, int, float, bool]:
    """(depth completed, nodes, seconds, proven) of one search with a fresh table."""
    table.clear()
    start = time.perf_counter()
    last = deepest(iterative_deepening(board, start + seconds, heuristic=heuristic, table=table))
    return last.depth, last.nodes, time.perf_counter() - start, last.proven


# --- reference 1: the seed solutions' approach, alpha-beta over a copied NumPy grid -------------

def grid_score(grid: np.ndarray, player: int) -> int:
    """``windows5000`` over the grid, cell by cell, as the seed solutions computed it."""
    return reference.windows5000(grid, player)  # type: ignore[arg-type]


def grid_alphabeta(
    grid: np.ndarray, player: int, depth: int, alpha: float, beta: float, counter: list[int]
) -> float:
    counter[0] += 1
    if depth == 0:
        return grid_score(grid, player)
    best = -float("inf")
    for col in (3, 2, 4, 1, 5, 0, 6):
        if grid[0, col] != 0:
            continue
        child = grid.copy()
        row = max(r for r in range(6) if child[r, col] == 0)
        child[row, col] = player
        if reference.has_four(child, player):  # type: ignore[arg-type]
            return 1e9
        value = -grid_alphabeta(child, -player, depth - 1, -beta, -alpha, counter)
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best if best != -float("inf") else 0.0


def grid_rate(positions: list[str], depth: int) -> float:
    nodes = [0]
    start = time.perf_counter()
    for moves in positions:
        board = Board.from_moves(moves)
        grid_alphabeta(board.to_grid(1).astype(np.int64), 1, depth, -float("inf"), float("inf"), nodes)
    return nodes[0] / (time.perf_counter() - start)


# --- reference 2: the same search, un-compiled -----------------------------------------------

FIXED_DEPTH_CODE = """
import json, sys, time
from board import Board
from search import TranspositionTable
from heuristics import heuristic_weights
from search.negamax import INF, negamax, new_scratch
from timecontrol.counters import new_counters
positions, depth = json.loads(sys.argv[1]), int(sys.argv[2])
table, scratch = TranspositionTable(20), new_scratch()
NO_WEIGHTS = heuristic_weights("windows5000")

def run(moves, depth):
    b = Board.from_moves(moves)
    counters = new_counters(1 << 62)
    negamax(b.position, b.mask, b.moves, depth, -INF, INF, 0, NO_WEIGHTS, True, table.keys, table.data,
            scratch, counters)
    return int(counters[0])

run("44", 2)  # load the compiled code before the clock starts
nodes = seconds = 0.0
for moves in positions:
    table.clear()
    start = time.perf_counter()
    nodes += run(moves, depth)
    seconds += time.perf_counter() - start
print(json.dumps({"nodes": nodes, "seconds": seconds}))
"""


def fixed_depth_rate(positions: list[str], depth: int, jit: bool) -> float:
    env = dict(os.environ)
    if not jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", FIXED_DEPTH_CODE, json.dumps(positions), str(depth)],
        env=env, cwd=ROOT, capture_output=True, text=True, check=True,
    )
    figures = json.loads(out.stdout)
    return figures["nodes"] / figures["seconds"]


def fresh_process_move(seconds: float) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, str(ROOT / "agent.py"), "move", "4453", "--time", str(seconds), "--json"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=5, help="positions per test set")
    parser.add_argument("--budgets", default="0.1,1,5", help="comma-separated seconds")
    parser.add_argument("--heuristic", default="windows5000")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the figures here")
    args = parser.parse_args()
    budgets = [float(b) for b in args.budgets.split(",")]
    table = TranspositionTable(22)
    timed_search(Board(), 0.05, args.heuristic, table)  # load the compiled code first
    figures: dict[str, object] = {"budgets": budgets}

    groups = {"empty board": [""], **sample_positions(args.positions)}
    rows = []
    for group, positions in groups.items():
        for budget in budgets:
            runs = [timed_search(Board.from_moves(m), budget, args.heuristic, table) for m in positions]
            # A proven position stops early: its depth says nothing about speed.
            open_runs = [r for r in runs if not r[3]] or runs
            depths = [r[0] for r in open_runs]
            rate = sum(r[1] for r in open_runs) / sum(r[2] for r in open_runs)
            rows.append({
                "group": group, "budget": budget, "positions": len(positions),
                "proven": sum(r[3] for r in runs),
                "depth_min": min(depths), "depth_median": statistics.median(depths),
                "mnps": rate / 1e6,
            })
    figures["search"] = rows
    print("depth and speed over the positions the search did not prove (proven: solved early)")
    print(f"{'positions':<16}{'budget s':>9}{'n':>4}{'proven':>7}{'depth min':>10}{'depth med':>10}"
          f"{'M nodes/s':>11}")
    for r in rows:
        print(f"{r['group']:<16}{r['budget']:>9g}{r['positions']:>4}{r['proven']:>7}{r['depth_min']:>10}"
              f"{r['depth_median']:>10g}{r['mnps']:>11.2f}")

    ref_positions = ["", *[p for ps in sample_positions(3).values() for p in ps]]
    compiled = fixed_depth_rate(ref_positions, 10, jit=True)
    uncompiled = fixed_depth_rate(ref_positions, 5, jit=False)
    grid = grid_rate(ref_positions, 3)
    figures["reference"] = {
        "compiled_nps": compiled, "uncompiled_nps": uncompiled, "grid_nps": grid,
        "speedup_vs_uncompiled": compiled / uncompiled, "speedup_vs_grid": compiled / grid,
    }
    print()
    print(f"fixed-depth search, {len(ref_positions)} positions:")
    print(f"  compiled (depth 10)         {compiled / 1e6:9.2f} M nodes/s")
    print(f"  same code un-compiled (5)   {uncompiled / 1e6:9.4f} M nodes/s   "
          f"compiled is {compiled / uncompiled:,.0f}x faster")
    print(f"  seed-style NumPy grid (3)   {grid / 1e6:9.4f} M nodes/s   "
          f"compiled is {compiled / grid:,.0f}x faster")

    walls = [fresh_process_move(1.0) for _ in range(3)]
    figures["fresh_process_move_1s_wall"] = walls
    print()
    print(f"agent.py move \"4453\" --time 1 in a fresh process: wall {min(walls):.2f}-{max(walls):.2f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
