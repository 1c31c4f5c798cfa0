"""Static evaluations of a position, from the view of the side to move.

A heuristic is a compiled pure function ``(own, mask, moves) -> int`` over bitboards with its
weights beside it.  ``HEURISTICS`` names them; the search refers to one by its index so that
the compiled core can dispatch without Python objects.  ``windows5000`` is the default.
"""

from __future__ import annotations

from numba import njit

from board import Board
from heuristics.threats import threats
from heuristics.windows import windows5000

HEURISTICS: tuple[str, ...] = ("windows5000", "threats")
DEFAULT_HEURISTIC = "windows5000"


class UnknownHeuristic(ValueError):
    """A heuristic name that is not in ``HEURISTICS``."""


def _unknown(name: str) -> str:
    return f"unknown heuristic {name!r}; choose one of {', '.join(HEURISTICS)}"


def heuristic_id(name: str) -> int:
    """The index of heuristic ``name``; raises ``UnknownHeuristic`` with the known names."""
    try:
        return HEURISTICS.index(name)
    except ValueError:
        raise UnknownHeuristic(_unknown(name)) from None


def heuristic_problems(name: str, key: str = "agent.heuristic") -> list[str]:
    """The problems of the setting ``key`` naming a heuristic: none when ``name`` is known."""
    return [] if name in HEURISTICS else [f"{key}: {_unknown(name)}"]


@njit(cache=True)
def evaluate_id(hid: int, own: int, mask: int, moves: int) -> int:
    """Heuristic number ``hid`` of the position (``own`` = discs of the side to move)."""
    if hid == 1:
        return threats(own, mask, moves)
    return windows5000(own, mask)


def evaluate(board: Board, name: str = DEFAULT_HEURISTIC) -> int:
    """The static score of ``board`` for the side to move."""
    return int(evaluate_id(heuristic_id(name), board.position, board.mask, board.moves))


__all__ = ["DEFAULT_HEURISTIC", "HEURISTICS", "UnknownHeuristic", "evaluate", "heuristic_id",
           "heuristic_problems"]
