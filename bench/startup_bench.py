"""A move's thinking time against start-up: ``agent.py move "" --time S`` in a fresh process,
with numba's cache empty (a fresh checkout: everything compiles) and warm, beside a warm
search of the same time in this process.

    python bench/startup_bench.py [--time 1] [--rounds 3] [--json FILE]

The thinking time counts from when the search starts, so the fresh process should reach the
depth of the warm in-process search (give or take a ply: the machine's speed varies), however
long its start-up took; the start-up is reported apart (``startup_seconds``).  Rounds are
interleaved (fresh, warm, in-process) so that a change in the machine's load touches all three.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board import Board  # noqa: E402
from engine import Engine  # noqa: E402
from settings import load_settings  # noqa: E402
from timecontrol import Limit  # noqa: E402


def fresh_move(seconds: float, cache: str | None) -> dict[str, float]:
    env = dict(os.environ)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = cache
    done = subprocess.run([sys.executable, str(ROOT / "agent.py"), "move", "", "--time",
                           str(seconds), "--json"], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout)
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", default=None, metavar="FILE")
    args = parser.parse_args()
    settings = load_settings(None)
    engine = Engine(settings.agent, solver=settings.solver)
    engine.warm_up()
    rows = []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as empty:
            cold = fresh_move(args.time, empty)
        warm = fresh_move(args.time, None)
        engine.new_game()
        decision = engine.decide(Board(), Limit.seconds(args.time))
        rows.append({"cold_depth": cold["depth"], "cold_startup": cold["startup_seconds"],
                     "cold_seconds": cold["seconds"], "warm_depth": warm["depth"],
                     "warm_startup": warm["startup_seconds"], "in_process_depth": decision.depth})
        print(json.dumps(rows[-1]))
    print(f"--time {args.time:g} from the empty board, {args.rounds} rounds:")
    for label, key in (("fresh process, empty numba cache", "cold"),
                       ("fresh process, warm cache", "warm")):
        depths = [r[f"{key}_depth"] for r in rows]
        startups = [r[f"{key}_startup"] for r in rows]
        print(f"  {label:<34} depth {min(depths)}-{max(depths)}, start-up"
              f" {statistics.median(startups):.1f} s (median; not counted in the move)")
    depths = [r["in_process_depth"] for r in rows]
    print(f"  {'warm search in this process':<34} depth {min(depths)}-{max(depths)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
