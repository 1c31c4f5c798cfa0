"""``agent.py rate`` timed as a user runs it, and two runs of one player with different seeds
compared: do they agree within their intervals?

    python bench/rate_bench.py [--player connectx:tests/data/outside/connectx/good.py]
        [--time 0.1] [--games 400] [--width 100] [--seeds 1,2] [--workers 2] [--cluster]
        [--ladder PATH] [--json FILE]

For each seed, runs ``python agent.py rate PLAYER --time T --games N --width W --seed S
--workers K --out TMP`` (with ``--cluster``, once more on a Dask ``LocalCluster`` of K
single-threaded worker processes on 127.0.0.1: ``--scheduler ADDRESS``) and reads its
``rate.json``: the rating, its 95 % interval, the games it took, the accuracy; the wall time is
the command's, start-up and the referee's judging of the moves included (``rate_seconds`` is
the run's own elapsed time).  Two runs agree when each one's rating lies inside the other's
interval.  The targets of issue 26: an interval no wider than 100 points in under 10 minutes
for a ConnectX agent at 0.1 s a move, and runs of different seeds that agree.  Exit code 0
when every pair of runs agrees, 1 otherwise.  Run it under ``nice`` on a shared machine.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PLAYER = "connectx:tests/data/outside/connectx/good.py"
DEFAULT_JSON = ROOT / "bench" / "results" / "rate.json"


def one_run(args: argparse.Namespace, seed: int, where: list[str], out: Path) -> dict[str, Any]:
    """One ``agent.py rate`` run: its wall time and what its ``rate.json`` says."""
    command = [sys.executable, str(ROOT / "agent.py"), "rate", args.player, "--time",
               f"{args.time:g}", "--games", str(args.games), "--width", f"{args.width:g}",
               "--seed", str(seed), "--out", str(out), *where]
    if args.ladder is not None:
        command += ["--ladder", str(args.ladder)]
    start = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"error: {' '.join(command)} failed:\n{done.stderr}")
    found = json.loads((out / "rate.json").read_text())
    rating = found["rating"]
    width = (None if rating["low"] is None or rating["high"] is None
             else round(rating["high"] - rating["low"], 1))
    return {"seed": seed, "where": " ".join(where), "wall_seconds": round(wall, 1),
            "rate_seconds": found["elapsed"], "games": found["games"],
            "rating": rating["rating"], "low": rating["low"], "high": rating["high"],
            "width": width, "accuracy": found["accuracy"]["share"],
            "faults": len(found["faults"]),
            "per_rung": {o["rung"]: o["games"] for o in found["opponents"]}}


def agree(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Each run's rating inside the other's 95 % interval."""
    def inside(r: dict[str, Any], other: dict[str, Any]) -> bool:
        low = -float("inf") if other["low"] is None else other["low"]
        high = float("inf") if other["high"] is None else other["high"]
        return r["rating"] is not None and low <= r["rating"] <= high
    return inside(a, b) and inside(b, a)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--player", default=DEFAULT_PLAYER)
    parser.add_argument("--time", type=float, default=0.1)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--width", type=float, default=100.0)
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cluster", action="store_true",
                        help="each seed once more on a Dask LocalCluster of --workers workers")
    parser.add_argument("--ladder", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    load_before = os.getloadavg()
    runs = []
    with tempfile.TemporaryDirectory(prefix="rate-bench-") as folder:
        places = [["--workers", str(args.workers)]]
        cluster = None
        if args.cluster:
            from distributed import LocalCluster  # the 'cluster' extra (in 'dev')

            cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                                   processes=True, host="127.0.0.1", dashboard_address=None)
            places.append(["--scheduler", str(cluster.scheduler_address)])
        try:
            for seed in seeds:
                for number, where in enumerate(places):
                    out = Path(folder) / f"seed-{seed}-{number}"
                    runs.append(one_run(args, seed, where, out))
                    print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
        finally:
            if cluster is not None:
                cluster.close()
    pairs = [(a["seed"], b["seed"], a["where"], b["where"], agree(a, b))
             for a, b in itertools.combinations(runs, 2)]
    report = {"player": args.player, "time": args.time, "games": args.games,
              "width": args.width, "workers": args.workers, "runs": runs,
              "agree": [{"seeds": [p[0], p[1]], "where": [p[2], p[3]], "agree": p[4]}
                        for p in pairs],
              "load_average_before": load_before, "load_average_after": os.getloadavg()}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n")
    for run in runs:
        print(f"seed {run['seed']} ({run['where']}): {run['rating']} ({run['low']} to"
              f" {run['high']}, {run['width']} wide) after {run['games']} games in"
              f" {run['wall_seconds'] / 60:.1f} min")
    every = all(p[4] for p in pairs)
    print("every pair of runs agrees within its intervals" if every else
          "some runs disagree: " + ", ".join(f"seeds {p[0]}/{p[1]}" for p in pairs if not p[4]))
    return 0 if every else 1


if __name__ == "__main__":
    sys.exit(main())
