"""The opening book: moves that keep the game-theoretic outcome, computed by our own solver.

The book holds positions with what a move needs: a column that keeps the position's value and
that value for the side to move, either its exact score (Pons' scale) or, where only the
outcome was solved, the outcome (``BookEntry.exact`` tells which).  ``solver.make_book``
builds it: every position up to ``BookInfo.complete_discs`` discs that any play can reach
(outcome at least), and the agent's own path through the opening deeper (exact).  The engine
plays from it before asking the solver, whose early positions take seconds to minutes, and
the solver stops any line at a booked position of a complete layer (``Book.bounds``).

A position and its mirror image have the same value, so the book stores each position once,
under the smaller of its key and its mirror's key; a lookup through the mirror mirrors the
column back.

The file: ``solver.bookfile`` (a compressed form shipped, a mapped form used in place).
``load_book`` maps a book once per process: its entries stay in the file, shared by every
process that reads the same book, and loading takes a millisecond or two once the shipped book
is unpacked into the cache (the first time on a machine: about a second).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from board import Board, bits
from board.keys import canonical_key
from solver import core
from solver.bookfile import BookError, compressed_bytes, mapped_packed, read_packed

__all__ = ["DEFAULT_BOOK_PATH", "Book", "BookEntry", "BookError", "book_bytes", "build_book",
           "decode_key", "discs_of", "load_book", "read_book", "save_book"]

DEFAULT_BOOK_PATH = Path(__file__).resolve().parent / "data" / "book.bin"


@dataclass(frozen=True, slots=True)
class BookEntry:
    """A booked position's answer, seen from the position looked up.

    ``column`` (0-based) keeps the position's value: its exact ``score`` (Pons' scale) if
    ``exact``, else its outcome, and ``score`` is then 1 (win) or -1 (loss); a draw is always
    exact (0).
    """

    column: int
    score: int
    exact: bool

    @property
    def outcome(self) -> int:
        """1 win, 0 draw, -1 loss, for the side to move."""
        return (self.score > 0) - (self.score < 0)


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
    """The booked positions as the solver's core probes them (``packed``: element 0 the
    complete layers, every position with at most that many discs being booked, -1 for none;
    then one int64 per position, sorted by canonical key: ``solver.core.pack_entries``), read
    by Python and by compiled code alike.  One int64 a position: a book complete to 13 discs
    holds 23 million.  ``keys``, ``scores``, ``columns`` and ``exact`` decode the whole book
    into arrays (for tools and tests)."""

    packed: np.ndarray
    _entries: np.ndarray = field(init=False, repr=False, compare=False)  # packed[1:]
    _discs: list[np.ndarray] = field(init=False, repr=False, compare=False)  # up_to's counts

    def __post_init__(self) -> None:
        # Read only, as a mapped book is: the compiled search is made for one kind of array.
        self.packed.flags.writeable = False
        object.__setattr__(self, "_entries", self.packed[1:])
        object.__setattr__(self, "_discs", [])

    @classmethod
    def of(cls, keys: np.ndarray, scores: np.ndarray, columns: np.ndarray, exact: np.ndarray,
           complete_discs: int = -1) -> Book:
        """A book of sorted canonical keys with their scores (exact, or where ``exact`` is 0
        the outcome), columns and exact flags."""
        packed = np.empty(keys.size + 1, dtype=np.int64)
        packed[0] = complete_discs
        core.pack_entries(keys, scores, columns, exact, packed[1:])
        return cls(packed)

    @property
    def complete_discs(self) -> int:
        return int(self.packed[0])

    def __len__(self) -> int:
        return int(self.packed.size - 1)

    @property
    def keys(self) -> np.ndarray:
        """The canonical keys, increasing (int64)."""
        return self._entries >> core.BOOK_KEY_SHIFT

    @property
    def columns(self) -> np.ndarray:
        """The column of each entry (int8, in the stored orientation)."""
        return (self._entries & core.COLUMN_MASK).astype(np.int8)

    @property
    def exact(self) -> np.ndarray:
        """1 where the score is exact (uint8)."""
        return (_codes(self._entries) < core.WIN_CODE).astype(np.uint8)

    @property
    def scores(self) -> np.ndarray:
        """The exact score, or where ``exact`` is 0 the outcome (int8)."""
        codes = _codes(self._entries)
        return np.where(codes < core.WIN_CODE, codes + core.MIN_SCORE,
                        np.where(codes == core.WIN_CODE, 1, -1)).astype(np.int8)

    def _find(self, key: int) -> int:
        entries = self._entries
        i = int(np.searchsorted(entries, key << core.BOOK_KEY_SHIFT))
        if i < entries.size and int(entries[i]) >> core.BOOK_KEY_SHIFT == key:
            return i
        return -1

    def _entry(self, i: int, mirrored: bool = False) -> BookEntry:
        packed = int(self._entries[i])
        code = (packed >> core.CODE_SHIFT) & core.CODE_MASK
        col = packed & core.COLUMN_MASK
        if mirrored:
            col = bits.WIDTH - 1 - col
        if code < core.WIN_CODE:
            return BookEntry(col, code + core.MIN_SCORE, True)
        return BookEntry(col, 1 if code == core.WIN_CODE else -1, False)

    def lookup(self, board: Board) -> BookEntry | None:
        """The entry for ``board`` (its column in ``board``'s orientation), or None."""
        key, mirrored = canonical_key(board)
        i = self._find(key)
        return None if i < 0 else self._entry(i, mirrored)

    def column_scores(self, board: Board) -> dict[int, int]:
        """The exact scores the book knows of ``board``'s legal columns (a winning move's
        included), for the side to move."""
        scores: dict[int, int] = {}
        for col in board.legal_moves():
            if board.is_winning_move(col):
                scores[col] = int(core.win_now_score(board.moves))
                continue
            child = board.play_unchecked(col)
            if child.is_full():
                scores[col] = 0
                continue
            found = self.lookup(child)
            if found is not None and found.exact:
                scores[col] = -found.score
        found = self.lookup(board)
        if found is not None and found.exact:
            scores[found.column] = found.score
        return scores

    def covers(self, board: Board) -> bool:
        """True if ``board`` lies in the complete layers (the book has every such position)."""
        return board.moves <= self.complete_discs

    def up_to(self, discs: int) -> Book:
        """The positions with at most ``discs`` discs (a smaller book, complete as far as both
        are)."""
        if not self._discs:  # counted once: a caller cutting at several layers asks again
            counts = np.empty(len(self), dtype=np.int8)
            _count_discs(self._entries, core.BOOK_KEY_SHIFT, counts)
            self._discs.append(counts)
        kept = self._entries[self._discs[0] <= discs]
        return Book(np.concatenate([[min(self.complete_discs, discs)], kept]))

    def entries(self, min_discs: int = 0) -> list[tuple[Board, BookEntry]]:
        """Every stored position with at least ``min_discs`` discs, with its entry, in the stored
        orientation (a Python object each: the whole book to 12 discs takes a minute)."""
        chosen = (discs_of(self.keys) >= min_discs).nonzero()[0] if min_discs > 0 else range(len(self))
        return [(decode_key(int(self._entries[i]) >> core.BOOK_KEY_SHIFT), self._entry(int(i)))
                for i in chosen]


def _codes(entries: np.ndarray) -> np.ndarray:
    """The value codes of packed entries (``solver.core.pack_entries``)."""
    return (entries >> core.CODE_SHIFT) & core.CODE_MASK


def discs_of(keys: np.ndarray) -> np.ndarray:
    """The number of discs of each key's position (int64; ``decode_key``'s heights)."""
    discs = np.empty(len(keys), dtype=np.int64)
    _count_discs(np.ascontiguousarray(keys, dtype=np.int64), 0, discs)
    return discs


@njit(cache=True)
def _count_discs(values: np.ndarray, shift: int, out: np.ndarray) -> None:
    """``out[i]``: the discs of the key ``values[i] >> shift``, in one compiled pass (the
    shipped book's 23 million entries without temporaries of their size)."""
    for i in range(values.size):
        key = values[i] >> shift
        count = 0
        for col in range(bits.WIDTH):
            height = ((key >> (col * bits.H1)) & 0x7F) + 1  # 2**h <= part + 1 < 2**(h+1)
            while height > 1:
                height >>= 1
                count += 1
        out[i] = count


def build_book(entries: dict[int, BookEntry], complete_discs: int = -1) -> Book:
    """A book from ``{canonical key: entry}`` (columns in the key's orientation)."""
    keys = np.array(sorted(entries), dtype=np.int64)
    ordered = [entries[int(k)] for k in keys]
    return Book.of(keys,
                   np.array([e.score for e in ordered], dtype=np.int8),
                   np.array([e.column for e in ordered], dtype=np.int8),
                   np.array([e.exact for e in ordered], dtype=np.uint8),
                   complete_discs)


def save_book(book: Book, path: str | Path) -> None:
    """Write ``book`` in the compressed form (``C4BOOK03``, ``solver.bookfile``)."""
    Path(path).write_bytes(book_bytes(book))


def book_bytes(book: Book) -> bytes:
    """``book`` as the bytes of its compressed file (``C4BOOK03``)."""
    return compressed_bytes(book.keys, book.scores, book.columns, book.exact, book.complete_discs)


def read_book(path: str | Path) -> Book:
    """Read and check a compressed book file (any format) into this process's memory;
    raises ``BookError`` saying what is wrong.  (``load_book`` maps it instead.)"""
    return Book(read_packed(Path(path)))


_loaded: dict[Path, Book] = {}


def load_book(path: str | Path | None = None) -> Book:
    """The book at ``path`` (default: the shipped one), once per process, mapped in place
    (``solver.bookfile.mapped_packed``: a compressed file is unpacked into the cache the first
    time); raises ``BookError`` saying what is wrong with a file that is not a sound book."""
    resolved = Path(path).resolve() if path else DEFAULT_BOOK_PATH
    if resolved not in _loaded:
        _loaded[resolved] = Book(mapped_packed(resolved))
    return _loaded[resolved]
