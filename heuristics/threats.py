"""``threats``: a heuristic built on threat cells and their row parity.

A threat is an empty cell that would complete four for one side.  In Connect Four the first
player profits from threats on odd rows (1st, 3rd, 5th from the bottom) and the second player
from threats on even rows, because of who is forced to fill the cell below when the board
fills up (zugzwang).  The score, from the view of ``own``:

- 40 per own threat cell, minus 40 per opponent threat cell;
- 60 more per threat on a row of its owner's good parity (subtracted for the opponent);
- 4 per window with two own discs and two empty cells (the opponent's subtract);
- 3 per own disc in the centre column, minus 3 per opponent disc there.
"""

from __future__ import annotations

from board import bits
from board.compiled import njit
from heuristics.windows import (
    DIAG_DOWN_STARTS,
    DIAG_UP_STARTS,
    HORIZONTAL_STARTS,
    VERTICAL_STARTS,
    _counts,
)

THREAT = 40
GOOD_PARITY = 60
OPEN_TWO = 4
CENTER = 3

# 0-based rows 0, 2, 4 from the bottom are the odd rows (1st, 3rd, 5th) of the usual analysis.
ODD_ROWS = bits.BOTTOM_ROW * 0b010101
EVEN_ROWS = bits.BOTTOM_ROW * 0b101010


@njit(cache=True)
def _open_twos(x: int, other: int) -> int:
    n = 0
    for shift, starts in (
        (1, VERTICAL_STARTS),
        (7, HORIZONTAL_STARTS),
        (6, DIAG_DOWN_STARTS),
        (8, DIAG_UP_STARTS),
    ):
        two = _counts(x, shift, starts)[1]
        other_any = _counts(other, shift, starts)[0]
        n += bits.popcount(two & ~other_any)
    return n


@njit(cache=True)
def threats(own: int, mask: int, moves: int) -> int:
    """The ``threats`` score of ``own`` (the side to move after ``moves`` discs)."""
    opp = own ^ mask
    own_threats = bits.winning_cells(own, mask)
    opp_threats = bits.winning_cells(opp, mask)
    own_good, opp_good = (ODD_ROWS, EVEN_ROWS) if moves % 2 == 0 else (EVEN_ROWS, ODD_ROWS)
    return (
        THREAT * (bits.popcount(own_threats) - bits.popcount(opp_threats))
        + GOOD_PARITY
        * (bits.popcount(own_threats & own_good) - bits.popcount(opp_threats & opp_good))
        + OPEN_TWO * (_open_twos(own, opp) - _open_twos(opp, own))
        + CENTER
        * (bits.popcount(own & bits.CENTER_COLUMN) - bits.popcount(opp & bits.CENTER_COLUMN))
    )
