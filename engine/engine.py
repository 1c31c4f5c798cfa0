"""``Engine``: picks a move for a position within a time budget.

Stages, each used when it can answer in time (the solver and book stages are switched on by
``AgentSettings``):

1. ``book``: the opening book has the position (exact);
2. ``solver``: the exact solver proves the position within part of the budget;
3. ``search``: iterative-deepening alpha-beta with the configured heuristic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from board import Board, IllegalMove
from search import SearchResult, TranspositionTable, iterative_deepening
from search.iterative import Clock, deepest
from settings import AgentSettings


@dataclass(frozen=True, slots=True)
class Decision:
    """A chosen move and how it was found.

    ``column`` is 0-based.  ``score`` is from the view of the side to move: for ``source``
    ``"search"`` the search's scale (``search.negamax``), for ``"book"`` and ``"solver"`` Pons'
    scale (positive: a win, ``22 - discs`` the winner plays; 0 a draw).  ``proven`` says the
    score is exact.
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
    """Our player.  One engine per game (or per worker): it keeps a table between moves."""

    def __init__(self, settings: AgentSettings | None = None, *, clock: Clock = time.perf_counter):
        self.settings = settings or AgentSettings()
        self.clock = clock
        self.table = TranspositionTable(bits=self.settings.table_bits)

    def warm_up(self) -> None:
        """Load (or compile) the compiled code now, so that the first move is not slowed."""
        deepest(iterative_deepening(Board.from_moves("44"), self.clock() + 0.01, max_depth=4))

    def new_game(self) -> None:
        self.table.clear()

    def choose(self, board: Board, seconds: float | None = None, *, max_depth: int | None = None) -> Decision:
        """The move for ``board`` within ``seconds`` (default: the configured time per move)."""
        if board.is_over():
            raise IllegalMove("the game is over: there is no move to choose")
        budget = self.settings.seconds_per_move if seconds is None else seconds
        start = self.clock()
        deadline = start + budget
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
