"""The record's lock: one ``online`` run on a record at a time."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from filelock import FileLock, Timeout

from client.records.schema import RecordError


class RecordBusy(RecordError):
    """Another online run holds the record's lock."""


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold the lock of the record at ``path`` (``<record>.lock``, a ``filelock.FileLock``) for
    the block; ``RecordBusy`` if another process holds it.

    An online run holds it from start to end, so two runs on one record can never resume
    the same game.  The system releases the lock when the process ends, however it ends.
    """
    lock_path = path.with_name(path.name + ".lock")
    lock = FileLock(lock_path, timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise RecordBusy(
            f"another `agent.py online` is using the record {path} (it holds"
            f" {lock_path}): let it finish or stop it first"
        ) from None
    except OSError as exc:
        raise RecordError(f"cannot open the record's lock {lock_path}: {exc}") from exc
    try:
        yield
    finally:
        lock.release()
