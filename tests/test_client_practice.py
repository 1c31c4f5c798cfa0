"""``agent.py practice``: a first game end to end with nothing configured, against a local
server started for it as a child process and stopped after it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import requests

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_practice_plays_a_whole_game_over_http_and_stops_its_server(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"  # nothing configured: the shipped placeholders
    config.write_text('[record]\npath = "games.sqlite3"\n')
    env = {key: value for key, value in __import__("os").environ.items()
           if not key.startswith("EDAP01_")}
    done = subprocess.run([sys.executable, "agent.py", "practice", "--time", "0.2", "--config",
                           str(config)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode in (0, 1), done.stderr  # 1: the game was lost (it never is)
    found = re.search(r"local course server on (http://127\.0\.0\.1:\d+/)", done.stdout)
    assert found, done.stdout
    assert re.search(r"summary: 1 game: \d won, \d drawn, \d lost", done.stdout)
    assert re.search(r"^move string .*: [1-7]{7,42}$", done.stdout, re.MULTILINE)
    assert (tmp_path / "games.sqlite3").is_file()  # the game is in the record
    with pytest.raises(requests.ConnectionError):
        requests.get(found.group(1), timeout=5)  # the child server is gone
