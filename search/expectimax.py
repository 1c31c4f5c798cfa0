"""Expectimax against a uniformly random opponent: the compiled core and its deadline driver.

Alpha-beta (``search.negamax``) assumes the opponent answers with its best move.  Against an
opponent that plays a uniformly random legal column (``agent.py local --opponent random``, the
2021 course server's bot) that assumption throws value away: a trap the opponent escapes with
one move in seven is worth almost a win, and a line where it must find the one good reply is
worth much more than alpha-beta says.  Expectimax maximises the **expected** result instead:
our nodes take the maximum over our moves, the opponent's nodes (*chance nodes*) the average
over its legal moves, each with probability ``1/n``.

Contract of ``expectimax`` (the value ``E(p, d)`` it returns, always from the view of the
player who maximises, ``ours`` telling whose turn it is at ``p``; ``n`` is the number of discs
on the board, ``h`` the heuristic ``hid`` of the side to move, ``evaluate_id``):

- our node: if we can complete four now, ``WIN - (n + 1)`` (an immediate win is always taken,
  at any depth, leaves included); else, at ``d == 0``, ``h(p)``; else the maximum over our
  legal moves ``c`` of ``0`` if ``c`` fills the board, else ``E(p + c, d - 1)``;
- chance node: at ``d == 0``, ``-h(p)`` (the opponent's evaluation, negated); else the mean
  over the opponent's legal moves ``c`` of ``-(WIN - (n + 1))`` if ``c`` completes four for it,
  ``0`` if ``c`` fills the board, else ``E(p + c, d - 1)``.

``d`` counts plies (discs): every ply is either our choice or the opponent's chance; there is
no forced-move extension and no pruning of moves that hand the opponent a win (against a random
mover such a move loses only with probability ``1/n``: the alpha-beta search's tactics are not
exact here).  A win scores higher the sooner it comes and a loss lower the sooner (``WIN - n``,
as in the alpha-beta search), so the expected value makes the search hurry.  Values are floats
(averages); a value above ``WIN - 100`` is a win whatever the opponent plays (heuristic scores
stay below ``4e8``, so no average of a win with anything else gets there), below ``-(WIN -
100)`` a loss whatever it plays.

``best[moves]`` receives the best column at our nodes (centre-first among equal values; -1 at a
chance node).  The transposition table (``ExpectimaxTable``) holds values for the exact depth
they were searched to, keyed by the position and whose node it is, so a hit gives exactly the
value the search would compute: the contract is not weakened by the table.

This module's core does no I/O and reads no clock.  Its caller bounds the work with a node
limit in ``counters`` (``timecontrol.counters``); past it ``counters[ABORTED]`` is set and the
value is meaningless, and nothing is stored for unfinished nodes, so a new call walks back to
where the last one stopped through table hits.  ``expectimax_deepening`` drives it as
``search.iterative`` drives negamax: depth 1, 2, 3, ... in node slices sized by
``timecontrol.SliceSizer``, one ``SearchResult`` per completed depth.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator

import numpy as np

from board import Board, IllegalMove, bits
from board.compiled import njit
from board.keys import TableBits
from board.tactics import winning_moves
from heuristics import DEFAULT_HEURISTIC, evaluate_id, heuristic_id, heuristic_weights
from search.iterative import SearchResult, completed_depths
from search.negamax import WIN, is_proven
from timecontrol import Clock
from timecontrol.counters import ABORTED, NODE_LIMIT, NODES, new_counters
from vocabulary import OpponentModel

# The opponent models the engine knows: ``minimax`` (a best-replying opponent: alpha-beta, the
# default) and ``random`` (a uniformly random mover: expectimax).
OPPONENT_MODELS: tuple[str, ...] = tuple(OpponentModel)
DEFAULT_OPPONENT_MODEL = OpponentModel.MINIMAX

DEFAULT_TABLE_BITS = 20
TABLE_BITS = TableBits(10, 24, "an expectimax table of 2**bits entries of 17 bytes")
_NO_DEPTH = -1


class ExpectimaxTable:
    """About ``2**bits`` entries: the key (``2 * (position + mask) + ours``), the value, the
    depth it was searched to and the best column (our nodes; -1 at chance nodes)."""

    def __init__(self, bits: int = DEFAULT_TABLE_BITS) -> None:
        self.size = TABLE_BITS.size(bits)
        self.keys = np.full(self.size, -1, dtype=np.int64)
        self.values = np.zeros(self.size, dtype=np.float64)
        self.depths = np.full(self.size, _NO_DEPTH, dtype=np.int8)
        self.owner: object = None

    def clear(self) -> None:
        self.keys.fill(-1)
        self.values.fill(0.0)
        self.depths.fill(_NO_DEPTH)

    def claim(self, owner: object) -> None:
        """Clear the table unless it was filled by a search with the same ``owner`` settings."""
        if self.owner != owner:
            self.clear()
            self.owner = owner


def new_best() -> np.ndarray:
    """The array ``expectimax`` writes each node's best column into, one slot per disc count."""
    return np.full(bits.CELLS + 1, -1, dtype=np.int64)


