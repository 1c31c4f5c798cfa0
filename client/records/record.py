"""``Records``: the record file opened, its changes (``writing``) and its queries
(``reading``) on one connection."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from client.records.lock import exclusive
from client.records.reading import RecordReading
from client.records.schema import open_record
from client.records.writing import RecordWriting


class Records(RecordWriting, RecordReading):
    """The record file; one connection, used from one thread."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        """Open (or create) the record at ``path``; with ``read_only``, open an existing one
        without changing anything (the analysis board's review reads it that way)."""
        self.path = Path(path)
        self.conn = open_record(self.path, read_only=read_only)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Records:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the record's lock for the block (``lock.exclusive``): ``RecordBusy`` if another
        online run holds it."""
        with exclusive(self.path):
            yield
