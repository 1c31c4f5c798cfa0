"""Bitboard primitives shared by the board model, the heuristics, the search and the solver.

Every function here is a small compiled (numba) function over plain integers, inlined into the
compiled code that calls it (``inline="always"``: a separately compiled call would cost a call
and reference counting per node in the searches' hot loops).  With ``NUMBA_DISABLE_JIT=1`` they
run as ordinary Python.  The ones the board model calls from Python (through ``py_func``) call
no other compiled function, so using them never loads compiled code.

Layout: the 6x7 board is stored column by column, 7 bits per column (6 cells and one
sentinel bit on top that is always 0), so bit ``7 * col + row`` is the cell in column ``col``
(0 = leftmost) and row ``row`` counted from the bottom::

      .  .  .  .  .  .  .      <- sentinel row, never set
      5 12 19 26 33 40 47      <- top row
      4 11 18 25 32 39 46
      3 10 17 24 31 38 45
      2  9 16 23 30 37 44
      1  8 15 22 29 36 43
      0  7 14 21 28 35 42      <- bottom row

A position is two bitboards: ``position`` (the discs of the side to move) and ``mask`` (all
discs).  The sentinel row makes ``position + mask`` unique, which is the position's key, and
lets shifts by 1, 6, 7 and 8 find alignments without wrapping from one column to the next.
"""

from __future__ import annotations

from board.compiled import njit

WIDTH = 7
HEIGHT = 6
H1 = HEIGHT + 1  # bits per column, sentinel included
CELLS = WIDTH * HEIGHT

BOTTOM_ROW = sum(1 << (H1 * c) for c in range(WIDTH))
BOARD_MASK = BOTTOM_ROW * ((1 << HEIGHT) - 1)
CENTER_COLUMN = ((1 << HEIGHT) - 1) << (H1 * (WIDTH // 2))

# Columns tried first to last: the centre takes part in the most four-in-a-rows.
CENTER_ORDER = (3, 2, 4, 1, 5, 0, 6)


@njit(cache=True, inline="always")
def bottom_mask_col(col: int) -> int:
    """The bottom cell of column ``col``."""
    return 1 << (col * H1)


@njit(cache=True, inline="always")
def column_mask(col: int) -> int:
    """All six cells of column ``col``."""
    return ((1 << HEIGHT) - 1) << (col * H1)


@njit(cache=True, inline="always")
def can_play(mask: int, col: int) -> bool:
    """True if column ``col`` still has room."""
    return (mask & (1 << (HEIGHT - 1 + col * H1))) == 0


@njit(cache=True, inline="always")
def drop_cell(mask: int, col: int) -> int:
    """The cell a disc dropped in column ``col`` lands on (the column must have room)."""
    return (mask + (1 << (col * H1))) & (((1 << HEIGHT) - 1) << (col * H1))


@njit(cache=True, inline="always")
def possible_moves(mask: int) -> int:
    """The cells where a disc can be dropped now, one per non-full column."""
    return (mask + BOTTOM_ROW) & BOARD_MASK


@njit(cache=True, inline="always")
def has_four(pos: int) -> bool:
    """True if the discs in ``pos`` contain four in a row in any direction."""
    for shift in (1, 7, 6, 8):  # vertical, horizontal, diagonal \, diagonal /
        pairs = pos & (pos >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def fours(pos: int) -> int:
    """The cells of every four in a row among the discs ``pos`` (0 if there is none)."""
    cells = 0
    for shift in (1, 7, 6, 8):
        pairs = pos & (pos >> shift)
        starts = pairs & (pairs >> (2 * shift))  # the first cell of each four
        for i in range(4):
            cells |= starts << (i * shift)
    return cells


@njit(cache=True, inline="always")
def winning_cells(pos: int, mask: int) -> int:
    """Empty cells that would complete four in a row for the discs ``pos`` (reachable or not)."""
    # vertical: three stacked discs and the cell above
    r = (pos << 1) & (pos << 2) & (pos << 3)
    for shift in (7, 6, 8):
        p = (pos << shift) & (pos << (2 * shift))
        r |= p & (pos << (3 * shift))  # XXX. -> the cell right of three
        r |= p & (pos >> shift)  # XX.X
        p = (pos >> shift) & (pos >> (2 * shift))
        r |= p & (pos << shift)  # X.XX
        r |= p & (pos >> (3 * shift))  # .XXX
    return r & (BOARD_MASK ^ mask)


@njit(cache=True, inline="always")
def popcount(x: int) -> int:
    """Number of set bits (LLVM turns this loop into one popcnt instruction)."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def lowest_col(cell: int) -> int:
    """The column of a single-bit board ``cell``."""
    col = 0
    while cell >= (1 << H1):
        cell >>= H1
        col += 1
    return col
