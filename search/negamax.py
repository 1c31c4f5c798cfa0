"""The compiled heart of the heuristic search: depth-limited negamax with alpha-beta.

Scores are always from the view of the side to move.  A won game scores ``WIN - n`` where
``n`` is the number of discs on the board when the winning disc lands, a lost game
``-(WIN - n)``, a draw 0: terminal scores dominate every heuristic score (``|h| < 4e8``),
faster wins score higher and slower losses less badly, and the score of a position does not
depend on how deep in the tree it was met, so transposition-table entries need no adjustment.

This module does no I/O and reads no clock.  Its caller bounds the work with a node limit in
``counters`` (``timecontrol.counters``) and, when the limit is hit, gets ``counters[ABORTED] =
1`` and a meaningless score; nothing is stored in the table for aborted nodes, so a search
started again with the same table and settings walks back to where it stopped through table
hits.  The tactics (wins at once, moves that hand the opponent a win, move ordering) are the
solver's too (``board.tactics``).
"""

from __future__ import annotations

import numpy as np

from board import bits
from board.compiled import njit
from board.tactics import CELL_BITS, non_losing_moves, order_moves, winning_moves
from heuristics import evaluate_id
from search.table import EXACT, LOWER, UPPER, tt_depth, tt_flag, tt_move, tt_pack, tt_score
from timecontrol.counters import ABORTED, NODE_LIMIT, NODES

WIN = 1_000_000_000
INF = 2 * WIN

# Depth recorded for scores that hold at any depth.
ANY_DEPTH = 255

# Scratch row per ply: the ordered move cells, then the best column found at that node.
BEST_SLOT = 7


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
    weights: np.ndarray,
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
    leaves (given its ``weights``, ``heuristics.heuristic_weights``; a winning move is always
    taken, as it is the best possible score). With ``tactics`` on, forced moves are also pruned
    at every node, leaves included: a move that lets the opponent win at once is never played
    unless nothing else is left, a single opponent threat must be blocked, and two are a loss.
    Those prunings are exact for the game's outcome, so a win or loss score is then a proof. And
    a node left with a single move (a forced move) does not count as a ply: ``depth`` counts
    choices, so forced lines are followed past the horizon (a forced-move extension;
    ``tests/reference.py`` has this ``m`` written plainly as ``minimax_with_tactics``).

    The position must not be over.  ``scratch[moves, BEST_SLOT]`` receives the best move.
    """
    counters[NODES] += 1
    if counters[NODES] > counters[NODE_LIMIT]:
        counters[ABORTED] = 1
        return 0
    best_slot = scratch[moves]
    if depth == 0 and not tactics:
        return evaluate_id(hid, pos, mask, moves, weights)

    key = pos + mask
    index = key % tt_keys.size
    wins_now = winning_moves(pos, mask)
    if wins_now:
        return _proven(WIN - (moves + 1), bits.lowest_col(wins_now & -wins_now), key, index,
                       tt_keys, tt_data, best_slot)

    possible = bits.possible_moves(mask)
    if tactics:
        safe = non_losing_moves(pos, mask)
        if safe == 0:  # two threats, or every move hands the opponent a win
            return _proven(-(WIN - (moves + 2)), bits.lowest_col(possible & -possible), key,
                           index, tt_keys, tt_data, best_slot)
        possible = safe
        if possible & (possible - 1) == 0:
            depth += 1  # a forced move does not count as a ply: it is searched past the horizon
        if depth == 0:
            return evaluate_id(hid, pos, mask, moves, weights)
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

    first = possible & bits.column_mask(tt_col) if tt_col >= 0 else 0
    n = order_moves(pos, mask, possible, first, scratch, moves)
    alpha0 = alpha
    best = -INF
    best_col = -1
    for i in range(n):
        cell = scratch[moves, i] & CELL_BITS
        if moves + 1 == bits.CELLS:
            score = 0  # the last cell, and not a win (checked above): a draw
        else:
            score = -negamax(
                pos ^ mask,
                mask | cell,
                moves + 1,
                depth - 1,
                -beta,
                -max(alpha, best),
                hid,
                weights,
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
            best_col = bits.lowest_col(cell)
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
