"""``Engine``: picks a move for a position within the ``Limit`` it is given.

In ``course`` mode (``AgentSettings.mode``, the assignment's algorithm) only the third stage
below runs: the iterative-deepening alpha-beta search with the configured heuristic.  In
``strongest`` mode the stages run in turn, each used when it can answer in time:

1. ``book``: the opening book has the position; at the edge of the book the solver's share of
   the time goes into the position after the book's move, so that the first move past the
   book starts with a warm table;
2. ``solver``: the exact solver proves the position within part of the time
   (``SolverSettings.share``): first the outcome only (win, draw or loss: the cheaper proof),
   then the exact score; it plays a move keeping the best proven outcome (the fastest win, a
   draw kept, the slowest loss), or, when only the outcome was proven in time, a move keeping
   the win or the draw;
3. ``search``: iterative-deepening alpha-beta with the configured heuristic, with the time left.

With ``opponent_model="random"`` (course mode only) the search is expectimax instead of
alpha-beta (``search.expectimax``): it maximises the expected result against an opponent that
plays a uniformly random legal column, with the same heuristic at its leaves.

A ``Limit`` with a ``depth`` asks for the heuristic search alone, cut at that depth.  Every
stage works to the limit's deadline on the engine's clock, so ``choose`` does not overrun it by
more than a fraction of one search or solver slice (a slice is sized to take at most half the
time left, and at most 20 ms).  The engine never reads a time budget from its settings: the
caller says how long a move may take.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

from board import Board, IllegalMove, bits
from board.tactics import winning_moves
from engine.decision import Decision, ProvenScore, SearchScore
from heuristics import heuristic_problems
from search import SearchResult, TranspositionTable, iterative_deepening
from search.expectimax import (
    DEFAULT_OPPONENT_MODEL,
    OPPONENT_MODELS,
    ExpectimaxTable,
    expectimax_deepening,
)
from search.iterative import deepest
from search.table import table_bits_problems
from settings import AgentSettings, ConfigError, SolverSettings, UsageError
from timecontrol import Clock, Limit
from vocabulary import Mode, OpponentModel, Source

if TYPE_CHECKING:
    from solver import Move, Solver
    from solver.book import Book


def _from_search(result: SearchResult, seconds: float, mode: Mode) -> Decision:
    return Decision(result.column, SearchScore(result.score, result.proven), result.depth,
                    result.nodes, seconds, result.pv, Source.SEARCH, mode)


def opponent_model_problem(mode: str, opponent_model: str) -> str | None:
    """What is wrong with playing ``opponent_model`` in ``mode``, or None.

    ``random`` (expectimax) is a course-mode search: strongest mode's book and solver play the
    game-theoretic best move, which assumes a best-replying opponent.
    """
    if opponent_model not in OPPONENT_MODELS:
        return f"unknown opponent model {opponent_model!r}; choose one of {', '.join(OPPONENT_MODELS)}"
    if opponent_model == OpponentModel.RANDOM and mode != Mode.COURSE:
        return ("the random opponent model (expectimax) is for course mode (the heuristic search"
                " alone); strongest mode plays the book and the solver, which assume a"
                " best-replying opponent")
    return None


def settings_problems(agent: AgentSettings, solver: SolverSettings, *,
                      solving: bool = True) -> list[str]:
    """What the engine finds wrong in its settings, each naming its key: the heuristic's name,
    the search table's size and, when it will solve (``solving``), the solver table's."""
    problems = [*heuristic_problems(agent.heuristic), *table_bits_problems(agent.table_bits)]
    if solving:  # the solver is loaded only where it will solve
        from solver.table import table_bits_problems as solver_table_bits_problems

        problems += solver_table_bits_problems(solver.table_bits)
    return problems


class Engine:
    """Our player.  One engine per game (or per worker): it keeps its tables between moves.

    The settings are checked where the engine uses them: an unknown heuristic or a table size
    out of range is a ``ConfigError`` naming its key.  The book is read (and checked) when the
    engine is built, so a damaged book stops the program before a game starts rather than in
    the middle of one.

    ``opponent_model`` is ``minimax`` (the default: alpha-beta, a best-replying opponent) or
    ``random`` (expectimax against a uniformly random mover; course mode only, else a
    ``UsageError``).
    """

    def __init__(
        self,
        settings: AgentSettings | None = None,
        *,
        solver: SolverSettings | None = None,
        clock: Clock = time.perf_counter,
        opponent_model: str = DEFAULT_OPPONENT_MODEL,
    ):
        self.settings = settings or AgentSettings()
        self.solver_settings = solver or SolverSettings()
        self.clock = clock
        self.mode = self.settings.mode
        problem = opponent_model_problem(self.mode, opponent_model)
        if problem is not None:
            raise UsageError(problem)
        self.opponent_model = opponent_model
        # The rules agent.py checks the config file by, again for settings from flags or code.
        problems = settings_problems(self.settings, self.solver_settings,
                                     solving=self.mode == Mode.STRONGEST)
        if problems:
            raise ConfigError("; ".join(problems))
        self.table = TranspositionTable(bits=self.settings.table_bits)
        self.expectimax_table: ExpectimaxTable | None = None
        if opponent_model == OpponentModel.RANDOM:
            self.expectimax_table = ExpectimaxTable()
        self.book: Book | None = None
        self.solver: Solver | None = None
        if self.mode == Mode.STRONGEST:  # course mode never loads the solver
            from solver import Solver
            from solver.book import load_book

            self.book = load_book(self.solver_settings.book or None)
            self.solver = Solver(self.solver_settings.table_bits, clock=clock, book=self.book)

    def warm_up(self) -> None:
        """Load (or compile) the compiled code now, so that the first move is not slowed."""
        deepest(iterative_deepening(Board.from_moves("44"), self.clock() + 0.01, max_depth=4,
                                    heuristic=self.settings.heuristic, table=self.table))
        self.table.clear()
        if self.expectimax_table is not None:
            deepest(expectimax_deepening(Board.from_moves("44"), self.clock() + 0.01, max_depth=3,
                                         heuristic=self.settings.heuristic,
                                         table=self.expectimax_table))
            self.expectimax_table.clear()
        if self.solver is not None:
            self.solver.warm_up()

    def new_game(self) -> None:
        # The solver's table holds exact bounds, true in every game: it is kept.
        self.table.clear()
        if self.expectimax_table is not None:
            self.expectimax_table.clear()

    def decide(self, board: Board, limit: Limit) -> Decision:
        """The move for ``board`` within ``limit``, and how it was found (a player's
        ``choose`` answers the column alone); raises ``IllegalMove`` if the game is over."""
        if board.is_over():
            raise IllegalMove("the game is over: there is no move to choose")
        start = self.clock()
        if self.expectimax_table is None and limit.depth is None:
            decision = self._exact(board, start, limit.deadline)
            if decision is not None:
                return decision
        deepening = (partial(expectimax_deepening, table=self.expectimax_table)
                     if self.expectimax_table is not None
                     else partial(iterative_deepening, table=self.table))
        last = deepest(deepening(
            board,
            limit.deadline,
            clock=self.clock,
            heuristic=self.settings.heuristic,
            min_depth=self.settings.min_depth,
            max_depth=limit.depth,
        ))
        decision = _from_search(last, self.clock() - start, self.mode)
        if self.solver is not None and limit.depth is None:
            decision = self._avoid_proven_loss(board, decision)
        return decision

    def _avoid_proven_loss(self, board: Board, decision: Decision) -> Decision:
        """The search's decision, unless the solver proved its column losing (its table holds
        the proofs of the time it had) while another column is not proven to lose: then the
        first such column, centre first.  When all but one column are proven losing, that
        column is the best move whatever the outcome."""
        assert self.solver is not None
        losing = self.solver.losing_columns(board)
        if decision.column not in losing:
            return decision
        others = [col for col in bits.CENTER_ORDER if board.can_play(col) and col not in losing]
        if not others:
            return decision  # every column loses: the search's is as good as any
        return replace(decision, column=others[0], pv=(others[0],))

    def _exact(self, board: Board, start: float, deadline: float) -> Decision | None:
        """The book's or the solver's decision, or None to leave the move to the search."""
        share_deadline = start + (deadline - start) * self.solver_settings.share
        if self.book is not None:
            found = self.book.lookup(board)
            # A loss known only as a loss has no column worth more than another: the solver
            # (the slowest loss) or the search (the hardest problems for the opponent) picks.
            if (found is not None and board.can_play(found.column)
                    and (found.exact or found.outcome >= 0)):
                from solver import discs_to_end

                col = found.column
                nodes = 0
                if self.solver is not None:
                    nodes = self._warm_at_book_edge(board.play(col), share_deadline)
                depth = discs_to_end(found.score, board.moves) if found.exact else 0
                return Decision(col, ProvenScore(found.score, found.exact), depth, nodes,
                                self.clock() - start, (col,), Source.BOOK, self.mode)
        if self.solver is not None:
            return self._solve(board, start, share_deadline, deadline)
        return None

    def _warm_at_book_edge(self, after: Board, deadline: float) -> int:
        """At the edge of the book, prove what our next move will face until ``deadline``;
        return the nodes searched.

        A book move teaches the solver's table nothing, so the first position past the book
        would be solved from a cold table within one move's share.  When no reply to our move
        leads back into the book, the time the book saved goes into the position the opponent
        now faces: its proof is most of the proof of our next position.  When the book proves
        that position itself (it lies in the complete layers), a move keeping the outcome is
        proven for the position after each reply, centre first: one of them is our next.
        """
        assert self.solver is not None and self.book is not None
        if after.is_over():
            return 0
        replies = [after.play_unchecked(col) for col in bits.CENTER_ORDER if after.can_play(col)]
        replies = [board for board in replies if not board.is_over()]
        if any(self.book.lookup(board) is not None for board in replies):
            return 0
        before = self.solver.nodes
        if self.book.covers(after):
            for board in replies:
                # A move keeping the outcome, not only the outcome: one disc past the book, the
                # book's bounds often prove the outcome without a search (``Solver.book_bounds``).
                if self.solver.best_move(board, deadline, weak=True) is None:
                    break
        elif self.solver.solve(after, weak=True, deadline=deadline) is not None:
            self.solver.solve(after, deadline=deadline)
        return self.solver.nodes - before

    def _solve(self, board: Board, start: float, share_deadline: float,
               deadline: float) -> Decision | None:
        """The solver's decision, or None when it proved too little in time.

        The outcome is proven one question at a time, the cheaper first.  "Is the position
        lost?" may take until ``share_deadline``: proving that the draw is held is often a
        fraction of the work of proving that there is no win, and it leaves a column that
        holds the draw.  The draw held, "is it won?" may take the rest of the time (until
        ``deadline``), and the column holding the draw is played if that is not settled in
        time.  A proven win or draw is kept by the move (the fastest win if the share allows
        the exact score); a proven loss is answered with the slowest loss if that is found
        within the share, else left to the search, which sets the opponent the hardest
        problems.
        """
        from solver import Move, discs_to_end

        assert self.solver is not None
        solver = self.solver
        nodes = solver.nodes
        move: Move | None
        held = False  # only the draw is proven held, a win not ruled out
        if winning_moves(board.position, board.mask):
            move = solver.best_move(board)  # at once
        else:
            lost = solver.is_at_most(board, -1, share_deadline)
            if lost is None:
                return None
            if lost:
                move = solver.best_move(board, share_deadline)
            else:
                holding = solver.keeping_column(board, 0, deadline)
                if holding is None:
                    return None
                move = solver.best_move(board, deadline, weak=True)
                if move is None:  # the draw is held; whether there is a win, no time to tell
                    move = Move(holding, 0, 0, False)
                    held = True
                elif not move.exact:
                    move = solver.best_move(board, share_deadline) or move
        if move is None:
            return None
        depth = discs_to_end(move.score, board.moves) if move.exact else 0
        return Decision(move.column, ProvenScore(move.score, move.exact, held), depth,
                        solver.nodes - nodes, self.clock() - start, (move.column,), Source.SOLVER,
                        self.mode)
