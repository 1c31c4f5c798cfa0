"""A small progress bar for long tournaments, written to stderr.

On a terminal it redraws one line (``\\r``); into a file or a pipe (a benchmark's log) it
writes a plain line at every tenth of the way instead, so logs stay readable.
"""

from __future__ import annotations

import time
from typing import TextIO


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class ProgressBar:
    def __init__(self, total: int, stream: TextIO, *, label: str = "games", width: int = 30,
                 enabled: bool = True) -> None:
        self.total = max(total, 1)
        self.stream = stream
        self.label = label
        self.width = width
        self.enabled = enabled
        self.tty = enabled and stream.isatty()
        self.start = time.monotonic()
        self._last_tenth = 0

    def line(self, done: int) -> str:
        """The text of the bar after ``done`` items, with elapsed time and an estimate of the rest."""
        elapsed = time.monotonic() - self.start
        filled = self.width * done // self.total
        bar = "#" * filled + "-" * (self.width - filled)
        text = f"[{bar}] {done}/{self.total} {self.label} ({100 * done // self.total}%)"
        text += f"  {_clock(elapsed)} elapsed"
        if 0 < done < self.total:
            text += f", about {_clock(elapsed / done * (self.total - done))} left"
        return text

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r" + self.line(done))
            if done >= self.total:
                self.stream.write("\n")
            self.stream.flush()
            return
        tenth = 10 * done // self.total
        if tenth > self._last_tenth:
            self._last_tenth = tenth
            self.stream.write(self.line(done) + "\n")
            self.stream.flush()


__all__ = ["ProgressBar"]