@njit(cache=True)
def expectimax(
    pos: int,
    mask: int,
    moves: int,
    depth: int,
    ours: bool,
    hid: int,
    weights: np.ndarray,
    tt_keys: np.ndarray,
    tt_values: np.ndarray,
    tt_depths: np.ndarray,
    best: np.ndarray,
    counters: np.ndarray,
) -> float:
    """``E(p, depth)`` of the position (``pos`` = discs of the side to move), from the view of
    the maximising player; ``ours`` says whether it is to move.  See the module's contract.

    The position must not be over.  ``best[moves]`` receives the best column (our nodes).
    """
    counters[NODES] += 1
    if counters[NODES] > counters[NODE_LIMIT]:
        counters[ABORTED] = 1
        return 0.0
    if ours:
        wins = winning_moves(pos, mask)
        if wins:
            best[moves] = bits.lowest_col(wins & -wins)
            return float(WIN - (moves + 1))
    if depth == 0:
        h = float(evaluate_id(hid, pos, mask, moves, weights))
        best[moves] = -1
        return h if ours else -h

    key = (pos + mask) * 2 + (1 if ours else 0)
    index = key % tt_keys.size
    if tt_keys[index] == key and tt_depths[index] == depth:
        return float(tt_values[index])

    possible = bits.possible_moves(mask)
    last = moves + 1 == bits.CELLS
    if ours:
        value = -math.inf
        col = -1
        for i in range(bits.WIDTH):
            c = bits.CENTER_ORDER[i]
            cell = possible & bits.column_mask(c)
            if cell == 0:
                continue
            if last:
                v = 0.0  # the last cell, and not a win (checked above): a draw
            else:
                v = expectimax(pos ^ mask, mask | cell, moves + 1, depth - 1, not ours, hid,
                               weights, tt_keys, tt_values, tt_depths, best, counters)
                if counters[ABORTED]:
                    return 0.0
            if v > value:
                value = v
                col = c
    else:
        opp_wins = winning_moves(pos, mask)
        total = 0.0
        count = 0
        for c in range(bits.WIDTH):
            cell = possible & bits.column_mask(c)
            if cell == 0:
                continue
            if cell & opp_wins:
                v = -float(WIN - (moves + 1))
            elif last:
                v = 0.0
            else:
                v = expectimax(pos ^ mask, mask | cell, moves + 1, depth - 1, not ours, hid,
                               weights, tt_keys, tt_values, tt_depths, best, counters)
                if counters[ABORTED]:
                    return 0.0
            total += v
            count += 1
        value = total / count
        col = -1
    tt_keys[index] = key
    tt_values[index] = value
    tt_depths[index] = depth
    best[moves] = col
    return value


