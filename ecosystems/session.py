"""Our engine seated in a game loop it does not own (ConnectX, PettingZoo, OpenSpiel).

Those loops call a function with a position and want a column back; none of them says when a
new game starts (ConnectX runs its agents' files again for every episode, and a policy sees
only observations).  ``EngineSession`` keeps, for each side it plays, the position its last
answer left, and counts a position that does not follow from it (not exactly one more disc,
or one of the earlier discs changed) as a new game: the engine's table of the last game is
then emptied (``Engine.new_game``).

One engine per settings is shared by every session of a process (``shared_engine``): building
one loads the compiled code and allocates its tables (64-128 MiB), and Kaggle's validation
game, for one, plays our agent against itself in one process.
"""

from __future__ import annotations

from collections.abc import Hashable

from board import Board
from engine import Decision, Engine
from engine.players import build_engine
from settings import AgentSettings, SolverSettings
from timecontrol import Limit

_engines: dict[tuple[AgentSettings, SolverSettings], Engine] = {}


def shared_engine(agent: AgentSettings, solver: SolverSettings) -> Engine:
    """The process's engine for these settings, built (and warmed up) on first use."""
    key = (agent, solver)
    if key not in _engines:
        _engines[key] = build_engine(agent, solver)
    return _engines[key]


def follows(before: Board, board: Board) -> bool:
    """True if ``board`` is ``before`` with one more disc, the other side's: the position an
    answer left, after the opponent's reply."""
    return (board.moves == before.moves + 1
            and board.position == before.opponent
            and board.opponent & before.position == before.position)


class EngineSession:
    """Our engine's moves in someone else's game loop, ``seconds`` per move by default.

    ``choose(board, side=...)`` answers for the side to move of ``board``; ``side`` names the
    seat (a ConnectX mark, a bot's identity) whose games are told apart.
    """

    def __init__(self, agent: AgentSettings, solver: SolverSettings, *, seconds: float) -> None:
        self.engine = shared_engine(agent, solver)
        self.seconds = seconds
        self.last: Decision | None = None
        self._left: dict[Hashable, Board] = {}

    def new_game(self, side: Hashable = None) -> None:
        """Start a new game for ``side``: its next position is not taken for a continuation."""
        self._left.pop(side, None)
        self.engine.new_game()

    def choose(self, board: Board, *, side: Hashable = None, start: float | None = None,
               seconds: float | None = None) -> int:
        """Our column for ``board`` (a Python ``int``), thinking until ``seconds`` (default:
        the session's) after ``start`` (default: now) on the engine's clock."""
        before = self._left.get(side)
        if before is None or not follows(before, board):
            self.new_game(side)
        limit = Limit.seconds(self.seconds if seconds is None else seconds, start=start,
                              clock=self.engine.clock)
        self.last = self.engine.decide(board, limit)
        column = int(self.last.column)
        self._left[side] = board.play_unchecked(column)
        return column
