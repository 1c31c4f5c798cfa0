"""Work files: the solved positions a book is built from, one JSON object per line.

A record says, for the position after ``moves`` (Pons' 1-based move string), which ``column``
(0-based, in that orientation) keeps its ``score``: the exact score (Pons' scale, for the side
to move) when ``exact``, else only the outcome (1 win, 0 draw, -1 loss).  ``nodes`` and
``seconds`` say what it cost; ``easy`` is the path generator's mark (``solver.make_book.path``).
A line ``{"params": {...}}`` records the parameters of a run.

Only the generator's parent process writes a work file, a whole line at a time, so an
interruption can at worst cut the last line short: reading skips a line that is not JSON.
A work file ``F`` may be shipped compressed, in parts: ``F.gz``, then ``F.2.gz``, ``F.3.gz`` ...,
which decompress to ``F``'s text one after another (``pack``).  Reading takes the parts while
there is no plain ``F``; the first run of a generator in a fresh clone unpacks them, and later
runs append to the plain file.  While the file continues its parts, ``pack`` adds a part of
the new lines and leaves the others as they are, so committing the shipped copy as a run goes
on adds only what is new (a layer's work file is 100 MB packed; rewriting it at each commit
would cost the repository that much each time).  A damaged or cut part is an error naming it.
"""

from __future__ import annotations

import gzip
import json
import shutil
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from batch.lines import append_lines, last_line_end
from board import Board, bits
from board.keys import canonical_key
from settings import UsageError

_BLOCK = 1 << 22  # bytes read at a time when packing and unpacking

# How ``Record.to_json`` starts a line: ``record_moves`` reads the move string without parsing.
_MOVES_FIRST = '{"moves":"'


@dataclass(frozen=True, slots=True)
class Record:
    """One solved position (see the module docstring)."""

    moves: str
    column: int
    score: int
    exact: bool
    nodes: int
    seconds: float
    easy: bool = False

    def to_json(self) -> str:
        data: dict[str, Any] = {"moves": self.moves, "column": self.column, "score": self.score,
                                "exact": self.exact, "nodes": self.nodes,
                                "seconds": round(self.seconds, 4)}
        if self.easy:
            data["easy"] = True
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Record:
        # Records written before outcome-only solves existed have no "exact": they were exact.
        return cls(str(data["moves"]), int(data["column"]), int(data["score"]),
                   bool(data.get("exact", True)), int(data["nodes"]), float(data["seconds"]),
                   bool(data.get("easy", False)))

    def board(self) -> Board:
        return Board.from_moves(self.moves)

    def canonical(self) -> tuple[int, int]:
        """The book's key for the position and the column in that key's orientation."""
        key, mirrored = canonical_key(self.board())
        return key, bits.WIDTH - 1 - self.column if mirrored else self.column


def packed(work: Path) -> Path:
    """The first part of a work file's compressed copy, which is what may be shipped."""
    return work.with_name(work.name + ".gz")


def packed_parts(work: Path) -> list[Path]:
    """The parts of a work file's compressed copy in order (``F.gz``, ``F.2.gz``, ...): as far
    as they follow one another, so a part after a gap is not read."""
    parts: list[Path] = []
    while (part := _part(work, len(parts) + 1)).exists():
        parts.append(part)
    return parts


def _part(work: Path, number: int) -> Path:
    return packed(work) if number == 1 else work.with_name(f"{work.name}.{number}.gz")


def _numbered_parts(work: Path) -> dict[int, Path]:
    """Every part ``F.N.gz`` beside the work file by its number, gaps or not (``_part``'s names
    read back)."""
    found = {}
    for part in work.parent.glob(f"{work.name}.*.gz"):
        number = part.name[len(work.name) + 1:-len(".gz")]
        if number.isdigit():
            found[int(number)] = part
    return found


def unpack(path: Path) -> None:
    """Unpack a missing work file from its shipped compressed copy, if there is one (through a
    temporary file, so that an interruption leaves no half-written work file)."""
    parts = packed_parts(path)
    if path.exists() or not parts:
        return
    partial = path.with_name(path.name + ".unpacking")
    try:
        with partial.open("wb") as out:
            for part in parts:
                with _reading(part), gzip.open(part, "rb") as text:
                    shutil.copyfileobj(text, out, _BLOCK)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(path)


@contextmanager
def _reading(part: Path) -> Iterator[None]:
    """Turn a damaged or cut-short compressed part into an error naming it."""
    try:
        yield
    except (OSError, EOFError, zlib.error) as exc:
        raise UsageError(f"{part}: a damaged or cut-short part of a work file ({exc})") from None


