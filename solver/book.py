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

File format (little-endian), checked on load:

======  =====================  ===========================================================
offset  size                   content
======  =====================  ===========================================================
0       8                      magic ``C4BOOK03``
8       4                      ``count``: number of positions (uint32)
12      1                      ``complete``: every position with at most this many discs is in
                               the book (uint8; 255: none)
13      32                     SHA-256 of the payload (before compression)
45      to the end             the payload, compressed with zlib
======  =====================  ===========================================================

The payload:

======  =====================  ===========================================================
0       8 * count              keys, strictly increasing, as differences: the first key, then
                               each key minus the one before (int64; a key is
                               ``position + mask``)
...     count                  scores (int8): the exact score, or with ``exact`` 0 the outcome
                               (1 win, 0 draw, -1 loss)
...     count                  columns (int8, 0-6, in the stored orientation)
...     count                  flags (uint8): 1 = the score is exact
======  =====================  ===========================================================

The keys of a complete layer lie close together, so their differences compress about tenfold
(the book complete to 8 discs: 2.0 MB as format 2, 0.3 MB as format 3; it decompresses in a few
milliseconds).  Older books still read: ``C4BOOK02`` stores the payload uncompressed with the
keys themselves, ``C4BOOK01`` has neither the ``complete`` byte nor the flags (every entry
exact, no complete layer).
"""

from __future__ import annotations

import hashlib
import struct
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from board import Board, bits
from board.keys import canonical_key
from settings import ConfigError
from solver import core

MAGIC = b"C4BOOK03"
MAGIC_V2 = b"C4BOOK02"
MAGIC_V1 = b"C4BOOK01"
ENTRY_BYTES = 11  # in the file: a key, a score, a column and a flag
_HEADER = struct.Struct("<8sIB32s")
_HEADER_V1 = struct.Struct("<8sI32s")
NO_COMPLETE_LAYER = 255
DEFAULT_BOOK_PATH = Path(__file__).resolve().parent / "data" / "book.bin"


class BookError(ConfigError):
    """The opening book file is missing, damaged or not a book (a configuration problem)."""


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "_entries", self.packed[1:])

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
        kept = discs_of(self.keys) <= discs
        return Book(np.concatenate([[min(self.complete_discs, discs)], self._entries[kept]]))

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
    """The number of discs of each key's position (``decode_key``'s heights, vectorised)."""
    count = np.zeros(len(keys), dtype=np.int64)
    for col in range(bits.WIDTH):
        part = (keys.astype(np.int64) >> (col * bits.H1)) & 0x7F
        count += np.frexp((part + 1).astype(np.float64))[1] - 1  # floor(log2(part + 1))
    return count


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
    """Write ``book`` in the current format (``C4BOOK03``)."""
    Path(path).write_bytes(book_bytes(book))


def book_bytes(book: Book) -> bytes:
    """``book`` as the bytes of its file (``C4BOOK03``)."""
    differences = np.diff(book.keys.astype(np.int64), prepend=np.int64(0))
    payload = (differences.astype("<i8").tobytes() + book.scores.astype("i1").tobytes()
               + book.columns.astype("i1").tobytes() + book.exact.astype("u1").tobytes())
    complete = NO_COMPLETE_LAYER if book.complete_discs < 0 else book.complete_discs
    header = _HEADER.pack(MAGIC, len(book), complete, hashlib.sha256(payload).digest())
    return header + zlib.compress(payload, 9)


_INPUT_BLOCK = 1 << 20  # compressed bytes inflated at a time
_OUTPUT_BLOCK = 1 << 22  # and at most so many bytes of payload from them at a time


def _inflate_into(data: memoryview, targets: list[memoryview], path: Path) -> bytes:
    """Inflate a format-3 payload straight into ``targets`` (writable byte views, filled one
    after the other), a block at a time, without a copy of the whole payload; return its
    SHA-256.  Raises ``BookError`` when the data does not fill them exactly."""
    inflate = zlib.decompressobj()
    digest = hashlib.sha256()
    remaining = sum(len(target) for target in targets)
    spans = iter(targets)
    target, filled = next(spans, memoryview(bytearray())), 0
    leftover = False  # compressed data after the end of the stream
    try:
        for start in range(0, len(data), _INPUT_BLOCK):
            if inflate.eof:
                leftover = True
                break
            pending: bytes | memoryview = data[start:start + _INPUT_BLOCK]
            while pending and not inflate.eof:
                chunk = memoryview(inflate.decompress(pending,
                                                      min(remaining + 1, _OUTPUT_BLOCK)))
                pending = inflate.unconsumed_tail
                if len(chunk) > remaining:
                    raise BookError(f"opening book {path}: more data than its count of entries:"
                                    " a damaged file")
                remaining -= len(chunk)
                digest.update(chunk)
                while chunk:
                    if filled == len(target):
                        target, filled = next(spans), 0
                    part = chunk[:len(target) - filled]
                    target[filled:filled + len(part)] = part
                    filled += len(part)
                    chunk = chunk[len(part):]
    except zlib.error as exc:
        raise BookError(f"opening book {path}: the data does not decompress ({exc}):"
                        " a damaged or truncated file") from None
    if not inflate.eof or inflate.unused_data or leftover:
        raise BookError(f"opening book {path}: the compressed data is cut short or too long:"
                        " a damaged or truncated file")
    if remaining:
        raise BookError(f"opening book {path}: {remaining} bytes of data missing for its"
                        " count of entries (truncated?)")
    return digest.digest()


def read_book(path: str | Path) -> Book:
    """Read and check a book file (any format); raises ``BookError`` saying what is wrong.

    The book's one array is filled in place: a format-3 payload is inflated straight into it
    (the keys' differences) and into one byte array (scores, columns, flags), then checked and
    packed in one pass.  So reading holds the entries, 3 bytes a position and the file, not the
    payload beside them (a book complete to 13 discs: 187 MB of entries, a payload of 256 MB)."""
    path = Path(path)
    try:
        data = memoryview(path.read_bytes())
    except OSError as exc:
        raise BookError(f"opening book {path}: cannot read: {exc.strerror or exc}") from None
    magic = bytes(data[:8])
    if magic == MAGIC_V1 and len(data) >= _HEADER_V1.size:
        _, count, digest = _HEADER_V1.unpack_from(data)
        complete, width, header = NO_COMPLETE_LAYER, 10, _HEADER_V1.size
    elif magic in (MAGIC, MAGIC_V2) and len(data) >= _HEADER.size:
        _, count, complete, digest = _HEADER.unpack_from(data)
        width, header = ENTRY_BYTES, _HEADER.size
    else:
        raise BookError(f"opening book {path}: not a book file (bad magic)")
    packed = np.empty(count + 1, dtype=np.int64)
    packed[0] = -1 if complete == NO_COMPLETE_LAYER else int(complete)
    keys = packed[1:]
    if magic == MAGIC:
        values = np.empty((width - 8) * count, dtype=np.uint8)
        payload_digest = _inflate_into(data[header:], [keys.view(np.uint8).data, values.data],
                                       path)
        if sys.byteorder == "big":
            keys.byteswap(inplace=True)  # the file's differences are little-endian
    else:
        payload = data[header:]
        if len(payload) != width * count:
            raise BookError(f"opening book {path}: {len(payload)} bytes of data for {count}"
                            f" entries, expected {width * count} (truncated?)")
        payload_digest = hashlib.sha256(payload).digest()
        keys[:] = np.frombuffer(payload, dtype="<i8", count=count)
        values = np.frombuffer(payload, dtype=np.uint8, offset=8 * count)
    if payload_digest != digest:
        raise BookError(f"opening book {path}: checksum mismatch (damaged file)")
    # ``values``: the scores, the columns, then (from format 2 on) the exact flags.
    scores, columns = values[:count].view(np.int8), values[count:2 * count].view(np.int8)
    exact = values[2 * count:] if width == ENTRY_BYTES else np.ones(count, dtype=np.uint8)
    problem = _decode_entries(keys, scores, columns, exact, magic == MAGIC)
    if problem >= 0:
        raise BookError(f"opening book {path}: {_PROBLEMS[problem]}")
    return Book(packed)


_PROBLEMS = ("keys are not strictly increasing", "a key is negative",
             "a key has bits beyond the board", f"a column is outside 0-{bits.WIDTH - 1}",
             "a score is outside the possible range", "a flag is neither 0 nor 1",
             "an outcome-only entry is not -1, 0 or 1")


@njit(cache=True)
def _decode_entries(keys: np.ndarray, scores: np.ndarray, columns: np.ndarray,
                    exact: np.ndarray, differences: bool) -> int:
    """Check the entries read and pack them into ``keys`` in place (``core.pack_entry``), in one
    pass without temporaries; ``differences``: ``keys`` holds each key minus the one before.
    Returns -1, or the first problem found (an index into ``_PROBLEMS``)."""
    limit = bits.CELLS // 2
    previous = np.int64(0)
    for i in range(keys.size):
        key = keys[i] + previous if differences else keys[i]
        if i > 0 and key <= previous:
            return 0
        if key < 0:
            return 1
        if key >> (bits.WIDTH * bits.H1):
            return 2
        if not 0 <= columns[i] < bits.WIDTH:
            return 3
        if not -limit <= scores[i] <= limit:
            return 4
        if exact[i] > 1:
            return 5
        if not exact[i] and not -1 <= scores[i] <= 1:
            return 6
        previous = key
        keys[i] = core.pack_entry(key, int(scores[i]), int(columns[i]), exact[i] != 0)
    return -1


_loaded: dict[Path, Book] = {}


def load_book(path: str | Path | None = None) -> Book:
    """The book at ``path`` (default: the shipped one), read and checked once per process."""
    resolved = Path(path).resolve() if path else DEFAULT_BOOK_PATH
    if resolved not in _loaded:
        _loaded[resolved] = read_book(resolved)
    return _loaded[resolved]
