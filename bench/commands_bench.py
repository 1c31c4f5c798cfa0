"""What a command costs before it does its work: the wall time and the peak memory of
``agent.py`` commands in fresh processes, beside a bare interpreter's start in the same run.

    python bench/commands_bench.py [--runs 5] [--cpu N] [--json FILE]

Each row is the median of ``--runs`` fresh processes (numba's cache warm: one unmeasured run
of each command first), the rows interleaved within each repetition so that a change in the
machine's load touches them all:

- ``python``: the interpreter running an empty program, the reference the others are a
  multiple of;
- ``--help`` and each command's ``--help`` (the slowest of them is reported, and which);
- ``move "" --time 1 --json`` in course and in strongest mode, and ``analyze 4453 --time 1
  --json``: their wall time and their ``startup_seconds`` (from the command's start to its
  search's, as the move reports it: what ``--time`` does not count);
- ``peak_mb``: the process's peak resident memory (``VmHWM``, which counts this process
  alone; a child's ``ru_maxrss`` would count the pages of its parent at the fork).

``--cpu N`` pins every process to CPU N (``os.sched_setaffinity``), the default CPU 1 when
there are two or more.  Timing figures of a shared machine are noisy: compare within a run.
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
AGENT = str(ROOT / "agent.py")

# Runs its arguments as a program in this process and prints its peak resident memory last.
_PEAK_WRAPPER = """
import runpy, sys
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
finally:
    print(next(line for line in open("/proc/self/status") if line.startswith("VmHWM")),
          file=sys.stderr)
"""


def peak_run(argv: list[str], cpu: int | None = None) -> tuple[float, float, str]:
    """``python ARGV`` in a fresh process: its wall time (s), its peak resident memory (MB) and
    its standard output.  Exits with an error naming the command if it fails."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _PEAK_WRAPPER, *argv], cwd=ROOT,
                          capture_output=True, text=True, check=False,
                          preexec_fn=None if cpu is None else lambda: os.sched_setaffinity(0, {cpu}))
    wall = time.perf_counter() - start
    lines = done.stderr.strip().splitlines()
    if done.returncode != 0 or not lines or not lines[-1].startswith("VmHWM"):
        raise SystemExit(f"error: {' '.join(argv)} failed: {done.stderr.strip()[-400:]}")
    return wall, int(lines[-1].split()[1]) / 1024, done.stdout  # VmHWM is in kB


def _commands() -> list[str]:
    sys.path.insert(0, str(ROOT))
    import agent

    return sorted(agent.registry().commands)


def _rows(commands: list[str]) -> dict[str, list[str]]:
    rows = {"python": ["/dev/null"], "--help": [AGENT, "--help"]}
    rows |= {f"{command} --help": [AGENT, command, "--help"] for command in commands}
    for mode in ("course", "strongest"):
        rows[f"move --mode {mode}"] = [AGENT, "move", "", "--mode", mode, "--time", "1", "--json"]
    rows["analyze"] = [AGENT, "analyze", "4453", "--time", "1", "--json"]
    return rows


def measure(runs: int, cpu: int | None) -> dict[str, dict[str, Any]]:
    """Each row's median wall time, start-up (the moves) and peak memory over ``runs``."""
    rows = _rows(_commands())
    figures: dict[str, dict[str, list[float]]] = {name: {} for name in rows}
    for argv in rows.values():  # warm numba's cache and the file system's
        peak_run(argv, cpu)
    for _ in range(runs):
        for name, argv in rows.items():
            wall, peak, out = peak_run(argv, cpu)
            figures[name].setdefault("wall_seconds", []).append(wall)
            figures[name].setdefault("peak_mb", []).append(peak)
            if out.startswith("{"):
                startup = json.loads(out).get("startup_seconds")
                if startup is not None:
                    figures[name].setdefault("startup_seconds", []).append(float(startup))
    return {name: {key: statistics.median(values) for key, values in row.items()}
            for name, row in figures.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, metavar="N")
    parser.add_argument("--cpu", type=int, default=1 if (os.cpu_count() or 1) > 1 else None,
                        metavar="N")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = parser.parse_args()
    rows = measure(args.runs, args.cpu)
    reference = rows["python"]["wall_seconds"]
    helps = {name: row for name, row in rows.items() if name.endswith(" --help")}
    slowest = max(helps, key=lambda name: helps[name]["wall_seconds"])
    shown = ["python", "--help", slowest, "move --mode course", "move --mode strongest",
             "analyze"]
    print(f"{'command':<34} {'wall':>7} {'x python':>9} {'start-up':>9} {'peak':>7}")
    for name in shown:
        row = rows[name]
        label = f"{name} (slowest help)" if name == slowest else name
        startup = f"{row['startup_seconds']:.2f}s" if "startup_seconds" in row else "-"
        print(f"{label:<34} {row['wall_seconds']:>6.2f}s {row['wall_seconds'] / reference:>8.1f}x"
              f" {startup:>9} {row['peak_mb']:>5.0f}MB")
    if args.json:
        args.json.write_text(json.dumps({"runs": args.runs, "cpu": args.cpu, "rows": rows,
                                         "slowest_help": slowest}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
