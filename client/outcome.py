"""A finished game of ours, online or local, and what a run of them adds up to."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from board.board import moves_to_string

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


def plural(count: int, noun: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def move_string_line(columns: Sequence[int]) -> str:
    """A game's moves as the line that ends it: a move string ``move`` and ``analyze`` take."""
    return (f"move string for `agent.py analyze` (Pons' notation, 1-based):"
            f" {moves_to_string(columns) or '(no move)'}")
