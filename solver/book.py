"""The opening book: exact best moves for early positions, computed by our own solver.

The book holds positions where the agent is to move, each with the column that keeps the
position's exact score and that score (Pons' scale, for the side to move).  ``solver.make_book``
builds it; the engine plays from it before asking the solver, whose early positions take
seconds to minutes.

A position and its mirror image have the same score, so the book stores each position once,
under the smaller of its key and its mirror's key; a lookup through the mirror mirrors the
column back.

File format (little-endian), checked on load:

======  =====================  ===========================================================
offset  size                   content
======  =====================  ===========================================================
0       8                      magic ``C4BOOK01``
8       4                      ``count``: number of positions (uint32)
12      32                     SHA-256 of everything after the header
44      8 * count              keys, strictly increasing (int64; a key is ``position + mask``)
...     count                  scores (int8, Pons' scale)
...     count                  columns (int8, 0-6, in the stored orientation)
======  =====================  ===========================================================
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from board import Board, bits
from settings import ConfigError
from solver import core

MAGIC = b"C4BOOK01"
_HEADER = struct.Struct("<8sI32s")
DEFAULT_BOOK_PATH = Path(__file__).resolve().parent / "data" / "book.bin"


class BookError(ConfigError):
    """The opening book file is missing, damaged or not a book (a configuration problem)."""


def canonical_key(board: Board) -> tuple[int, bool]:
    """The key the book stores ``board`` under, and whether that key is its mirror image's."""
    key = board.key
    mirrored = int(core.mirror(key))
    if mirrored < key:
        return mirrored, True
    return key, False


def decode_key(key: int) -> Board:
    """The position whose key is ``key`` (``position + mask``).

    In each column, ``mask`` is a run of ``h`` low bits and ``position`` a subset of them, so
    the column's part of the key lies in ``[2**h - 1, 2**(h+1) - 2]``: its highest set bit is
    at ``h`` (or ``h - 1`` when the column is all ours).  Raises ``BookError`` for a key no
    position has.
    """
    position = mask = moves = 0
    for col in range(bits.WIDTH):
        part = (key >> (col * bits.H1)) & 0x7F
        height = (part + 1).bit_length() - 1  # 2**h - 1 <= part <= 2**(h+1) - 2
        if height > bits.HEIGHT:
            raise BookError(f"key {key}: column {col} overflows")
        column_mask = (1 << height) - 1
        own = part - column_mask
        position |= own << (col * bits.H1)
        mask |= column_mask << (col * bits.H1)
        moves += height
    if key >> (bits.WIDTH * bits.H1):
        raise BookError(f"key {key}: bits beyond the board")
    return Board(position, mask, moves)


@dataclass(frozen=True)
class Book:
    """Sorted canonical keys with their scores and columns (see the module docstring)."""

    keys: np.ndarray
    scores: np.ndarray
    columns: np.ndarray

    def __len__(self) -> int:
        return int(self.keys.size)

    def _find(self, key: int) -> int:
        i = int(np.searchsorted(self.keys, key))
        if i < self.keys.size and int(self.keys[i]) == key:
            return i
        return -1

    def lookup(self, board: Board) -> tuple[int, int] | None:
        """``(column, score)`` for ``board`` (column 0-based, in ``board``'s orientation)."""
        key, mirrored = canonical_key(board)
        i = self._find(key)
        if i < 0:
            return None
        col = int(self.columns[i])
        if mirrored:
            col = bits.WIDTH - 1 - col
        return col, int(self.scores[i])

    def column_scores(self, board: Board) -> dict[int, int]:
        """The exact scores the book knows for ``board``'s columns: the best column's, if any."""
        found = self.lookup(board)
        return {} if found is None else {found[0]: found[1]}

    def entries(self) -> list[tuple[Board, int, int]]:
        """Every stored ``(position, column, score)``, in the stored orientation."""
        return [(decode_key(int(k)), int(c), int(s))
                for k, c, s in zip(self.keys, self.columns, self.scores, strict=True)]


def build_book(entries: dict[int, tuple[int, int]]) -> Book:
    """A book from ``{canonical key: (column, score)}`` (columns in the key's orientation)."""
    keys = np.array(sorted(entries), dtype=np.int64)
    columns = np.array([entries[int(k)][0] for k in keys], dtype=np.int8)
    scores = np.array([entries[int(k)][1] for k in keys], dtype=np.int8)
    return Book(keys, scores, columns)


def save_book(book: Book, path: str | Path) -> None:
    payload = (book.keys.astype("<i8").tobytes() + book.scores.astype("i1").tobytes()
               + book.columns.astype("i1").tobytes())
    header = _HEADER.pack(MAGIC, len(book), hashlib.sha256(payload).digest())
    Path(path).write_bytes(header + payload)


def read_book(path: str | Path) -> Book:
    """Read and check a book file; raises ``BookError`` saying what is wrong."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BookError(f"opening book {path}: cannot read: {exc.strerror or exc}") from None
    if len(data) < _HEADER.size or data[:8] != MAGIC:
        raise BookError(f"opening book {path}: not a book file (bad magic)")
    _, count, digest = _HEADER.unpack_from(data)
    payload = data[_HEADER.size:]
    if len(payload) != 10 * count:
        raise BookError(f"opening book {path}: {len(payload)} bytes of data for {count} entries,"
                        f" expected {10 * count} (truncated?)")
    if hashlib.sha256(payload).digest() != digest:
        raise BookError(f"opening book {path}: checksum mismatch (damaged file)")
    keys = np.frombuffer(payload, dtype="<i8", count=count).astype(np.int64)
    scores = np.frombuffer(payload, dtype="i1", count=count, offset=8 * count).astype(np.int8)
    columns = np.frombuffer(payload, dtype="i1", count=count, offset=9 * count).astype(np.int8)
    if count and not (np.diff(keys) > 0).all():
        raise BookError(f"opening book {path}: keys are not strictly increasing")
    if count and not ((columns >= 0) & (columns < bits.WIDTH)).all():
        raise BookError(f"opening book {path}: a column is outside 0-{bits.WIDTH - 1}")
    if count and not (np.abs(scores.astype(np.int64)) <= bits.CELLS // 2).all():
        raise BookError(f"opening book {path}: a score is outside the possible range")
    return Book(keys, scores, columns)


_loaded: dict[Path, Book] = {}


def load_book(path: str | Path | None = None) -> Book:
    """The book at ``path`` (default: the shipped one), read and checked once per process."""
    resolved = Path(path).resolve() if path else DEFAULT_BOOK_PATH
    if resolved not in _loaded:
        _loaded[resolved] = read_book(resolved)
    return _loaded[resolved]
