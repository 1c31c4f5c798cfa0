"""The sequential test's error rates and lengths, by simulation (``rating.sprt.simulate``).

    python bench/sprt_errors.py [--tests 2000] [--seed 1] [--elo0 0] [--elo1 20]
        [--shape 0.04,0.18,0.56,0.17,0.05] [--json FILE]

For each model (normalized, logistic), runs ``--tests`` simulated tests with its bounds (the
command's defaults unless given) on pairs drawn from a pentanomial of the given shape, tilted
to exactly ``elo0`` and exactly ``elo1`` (``rating.sprt.tilted``), and at the points between
and beyond; prints how often each verdict came and the mean number of pairs, beside the games
a test of a fixed number of games with the same errors needs (``rating.sprt.fixed_games``; in
Elo with the spread of the shape).  The default shape is that of a test of two course-mode
players (draw-heavy pairs, about even).  Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rating.sprt import (  # noqa: E402
    DEFAULT_ELO0,
    DEFAULT_ELO1,
    Model,
    Sprt,
    fixed_games,
    moments,
    simulate,
    tilted,
)

DEFAULT_SHAPE = (0.04, 0.18, 0.56, 0.17, 0.05)


def measure(model: Model, args: argparse.Namespace, shape: list[float]) -> dict[str, Any]:
    sprt = Sprt(args.elo0, args.elo1, model=model)
    width = args.elo1 - args.elo0
    points = [args.elo0 - width / 2, args.elo0, (args.elo0 + args.elo1) / 2, args.elo1,
              args.elo1 + width / 2]
    rows = []
    for n, elo in enumerate(points):
        pdf = tilted(shape, elo, model)
        start = time.monotonic()
        found = simulate(sprt, pdf, args.tests, args.seed + n)
        rows.append({"elo": elo, "h0": found.h0_rate, "h1": found.h1_rate,
                     "undecided": found.undecided, "mean_pairs": round(found.mean_pairs, 1),
                     "seconds": round(time.monotonic() - start, 1)})
    sigma = (2 * moments(tilted(shape, args.elo0, model).tolist())[1]) ** 0.5
    return {"model": str(model), "elo0": args.elo0, "elo1": args.elo1, "tests": args.tests,
            "seed": args.seed, "shape": shape, "fixed_games": fixed_games(sprt, sigma),
            "points": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--elo0", type=float, default=DEFAULT_ELO0)
    parser.add_argument("--elo1", type=float, default=DEFAULT_ELO1)
    parser.add_argument("--shape", default=",".join(f"{p:g}" for p in DEFAULT_SHAPE),
                        help="the pentanomial's shape: five chances, 0 ... 2 points a pair")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    shape = [float(part) for part in args.shape.split(",")]
    if len(shape) != 5:
        parser.error("--shape takes five numbers")
    results = [measure(model, args, shape) for model in Model]
    for result in results:
        unit = "nElo" if result["model"] == "normalized" else "Elo"
        print(f"{result['model']}: H0 {result['elo0']:g} {unit}, H1 {result['elo1']:g} {unit},"
              f" {result['tests']} tests a point; a test of a fixed length needs"
              f" {result['fixed_games']:,} games ({result['fixed_games'] / 2:,.0f} pairs)")
        for row in result["points"]:
            print(f"  at {row['elo']:+6.1f} {unit}: H1 {row['h1']:.3f}, H0 {row['h0']:.3f},"
                  f" undecided {row['undecided']}, mean {row['mean_pairs']:,.0f} pairs"
                  f" ({row['seconds']:.0f} s)")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
