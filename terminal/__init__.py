"""The terminal: colours when the output is one, and progress for long runs, through rich.

A leaf like ``settings``: it imports nothing of the project.  ``console(stream)`` is a rich
console on ``stream`` that colours only a terminal, and never when ``NO_COLOR`` is set or
``TERM=dumb`` (rich's own rules).  ``progress(total, label)`` shows a live bar on a terminal,
and into a file or a pipe (a benchmark's log) a plain line at every tenth of the way and at
least once a minute, so logs stay readable.  ``live_line()`` keeps one status line up to date
(a sequential test's state after each pair) the same way: in place on a terminal, a line now
and then into a log.
"""

from __future__ import annotations

import io
import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

Advance = Callable[[int], None]


def stdout_to_devnull() -> None:
    """Point stdout at ``os.devnull`` once its reader has gone (``agent.py solve | head``): what
    ``print`` still holds for the closed pipe, and whatever follows, goes nowhere instead of
    raising ``BrokenPipeError`` again (at exit too)."""
    devnull = open(os.devnull, "w")  # noqa: SIM115 - it stays open as stdout until the exit
    try:
        os.dup2(devnull.fileno(), sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        sys.stdout = devnull  # not a real file (a test's capture): replace the object instead


def console(stream: TextIO | None = None, *, colour: bool | None = None) -> Console:
    """A rich console on ``stream`` (default stdout): styled when ``colour`` is True, plain
    text when False, and when None as rich decides (a terminal, no ``NO_COLOR``, no
    ``TERM=dumb``)."""
    out = stream or sys.stdout
    if colour is False:
        return Console(file=out, highlight=False, soft_wrap=True, color_system=None)
    return Console(file=out, highlight=False, soft_wrap=True, force_terminal=colour)


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@contextmanager
def progress(total: int, label: str, *, stream: TextIO | None = None, enabled: bool = True,
             every: float = 60.0) -> Iterator[Advance]:
    """A progress display for ``total`` items; yields ``advance(n)`` to call as they get done.

    Into a log, a line at each tenth of the way, and after ``every`` seconds without one.
    """
    out = stream or sys.stderr
    if not enabled:
        yield lambda n: None
        return
    if getattr(out, "isatty", lambda: False)():
        with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                      console=Console(file=out)) as bar:
            task = bar.add_task(label, total=total)
            yield lambda n: bar.advance(task, n)
        return
    start = time.monotonic()
    state = {"done": 0, "tenth": 0, "written": start}

    def advance(n: int) -> None:
        state["done"] += n
        done = int(state["done"])
        tenth = 10 * done // max(total, 1)
        now = time.monotonic()
        if tenth <= state["tenth"] and now - state["written"] < every:
            return
        state["tenth"], state["written"] = tenth, now
        elapsed = now - start
        line = f"{label}: {done}/{total} ({100 * done // max(total, 1)}%), {_duration(elapsed)}"
        if done < total:
            line += f", about {_duration(elapsed / done * (total - done))} left"
        out.write(line + "\n")
        out.flush()

    yield advance


@contextmanager
def live_line(*, stream: TextIO | None = None, every: float = 10.0) -> Iterator[Callable[[str], None]]:
    """One status line kept up to date; yields ``show(text)`` to call with its new text.

    On a terminal the line is rewritten in place; into a log (a file, a pipe) it is written as
    a line of its own at most every ``every`` seconds, and the last text once more at the end
    if it was not, so a log ends with the final state.
    """
    out = stream or sys.stderr
    on_terminal = getattr(out, "isatty", lambda: False)()
    last: list[str] = []  # the latest text, and whether a log has it: [text, written]
    written_at = -math.inf

    def show(text: str) -> None:
        nonlocal written_at
        now = time.monotonic()
        if on_terminal:
            out.write("\r" + text + "\x1b[K")
        elif now - written_at >= every:
            out.write(text + "\n")
            written_at = now
        else:
            last[:] = [text]
            return
        last[:] = [text, text]
        out.flush()

    try:
        yield show
    finally:
        if last and on_terminal:
            out.write("\n")
        elif len(last) == 1:  # the final state, not yet in the log
            out.write(last[0] + "\n")
        out.flush()
