"""The course's seed heuristic, ``windows5000``, computed on bitboards.

The board has 69 four-cell windows (24 horizontal, 21 vertical, 12 + 12 diagonal).  Seen from
the player being evaluated, each window scores by the first rule that matches:

====================================  ===========
window holds                          score
====================================  ===========
4 own discs                           +5,000,001
3 own + 1 empty                       +5,000
2 own + 2 empty                       +500
4 opponent discs                      -5,000,000
3 opponent + 1 empty                  -5,001
2 opponent + 2 empty                  -501
anything else                         0
====================================  ===========

plus 1 for each own disc in the centre column.  The odd +1/-1 make the heuristic slightly
prefer blocking over building, as the seed solutions did.

Rather than looping over 69 windows, ``windows5000`` treats all windows of one direction at
once: window ``s`` covers cells ``s, s+d, s+2d, s+3d``, so shifting a bitboard right by
``i*d`` lines cell ``i`` of every window up on its start bit, and a 4-input bit-sliced adder
counts the discs of all windows of that direction in a dozen instructions.
"""

from __future__ import annotations

import numpy as np

from board import bits
from board.compiled import njit

DIRECTIONS = (1, 7, 6, 8)  # vertical, horizontal, diagonal \, diagonal /


def _window_starts() -> dict[int, int]:
    """For each direction, the bitboard of the start cells of its windows."""
    starts = dict.fromkeys(DIRECTIONS, 0)
    steps = {1: (0, 1), 7: (1, 0), 6: (1, -1), 8: (1, 1)}  # (dcol, drow)
    for shift, (dc, dr) in steps.items():
        for col in range(bits.WIDTH):
            for row in range(bits.HEIGHT):
                end_col, end_row = col + 3 * dc, row + 3 * dr
                if 0 <= end_col < bits.WIDTH and 0 <= end_row < bits.HEIGHT:
                    starts[shift] |= 1 << (col * bits.H1 + row)
    return starts


_STARTS = _window_starts()
VERTICAL_STARTS = _STARTS[1]
HORIZONTAL_STARTS = _STARTS[7]
DIAG_DOWN_STARTS = _STARTS[6]
DIAG_UP_STARTS = _STARTS[8]


def window_masks() -> np.ndarray:
    """The 69 windows as bitboards (for tests and for readers)."""
    masks = []
    for shift, starts in _STARTS.items():
        for s in range(bits.H1 * bits.WIDTH):
            if starts >> s & 1:
                masks.append(sum(1 << (s + i * shift) for i in range(4)))
    return np.array(masks, dtype=np.int64)


WIN4 = 5_000_001
OWN3 = 5_000
OWN2 = 500
LOSS4 = -5_000_000
OPP3 = -5_001
OPP2 = -501
CENTER_BONUS = 1


@njit(cache=True)
def _counts(x: int, shift: int, starts: int) -> tuple[int, int, int, int]:
    """Bitboards of the window starts (in one direction) holding exactly 1..4 discs of ``x``.

    Returns ``(any, two, three, four)``: ``any`` marks windows with at least one disc of ``x``.
    """
    a0 = x & starts
    a1 = (x >> shift) & starts
    a2 = (x >> (2 * shift)) & starts
    a3 = (x >> (3 * shift)) & starts
    lo_a = a0 ^ a1
    hi_a = a0 & a1
    lo_b = a2 ^ a3
    hi_b = a2 & a3
    bit0 = lo_a ^ lo_b
    carry = lo_a & lo_b
    bit1 = hi_a ^ hi_b ^ carry
    bit2 = (hi_a & hi_b) | (carry & (hi_a ^ hi_b))
    anyx = a0 | a1 | a2 | a3
    two = ~bit0 & bit1 & ~bit2
    three = bit0 & bit1 & ~bit2
    return anyx, two, three, bit2


@njit(cache=True)
def _direction_score(own: int, opp: int, shift: int, starts: int) -> int:
    own_any, own2, own3, own4 = _counts(own, shift, starts)
    opp_any, opp2, opp3, opp4 = _counts(opp, shift, starts)
    no_opp = ~opp_any
    no_own = ~own_any
    return (
        WIN4 * bits.popcount(own4)
        + OWN3 * bits.popcount(own3 & no_opp)
        + OWN2 * bits.popcount(own2 & no_opp)
        + LOSS4 * bits.popcount(opp4)
        + OPP3 * bits.popcount(opp3 & no_own)
        + OPP2 * bits.popcount(opp2 & no_own)
    )


@njit(cache=True)
def windows5000(own: int, mask: int) -> int:
    """The ``windows5000`` score of the discs ``own`` against the rest of ``mask``."""
    opp = own ^ mask
    return (
        _direction_score(own, opp, 1, VERTICAL_STARTS)
        + _direction_score(own, opp, 7, HORIZONTAL_STARTS)
        + _direction_score(own, opp, 6, DIAG_DOWN_STARTS)
        + _direction_score(own, opp, 8, DIAG_UP_STARTS)
        + CENTER_BONUS * bits.popcount(own & bits.CENTER_COLUMN)
    )