def _text_lines(path: Path) -> Iterator[str]:
    """A work file's lines, read as they are needed (a layer's file has millions); a missing
    work file is read from its shipped compressed parts, which stay packed: reading writes
    nothing (``WorkFile`` unpacks them before appending).  The first part named as the file
    (``F.gz``) reads all of them."""
    if path.suffix == ".gz":
        parts = packed_parts(path.with_suffix(""))
    elif path.exists():
        with path.open() as lines:
            yield from lines
        return
    else:
        parts = packed_parts(path)
    for part in parts:
        with _reading(part), gzip.open(part, "rt") as lines:
            yield from lines


def _lines(path: Path) -> Iterable[dict[str, Any]]:
    for line in _text_lines(path):
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by an interruption
        if isinstance(data, dict):
            yield data


def record_lines(path: Path) -> Iterable[Record]:
    """The records of a work file in the order written (a key may come more than once)."""
    for data in _lines(path):
        if "moves" in data:
            yield Record.from_json(data)


def record_moves(path: Path) -> Iterator[str]:
    """The move strings of a work file's records, in the order written, without making the
    records (a layer's work file holds millions)."""
    for line in _text_lines(path):
        if line.startswith(_MOVES_FIRST) and line.endswith("}\n"):  # a whole record
            yield line[len(_MOVES_FIRST):line.index('"', len(_MOVES_FIRST))]
        elif line.startswith(_MOVES_FIRST) or '"moves"' in line:
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by an interruption
            if isinstance(data, dict) and "moves" in data:
                yield str(data["moves"])


def read_records(path: Path) -> dict[int, Record]:
    """The records of a work file by the book's (canonical) key; the last record of a key wins."""
    return {record.canonical()[0]: record for record in record_lines(path)}


def read_params(path: Path) -> dict[str, Any]:
    """The parameters of the last run recorded in a work file ({} if none)."""
    params: dict[str, Any] = {}
    for data in _lines(path):
        if isinstance(data.get("params"), dict):
            params = data["params"]
    return params


class WorkFile:
    """Appends records (and run parameters) to a work file, a whole line at a time
    (``batch.lines.append_lines``: opened for each write, so that what a run solves after the
    file was replaced lands in the new one; a line an interruption cut short is dropped first).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        unpack(path)  # the shipped copy, before appending to it
        path.parent.mkdir(parents=True, exist_ok=True)

    def params(self, params: dict[str, Any]) -> None:
        append_lines(self.path, [json.dumps({"params": params}, separators=(",", ":"))])

    def append(self, records: Iterable[Record]) -> None:
        append_lines(self.path, (record.to_json() for record in records))

    def close(self) -> None:
        """Nothing to release (the file is opened per write); kept for ``with``."""

    def __enter__(self) -> WorkFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def pack(path: Path) -> Path | None:
    """Bring the compressed copy of the work file ``path`` up to date; return the part written
    (None when the copy already held every whole line).

    When the parts hold a beginning of the file, only the rest is compressed, into a new part.
    Otherwise (a line cut short was dropped, the file was replaced, a part is damaged) the copy
    is written anew as one part, which replaces the old parts only once it is whole.  Only whole
    lines are packed: a line being written as the file is read is left for the next part.
    Compressed without a time stamp, so the same lines give the same bytes.
    """
    parts = packed_parts(path)
    held = _held_prefix(path, parts)
    with path.open("rb") as text:
        end = last_line_end(text)
    start = 0 if held is None else held
    if start >= end:
        return None
    target = packed(path) if held is None else _part(path, len(parts) + 1)
    partial = target.with_name(target.name + ".writing")
    with path.open("rb") as text, partial.open("wb") as raw, \
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
        text.seek(start)
        while start < end:
            block = text.read(min(_BLOCK, end - start))
            out.write(block)
            start += len(block)
    if held is None:  # every old part goes, the last first (and any after a gap)
        for _, old in sorted(_numbered_parts(path).items(), reverse=True):
            old.unlink()
    partial.replace(target)
    return target


def _held_prefix(path: Path, parts: list[Path]) -> int | None:
    """How many bytes at the start of ``path`` the ``parts`` hold, or None when their text is not
    a beginning of the file (or a part is damaged)."""
    held = 0
    try:
        with path.open("rb") as text:
            for part in parts:
                with gzip.open(part, "rb") as packed_text:
                    while block := packed_text.read(_BLOCK):
                        if text.read(len(block)) != block:
                            return None
                        held += len(block)
    except (OSError, EOFError, zlib.error):
        return None  # a part damaged or cut short
    return held
