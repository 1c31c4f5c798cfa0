"""``Solver``: exact scores of positions, with or without a deadline.

Plain Python around the compiled core (``solver.core``).  A solver owns a transposition table
that stays valid across positions and games, so a long-lived solver (one per engine) gets
faster as it goes.  The questions it answers:

- ``solve(board)``: the exact score (Pons' scale, see ``solver.core``), or ``None`` when the
  deadline passed first;
- ``column_score(board, col)`` / ``column_scores(board)``: a legal column's exact score, or
  every one's (``None`` where unproven);
- ``is_at_most(board, value)``: one null-window test of the score;
- ``best_move(board)``: a column that keeps the position's score, with that score.

Deadlines are times of an injected ``clock``.  The compiled search cannot read a clock, so it
runs in slices of nodes sized by ``timecontrol.SliceSizer``; between slices the clock is
checked.  A slice that runs out stores nothing for its unfinished nodes and keeps the narrowed
window, so the next slice resumes where it stopped.  The overrun past a deadline is a fraction
of one slice at most.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from board import Board, IllegalMove, bits
from board.tactics import non_losing_moves, order_moves, winning_moves
from solver import core
from solver.book import Book
from solver.table import SolverTable
from timecontrol import Clock, SliceSizer
from timecontrol.counters import UNLIMITED, searched

# A Middle-Easy position (144 nodes): solving it loads the compiled code.
WARM_UP_POSITION = "5554224333234511764415115"
FIRST_SLICE_NODES = 20_000
MIN_SLICE_NODES = 1_000


@dataclass(frozen=True, slots=True)
class Solution:
    """An exact result: ``score`` for the side to move; ``nodes`` searched to find it."""

    score: int
    nodes: int


@dataclass(frozen=True, slots=True)
class Move:
    """A column (0-based) that keeps the position's ``score``: exact if ``exact``, else only
    its sign (win 1, draw 0, loss -1)."""

    column: int
    score: int
    nodes: int
    exact: bool


def outcome(score: int) -> str:
    """``"win"``, ``"draw"`` or ``"loss"`` for the side to move."""
    return "win" if score > 0 else "loss" if score < 0 else "draw"


def discs_to_end(score: int, moves: int) -> int:
    """How many more discs are played before the game ends, if both sides keep ``score``.

    A win ``22 - k`` ends on the winner's ``k``-th disc; a draw fills the board.
    """
    if score == 0:
        return bits.CELLS - moves
    k = 22 - abs(score)
    mover_first = moves % 2 == 0
    winner_first = mover_first if score > 0 else not mover_first
    last_disc = 2 * k - 1 if winner_first else 2 * k  # counted from the empty board
    return last_disc - moves


class Solver:
    """An exact Connect Four solver with a table kept between calls.

    ``clock`` is read only when a deadline is given.  With a ``book``, a search reaching a
    position of the book's complete layers takes its bounds from the book.
    """

    def __init__(self, table_bits: int = 24, *, clock: Clock = time.perf_counter,
                 book: Book | None = None) -> None:
        self.table = SolverTable(table_bits)
        # The book's bounds stop the search at booked positions of its complete layers.
        self.book_keys, self.book_bounds, self.book_discs = (
            book.bounds() if book is not None else core.no_book())
        self.scratch = core.new_scratch()
        self.clock = clock
        self.nodes = 0  # total searched by this solver
        # Kept between calls: the node rate measured in one call sizes the next call's slices.
        self.slices = SliceSizer(FIRST_SLICE_NODES, MIN_SLICE_NODES)

    # --- the compiled calls, in slices ------------------------------------------------------

    def _run(self, board: Board, low: int, high: int, deadline: float | None) -> int | None:
        """``core.solve_steps`` on ``[low, high]`` until done (the score) or the deadline (None)."""
        if deadline is None:
            counters = core.new_counters(UNLIMITED, low, high)
            core.solve_steps(board.position, board.mask, board.moves, self.table.entries,
                             self.scratch, counters, self.book_keys, self.book_bounds,
                             self.book_discs)
            self.nodes += searched(counters)
            return int(counters[core.LOW])
        while True:
            now = self.clock()
            if now >= deadline:
                return None
            counters = core.new_counters(self.slices.next(deadline - now), low, high)
            done = core.solve_steps(board.position, board.mask, board.moves,
                                    self.table.entries, self.scratch, counters, self.book_keys,
                                    self.book_bounds, self.book_discs)
            after = self.clock()
            nodes = searched(counters)
            self.nodes += nodes
            self.slices.measured(nodes, after - now)
            low, high = int(counters[core.LOW]), int(counters[core.HIGH])
            if done:
                return low

    def _check(self, board: Board) -> None:
        if board.is_over():
            raise IllegalMove("the game is over: there is nothing to solve")

    # --- questions --------------------------------------------------------------------------

    def solve(self, board: Board, *, weak: bool = False, deadline: float | None = None) -> Solution | None:
        """The exact score of ``board`` (with ``weak``: only its sign, 1, 0 or -1).

        ``None`` if ``deadline`` (a time of the solver's clock) passed first.  Raises
        ``IllegalMove`` if the game is over.
        """
        self._check(board)
        before = self.nodes
        wins_now = winning_moves(board.position, board.mask)
        if wins_now:
            score = int(core.win_now_score(board.moves))
            return Solution(1 if weak else score, 0)
        low, high = (-1, 1) if weak else core.score_bounds(board.moves)
        result = self._run(board, int(low), int(high), deadline)
        if result is None:
            return None
        if weak:
            # The narrowing can end on a bound beyond [-1, 1] (a table bound); its sign holds.
            result = (result > 0) - (result < 0)
        return Solution(result, self.nodes - before)

    def is_at_most(self, board: Board, value: int, deadline: float | None = None) -> bool | None:
        """Whether the score of ``board`` is ``<= value`` (one null-window search); None: no time.

        The side to move must not be able to win with its next disc.
        """
        low, high = core.score_bounds(board.moves)
        if value >= high:
            return True
        if value < low:
            return False
        result = self._run(board, value, value + 1, deadline)
        if result is None:
            return None
        return result <= value

    def column_score(self, board: Board, col: int, deadline: float | None = None, *,
                     weak: bool = False) -> int | None:
        """The exact score of playing the legal column ``col``, for the side to move (with
        ``weak``: its outcome, 1, 0 or -1), or None when unproven by the deadline."""
        if board.is_winning_move(col):
            return 1 if weak else int(core.win_now_score(board.moves))
        child = board.play_unchecked(col)
        if child.is_full():
            return 0
        result = self.solve(child, deadline=deadline, weak=weak)
        return None if result is None else -result.score

    def column_scores(self, board: Board, deadline: float | None = None) -> dict[int, int | None]:
        """Each legal column's exact score for the side to move (None: unproven by the deadline)."""
        self._check(board)
        return {col: self.column_score(board, col, deadline) for col in board.legal_moves()}

    def best_move(self, board: Board, deadline: float | None = None, *,
                  weak: bool = False) -> Move | None:
        """A column keeping the exact score of ``board`` (the fastest win, the slowest loss, a
        draw kept), or None if the deadline passed first.

        With ``weak``, only the outcome is kept (a win stays a win, a draw at least a draw) and
        ``Move.score`` is 1, 0 or -1 unless the position is decided by the next two discs (its
        exact score is then known at once).  Among the columns that keep the score, the first
        in the core's order (most threats created, then centre first) is taken.  Raises
        ``IllegalMove`` if the game is over.
        """
        self._check(board)
        before = self.nodes
        wins_now = winning_moves(board.position, board.mask)
        if wins_now:
            col = int(bits.lowest_col(wins_now & -wins_now))
            return Move(col, int(core.win_now_score(board.moves)), 0, True)
        candidates = int(non_losing_moves(board.position, board.mask))
        if candidates == 0:
            # Every move loses to the opponent's next disc: block one threat if there is one.
            opp_win = bits.winning_cells(board.opponent, board.mask) & bits.possible_moves(board.mask)
            pick = opp_win if opp_win else bits.possible_moves(board.mask)
            col = int(bits.lowest_col(pick & -pick))
            return Move(col, -((bits.CELLS - board.moves) // 2), 0, True)
        solution = self.solve(board, deadline=deadline, weak=weak)
        if solution is None:
            return None
        score = solution.score
        order = core.new_scratch()
        n = order_moves(board.position, board.mask, candidates, 0, order, 0)
        if weak and score < 0:
            # Every column loses: the weak score cannot tell the slowest, take the first.
            return Move(int(bits.lowest_col(int(order[0, 0]))), score, self.nodes - before, False)
        for i in range(n):
            col = int(bits.lowest_col(int(order[0, i])))
            child = board.play_unchecked(col)
            if child.is_full():
                if score == 0:
                    return Move(col, 0, self.nodes - before, True)
                continue
            # The child scores at least -score (score is the best over the children), so
            # "at most -score" means exactly -score: this column keeps the score.  With weak
            # scores the same holds of the outcome.
            keeps = self.is_at_most(child, -score, deadline)
            if keeps is None:
                return None
            if keeps:
                return Move(col, score, self.nodes - before, not weak)
        raise AssertionError(f"no column keeps the score {score}")  # pragma: no cover

