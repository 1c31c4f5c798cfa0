"""The progress page in a real headless browser (Debian's chromium).

Skipped, with the reason, where ``/usr/bin/chromium`` is not installed; CI installs it
(``apt-get install -y chromium``).  The browser loads the page from the real server on
loopback: once to dump the DOM it built, once to take a screenshot whose pixels must show the
board's colours.
"""

from __future__ import annotations

import random
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.test_localserver_http import _Cells, expected_stats, play_game

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="no headless browser: /usr/bin/chromium is missing (apt-get install -y chromium)",
)]


def chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *args],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


@pytest.mark.slow
def test_the_browser_renders_each_players_record(course_server: Any, tmp_path: Path) -> None:
    rng = random.Random(12)
    with course_server(first="student", seed=3) as server:
        results = [play_game(server.url, ["web-s"], rng)[0] for _ in range(2)]
        result, final_state = play_game(server.url, ["web-s"], rng)
        results.append(result)
        dom = chromium(tmp_path / "profile1", "--dump-dom", server.url + "progress").stdout
        page = _Cells()
        page.feed(dom)
        expected = expected_stats(results)
        row = page.rows["web-s"]
        assert [int(row[k]) for k in ("played", "won", "lost", "streak", "streak_max")] == [
            expected[k] for k in ("played", "won", "lost", "streak", "streak_max")]
        # Three games of 42 cells each, the last one's discs exactly as the server sent them.
        assert [sum(b.values()) for b in page.boards] == [42, 42, 42]
        assert page.boards[0] == Counter({  # newest first
            "student": sum(r.count(1) for r in final_state),
            "bot": sum(r.count(-1) for r in final_state),
            "empty": sum(r.count(0) for r in final_state)})

        shot = tmp_path / "progress.png"
        chromium(tmp_path / "profile2", f"--screenshot={shot}", "--window-size=1000,800",
                 server.url + "progress")
        import matplotlib.image

        pixels = (matplotlib.image.imread(shot)[:, :, :3] * 255).round().astype(int)
        colours = {tuple(p) for p in np.unique(pixels.reshape(-1, 3), axis=0)}
        assert (0x1D, 0x4F, 0xA8) in colours  # the board
        assert (0xE5, 0x39, 0x35) in colours  # a student's disc
        assert (0xFD, 0xD8, 0x35) in colours  # a bot's disc
