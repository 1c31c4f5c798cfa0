"""Running the program from another checkout writes nothing into this one.

A scratch checkout (the project's folders linked, its own ``config.toml``), as the README test
makes one, runs ``practice``: its game goes into the scratch checkout's record, and this
checkout's ``records/`` and every tracked file are as they were.  (Its settings once followed
the links back here: the first practice game of a fresh clone was "record #5".)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import SCRATCH_OWN, checkout_snapshot

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_practice_in_a_scratch_checkout_writes_only_there(tmp_path: Path) -> None:
    scratch = tmp_path / "checkout"
    scratch.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in SCRATCH_OWN:
            (scratch / entry.name).symlink_to(entry)
    (scratch / "config.toml").write_text((ROOT / "config.toml").read_text())
    before = checkout_snapshot()
    env = {name: value for name, value in os.environ.items() if not name.startswith("EDAP01_")}
    done = subprocess.run([sys.executable, "agent.py", "practice", "--games", "1", "--time",
                           "0.05"], cwd=scratch, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (scratch / "records" / "games.sqlite3").is_file()  # the game is recorded there
    assert checkout_snapshot() == before
