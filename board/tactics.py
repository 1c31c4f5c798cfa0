"""What both compiled searches know about a position before they search it: wins at once,
moves that hand the opponent a win, and which moves to try first.

The heuristic search (``search.negamax``) and the exact solver (``solver.core``) call these in
their inner loops.  They are compiled with ``inline="always"``: numba copies their body into
each caller, where a separately compiled call would cost a call and reference counting per
node; called from Python they work as ordinary compiled functions, cached on disk like the
rest (uncached, a fresh process compiled them on its first call: about a second).  ``pos`` is
the side to move's discs, ``mask`` all discs (``board.bits``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from board import bits

CENTER_ORDER = bits.CENTER_ORDER
# An entry being sorted: the threat count above the cell (a cell is below bit 49).
_SORT_SHIFT = 52
_CELL_BITS = (1 << _SORT_SHIFT) - 1
_FIRST = 1 << 10  # a count no move reaches: the move given first goes first


@njit(cache=True, inline="always")
def winning_moves(pos: int, mask: int) -> int:
    """The cells where the side to move completes four with its next disc (0: none)."""
    return bits.winning_cells(pos, mask) & bits.possible_moves(mask)


@njit(cache=True, inline="always")
def non_losing_moves(pos: int, mask: int) -> int:
    """The cells of the moves that do not let the opponent win at once (0: every move loses).

    A single opponent threat that can be played now must be blocked; two are a loss; a move
    right under an opponent threat hands it over.  Assumes the side to move cannot win now.
    """
    possible = bits.possible_moves(mask)
    opp_win = bits.winning_cells(pos ^ mask, mask)
    forced = possible & opp_win
    if forced:
        if forced & (forced - 1):
            return 0
        possible = forced
    return possible & ~(opp_win >> 1)


@njit(cache=True, inline="always")
def order_moves(pos: int, mask: int, candidates: int, first: int, out: np.ndarray,
                row: int) -> int:
    """Write the cells of ``candidates`` into ``out[row, :n]``, best first; return ``n``.

    Best first: the cell ``first`` (a table's best move; 0 for none), then the moves that
    create the most cells where we would complete four, centre first among equals (an
    insertion sort over the centre-first order).
    """
    if candidates & (candidates - 1) == 0:
        out[row, 0] = candidates  # a single move (often a forced one): nothing to sort
        return 1
    n = 0
    for i in range(bits.WIDTH):
        cell = candidates & bits.column_mask(CENTER_ORDER[i])
        if cell == 0:
            continue
        if cell == first:
            count = _FIRST
        else:
            count = bits.popcount(bits.winning_cells(pos | cell, mask))
        j = n
        while j > 0 and (out[row, j - 1] >> _SORT_SHIFT) < count:
            out[row, j] = out[row, j - 1]
            j -= 1
        out[row, j] = (count << _SORT_SHIFT) | cell
        n += 1
    for i in range(n):
        out[row, i] &= _CELL_BITS
    return n
