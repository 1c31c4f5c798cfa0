"""Work files: the solved positions a book is built from, one JSON object per line.

A record says, for the position after ``moves`` (Pons' 1-based move string), which ``column``
(0-based, in that orientation) keeps its ``score``: the exact score (Pons' scale, for the side
to move) when ``exact``, else only the outcome (1 win, 0 draw, -1 loss).  ``nodes`` and
``seconds`` say what it cost; ``easy`` is the path generator's mark (``solver.make_book.path``).
A line ``{"params": {...}}`` records the parameters of a run.

Only the generator's parent process writes a work file, a whole line at a time, so an
interruption can at worst cut the last line short: reading skips a line that is not JSON.
A work file ``F`` may be shipped compressed as ``F.gz``: reading takes it from there while there
is no plain ``F``; the first run of a generator in a fresh clone unpacks it, and later runs
append to the plain file.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from batch.lines import append_lines
from board import Board, bits
from board.keys import canonical_key

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
    """The compressed copy of a work file, which is what may be shipped."""
    return work.with_name(work.name + ".gz")


def unpack(path: Path) -> None:
    """Unpack a missing work file from its shipped compressed copy, if there is one."""
    if not path.exists() and packed(path).exists():
        path.write_bytes(gzip.decompress(packed(path).read_bytes()))


def _text_lines(path: Path) -> Iterator[str]:
    """A work file's lines, read as they are needed (a layer's file has millions); a missing
    work file is read from its shipped compressed copy, which stays packed: reading writes
    nothing (``WorkFile`` unpacks it before appending)."""
    if path.suffix != ".gz" and not path.exists() and packed(path).exists():
        path = packed(path)
    if path.suffix == ".gz":
        with gzip.open(path, "rt") as lines:
            yield from lines
    elif path.exists():
        with path.open() as lines:
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


def pack(path: Path) -> Path:
    """Write the compressed copy of ``path`` and return it.

    The copy grows as the work file does: when the copy already holds a beginning of the file,
    only the rest is compressed, as another gzip member appended to it (a reader decompresses
    the members one after another).  So each version of the copy starts with the bytes of the
    one before, which git stores as a small difference: committing the copy as the work grows
    costs about what the new records take.
    """
    target = packed(path)
    text = path.read_bytes()
    old = target.read_bytes() if target.exists() else b""
    try:
        held = gzip.decompress(old) if old else b""
    except (OSError, EOFError):
        held, old = b"", b""  # a copy cut short: written anew
    if held and text.startswith(held):
        if len(text) > len(held):
            target.write_bytes(old + gzip.compress(text[len(held):], mtime=0))
        return target
    target.write_bytes(gzip.compress(text, mtime=0))
    return target
