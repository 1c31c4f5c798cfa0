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
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np

from board import Board, IllegalMove, bits
from board.tactics import CELL_BITS, non_losing_moves, order_moves, winning_moves
from solver import core
from solver.book import Book
from solver.table import NO_TABLE, SolverTable, stored
from timecontrol import Clock, SliceSizer
from timecontrol.counters import UNLIMITED
from vocabulary import Outcome, Proven

# An End-Easy position of 36 discs, won (1): finding its move loads the compiled code, and
# its searches never reach the table (core.TABLE_PLIES), which a warm-up need not allocate.
WARM_UP_POSITION = "233377345754465174223731671122611552"
FIRST_SLICE_NODES = 20_000
MIN_SLICE_NODES = 1_000
_GAME_OVER = core.GAME_OVER
_MIN_SCORE, _MAX_SCORE = core.MIN_SCORE, core.MAX_SCORE
# The lowest and the highest score with n discs on the board (core.score_bounds), by n.
_SCORE_BOUNDS = [(-((bits.CELLS - n) // 2), (bits.CELLS + 1 - n) // 2) for n in range(bits.CELLS + 1)]
_new_tuple = tuple.__new__


class Solution(NamedTuple):
    """An exact result: ``score`` for the side to move; ``nodes`` searched to find it.

    A named tuple rather than a frozen dataclass: it is made on every solve, and a frozen
    dataclass takes a few hundred nanoseconds more to make, a tenth of the easiest solves.
    """

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


def outcome(score: int) -> Outcome:
    """The outcome of Pons' ``score`` for the side to move."""
    return Outcome.of(score)


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


def result(score: int, moves: int, *, exact: bool = True) -> Proven:
    """Pons' ``score`` for the side to move at a position of ``moves`` discs as a ``Proven``
    result, the one scale people read (``vocabulary.proven``); with ``exact`` False, ``score``
    stands for the outcome alone (its sign; a draw's distance is known all the same: the board
    fills up).  The one conversion from Pons' scale."""
    return Proven(outcome(score), discs_to_end(score, moves) if exact or score == 0 else None)


def _load_solve(*args: int | np.ndarray) -> tuple[int, int]:
    """``core.solve``'s compiled entry (``core.solve_entry``), made ``Solver._solve`` for every
    solver at the first call of any."""
    entry = core.solve_entry()
    Solver._solve = staticmethod(entry)
    return entry(*args)


class Solver:
    """An exact Connect Four solver with a table kept between calls.

    ``clock`` is read only when a deadline is given.  With a ``book``, a search reaching a
    position of the book's complete layers takes its bounds from the book.  The arrays
    ``table.entries`` and ``work`` are the solver's own, ``book`` is shared read only by the
    solvers of one book; all are of the types its compiled search was made for
    (``core.SOLVE_SIGNATURE``): change the first two's contents, never replace them.  The
    table is allocated by the first search that needs it: a solver made by a command that
    never solves (a position the book answers) holds none.
    """

    # core.solve, called without numba's dispatch; loaded at the first solve of any solver.  A
    # class attribute: a solver holds no reference to itself, and pickles and copies as before.
    _solve: ClassVar[Callable[..., tuple[int, int]]] = staticmethod(_load_solve)

    def __init__(self, table_bits: int = 24, *, clock: Clock = time.perf_counter,
                 book: Book | None = None) -> None:
        self.table = SolverTable(table_bits)
        # self._entries, the table's array read on every solve: set by __getattr__ at the first.
        # The book's bounds stop the search at booked positions of its complete layers.
        self.book = book.packed if book is not None else core.no_book()
        # Positions of this many discs take bounds from the book (core.book_position_bounds).
        self._past_book = book.complete_discs + 1 if book is not None and book.complete_discs >= 0 else -1
        self.work = core.new_work()
        self._order = core.new_work()  # best_move's order of the columns
        self.clock = clock
        # Kept between calls: the node rate measured in one call sizes the next call's slices.
        self.slices = SliceSizer(FIRST_SLICE_NODES, MIN_SLICE_NODES)

    def __getattr__(self, name: str) -> np.ndarray:
        # Called only while ``_entries`` is not set: the first search allocates the table.
        if name != "_entries":
            raise AttributeError(name)
        self._entries = self.table.entries
        return self._entries

    @property
    def nodes(self) -> int:
        """The nodes searched by this solver (since it was made, or ``nodes`` was set)."""
        return int(self.work[core.COUNTERS_ROW, core.TOTAL])

    @nodes.setter
    def nodes(self, value: int) -> None:
        self.work[core.COUNTERS_ROW, core.TOTAL] = value

    def warm_up(self) -> None:
        """Load (or compile) every compiled function the solver calls, so that no timed call
        pays for it: ``core.solve``, ``best_move``'s own calls, ``losing_columns``' probes
        and ``book_bounds``'."""
        board = Board.from_moves(WARM_UP_POSITION)
        unallocated = "_entries" not in self.__dict__
        if unallocated:
            self._entries = NO_TABLE  # (searches of its discs never reach the table)
        try:
            self.best_move(board)
            self.losing_columns(board)
            core.book_position_bounds(board.position, board.mask, board.moves, self.book)
        finally:
            if unallocated:
                del self._entries

    # --- the compiled calls, in slices ------------------------------------------------------

    def _run(self, board: Board, low: int, high: int,
             deadline: float | None) -> tuple[int, int] | None:
        """``core.solve`` on ``[low, high]``, resumed until done: the score
        and the nodes searched, or None at the deadline.  Raises ``IllegalMove`` if the game
        is over.

        Without a deadline this is one compiled call: on the easiest positions the Python
        around it costs as much as the search.
        """
        if deadline is None:
            result, nodes = self._solve(board.position, board.mask, board.moves, low, high,
                                        UNLIMITED, self._entries, self.work, self.book)
        else:
            found = self._run_slices(board, low, high, deadline)
            if found is None:
                return None
            result, nodes = found
        if result == core.GAME_OVER:
            raise IllegalMove("the game is over: there is nothing to solve")
        return result, nodes

    def _run_slices(self, board: Board, low: int, high: int,
                    deadline: float) -> tuple[int, int] | None:
        """``_run`` with a deadline: slices of nodes, the clock read in between."""
        now = self.clock()
        if now >= deadline:
            return None
        result, nodes = self._solve(board.position, board.mask, board.moves, low, high,
                                    self.slices.next(deadline - now), self._entries,
                                    self.work, self.book)
        total = 0
        while True:
            after = self.clock()
            total += nodes
            self.slices.measured(nodes, after - now)
            if result != core.UNFINISHED:
                return result, total
            now = after
            if now >= deadline:
                return None
            result, nodes = self._solve(board.position, board.mask, board.moves, *core.RESUME,
                                        self.slices.next(deadline - now), self._entries,
                                        self.work, self.book)

    def _check(self, board: Board) -> None:
        if board.is_over():
            raise IllegalMove("the game is over: there is nothing to solve")

    # --- questions --------------------------------------------------------------------------

    def solve(self, board: Board, *, weak: bool = False, deadline: float | None = None) -> Solution | None:
        """The exact score of ``board`` (with ``weak``: only its sign, 1, 0 or -1).

        ``None`` if ``deadline`` (a time of the solver's clock) passed first.  Raises
        ``IllegalMove`` if the game is over.
        """
        if deadline is None and not weak and board.moves != self._past_book:
            # Pons' benchmark's path, kept short: on his easiest set (33 nodes a position) each
            # operation of Python here costs about as much as a node.
            pair = self._solve(board.position, board.mask, board.moves, _MIN_SCORE, _MAX_SCORE,
                               UNLIMITED, self._entries, self.work, self.book)
            if pair[0] == _GAME_OVER:
                raise IllegalMove("the game is over: there is nothing to solve")
            # Solution(*pair), without the Python frame of a NamedTuple's __new__
            solution: Solution = _new_tuple(Solution, pair)
            return solution
        low, high = (-1, 1) if weak else (_MIN_SCORE, _MAX_SCORE)
        if board.moves == self._past_book:
            lowest, highest = self.book_bounds(board)
            low = max(low, min(lowest, high))
            high = min(high, max(highest, low))  # (with weak, the sign of the bounds)
        found = self._run(board, low, high, deadline)
        if found is None:
            return None
        result, nodes = found
        if weak:
            # The narrowing can end on a bound beyond [-1, 1] (a table bound); its sign holds.
            result = (result > 0) - (result < 0)
        return Solution(result, nodes)

    def book_bounds(self, board: Board) -> tuple[int, int]:
        """The lowest and the highest score ``board`` can have by what the book knows
        (``core.book_position_bounds``: within its complete layers, the entry's; one disc beyond
        them, what the positions before it say), within those possible with its discs."""
        low, high = _SCORE_BOUNDS[board.moves]
        if board.moves > self._past_book:
            return low, high
        lowest, highest = core.book_position_bounds(board.position, board.mask, board.moves, self.book)
        return max(low, int(lowest)), min(high, int(highest))

    def is_at_most(self, board: Board, value: int, deadline: float | None = None) -> bool | None:
        """Whether the score of ``board`` is ``<= value`` (one null-window search); None: no time.

        The side to move must not be able to win with its next disc.
        """
        low, high = self.book_bounds(board)
        if value >= high:
            return True
        if value < low:
            return False
        found = self._run(board, value, value + 1, deadline)
        if found is None:
            return None
        return found[0] <= value

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
        if weak and score < 0:
            # Every column loses: the weak score cannot tell the slowest, take the first.
            order = self._order
            order_moves(board.position, board.mask, candidates, 0, order, 0)
            return Move(int(bits.lowest_col(int(order[0, 0]) & CELL_BITS)), score, self.nodes - before, False)
        keeping = self.keeping_column(board, score, deadline)
        if keeping is None:
            return None
        return Move(keeping, score, self.nodes - before, not weak)

    def losing_columns(self, board: Board) -> set[int]:
        """The legal columns proven to lose: the opponent can win at once after them, or the
        table holds a proof that it wins (what the searches so far have proven; nothing is
        searched here)."""
        # (A solver that has not searched yet has no table, and nothing proven in it.)
        entries = self.__dict__.get("_entries", NO_TABLE)
        losing = set()
        for col in board.legal_moves():
            if board.is_winning_move(col):
                continue
            child = board.play_unchecked(col)
            if child.is_full():
                continue
            if winning_moves(child.position, child.mask):
                losing.add(col)
                continue
            key = child.key
            value = stored(entries, key)
            if value >= core.FIRST_LOWER and value - core.LOWER_BIAS >= 1:
                losing.add(col)  # the opponent's score is at least 1: it wins
        return losing

    def keeping_column(self, board: Board, value: int, deadline: float | None = None) -> int | None:
        """A column after which the side to move's score is still at least ``value``, the first
        in the core's order (most threats created, then centre first), or None if the deadline
        passed first.

        The position's score must be proven at least ``value`` (and the side to move unable to
        win with its next disc): then such a column exists, and the table holds most of the
        proof, so finding it is quick.  With ``value`` the exact score, the column keeps it.
        """
        candidates = int(non_losing_moves(board.position, board.mask))
        order = self._order
        n = order_moves(board.position, board.mask, candidates, 0, order, 0)
        for i in range(n):
            col = int(bits.lowest_col(int(order[0, i]) & CELL_BITS))
            child = board.play_unchecked(col)
            if child.is_full():
                if value <= 0:
                    return col
                continue
            # The child scores at most -value exactly when this column leaves us at least value.
            keeps = self.is_at_most(child, -value, deadline)
            if keeps is None:
                return None
            if keeps:
                return col
        raise AssertionError(f"no column keeps the score at {value}")  # pragma: no cover