def root_values(board: Board, depth: int, *, heuristic: str = DEFAULT_HEURISTIC) -> dict[int, float]:
    """``E`` of each legal column of ``board`` (we to move) searched to ``depth`` plies in all
    (the move itself counts as one): the values the root chooses among.  For tests and
    analysis; a column that wins at once is worth ``WIN - (moves + 1)``."""
    return _child_values(board, depth, heuristic_id(heuristic), heuristic_weights(heuristic),
                         ExpectimaxTable(bits=16))


def _child_values(board: Board, depth: int, hid: int, weights: np.ndarray,
                  table: ExpectimaxTable) -> dict[int, float]:
    """``root_values`` with the search's own table, the columns in centre-first order."""
    out: dict[int, float] = {}
    for col in bits.CENTER_ORDER:
        if not board.can_play(col):
            continue
        child = board.play_unchecked(col)
        if board.is_winning_move(col):
            out[col] = float(WIN - child.moves)
        elif child.is_full():
            out[col] = 0.0
        else:
            out[col] = float(expectimax(child.position, child.mask, child.moves, depth - 1,
                                        False, hid, weights, table.keys, table.values,
                                        table.depths, new_best(), new_counters()))
    return out


def expectimax_deepening(
    board: Board,
    deadline: float,
    *,
    clock: Clock = time.perf_counter,
    heuristic: str = DEFAULT_HEURISTIC,
    max_depth: int | None = None,
    min_depth: int = 1,
    table: ExpectimaxTable | None = None,
) -> Iterator[SearchResult]:
    """Expectimax of ``board`` (we to move) one depth deeper at a time until ``deadline``.

    As ``search.iterative.iterative_deepening``: one ``SearchResult`` per completed depth
    (``score`` the expected value rounded to an integer; ``pv`` the column alone: chance nodes
    have no principal variation); depths up to ``min_depth`` complete whatever the clock says;
    past it the search stops when the deadline passes, at ``max_depth``, at the end of the
    game, or when the value is a win or a loss whatever the opponent plays.  Raises
    ``IllegalMove`` if the game is over and ``UnknownHeuristic`` for a bad name.
    """
    if board.is_over():
        raise IllegalMove("the game is over: there is no move to search")
    hid = heuristic_id(heuristic)
    weights = heuristic_weights(heuristic)
    if table is None:
        table = ExpectimaxTable(bits=18)
    table.claim(hid)
    best = new_best()
    start = clock()

    def search(depth: int, counters: np.ndarray) -> float:
        best[board.moves] = -1
        return float(expectimax(board.position, board.mask, board.moves, depth, True, hid,
                                weights, table.keys, table.values, table.depths, best, counters))

    # A restart walks back through table hits: at most 8 nodes per ply of the path (the node
    # and its siblings), so a slice of 16 per ply always gets further.
    for depth, value, total_nodes in completed_depths(board, deadline, clock, min_depth,
                                                       max_depth, search, nodes_per_ply=16):
        column = int(best[board.moves])
        if column < 0 or not board.can_play(column):  # the root came from the table
            column = _root_column(board, depth, hid, weights, table)
        score = round(value)
        immediate = score == WIN - (board.moves + 1)
        # A search to the end of the game is exact, but only as an expectation against the
        # model: it proves nothing unless every line wins (or every line loses).
        yield SearchResult(column=column, score=score, depth=depth, nodes=total_nodes,
                           seconds=clock() - start, pv=(column,), proven=is_proven(score))
        if immediate or (depth >= min_depth and (is_proven(score) or clock() >= deadline)):
            return


def _root_column(board: Board, depth: int, hid: int, weights: np.ndarray,
                 table: ExpectimaxTable) -> int:
    """The root's best column (centre-first among equals) when its value came from the table:
    the children are there too (they were searched for it), so this costs a few probes."""
    values = _child_values(board, depth, hid, weights, table)
    return max(values, key=values.__getitem__)
