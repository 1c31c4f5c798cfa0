"""One game between two players, recorded move by move.

``play_game`` is the only game loop of the arena: the tournament workers and the terminal game
(``agent.py play``) both go through it.  It asks each player for a column, times the answer
with the wall clock, and stops at four in a row or a full board.  A player that answers with an
impossible column, or whose ``choose`` raises, loses the game there (recorded as a forfeit,
``Ending.ILLEGAL`` or ``Ending.ERROR``, the detail saying what it did) instead of stopping a
tournament of hundreds of games; only a person quitting (``GameAbandoned``) or Ctrl-C ends a
game without a result.  An outside agent's fault (``outside.AgentFault``: late, illegal, not a
column, a crash, the sandbox's...) is such a forfeit too, its kind the game's ending and its
words the detail.  An outside agent whose process was ended from outside its sandbox
(``outside.AgentStopped``) loses nothing: the game ends ``Ending.STOPPED``, with no winner and
no points for either side.  Every game is one ``engine.games.PlayedGame``.  A ``UsageError``
(a sandbox that ``--sandbox strict`` refuses) is the user's to fix: it stops the run.

The arena plays the real rules: four in a row wins even when it fills the last cell.  (The
course environment scores that case as a draw; it can only turn one of our losses into a draw
there, never the other way round, so the arena's figures are the stricter ones.)
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from board import WIDTH, Board
from engine.games import PlayedGame, PlayedMove
from engine.players import Player
from outside.faults import AgentFault, AgentStopped
from settings import UsageError
from vocabulary import Ending


class GameAbandoned(Exception):
    """A player stopped the game (a person quitting); the game has no result."""


MoveObserver = Callable[[Board, PlayedMove], None]


@dataclass
class _Loop:
    """The state of one game in progress (kept together so the forfeit path can build a record)."""

    names: tuple[str, str]
    opening: tuple[int, ...] = ()
    board: Board = field(default_factory=Board)
    moves: list[PlayedMove] = field(default_factory=list)

    def record(self, winner: int | None, ending: Ending, detail: str = "",
               seconds: float | None = None) -> PlayedGame:
        return PlayedGame(self.names[0], self.names[1], tuple(self.moves), winner, ending,
                          detail, self.opening, seconds)


def play_game(
    first: Player,
    second: Player,
    *,
    names: tuple[str, str] | None = None,
    opening: Sequence[int] = (),
    on_move: MoveObserver | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> PlayedGame:
    """Play ``first`` against ``second`` after the ``opening`` (0-based columns; none: from
    the empty board).

    The players' ``new_game`` is the caller's business (a tournament reseeds them first).
    ``on_move(board_after, move)`` is called after every legal move.  After an opening, the
    side to move plays as ``first``.  Raises ``GameAbandoned`` when a player gives up the game
    without a result.
    """
    players = (first, second)
    loop = _Loop(names or (first.name, second.name), tuple(opening),
                 Board.from_moves(opening, one_based=False))
    if loop.board.is_over():
        raise ValueError("the opening already decides the game")
    if loop.board.moves % 2:
        raise ValueError("open with an even number of discs: the first player keeps the first"
                         " colour (PlayedMove.side)")
    side = 0
    while True:
        player = players[side]
        began, began_cpu = clock(), time.process_time()
        try:
            column = player.choose(loop.board)
        except (GameAbandoned, UsageError):
            raise
        except AgentFault as fault:  # an outside agent's fault, in its own words
            seconds = fault.seconds if fault.seconds is not None else clock() - began
            return loop.record(1 - side, fault.kind, fault.detail, seconds)
        except AgentStopped as stopped:  # no one's fault: no result
            return loop.record(None, Ending.STOPPED, f"{loop.names[side]}: {stopped.detail}",
                               clock() - began)
        except Exception as exc:  # a broken player loses its game, the tournament goes on
            return loop.record(1 - side, Ending.ERROR, f"{type(exc).__name__}: {exc}",
                               clock() - began)
        seconds, cpu_seconds = clock() - began, time.process_time() - began_cpu
        problem = _illegal(loop.board, column)
        if problem:
            return loop.record(1 - side, Ending.ILLEGAL, problem, seconds)
        column = int(column)
        # Our engine's player keeps its last decision (``OursPlayer.last``).
        move = PlayedMove.of(loop.board.moves + 1, column, seconds, getattr(player, "last", None),
                             cpu_seconds=cpu_seconds)
        loop.moves.append(move)
        loop.board = loop.board.play_unchecked(column)
        if on_move is not None:
            on_move(loop.board, move)
        if loop.board.last_mover_won():
            return loop.record(side, Ending.FOUR)
        if loop.board.is_full():
            return loop.record(None, Ending.FULL)
        side = 1 - side


def _illegal(board: Board, column: object) -> str:
    """Why ``column`` cannot be played on ``board``, or "" when it can."""
    # numbers.Integral takes NumPy integers too; a bool is an Integral but not a column
    if isinstance(column, bool) or not isinstance(column, numbers.Integral):
        return f"answered {column!r}, not a column"
    if not 0 <= int(column) < WIDTH:
        return f"column {column} is out of range 0-{WIDTH - 1}"
    if not board.can_play(int(column)):
        return f"column {column} is full"
    return ""


__all__ = ["GameAbandoned", "MoveObserver", "play_game"]
