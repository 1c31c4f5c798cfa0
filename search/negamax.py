"""The compiled heart of the heuristic search: depth-limited negamax with alpha-beta.

Scores are always from the view of the side to move.  A won game scores ``WIN - n`` where
``n`` is the number of discs on the board when the winning disc lands, a lost game
``-(WIN - n)``, a draw 0: terminal scores dominate every heuristic score (``|h| < 4e8``),
faster wins score higher and slower losses less badly, and the score of a position does not
depend on how deep in the tree it was met, so transposition-table entries need no adjustment.

This module does no I/O and reads no clock.  Its caller bounds the work with a node limit in
``counters`` and, when the limit is hit, gets ``counters[ABORTED] = 1`` and a meaningless
score; nothing is stored in the table for aborted nodes, so a search started again with the
same table and settings walks back to where it stopped through table hits.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from board import bits
from heuristics import evaluate_id
from search.table import EXACT, LOWER, UPPER, tt_depth, tt_flag, tt_move, tt_pack, tt_score

WIN = 1_000_000_000
INF = 2 * WIN

# counters[] slots
NODES = 0
NODE_LIMIT = 1
ABORTED = 2

# Depth recorded for scores that hold at any depth.
ANY_DEPTH = 255

# Scratch row per ply: 7 ordered moves, then the best move found at that node.
BEST_SLOT = 7


def new_counters(node_limit: int) -> np.ndarray:
    counters = np.zeros(3, dtype=np.int64)
    counters[NODE_LIMIT] = node_limit
    return counters


def new_scratch() -> np.ndarray:
    return np.zeros((bits.CELLS + 1, 8), dtype=np.int64)


def is_win_score(score: int) -> bool:
    return score > WIN - 100


def is_loss_score(score: int) -> bool:
    return score < -(WIN - 100)


def is_proven(score: int) -> bool:
    """True if ``score`` is a forced win or loss rather than a heuristic estimate."""
    return is_win_score(score) or is_loss_score(score)


@njit(cache=True)
def _order_moves(pos: int, mask: int, possible: int, tt_col: int, row: np.ndarray) -> int:
    """Write the playable columns of ``possible`` into ``row``, best first; return how many.

    Order: the table's move, then moves creating the most own threat cells, then centre first.
    """
    n = 0
    for i in range(bits.WIDTH):
        col = bits.CENTER_ORDER[i]
        cell = possible & bits.column_mask(col)
        if cell == 0:
            continue
        if col == tt_col:
            key = 1 << 20
        else:
            threats = bits.popcount(bits.winning_cells(pos | cell, mask | cell))
            key = threats * 16 + (bits.WIDTH - i)
        entry = key * 8 + col
        j = n
        while j > 0 and row[j - 1] < entry:
            row[j] = row[j - 1]
            j -= 1
        row[j] = entry
        n += 1
    for i in range(n):
        row[i] = row[i] & 7
    return n


@njit(cache=True)
def _proven(
    score: int,
    col: int,
    key: int,
    index: int,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    best_slot: np.ndarray,
) -> int:
    """Record a score that holds at any depth (a win or loss found by tactics) and return it."""
    tt_keys[index] = key
    tt_data[index] = tt_pack(score, ANY_DEPTH, EXACT, col)
    best_slot[BEST_SLOT] = col
    return score


@njit(cache=True)
def negamax(
    pos: int,
    mask: int,
    moves: int,
    depth: int,
    alpha: int,
    beta: int,
    hid: int,
    tactics: bool,
    tt_keys: np.ndarray,
    tt_data: np.ndarray,
    scratch: np.ndarray,
    counters: np.ndarray,
) -> int:
    """Score of the position (``pos`` = discs of the side to move) searched ``depth`` plies.

    Contract (fail-soft alpha-beta), for the returned value ``v`` and the true depth-limited
    minimax value ``m``:

    - ``v <= alpha``: the search failed low and ``m <= v``;
    - ``v >= beta``: the search failed high and ``m >= v``;
    - otherwise ``v == m``.

    With ``tactics`` off, ``m`` is plain depth-limited minimax with heuristic ``hid`` at the
    leaves (a winning move is always taken, as it is the best possible score).  With
    ``tactics`` on, forced moves are also pruned at every node, leaves included: a move that
    lets the opponent win at once is never played unless nothing else is left, a single
    opponent threat must be blocked, and two are a loss.  Those prunings are exact for the
    game's outcome, so a win or loss score is then a proof.

    The position must not be over.  ``scratch[moves, BEST_SLOT]`` receives the best move.
    """
    counters[NODES] += 1
    if counters[NODES] > counters[NODE_LIMIT]:
        counters[ABORTED] = 1
        return 0
    best_slot = scratch[moves]
    if depth == 0 and not tactics:
        return evaluate_id(hid, pos, mask, moves)

    key = pos + mask
    index = key % tt_keys.size
    possible = bits.possible_moves(mask)
    wins_now = bits.winning_cells(pos, mask) & possible
    if wins_now:
        return _proven(WIN - (moves + 1), bits.lowest_col(wins_now & -wins_now), key, index,
                       tt_keys, tt_data, best_slot)

    if tactics:
        opp_threats = bits.winning_cells(pos ^ mask, mask)
        forced = possible & opp_threats
        if forced:
            if forced & (forced - 1):
                return _proven(-(WIN - (moves + 2)), bits.lowest_col(forced & -forced), key,
                               index, tt_keys, tt_data, best_slot)
            possible = forced
        safe = possible & ~(opp_threats >> 1)
        if safe == 0:
            return _proven(-(WIN - (moves + 2)), bits.lowest_col(possible & -possible), key,
                           index, tt_keys, tt_data, best_slot)
        possible = safe
        if depth == 0:
            return evaluate_id(hid, pos, mask, moves)
    tt_col = -1
    if tt_keys[index] == key:
        data = tt_data[index]
        tt_col = tt_move(data)
        if tt_depth(data) >= depth:
            score = tt_score(data)
            flag = tt_flag(data)
            if (
                flag == EXACT
                or (flag == LOWER and score >= beta)
                or (flag == UPPER and score <= alpha)
            ):
                if tt_col >= 0:
                    best_slot[BEST_SLOT] = tt_col
                return score

    n = _order_moves(pos, mask, possible, tt_col, best_slot)
    alpha0 = alpha
    best = -INF
    best_col = -1
    for i in range(n):
        col = best_slot[i]
        child_mask = mask | (mask + bits.bottom_mask_col(col))
        if moves + 1 == bits.CELLS:
            score = 0  # the last cell, and not a win (checked above): a draw
        else:
            score = -negamax(
                pos ^ mask,
                child_mask,
                moves + 1,
                depth - 1,
                -beta,
                -max(alpha, best),
                hid,
                tactics,
                tt_keys,
                tt_data,
                scratch,
                counters,
            )
            if counters[ABORTED]:
                return 0
        if score > best:
            best = score
            best_col = col
            if best >= beta:
                break
    if best <= alpha0:
        flag = UPPER
    elif best >= beta:
        flag = LOWER
    else:
        flag = EXACT
    tt_keys[index] = key
    tt_data[index] = tt_pack(best, depth, flag, best_col)
    best_slot[BEST_SLOT] = best_col
    return best
