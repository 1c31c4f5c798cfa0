"""The field's canonical benchmark: the empty board proven from nothing, beside Pons' solver.

    python bench/empty_board.py [--pons-binary PATH] [--at-once] [--table-bits 24]
                                [--json FILE]

Our solver proves the score of the empty board (1: the first player wins, with its last
disc) without the opening book, on one thread, from an empty table (``Solver(24)``, made for
the run), and reports its nodes, its time and its node rate.  With ``--pons-binary``, Pascal
Pons' C++ solver (built by the user from his repository, as for ``bench/solver_bench.py``: its
``main`` reads move strings on stdin, empties its table before each and prints ``moves score
nodes microseconds``) proves the same position in the same run, and the ratio of our time to
his is reported: the figure to quote, since both times move with the machine.

By default the two run in turn on one CPU (this process and his are held to it, as
``solver_bench.py`` does), ours first; ``--at-once`` runs them at the same time, each held to a
CPU of its own (ours on the first CPU this process may use, his on the second): the run takes
as long as the slower one (his: minutes), and both share the memory bus and the last-level
cache.  Either way, run it on a quiet machine and quote the load it reports (the load average
before and after, from ``os.getloadavg``).

Our solver searches on one thread: there is no two-thread figure to report (the run says so).
Exit code 0 when every score was right (1), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.solver_bench import WARM  # noqa: E402
from board import Board  # noqa: E402
from solver import Solver  # noqa: E402

EMPTY_BOARD_SCORE = 1  # the first player wins with its 21st disc, the last of the board


def cpu_model() -> str:
    """The processor's name (Linux), else what ``platform`` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def ours(table_bits: int) -> dict[str, Any]:
    """Our solver on the empty board: score, nodes and seconds (the table made empty first)."""
    solver = Solver(table_bits)  # no book
    solver.warm_up()
    solver.solve(WARM)  # (allocates the table: its memory is not the proof's time)
    solver.table.clear()
    start = time.perf_counter()
    solution = solver.solve(Board())
    seconds = time.perf_counter() - start
    assert solution is not None  # no deadline
    return {"score": solution.score, "nodes": solution.nodes, "seconds": seconds}


def start_pons(binary: Path, cpu: int | None) -> subprocess.Popen[str]:
    """Pons' solver on the empty board (an empty line), held to ``cpu`` if given."""
    process = subprocess.Popen([str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True)
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(process.pid, {cpu})
    assert process.stdin is not None
    process.stdin.write("\n")
    process.stdin.close()
    return process


def pons_result(process: subprocess.Popen[str], binary: Path) -> dict[str, Any]:
    """What his solver printed: ``moves score nodes microseconds`` (the moves empty)."""
    assert process.stdout is not None
    out = process.stdout.read()  # (his stdin was closed when he started)
    process.wait()
    fields = out.split()
    if process.returncode != 0 or len(fields) != 3:
        raise SystemExit(f"error: {binary} answered {out.strip()!r} (exit code"
                         f" {process.returncode}): expected 'score nodes microseconds'")
    return {"score": int(fields[0]), "nodes": int(fields[1]), "seconds": float(fields[2]) / 1e6}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pons-binary", type=Path, default=None, metavar="PATH",
                        help="Pons' C++ solver, run on the same position in the same run")
    parser.add_argument("--at-once", action="store_true",
                        help="run his solver at the same time as ours, on another CPU")
    parser.add_argument("--table-bits", type=int, default=24, metavar="B")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.pons_binary is not None and not os.access(args.pons_binary, os.X_OK):
        parser.error(f"--pons-binary {args.pons_binary}: not an executable file")
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if args.at_once and (args.pons_binary is None or len(cpus) < 2):
        parser.error("--at-once needs --pons-binary and two CPUs")
    if cpus:
        os.sched_setaffinity(0, {cpus[0]})  # (his process inherits it, unless --at-once)
    load_before = os.getloadavg()
    print(f"{cpu_model()}; ours on CPU {cpus[0] if cpus else '?'}", end="")
    pons_cpu = cpus[1] if args.at_once else None
    if args.pons_binary is not None:
        print(f", Pons' on CPU {pons_cpu if args.at_once else cpus[0] if cpus else '?'}"
              f" ({'at once' if args.at_once else 'in turn, after ours'})", end="")
    print(f"; load average {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}",
          flush=True)
    pons_process = start_pons(args.pons_binary, pons_cpu) if args.at_once else None
    result: dict[str, Any] = {"cpu": cpu_model(), "table_bits": args.table_bits,
                              "load_before": load_before, "at_once": args.at_once,
                              "ours": ours(args.table_bits)}
    mine = result["ours"]
    print(f"ours:  score {mine['score']}, {mine['nodes']:,} nodes in {mine['seconds']:.1f} s"
          f" ({mine['nodes'] / mine['seconds'] / 1e6:.1f} M nodes/s)", flush=True)
    scores = [mine["score"]]
    if args.pons_binary is not None:
        if pons_process is None:
            pons_process = start_pons(args.pons_binary, None)
        his = result["pons"] = pons_result(pons_process, args.pons_binary)
        scores.append(his["score"])
        result["ratio"] = mine["seconds"] / his["seconds"]
        result["node_ratio"] = mine["nodes"] / his["nodes"]
        print(f"Pons': score {his['score']}, {his['nodes']:,} nodes in {his['seconds']:.1f} s"
              f" ({his['nodes'] / his['seconds'] / 1e6:.1f} M nodes/s)")
        print(f"ours / Pons': time {result['ratio']:.3f}, nodes {result['node_ratio']:.3f}")
    result["load_after"] = os.getloadavg()
    print("two threads: not measured, our solver searches on one thread")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in result['load_after'])}")
    for score in scores:
        if score != EMPTY_BOARD_SCORE:
            print(f"WRONG score {score}, expected {EMPTY_BOARD_SCORE}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0 if all(score == EMPTY_BOARD_SCORE for score in scores) else 1


if __name__ == "__main__":
    sys.exit(main())
