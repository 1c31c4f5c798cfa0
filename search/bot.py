"""The course server's bot: alpha-beta minimax cut off at a fixed depth, random among ties.

Used by the local server emulation and by the arena (``bot:DEPTH``).  The course bot looks
``depth`` plies ahead (its own move included) with the ``windows5000`` heuristic and no other
tricks, so it is plain minimax here (``tactics`` off): each root move is searched with a full
window so that every move's exact value is known and ties can be broken at random.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, TypeVar

from board import Board, IllegalMove
from heuristics import DEFAULT_HEURISTIC, heuristic_id, heuristic_weights
from search.negamax import INF, WIN, negamax, new_scratch
from search.table import TranspositionTable
from settings.shipped import BOT_DEPTH
from timecontrol.counters import new_counters

_T = TypeVar("_T")


class TieBreaker(Protocol):
    """What picks among equally good moves: a ``random.Random``, the ``random`` module, or a
    caller's wrapper around one (the local server's, which serialises its threads' draws)."""

    def choice(self, seq: Sequence[_T], /) -> _T: ...


def move_values(board: Board, depth: int, heuristic: str = DEFAULT_HEURISTIC) -> dict[int, int]:
    """Each legal column's minimax value at ``depth`` plies (the move itself is ply 1)."""
    if board.is_over():
        raise IllegalMove("the game is over: the bot has no move")
    if depth < 1:
        raise ValueError(f"bot depth must be at least 1, not {depth}")
    hid = heuristic_id(heuristic)
    weights = heuristic_weights(heuristic)
    table = TranspositionTable(bits=12)
    scratch = new_scratch()
    values = {}
    for col in board.legal_moves():
        if board.is_winning_move(col):
            values[col] = WIN - (board.moves + 1)
            continue
        child = board.play_unchecked(col)
        if child.is_full():
            values[col] = 0
            continue
        counters = new_counters()
        values[col] = -int(
            negamax(
                child.position, child.mask, child.moves, depth - 1, -INF, INF, hid, weights, False,
                table.keys, table.data, scratch, counters,
            )
        )
    return values


def bot_move(
    board: Board,
    depth: int = BOT_DEPTH,
    rng: TieBreaker | None = None,
    heuristic: str = DEFAULT_HEURISTIC,
) -> int:
    """The column the course's bot would play: one among the best at ``depth``, picked by
    ``rng`` (default: the ``random`` module) from those columns in ascending order."""
    values = move_values(board, depth, heuristic)
    best = max(values.values())
    # Ascending (legal_moves' order), so that a seeded rng makes the same picks everywhere.
    choices = [col for col, value in values.items() if value == best]
    return (rng or random).choice(choices)


def random_move(board: Board, rng: TieBreaker | None = None) -> int:
    """A uniformly random legal column."""
    moves = board.legal_moves()
    if not moves:
        raise IllegalMove("the game is over: there is no move")
    return (rng or random).choice(moves)


__all__ = ["TieBreaker", "bot_move", "move_values", "random_move"]
