"""``agent.py practice``: a first game end to end, with nothing configured.

The local copy of the course server is started for it as a child process (``agent.py serve``
on a free port, its database in memory: the client never imports the server, as against the
real one), and the agent plays it over HTTP exactly as ``online`` plays the course server,
under a practice id and the local server's key.  What the child says while it starts (a first
run compiles its bot, and says so) is passed on at once.  The child is stopped when the games
end, however they end.
"""

from __future__ import annotations

import queue
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from settings import Settings, UsageError, default_config_path, revised

ROOT = Path(__file__).resolve().parent.parent
PRACTICE_ID = "practice-1"
STARTUP_SECONDS = 120.0  # the child compiles the server's bot on a first run
_URL = re.compile(r"local course server on (http://\S+/)")


@contextmanager
def local_server(config: str | None) -> Iterator[str]:
    """A local course server in a child process for the duration of the block; its URL."""
    command = [sys.executable, str(ROOT / "agent.py"), "serve", "--port", "0", "--db", ":memory:",
               "--config", config or str(default_config_path().absolute())]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, text=True, cwd=ROOT)
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=pump, daemon=True).start()
    try:
        seen: list[str] = []
        while True:
            try:
                line = lines.get(timeout=STARTUP_SECONDS)
            except queue.Empty:
                raise UsageError(f"the local server did not start within {STARTUP_SECONDS:g}"
                                 " s") from None
            if not line:
                said = "".join(seen[-3:]).strip()
                raise UsageError(f"the local server stopped at its start: {said or 'no output'}")
            seen.append(line)
            found = _URL.search(line)
            if found:
                break
            # what the server says while it starts (a first run's compile notice) is said now
            print(line.rstrip(), file=sys.stderr, flush=True)
        yield found.group(1)
    finally:
        child.terminate()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def practice_settings(settings: Settings, url: str) -> Settings:
    """The settings with the server replaced by the local one: its URL and key, a practice id."""
    server = revised(settings.server, {"url": url, "stil_ids": (PRACTICE_ID,),
                                       "api_key": settings.local_server.api_key})
    return settings.model_copy(update={"server": server})
