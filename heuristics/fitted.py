"""The fitted heuristics, ``windows_tuned`` and ``learned``: evaluations over counted
features, their weights fitted to our solver's outcomes by ``heuristics.train``.

A linear one scores a position as ``SCALE * (w . f)`` where ``f`` counts features of the
position from the side to move's view and ``w`` is one row of a weights array chosen by whose
turn it is (row ``moves % rows``): the fit makes ``w . f`` the log-odds that the side to move
wins, so one unit of score is ``1 / SCALE`` of a logit.  ``learned`` may instead be a network
of one hidden layer over the same features (``network_rows``; the shipped one is), whose
output is the same log-odds.  The weights are arrays passed in by the caller
(``heuristics.weights``), never module globals: numba freezes globals into its on-disk cache.

``windows_tuned`` counts what ``windows5000`` counts (one weights row for both sides):

====  ===============================================
 f     feature
====  ===============================================
 0     windows of 3 own discs and 1 empty cell
 1     windows of 2 own discs and 2 empty cells
 2     windows of 3 opponent discs and 1 empty cell
 3     windows of 2 opponent discs and 2 empty cells
 4     own discs in the centre column
 5     opponent discs in the centre column
 6     1 (the constant)
====  ===============================================

``learned`` adds what decides games between good players, the threats (empty cells that
would complete four) and their rows, which matter through zugzwang: the first player profits
from threats on odd rows, the second from even ones.  It has one weights row for a side to
move that started the game (row 0) and one for the second player (row 1):

=======  =========================================================================
 f        feature
=======  =========================================================================
 0-5      own threat cells on row 1..6 (counted from the bottom)
 6-11     opponent threat cells on row 1..6
 12, 13   own / opponent threat cells playable now
 14, 15   own / opponent threat cells with a threat of the same side right above
 16-19    the ``windows_tuned`` window counts 0-3
 20-23    own discs in the columns 0, 1, 2, 3 away from the centre
 24-27    opponent discs in the columns 0, 1, 2, 3 away from the centre
 28-31    own / opponent threat cells that are the lowest threat (of either side) in their
          column, on an odd row (1st, 3rd, 5th) / on an even row (own odd, own even, opponent
          odd, opponent even): the threat that zugzwang decides when the board fills up
 32, 33   own / opponent threat cells right above a playable cell (whoever plays below
          gives the threat away)
 34       1 (the constant)
=======  =========================================================================

and after them (unless its weights file has only those 35 a row) the square features,
``SQUARE_FEATURES`` 0/1 indicators, one per cell in each of four groups: own discs, opponent
discs, own threat cells, opponent threat cells (slot ``b`` of a group is bit ``b`` of the
bitboard; the column sentinels' slots are always 0).  They let the fit value a cell by where
it is (a disc on the centre's third row, a threat low in a middle column) where the counts
above value all cells of a row or a column alike.
"""

from __future__ import annotations

import numpy as np

from board import bits
from board.compiled import njit
from heuristics.windows import DIAG_DOWN_STARTS, DIAG_UP_STARTS, HORIZONTAL_STARTS, VERTICAL_STARTS, _counts

SCALE = 10_000
# The square features (``learned`` with squares): one per bit of the board (the column
# sentinels' stay zero) in each of four groups: own discs, opponent discs, own threat cells,
# opponent threat cells.
SQUARE_SLOTS = bits.H1 * bits.WIDTH
SQUARE_FEATURES = 4 * SQUARE_SLOTS
TUNED_FEATURES = 7
LEARNED_FEATURES = 35

