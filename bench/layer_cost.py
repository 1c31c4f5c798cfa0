"""What solving a complete layer of the book costs: positions, and solver time on a sample.

    python bench/layer_cost.py [--discs 8-12] [--sample 1000] [--seed 7] [--table-bits 26]
                               [--json FILE]

For each disc count N it lists every position any play reaches with N discs, not over, one per
mirror pair (the positions ``python -m solver.make_book layers --discs N`` solves, listed by
``solver.make_book.layers.layers_up_to``: 13 discs, 14.1 million positions, in a few GB and
seconds), then solves ``--sample`` of
them drawn uniformly, as a generator's worker does (``Solver.best_move(weak=True)``, one solver
whose table is kept across the sample), and reports the nodes and the CPU seconds per position.

The sample's positions are not neighbours in key order, as the generator's chunks are, so its
tables share less: the generator's own work file (``nodes`` per record) is the closer figure
where it exists.  Node counts are exact; seconds are CPU time of this process
(``time.thread_time``), which a busy machine still inflates through its caches.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board.board import disc_range, disc_range_problem  # noqa: E402
from solver import Solver  # noqa: E402
from solver.book import decode_key  # noqa: E402
from solver.make_book.layers import layers_up_to  # noqa: E402


def sample_cost(keys: np.ndarray, count: int, rng: random.Random,
                table_bits: int) -> dict[str, Any]:
    """Nodes and CPU seconds of ``best_move(weak=True)`` on ``count`` positions drawn from
    ``keys``, one solver for all."""
    chosen = sorted(int(keys[i]) for i in rng.sample(range(keys.size), min(count, keys.size)))
    solver = Solver(table_bits)
    solver.warm_up()
    nodes, seconds = [], []
    for key in chosen:
        start = time.thread_time()
        move = solver.best_move(decode_key(key), weak=True)
        seconds.append(time.thread_time() - start)
        assert move is not None  # no deadline
        nodes.append(move.nodes)
    ordered = sorted(seconds)
    return {"sample": len(chosen), "mean_nodes": statistics.fmean(nodes),
            "median_nodes": statistics.median(nodes), "mean_seconds": statistics.fmean(seconds),
            "median_seconds": statistics.median(seconds),
            "p99_seconds": ordered[int(0.99 * (len(ordered) - 1))], "max_seconds": ordered[-1],
            "mnodes_per_second": sum(nodes) / sum(seconds) / 1e6}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--discs", default="8-12", metavar="A-B")
    parser.add_argument("--sample", type=int, default=1000, metavar="N")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--table-bits", type=int, default=26, metavar="B")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = parser.parse_args(argv)
    wanted = disc_range(args.discs)
    if wanted is None:
        parser.error(disc_range_problem(args.discs))
    found = {discs: layer.keys for discs, layer in enumerate(layers_up_to(max(wanted)))}
    rng = random.Random(args.seed)
    rows = []
    print(f"{'discs':>5}{'positions':>11}{'up to here':>12}{'mean nodes':>12}{'mean s':>9}"
          f"{'median s':>10}{'p99 s':>8}{'max s':>8}{'layer CPU h':>12}", flush=True)
    for discs in wanted:
        row: dict[str, Any] = {"discs": discs, "positions": int(found[discs].size),
                               "up_to_here": int(sum(found[d].size for d in range(discs + 1)))}
        if args.sample > 0:
            row.update(sample_cost(found[discs], args.sample, rng, args.table_bits))
            row["layer_cpu_hours"] = row["positions"] * row["mean_seconds"] / 3600
        rows.append(row)
        cost = (f"{row['mean_nodes']:>12.0f}{row['mean_seconds']:>9.4f}"
                f"{row['median_seconds']:>10.4f}{row['p99_seconds']:>8.3f}"
                f"{row['max_seconds']:>8.3f}{row['layer_cpu_hours']:>12.1f}"
                if args.sample > 0 else "")
        print(f"{discs:>5}{row['positions']:>11,}{row['up_to_here']:>12,}{cost}", flush=True)
    if args.json:
        args.json.write_text(json.dumps({"seed": args.seed, "table_bits": args.table_bits,
                                         "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
