"""The hand-in (``agent.py handin``) beside ``agent.py move --mode course``, and its speed without numba.

    python bench/handin_bench.py [--positions 500] [--depths 5,6,7] [--jit absent,compiled]
                                 [--python PATH] [--seconds 3] [--rounds 3] [--json FILE]

1. The same player: ``--positions`` positions of random games (0-30 discs, not over), each
   searched to each of ``--depths`` by the hand-in, in its own process from its folder as a TA
   runs it, and by ``agent.py move MOVES --mode course --depth D --json`` in this process (a fresh
   engine each, with the settings' defaults).  The hand-in runs ``compiled`` (numba),
   ``disabled`` (``NUMBA_DISABLE_JIT=1``) or ``absent`` (``import numba`` fails, as where only the
   course's packages are installed); ``--python PATH`` runs it with another interpreter, such as
   a virtual environment of the course's packages alone.  Reported: the positions where the
   column, the score or the depth differ, and at depth 5 (which the search always completes, so
   no iteration runs in slices) the nodes too.
2. Its speed without numba: ``connect4.py --move "" --time S`` (``--seconds``), ``--rounds``
   times: the depth completed from the empty board, its nodes and seconds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from handin.export import export  # noqa: E402
from tests.handin_moves import (  # noqa: E402
    JITS,
    agent_moves,
    differences,
    handin_command,
    handin_moves,
    sample_positions,
)

MIN_DEPTH = 5  # the settings' default: depths up to it run without slices


def empty_board(folder: Path, python: str, seconds: float, rounds: int) -> list[dict[str, Any]]:
    """The hand-in without numba from the empty board, ``rounds`` times ``seconds``."""
    command, env = handin_command("absent", python)
    found = []
    for _ in range(rounds):
        done = subprocess.run([*command, "--move", "", "--time", str(seconds)], cwd=folder, env=env,
                              capture_output=True, text=True, check=True)
        found.append(json.loads(done.stdout))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--depths", default="5,6,7", help="comma-separated depths")
    parser.add_argument("--jit", default="absent,compiled",
                        help=f"comma-separated, of {', '.join(JITS)}")
    parser.add_argument("--python", default=sys.executable, metavar="PATH",
                        help="the interpreter running the hand-in (default: this one)")
    parser.add_argument("--seed", type=int, default=36)
    parser.add_argument("--seconds", type=float, default=3.0, help="time from the empty board")
    parser.add_argument("--rounds", type=int, default=3, help="searches from the empty board (0: none)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures here")
    args = parser.parse_args()
    depths = [int(depth) for depth in args.depths.split(",")]
    jits = args.jit.split(",")
    positions = sample_positions(args.positions, args.seed, plies=(0, 30))
    figures: dict[str, Any] = {"positions": len(positions), "seed": args.seed, "python": args.python,
                               "runs": [], "empty_board": []}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "submission"
        export(folder)
        config = Path(scratch) / "config.toml"
        config.write_text("")  # the defaults
        for depth in depths:
            start = time.perf_counter()
            theirs = agent_moves(positions, depth, config)
            agent_seconds = time.perf_counter() - start
            for jit in jits:
                start = time.perf_counter()
                ours = handin_moves(folder, positions, depth, jit, args.python)
                seconds = time.perf_counter() - start
                differ = differences(positions, ours, theirs, nodes=depth <= MIN_DEPTH)
                figures["runs"].append({"jit": jit, "depth": depth, "positions": len(positions),
                                        "differences": differ, "handin_seconds": round(seconds, 1),
                                        "agent_seconds": round(agent_seconds, 1)})
                compared = "column, score, depth" + (", nodes" if depth <= MIN_DEPTH else "")
                print(f"depth {depth}, hand-in {jit}: {len(positions) - len(differ)} of"
                      f" {len(positions)} the same ({compared}); hand-in {seconds:.0f} s,"
                      f" agent.py move {agent_seconds:.0f} s", flush=True)
                for line in differ:
                    print("  differs:", line)
        if args.rounds:
            figures["empty_board"] = empty_board(folder, args.python, args.seconds, args.rounds)
            for found in figures["empty_board"]:
                print(f"without numba, from the empty board in {args.seconds:g} s: depth"
                      f" {found['depth']}, {found['nodes']:,} nodes, {found['seconds']} s")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 1 if any(run["differences"] for run in figures["runs"]) else 0


if __name__ == "__main__":
    sys.exit(main())
