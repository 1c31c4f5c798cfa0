"""Course mode's first move from the empty board, for each evaluation.

    python bench/opening_move.py [--heuristics A,B,...] [--times 1,2] [--depths 10-16]
                                 [--json FILE]

The centre column is the only first move that wins (Allis, 1988); every other is a draw or a
loss.  For each evaluation this prints the column the heuristic search alone (course mode: no
book, no solver) chooses from the empty board:

- at each fixed depth of ``--depths`` (no clock: the same on any machine);
- within each budget of ``--times`` seconds, by an engine built and warmed up as in a game
  (``engine.players.build_engine``), so the budget is all search, not process start-up (which
  ``agent.py move --time`` counts); the depth reached then depends on the machine.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board import Board  # noqa: E402
from engine.players import build_engine  # noqa: E402
from heuristics import HEURISTICS  # noqa: E402
from settings import load_settings  # noqa: E402
from settings.loading import revised  # noqa: E402
from timecontrol import Limit  # noqa: E402

CENTRE = 3


def first_moves(name: str, depths: list[int], times: list[float]) -> dict[str, Any]:
    """The first move of evaluation ``name`` at each depth and within each budget."""
    settings = load_settings(None)
    agent = revised(settings.agent, {"mode": "course", "heuristic": name})
    engine = build_engine(agent, settings.solver)
    by_depth = {}
    for depth in depths:
        engine.new_game()
        by_depth[depth] = engine.decide(Board(), Limit(float("inf"), depth)).column
    by_time = {}
    for seconds in times:
        engine.new_game()
        decision = engine.decide(Board(), Limit.seconds(seconds))
        by_time[seconds] = {"column": decision.column, "depth": decision.depth}
    return {"by_depth": by_depth, "by_time": by_time}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--heuristics", default=",".join(HEURISTICS))
    parser.add_argument("--times", default="1,2", metavar="S,S")
    parser.add_argument("--depths", default="10-16", metavar="A-B")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = parser.parse_args(argv)
    names = [n for n in args.heuristics.split(",") if n]
    unknown = [n for n in names if n not in HEURISTICS]
    if unknown or not names:
        parser.error(f"--heuristics: unknown {', '.join(unknown)} (known: {', '.join(HEURISTICS)})"
                     if unknown else "--heuristics names none")
    try:
        low, high = (int(x) for x in args.depths.split("-"))
    except ValueError:
        parser.error(f"--depths wants a range A-B such as 10-16, not {args.depths!r}")
    if not 1 <= low <= high <= 42:
        parser.error(f"--depths wants A-B with 1 <= A <= B <= 42, not {args.depths}")
    try:
        times = [float(t) for t in args.times.split(",") if t]
    except ValueError:
        parser.error(f"--times wants seconds separated by commas such as 1,2, not {args.times!r}")
    if not times or min(times) <= 0:
        parser.error(f"--times must be positive seconds, not {args.times}")
    if args.json is not None and not args.json.parent.is_dir():
        parser.error(f"--json: folder {args.json.parent} does not exist")
    depths = list(range(low, high + 1))
    results = {name: first_moves(name, depths, times) for name in names}
    print("first move from the empty board (column 0-6; the centre, 3, is the only win)")
    print(f"{'evaluation':<14} " + " ".join(f"d{d:<3}" for d in depths) + "   "
          + "  ".join(f"{t:g} s (depth)" for t in times))
    for name, r in results.items():
        row = " ".join(f"{r['by_depth'][d]:<4}" for d in depths)
        timed = "  ".join(f"{r['by_time'][t]['column']} ({r['by_time'][t]['depth']})".ljust(
            len(f"{t:g} s (depth)")) for t in times)
        print(f"{name:<14} {row}   {timed}")
    if args.json is not None:
        args.json.write_text(json.dumps({"depths": depths, "times": times,
                                         "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
