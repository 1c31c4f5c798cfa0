"""Iterative deepening over the compiled negamax, under a deadline the caller passes in.

``iterative_deepening`` is a generator: it yields one ``SearchResult`` per completed depth and
stops when the deadline passes, the depth limit is reached, or the value is proven.  The caller
keeps the last result it received (``deepest``).  The clock is injected (``clock``, ``deadline``), so tests
drive time by hand.

The compiled search cannot look at a clock, so it runs in slices of nodes: when a slice runs
out, the driver checks the clock and, if there is time left, starts the same iteration again.
Nothing is stored for unfinished nodes, so the restart walks back to where the previous slice
stopped through transposition-table hits.  ``timecontrol.SliceSizer`` sizes the slices, so a search
overruns its deadline by a fraction of one slice at most.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from board import Board, IllegalMove, bits
from heuristics import DEFAULT_HEURISTIC, heuristic_id, heuristic_weights
from search.negamax import BEST_SLOT, INF, is_proven, negamax, new_scratch
from search.table import TranspositionTable
from timecontrol import Clock, SliceSizer
from timecontrol.counters import ABORTED, UNLIMITED, new_counters, searched

FIRST_SLICE_NODES = 2_000
MIN_SLICE_NODES = 500


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The outcome of one completed iteration.

    ``column`` is 0-based; ``score`` is from the view of the side to move (see
    ``search.negamax``); ``pv`` is the principal variation as 0-based columns starting with
    ``column``; ``nodes`` and ``seconds`` count everything since the search started.
    """

    column: int
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: tuple[int, ...]
    proven: bool


def principal_variation(
    board: Board, first: int, table: TranspositionTable, depth: int
) -> tuple[int, ...]:
    """``first`` followed by the best moves the table remembers, at most ``depth`` moves."""
    line = [first]
    current = board.play_unchecked(first)
    while len(line) < depth and not current.is_over():
        col = table.best_move(current.key)
        if col < 0 or not current.can_play(col):
            break
        line.append(col)
        current = current.play_unchecked(col)
    return tuple(line)


def iterative_deepening(
    board: Board,
    deadline: float,
    *,
    clock: Clock = time.perf_counter,
    heuristic: str = DEFAULT_HEURISTIC,
    max_depth: int | None = None,
    min_depth: int = 1,
    table: TranspositionTable | None = None,
    tactics: bool = True,
) -> Iterator[SearchResult]:
    """Search ``board`` one depth deeper at a time until ``deadline`` (a time of ``clock``).

    Depths up to ``min_depth`` are completed whatever the clock says (they take
    microseconds), so a caller always gets a move searched that deep (or to the end of the
    game, when fewer moves remain), even when a forced result is found sooner; past
    ``min_depth`` a proven score ends the search.  Raises ``IllegalMove`` if the game is over
    and ``UnknownHeuristic`` for a bad name.
    """
    if board.is_over():
        raise IllegalMove("the game is over: there is no move to search")
    hid = heuristic_id(heuristic)
    weights = heuristic_weights(heuristic)
    if table is None:
        table = TranspositionTable(bits=18)
    table.claim((hid, tactics))
    scratch = new_scratch()
    remaining = bits.CELLS - board.moves
    start = clock()

    def search(depth: int, counters: np.ndarray) -> float:
        return float(negamax(board.position, board.mask, board.moves, depth, -INF, INF, hid,
                             weights, tactics, table.keys, table.data, scratch, counters))

    for depth, value, total_nodes in completed_depths(board, deadline, clock, min_depth,
                                                       max_depth, search):
        column = int(scratch[board.moves, BEST_SLOT])
        score = int(value)
        exhausted = depth >= remaining
        yield SearchResult(
            column=column,
            score=score,
            depth=depth,
            nodes=total_nodes,
            seconds=clock() - start,
            pv=principal_variation(board, column, table, depth),
            proven=is_proven(score) or exhausted,
        )
        if depth >= min_depth and (is_proven(score) or clock() >= deadline):
            return


def completed_depths(
    board: Board,
    deadline: float,
    clock: Clock,
    min_depth: int,
    max_depth: int | None,
    search: Callable[[int, np.ndarray], float],
    *,
    nodes_per_ply: int = 0,
) -> Iterator[tuple[int, float, int]]:
    """Depth 1, 2, 3, ... of a compiled search of ``board`` in node slices, for a deepening
    driver: ``search(depth, counters)`` searches to ``depth`` within the node limit of
    ``counters`` and returns its value (meaningless when ``counters[ABORTED]`` is set).

    Yields ``(depth, value, nodes searched since the start)`` for each completed depth, up to
    ``max_depth`` or the end of the game.  Depths up to ``min_depth`` run without a node limit;
    a slice of a deeper one is sized by ``timecontrol.SliceSizer`` (at least ``nodes_per_ply``
    per ply), and a slice cut off with the deadline passed ends the iteration.  Stopping
    earlier (a proven value, the deadline after a completed depth) is the driver's choice.
    """
    remaining = bits.CELLS - board.moves
    last_depth = remaining if max_depth is None else min(max_depth, remaining)
    total_nodes = 0
    slices = SliceSizer(FIRST_SLICE_NODES, MIN_SLICE_NODES)
    for depth in range(1, last_depth + 1):
        while True:
            before = clock()
            limit = (UNLIMITED if depth <= min_depth
                     else max(slices.next(deadline - before), nodes_per_ply * depth))
            counters = new_counters(limit)
            value = search(depth, counters)
            now = clock()
            nodes = searched(counters)
            total_nodes += nodes
            slices.measured(nodes, now - before)
            if not counters[ABORTED]:
                break
            if now >= deadline:
                return
        yield depth, value, total_nodes


def deepest(results: Iterable[SearchResult]) -> SearchResult:
    """The last result of an iterative deepening (the deepest completed iteration)."""
    last = deque(results, maxlen=1)
    if not last:
        raise ValueError("the search completed no iteration")
    return last[0]
