"""Work files of JSON lines: what a batch run has finished, appended as each result comes back,
so that a stopped run resumes from it.

Only the run's parent process writes a work file, a whole line at a time, so an interruption
can at worst cut the last line short: ``append_lines`` drops such a line before writing (the
task it held runs again), and ``read_lines`` skips it.  The file is opened for each write, not
held open: a run lasts hours, and what it finishes after the file was replaced (a ``git
checkout`` of a committed copy) lands in the file at that path, not in a deleted one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO


def append_lines(path: Path, lines: Iterable[str]) -> None:
    """Append ``lines`` (without their newlines) to ``path``, after dropping a last line cut
    short by an interruption; nothing is written for no lines."""
    text = "".join(line + "\n" for line in lines)
    if not text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as handle:
        end = handle.seek(0, 2)
        if end:
            handle.seek(end - 1)
            if handle.read(1) != b"\n":
                handle.truncate(last_line_end(handle, end))
        handle.write(text.encode())  # at the end: the file is opened for appending


def last_line_end(handle: BinaryIO, end: int | None = None) -> int:
    """Where the last whole line of the file ends (0 if none), read backwards a block at a time
    from ``end`` (default: the end of the file)."""
    if end is None:
        end = handle.seek(0, 2)
    while end > 0:
        start = max(0, end - 4096)
        handle.seek(start)
        found = handle.read(end - start).rfind(b"\n")
        if found >= 0:
            return start + found + 1
        end = start
    return 0


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of ``path``, one a line, skipping a line that is not one (cut short);
    nothing when there is no file."""
    if not path.exists():
        return
    with path.open() as handle:
        for line in handle:
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict):
                yield data
