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

from board import bits
from board.compiled import njit

CENTER_ORDER = bits.CENTER_ORDER
# An entry of order_moves: its sort key, the threat count, above the cell (a cell is below
# bit 49); the cell is ``entry & CELL_BITS``.
_SORT_SHIFT = 52
CELL_BITS = (1 << _SORT_SHIFT) - 1
_FIRST = 1 << 10  # a count no move reaches: the move given first goes first
# The columns in centre-first order, and an eighth lane that holds no column: order_moves
# counts the threats of all eight lanes in one loop, which the compiler turns into vector
# instructions (one AVX-512 register holds the eight boards).
_LANES = 8
LANE_COLUMNS = np.array([((1 << bits.HEIGHT) - 1) << (bits.H1 * c) for c in CENTER_ORDER] + [0],
                         dtype=np.int64)


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
    """Write the moves of ``candidates`` into ``out[row, :n]``, best first; return ``n``.
    Each entry holds its sort key above the cell: the cell is ``entry & CELL_BITS``.  (The
    keys are left in: clearing them, a loop the compiler turns into vector loads of what the
    sort has just stored one by one, cost the solver about 5 % of its time, the stores not
    forwarded to the loads.)

    Best first: the cell ``first`` (a table's best move; 0 for none), then the moves that
    create the most cells where we would complete four, centre first among equals (an
    insertion sort over the centre-first order).  ``out`` needs 8 columns and a row after
    ``row`` (a search's stack: the child's row, not yet in use), where, with two moves or more,
    it leaves those cells for each move: ``out[row + 1, i]`` for the move in
    ``LANE_COLUMNS[i]`` (the solver's odd-threat rule reads them).
    """
    r = np.uint64(row)  # unsigned indices: numba checks a signed one for being negative
    if candidates & (candidates - 1) == 0:
        out[r, 0] = candidates  # a single move (often a forced one): nothing to sort
        return 1
    # The threats after each move, for all lanes at once (no branch: a vector loop).
    lanes = np.uint64(row + 1)
    empty = bits.BOARD_MASK ^ mask
    for i in range(_LANES):
        out[lanes, i] = bits.winning_cells(pos | (candidates & LANE_COLUMNS[i]), mask) & empty
    n = 0
    for i in range(bits.WIDTH):
        cell = candidates & LANE_COLUMNS[i]
        if cell == 0:
            continue
        count = _FIRST if cell == first else bits.popcount(out[lanes, i])
        j = n
        while j > 0 and (out[r, np.uint64(j - 1)] >> _SORT_SHIFT) < count:
            out[r, np.uint64(j)] = out[r, np.uint64(j - 1)]
            j -= 1
        out[r, np.uint64(j)] = (count << _SORT_SHIFT) | cell
        n += 1
    return n
