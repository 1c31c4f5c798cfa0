"""A tournament on a Dask cluster against the same tournament on the local process pool: the
wall times side by side, and the same W-D-L (fixed-depth players choose the same moves
wherever they play).

    python bench/cluster_bench.py [--players ours:d10:threats,ours:d10:windows5000]
        [--games 200] [--opening-plies 4] [--seed 1] [--workers 2] [--rounds 1] [--json FILE]

Starts a Dask ``LocalCluster`` on 127.0.0.1 (``--workers`` worker processes of one thread
each), then runs, as a user does, ``python agent.py tournament --players ... --games N --time
30 --opening-plies K --seed X --json`` once with ``--workers K`` (the local process pool) and
once with ``--scheduler ADDRESS`` (the cluster), ``--rounds`` times, alternating which goes
first.  Each run is timed from the command's start to its end (start-up, the workers building
their players, the games), and its own ``elapsed_seconds`` (the games) is read from its JSON.
The ``ours:dN`` players search to a fixed depth within a time per move they never reach (30 s),
and the openings come from the seed, so every run must give the same W-D-L: the exit code is 0
when they do, 1 otherwise.  Run it under ``nice`` on a machine shared with others; the ratio
cluster / pool, measured in one script, is the figure to read.
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
DEFAULT_PLAYERS = "ours:d10:threats,ours:d10:windows5000"
DEFAULT_JSON = ROOT / "bench" / "results" / "cluster-tournament.json"


def tournament(args: argparse.Namespace, where: list[str]) -> dict[str, Any]:
    """One run of ``agent.py tournament`` on ``where`` (``--workers K`` or ``--scheduler A``):
    its wall time, its own elapsed time and its W-D-L per player."""
    command = [sys.executable, str(ROOT / "agent.py"), "tournament", "--players", args.players,
               "--games", str(args.games), "--time", "30", "--opening-plies",
               str(args.opening_plies), "--seed", str(args.seed), "--json", *where]
    start = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"error: {' '.join(command)} failed:\n{done.stderr}")
    result = json.loads(done.stdout)
    return {"where": " ".join(where), "wall_seconds": round(wall, 2),
            "elapsed_seconds": result["elapsed_seconds"], "workers": result["workers"],
            "wdl": {p["player"]: f"{p['wins']}-{p['draws']}-{p['losses']}"
                    for p in result["overall"]}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", default=DEFAULT_PLAYERS)
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--opening-plies", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON)
    args = parser.parse_args(argv)
    from distributed import LocalCluster  # the 'cluster' extra (in 'dev')

    load_before = os.getloadavg()
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as cluster:
        address = str(cluster.scheduler_address)
        pool = ["--workers", str(args.workers)]
        runs = []
        for round_ in range(args.rounds):
            order = [pool, ["--scheduler", address]]
            for where in order if round_ % 2 == 0 else order[::-1]:
                runs.append(tournament(args, where))
                print(json.dumps(runs[-1]), file=sys.stderr)
    on_pool = [r for r in runs if r["where"].startswith("--workers")]
    on_cluster = [r for r in runs if not r["where"].startswith("--workers")]
    same = len({json.dumps(r["wdl"], sort_keys=True) for r in runs}) == 1

    def mean(rows: list[dict[str, Any]], key: str) -> float:
        return round(statistics.fmean(r[key] for r in rows), 2)

    report = {
        "players": args.players, "games": args.games, "opening_plies": args.opening_plies,
        "seed": args.seed, "workers": args.workers, "rounds": args.rounds,
        "load_average_before": load_before, "load_average_after": os.getloadavg(),
        "runs": runs, "same_wdl": same,
        "pool_wall_seconds": mean(on_pool, "wall_seconds"),
        "cluster_wall_seconds": mean(on_cluster, "wall_seconds"),
        "pool_games_seconds": mean(on_pool, "elapsed_seconds"),
        "cluster_games_seconds": mean(on_cluster, "elapsed_seconds"),
    }
    report["cluster_over_pool_wall"] = round(report["cluster_wall_seconds"]
                                             / report["pool_wall_seconds"], 3)
    report["cluster_over_pool_games"] = round(report["cluster_games_seconds"]
                                              / report["pool_games_seconds"], 3)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n")
    print(f"{args.games} games of {args.players}, {args.workers} workers, {args.rounds} round(s):"
          f" pool {report['pool_wall_seconds']} s wall ({report['pool_games_seconds']} s of"
          f" games), cluster {report['cluster_wall_seconds']} s wall"
          f" ({report['cluster_games_seconds']} s of games): cluster / pool"
          f" {report['cluster_over_pool_wall']} wall, {report['cluster_over_pool_games']} games;"
          f" W-D-L {runs[0]['wdl']} {'the same in every run' if same else 'DIFFERS'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
