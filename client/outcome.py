"""A finished game of ours, online or local, and what a run of them adds up to."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.games import PlayedMove, Tally


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """A finished game, online or local (``game_id`` is None for a local game not recorded).

    ``result`` is the course's, for us: 1 won, 0.5 drawn, -1 lost, -10 an illegal move.
    ``our_moves`` has our moves only; their ``seconds`` run from the server's reply received to
    our move about to be sent (online), or around the engine's call (local).
    """

    game_id: int | None
    result: float
    we_started: bool
    columns: tuple[int, ...]
    our_moves: tuple[PlayedMove, ...]
    resumed: bool = False
    note: str | None = None


def tally(outcomes: Iterable[GameOutcome]) -> Tally:
    """Won, drawn and lost games (an illegal move is a loss)."""
    from engine.games import Tally

    return Tally.of_points(o.result for o in outcomes)


def slowest_move(outcomes: Iterable[GameOutcome]) -> tuple[GameOutcome, PlayedMove] | None:
    """Our slowest move over ``outcomes`` and its game, or None if we made no move."""
    moves = [(o, m) for o in outcomes for m in o.our_moves]
    return max(moves, key=lambda pair: pair[1].seconds, default=None)
