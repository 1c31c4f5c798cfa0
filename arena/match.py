"""One game between two players, recorded move by move.

``play_game`` is the only game loop of the arena: the tournament workers and the terminal game
(``agent.py play``) both go through it.  It asks each player for a column, times the answer
with the wall clock, and stops at four in a row or a full board.  A player that answers with an
impossible column, or whose ``choose`` raises, loses the game there (recorded as a forfeit with
the reason) instead of stopping a tournament of hundreds of games; only a person quitting
(``GameAbandoned``) or Ctrl-C ends a game without a result.  An outside agent's fault
(``outside.AgentFault``: late, illegal, not a column, a crash, the sandbox's...) is such a
forfeit too, its ``FaultKind`` the game's reason and its words the detail.  An outside agent
whose process was ended from outside its sandbox (``outside.AgentStopped``) loses nothing: the
game is recorded as ``stopped``, with no winner and no points for either side.  A ``UsageError``
(a sandbox that ``--sandbox strict`` refuses) is the user's to fix: it stops the run.

The arena plays the real rules: four in a row wins even when it fills the last cell.  (The
course environment scores that case as a draw; it can only turn one of our losses into a draw
there, never the other way round, so the arena's figures are the stricter ones.)
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from board import WIDTH, Board
from engine.games import PlayedMove
from engine.players import Player
from outside.faults import STOPPED, AgentFault, AgentStopped, FaultKind
from settings import UsageError

# PlayedGame.reason values; beside these, an outside agent's FaultKind values (late, crashed...)
FOUR = "four"          # the winner connected four
FULL = "full"          # the board filled up: a draw
ILLEGAL = "illegal"    # the loser answered with a column it could not play
ERROR = "error"        # the loser's choose() raised
# (STOPPED, from outside.faults: a player's process was ended from outside its sandbox)
ENDINGS = (FOUR, FULL)  # the reasons of games the board decided; any other but STOPPED is a forfeit
assert {ILLEGAL, ERROR} <= {kind.value for kind in FaultKind}  # one name for one fault


def is_forfeit(reason: str) -> bool:
    """True for the reason of a game lost by a fault (an illegal move, a crash, an outside
    agent's late move...) rather than decided on the board."""
    return reason not in ENDINGS and reason != STOPPED


class GameAbandoned(Exception):
    """A player stopped the game (a person quitting); the game has no result."""


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A finished game: who played, every legal move, and how it ended.

    ``winner`` is 0 (the first player), 1 (the second) or None (a draw, or a game stopped from
    outside: ``reason`` ``stopped``, which counts for neither side).  For a forfeit
    (``reason`` ``illegal``, ``error`` or another ``FaultKind``: ``is_forfeit``) ``detail``
    says what the loser did; its last answer is not among ``moves``.
    """

    first: str
    second: str
    moves: tuple[PlayedMove, ...]
    winner: int | None
    reason: str
    detail: str = ""
    forfeit_seconds: float | None = None

    @property
    def columns(self) -> list[int]:
        return [m.column for m in self.moves]

    @property
    def stopped(self) -> bool:
        """Whether the game was stopped from outside: it has no result."""
        return self.reason == STOPPED

    def points(self, side: int) -> float | None:
        """What side 0 (first) or 1 got: 1, 0.5 or 0; None for a stopped game."""
        if self.stopped:
            return None
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == side else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"first": self.first, "second": self.second,
                "moves": [m.to_dict() for m in self.moves], "winner": self.winner,
                "reason": self.reason, "detail": self.detail,
                "forfeit_seconds": self.forfeit_seconds}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayedGame:
        moves = tuple(PlayedMove.from_dict(m) for m in data["moves"])
        return cls(**{**data, "moves": moves})


MoveObserver = Callable[[Board, PlayedMove], None]


@dataclass
class _Loop:
    """The state of one game in progress (kept together so the forfeit path can build a record)."""

    names: tuple[str, str]
    board: Board = field(default_factory=Board)
    moves: list[PlayedMove] = field(default_factory=list)

    def record(self, winner: int | None, reason: str, detail: str = "",
               seconds: float | None = None) -> PlayedGame:
        return PlayedGame(self.names[0], self.names[1], tuple(self.moves), winner, reason,
                          detail, seconds)


def play_game(
    first: Player,
    second: Player,
    *,
    names: tuple[str, str] | None = None,
    start: Board | None = None,
    on_move: MoveObserver | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> PlayedGame:
    """Play ``first`` against ``second`` from ``start`` (default: the empty board).

    The players' ``new_game`` is the caller's business (a tournament reseeds them first).
    ``on_move(board_after, move)`` is called after every legal move.  With a ``start``
    position, the side to move there plays as ``first``.  Raises ``GameAbandoned`` when a
    player gives up the game without a result.
    """
    players = (first, second)
    loop = _Loop(names or (first.name, second.name), start or Board())
    if loop.board.is_over():
        raise ValueError("the start position is already decided")
    if loop.board.moves % 2:
        raise ValueError("start after an even number of discs: the first player keeps the first"
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
            return loop.record(1 - side, fault.kind.value, fault.detail, seconds)
        except AgentStopped as stopped:  # no one's fault: no result
            return loop.record(None, STOPPED, f"{loop.names[side]}: {stopped.detail}",
                               clock() - began)
        except Exception as exc:  # a broken player loses its game, the tournament goes on
            return loop.record(1 - side, ERROR, f"{type(exc).__name__}: {exc}", clock() - began)
        seconds, cpu_seconds = clock() - began, time.process_time() - began_cpu
        problem = _illegal(loop.board, column)
        if problem:
            return loop.record(1 - side, ILLEGAL, problem, seconds)
        column = int(column)
        # Our engine's player keeps its last decision (``OursPlayer.last``).
        move = PlayedMove.of(loop.board.moves + 1, column, seconds, getattr(player, "last", None),
                             cpu_seconds=cpu_seconds)
        loop.moves.append(move)
        loop.board = loop.board.play_unchecked(column)
        if on_move is not None:
            on_move(loop.board, move)
        if loop.board.last_mover_won():
            return loop.record(side, FOUR)
        if loop.board.is_full():
            return loop.record(None, FULL)
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


__all__ = [
    "ENDINGS",
    "ERROR",
    "FOUR",
    "FULL",
    "ILLEGAL",
    "STOPPED",
    "GameAbandoned",
    "MoveObserver",
    "PlayedGame",
    "is_forfeit",
    "play_game",
]