ROWS = tuple(bits.BOTTOM_ROW << row for row in range(bits.HEIGHT))
ODD_ROWS = bits.BOTTOM_ROW * 0b010101  # rows 1, 3, 5 counted from 1 at the bottom
EVEN_ROWS = bits.BOTTOM_ROW * 0b101010
# Columns by distance from the centre: 0 (the centre), 1, 2, 3 (the edges).
RINGS = tuple(
    sum(((1 << bits.HEIGHT) - 1) << (bits.H1 * c) for c in range(bits.WIDTH)
        if abs(c - bits.WIDTH // 2) == d)
    for d in range(4)
)


@njit(cache=True, inline="always")
def _open_windows(own: int, opp: int) -> tuple[int, int, int, int]:
    """Windows of (3 own + 1 empty, 2 own + 2 empty, 3 opponent + 1 empty, 2 opponent + 2
    empty) over the four directions."""
    own3 = own2 = opp3 = opp2 = 0
    for shift, starts in ((1, VERTICAL_STARTS), (7, HORIZONTAL_STARTS),
                          (6, DIAG_DOWN_STARTS), (8, DIAG_UP_STARTS)):
        own_any, own_two, own_three, _ = _counts(own, shift, starts)
        opp_any, opp_two, opp_three, _ = _counts(opp, shift, starts)
        own3 += bits.popcount(own_three & ~opp_any)
        own2 += bits.popcount(own_two & ~opp_any)
        opp3 += bits.popcount(opp_three & ~own_any)
        opp2 += bits.popcount(opp_two & ~own_any)
    return own3, own2, opp3, opp2


@njit(cache=True, inline="always")
def _above(cells: int) -> int:
    """The cells above any of ``cells`` in their columns."""
    up = (cells << 1) & bits.BOARD_MASK
    for _ in range(bits.HEIGHT - 2):
        up |= (up << 1) & bits.BOARD_MASK
    return up


@njit(cache=True)
def tuned_features(own: int, mask: int) -> tuple[int, int, int, int, int, int, int]:
    """The ``windows_tuned`` features of the position (``own`` = discs of the side to move)."""
    opp = own ^ mask
    own3, own2, opp3, opp2 = _open_windows(own, opp)
    return (own3, own2, opp3, opp2, bits.popcount(own & bits.CENTER_COLUMN),
            bits.popcount(opp & bits.CENTER_COLUMN), 1)


@njit(cache=True)
def learned_features(own: int, mask: int) -> tuple[int, ...]:
    """The ``learned`` features of the position (``own`` = discs of the side to move)."""
    opp = own ^ mask
    own_threats = bits.winning_cells(own, mask)
    opp_threats = bits.winning_cells(opp, mask)
    playable = bits.possible_moves(mask)
    own3, own2, opp3, opp2 = _open_windows(own, opp)
    lowest = (own_threats | opp_threats) & ~_above(own_threats | opp_threats)
    r0, r1, r2, r3, r4, r5 = ROWS
    c0, c1, c2, c3 = RINGS
    pc = bits.popcount
    return (
        pc(own_threats & r0), pc(own_threats & r1), pc(own_threats & r2),
        pc(own_threats & r3), pc(own_threats & r4), pc(own_threats & r5),
        pc(opp_threats & r0), pc(opp_threats & r1), pc(opp_threats & r2),
        pc(opp_threats & r3), pc(opp_threats & r4), pc(opp_threats & r5),
        pc(own_threats & playable), pc(opp_threats & playable),
        pc(own_threats & (own_threats >> 1)), pc(opp_threats & (opp_threats >> 1)),
        own3, own2, opp3, opp2,
        pc(own & c0), pc(own & c1), pc(own & c2), pc(own & c3),
        pc(opp & c0), pc(opp & c1), pc(opp & c2), pc(opp & c3),
        pc(own_threats & lowest & ODD_ROWS), pc(own_threats & lowest & EVEN_ROWS),
        pc(opp_threats & lowest & ODD_ROWS), pc(opp_threats & lowest & EVEN_ROWS),
        pc(own_threats & (playable << 1)), pc(opp_threats & (playable << 1)),
        1,
    )


@njit(cache=True, inline="always")
def _dot(features: tuple[int, ...], row: np.ndarray) -> float:
    total = 0.0
    for i in range(len(features)):
        total += row[i] * features[i]
    return total


@njit(cache=True, inline="always")
def _scaled(features: tuple[int, ...], row: np.ndarray) -> int:
    return round(SCALE * _dot(features, row))


@njit(cache=True, inline="always")
def _square_sum(cells: int, row: np.ndarray, offset: int) -> float:
    """The sum of ``row[offset + b]`` over the set bits ``b`` of ``cells``."""
    total = 0.0
    while cells:
        low = cells & -cells
        total += row[offset + bits.popcount(low - 1)]
        cells ^= low
    return total


@njit(cache=True, inline="always")
def _square_groups(own: int, mask: int) -> tuple[int, int, int, int]:
    """The four bitboards the square features index, in their order: own discs, opponent
    discs, own threat cells, opponent threat cells."""
    opp = own ^ mask
    return own, opp, bits.winning_cells(own, mask), bits.winning_cells(opp, mask)


@njit(cache=True, inline="always")
def _squares(own: int, mask: int, row: np.ndarray) -> float:
    """The square features' part of a score (their weights follow the counted features')."""
    groups = _square_groups(own, mask)
    total = 0.0
    for g in range(4):
        total += _square_sum(groups[g], row, LEARNED_FEATURES + g * SQUARE_SLOTS)
    return total


@njit(cache=True)
def windows_tuned(own: int, mask: int, moves: int, weights: np.ndarray) -> int:
    """The ``windows_tuned`` score: ``weights`` has ``TUNED_FEATURES`` columns."""
    return _scaled(tuned_features(own, mask), weights[moves % weights.shape[0]])


@njit(cache=True, inline="always")
def _add_square_rows(hidden: np.ndarray, cells: int, weights: np.ndarray, offset: int) -> None:
    """Add row ``offset + b`` of ``weights`` to ``hidden`` for each set bit ``b`` of ``cells``
    (a square feature's first-layer weights)."""
    while cells:
        low = cells & -cells
        row = offset + bits.popcount(low - 1)
        for j in range(hidden.size):
            hidden[j] += weights[row, j]
        cells ^= low


@njit(cache=True, inline="always")
def _network(own: int, mask: int, features: tuple[int, ...], block: int,
             weights: np.ndarray) -> int:
    """The network's output for the position (its counted ``features`` given) of side-to-move
    block ``block`` (see ``network_rows``), scaled."""
    width = (weights.shape[0] - 3) // 2
    first = block * width
    biases = 2 * width
    hidden = weights[biases].copy()
    for i in range(LEARNED_FEATURES):
        if features[i] != 0:
            for j in range(hidden.size):
                hidden[j] += weights[first + i, j] * features[i]
    if width > LEARNED_FEATURES:
        groups = _square_groups(own, mask)
        for g in range(4):
            _add_square_rows(hidden, groups[g], weights,
                             first + LEARNED_FEATURES + g * SQUARE_SLOTS)
    total = weights[biases + 2, 0]
    for j in range(hidden.size):
        if hidden[j] > 0.0:
            total += weights[biases + 1, j] * hidden[j]
    return round(SCALE * float(total))


@njit(cache=True)
def learned(own: int, mask: int, moves: int, weights: np.ndarray) -> int:
    """The ``learned`` score, by the model ``weights`` hold: one or two rows of weights
    (linear: ``LEARNED_FEATURES``, or those and ``SQUARE_FEATURES``, a row), or a network of
    one hidden layer (``network_rows``)."""
    features = learned_features(own, mask)
    if weights.shape[0] <= 2:
        row = weights[moves % weights.shape[0]]
        total = _dot(features, row)
        if row.size > LEARNED_FEATURES:
            total += _squares(own, mask, row)
        return round(SCALE * total)
    return _network(own, mask, features, moves % 2, weights)


def network_rows(squares: bool) -> int:
    """Rows of a network's weights array over ``F`` inputs (the counted features, and with
    ``squares`` the square features after them): the first layer's weights for the inputs of
    a first-player-to-move position (rows 0..F-1) and of a second-player one (F..2F-1), one
    hidden unit per column; then the hidden biases; the output weights; the output bias (in
    column 0).  Inputs are the raw features (any scaling is folded into the weights)."""
    return 2 * (LEARNED_FEATURES + SQUARE_FEATURES * squares) + 3


@njit(cache=True)
def square_rows(owns: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The square features of many positions, one row each (for the fit)."""
    out = np.zeros((owns.size, SQUARE_FEATURES), dtype=np.float64)
    for i in range(owns.size):
        groups = _square_groups(owns[i], masks[i])
        for g in range(4):
            for b in range(SQUARE_SLOTS):
                out[i, g * SQUARE_SLOTS + b] = (groups[g] >> b) & 1
    return out


@njit(cache=True)
def feature_rows(owns: np.ndarray, masks: np.ndarray, learned_set: bool) -> np.ndarray:
    """The features of many positions, one row each (for the fit)."""
    width = LEARNED_FEATURES if learned_set else TUNED_FEATURES
    out = np.empty((owns.size, width), dtype=np.float64)
    for i in range(owns.size):
        if learned_set:
            f = learned_features(owns[i], masks[i])
            for j in range(LEARNED_FEATURES):
                out[i, j] = f[j]
        else:
            g = tuned_features(owns[i], masks[i])
            for j in range(TUNED_FEATURES):
                out[i, j] = g[j]
    return out
