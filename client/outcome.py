"""A finished game of ours, online or local, and what a run of them adds up to."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from course.protocol import course_result

if TYPE_CHECKING:
    from engine.games import PlayedGame, PlayedMove, Tally


@dataclass(frozen=True, slots=True)
class OurGame:
    """A finished game of ours: the ``game`` (ours on ``our_side``), its number in the record
    (None: a local game not recorded), whether it was resumed from the record.

    The seconds of our moves run from the server's reply received to our move about to be sent
    (online), or around the engine's call (local); the other side's are not timed.
    """

    game: PlayedGame
    our_side: int
    game_id: int | None = None
    resumed: bool = False

    @property
    def we_started(self) -> bool:
        return self.our_side == 0

    @property
    def result(self) -> float:
        """The result for us in the course's terms: 1 won, 0.5 drawn, -1 lost, -10 lost by an
        illegal move."""
        outcome, ending = self.game.outcome(self.our_side), self.game.ending
        assert outcome is not None and ending is not None, "a finished game has a result"
        return course_result(outcome, ending)

    @property
    def our_moves(self) -> list[PlayedMove]:
        return [move for move in self.game.moves if move.side == self.our_side]


def tally(games: Iterable[OurGame]) -> Tally:
    """Won, drawn and lost games (an illegal move is a loss)."""
    from engine.games import Tally

    return Tally.of_points(game.game.points(game.our_side) for game in games)


def slowest_move(games: Iterable[OurGame]) -> tuple[OurGame, PlayedMove] | None:
    """Our slowest move over ``games`` and its game, or None if we made no move."""
    moves = [(game, move) for game in games for move in game.our_moves
             if move.seconds is not None]
    return max(moves, key=lambda pair: pair[1].seconds or 0.0, default=None)


def plural(count: int, noun: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def move_string_line(game: PlayedGame) -> str:
    """A game's moves as the line that ends it: a move string ``move`` and ``analyze`` take."""
    return (f"move string for `agent.py analyze` (Pons' notation, 1-based):"
            f" {game.move_string or '(no move)'}")
