"""The hand-in's moves beside ``agent.py move --mode course``'s, for ``tests/test_handin.py`` and
``bench/handin_bench.py``.

The hand-in (``agent.py handin``) runs in a process of its own, from its folder, as a TA runs it:
compiled by numba, with numba's compiler switched off (``NUMBA_DISABLE_JIT=1``), or with numba
absent (an interpreter that has it finds no module, as where only the course's packages are
installed; or another interpreter, ``python``).  ``agent.py move`` runs in this process, once a
position, as its command line would run it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.helpers import random_position

JITS = ("compiled", "disabled", "absent")
# Code run with ``python -c`` in the hand-in's folder where ``import numba`` fails, as where only
# the course's packages are installed: first this, then what to run.
NO_NUMBA = "import sys; sys.modules['numba'] = None; sys.path.insert(0, '.');"
WITHOUT_NUMBA = NO_NUMBA + " import connect4; sys.exit(connect4.main(sys.argv[1:]))"


def sample_positions(count: int, seed: int, plies: tuple[int, int] = (0, 24)) -> list[str]:
    """``count`` different move strings of random games, not over, of ``plies`` moves."""
    rng = random.Random(seed)
    found: dict[str, None] = {}
    while len(found) < count:
        _, played = random_position(rng, *plies)
        found["".join(str(col + 1) for col in played)] = None
    return list(found)


def handin_command(jit: str, python: str = sys.executable) -> tuple[list[str], dict[str, str]]:
    """The command running ``connect4.py`` (its arguments to follow) and its environment."""
    if jit not in JITS:
        raise ValueError(f"jit must be one of {', '.join(JITS)}, not {jit!r}")
    env = {key: value for key, value in os.environ.items()
           if key != "NUMBA_DISABLE_JIT" and not key.startswith("EDAP01_")}
    if jit == "disabled":
        env["NUMBA_DISABLE_JIT"] = "1"
    if jit == "absent":
        return [python, "-c", WITHOUT_NUMBA], env
    return [python, "connect4.py"], env


def handin_moves(folder: Path, positions: Sequence[str], depth: int, jit: str,
                 python: str = sys.executable) -> list[dict[str, Any]]:
    """The hand-in's move in each position, searched to ``depth`` (``connect4.py --move``)."""
    command, env = handin_command(jit, python)
    done = subprocess.run([*command, "--move", *positions, "--depth", str(depth)], cwd=folder,
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"the hand-in failed ({done.returncode}): {done.stderr[-2000:]}")
    return [json.loads(line) for line in done.stdout.splitlines()]


def agent_moves(positions: Sequence[str], depth: int, config: Path) -> list[dict[str, Any]]:
    """``agent.py move MOVES --mode course --depth D --json`` of each position, in this process
    (a fresh engine each, as the command makes), with the settings of ``config``."""
    import agent

    found = []
    for moves in positions:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = agent.main(["move", moves, "--mode", "course", "--depth", str(depth),
                               "--time", "600", "--json", "--config", str(config)])
        if code != 0:
            raise RuntimeError(f"agent.py move {moves!r} exited {code}")
        found.append(json.loads(printed.getvalue()))
    return found


def differences(positions: Sequence[str], ours: Sequence[dict[str, Any]],
                theirs: Sequence[dict[str, Any]], *, nodes: bool) -> list[str]:
    """Each position where the hand-in's move, score or depth differs from ``agent.py move``'s
    (and the nodes searched, with ``nodes``: they are the same where no iteration ran in slices,
    up to the depth the search always completes)."""
    keys = ("column", "score", "depth", *(("nodes",) if nodes else ()))
    return [f"{moves!r}: hand-in {[a[k] for k in keys]}, agent.py move {[b[k] for k in keys]}"
            for moves, a, b in zip(positions, ours, theirs, strict=True)
            if any(a[k] != b[k] for k in keys)]
