"""``Engine``: picks a move for a position within a time budget.

Stages, each used when it can answer in time (the solver and book stages are switched on by
``AgentSettings``):

1. ``book``: the opening book has the position (exact); at the edge of the book the solver's
   share of the budget goes into the position after the book's move, so that the first move
   past the book starts with a warm table;
2. ``solver``: the exact solver proves the position within part of the budget
   (``SolverSettings.share``): first the outcome only (win, draw or loss: the cheaper proof),
   then the exact score; it plays a move keeping the best proven outcome (the fastest win, a
   draw kept, the slowest loss), or, when only the outcome was proven in time, a move keeping
   the win or the draw;
3. ``search``: iterative-deepening alpha-beta with the configured heuristic, with the time left.

Every stage works to the same deadline from the engine's clock, so ``choose`` does not
overrun its budget by more than a fraction of one search or solver slice (a slice is sized to
take at most half the time left, and at most 20 ms).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from board import Board, IllegalMove
from search import SearchResult, TranspositionTable, iterative_deepening
from search.iterative import deepest
from search.slices import Clock
from settings import AgentSettings, SolverSettings
from solver import Move, Solver, discs_to_end
from solver.book import Book, load_book
from solver.solver import WARM_UP_POSITION


@dataclass(frozen=True, slots=True)
class Decision:
    """A chosen move and how it was found.

    ``column`` is 0-based.  ``score`` is from the view of the side to move: for ``source``
    ``"search"`` the search's scale (``search.negamax``), for ``"book"`` and ``"solver"`` Pons'
    scale (positive: a win, ``22 - discs`` the winner plays; 0 a draw).  ``proven`` says the
    score is exact.  A ``"solver"`` decision with ``proven`` False proved only the outcome:
    its score is then 1 (a win kept) or 0 (a draw kept).  For book and solver decisions,
    ``depth`` is the number of discs left to play if both sides keep the score.
    """

    column: int
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: tuple[int, ...]
    source: str
    proven: bool

    @classmethod
    def from_search(cls, result: SearchResult, seconds: float) -> Decision:
        return cls(
            column=result.column,
            score=result.score,
            depth=result.depth,
            nodes=result.nodes,
            seconds=seconds,
            pv=result.pv,
            source="search",
            proven=result.proven,
        )


class Engine:
    """Our player.  One engine per game (or per worker): it keeps its tables between moves.

    ``solver`` configures the exact solver and the book (default: ``SolverSettings()``).  The
    book is read (and checked) when the engine is built, so a damaged book stops the program
    before a game starts rather than in the middle of one.
    """

    def __init__(
        self,
        settings: AgentSettings | None = None,
        *,
        solver: SolverSettings | None = None,
        clock: Clock = time.perf_counter,
    ):
        self.settings = settings or AgentSettings()
        self.solver_settings = solver or SolverSettings()
        self.clock = clock
        self.table = TranspositionTable(bits=self.settings.table_bits)
        self.book: Book | None = None
        if self.settings.use_book:
            self.book = load_book(self.solver_settings.book or None)
        self.solver: Solver | None = None
        if self.settings.use_solver:
            self.solver = Solver(self.solver_settings.table_bits, clock=clock)

    def warm_up(self) -> None:
        """Load (or compile) the compiled code now, so that the first move is not slowed."""
        deepest(iterative_deepening(Board.from_moves("44"), self.clock() + 0.01, max_depth=4,
                                    heuristic=self.settings.heuristic, table=self.table))
        self.table.clear()
        if self.solver is not None:
            self.solver.best_move(Board.from_moves(WARM_UP_POSITION), weak=True)

    def new_game(self) -> None:
        # The solver's table holds exact bounds, true in every game: it is kept.
        self.table.clear()

    def choose(self, board: Board, seconds: float | None = None, *, max_depth: int | None = None) -> Decision:
        """The move for ``board`` within ``seconds`` (default: the configured time per move).

        ``max_depth`` asks for the heuristic search alone, cut at that depth: the book and the
        solver are skipped.
        """
        if board.is_over():
            raise IllegalMove("the game is over: there is no move to choose")
        budget = self.settings.seconds_per_move if seconds is None else seconds
        start = self.clock()
        deadline = start + budget
        if max_depth is None:
            decision = self._exact(board, start, budget)
            if decision is not None:
                return decision
        last = deepest(iterative_deepening(
            board,
            deadline,
            clock=self.clock,
            heuristic=self.settings.heuristic,
            min_depth=self.settings.min_depth,
            max_depth=max_depth,
            table=self.table,
        ))
        return Decision.from_search(last, self.clock() - start)

    def _exact(self, board: Board, start: float, budget: float) -> Decision | None:
        """The book's or the solver's decision, or None to leave the move to the search."""
        if self.book is not None:
            found = self.book.lookup(board)
            if found is not None and board.can_play(found[0]):
                col, score = found
                nodes = 0
                if self.solver is not None:
                    nodes = self._warm_at_book_edge(board.play(col),
                                                    start + budget * self.solver_settings.share)
                return Decision(col, score, discs_to_end(score, board.moves), nodes,
                                self.clock() - start, (col,), "book", True)
        if self.solver is not None:
            return self._solve(board, start, start + budget * self.solver_settings.share,
                               start + budget)
        return None

    def _warm_at_book_edge(self, after: Board, deadline: float) -> int:
        """At the edge of the book, solve the position after our move until ``deadline``; return
        the nodes searched.

        A book move teaches the solver's table nothing, so the first position past the book
        would be solved from a cold table within one move's share.  When no reply to our move
        leads back into the book, the time the book saved goes into the position the opponent
        now faces: its proof is most of the proof of our next position.
        """
        assert self.solver is not None and self.book is not None
        if after.is_over():
            return 0
        for reply in after.legal_moves():
            following = after.play_unchecked(reply)
            if not following.is_over() and self.book.lookup(following) is not None:
                return 0
        before = self.solver.nodes
        if self.solver.solve(after, weak=True, deadline=deadline) is not None:
            self.solver.solve(after, deadline=deadline)
        return self.solver.nodes - before

    def _solve(self, board: Board, start: float, share_deadline: float,
               deadline: float) -> Decision | None:
        """The solver's decision, or None when it proved too little in time.

        Proving the outcome may take until ``share_deadline``.  A proven win or draw is worth
        the rest of the budget (until ``deadline``): the search could throw it away, so the
        solver then goes on to find a column that keeps it.  A proven loss is answered with the
        slowest loss if that is found within the share, else left to the search, which sets
        the opponent the hardest problems.
        """
        assert self.solver is not None
        nodes = self.solver.nodes
        known = self.solver.solve(board, weak=True, deadline=share_deadline)
        if known is None:
            return None
        move: Move | None
        if known.score < 0:
            move = self.solver.best_move(board, share_deadline)
        else:
            move = self.solver.best_move(board, deadline, weak=True)
            if move is not None and not move.exact:
                move = self.solver.best_move(board, share_deadline) or move
        if move is None:
            return None
        seconds = self.clock() - start
        depth = discs_to_end(move.score, board.moves) if move.exact else 0
        return Decision(move.column, move.score, depth, self.solver.nodes - nodes, seconds,
                        (move.column,), "solver", move.exact)
