"""Static evaluations of a position, from the view of the side to move.

A heuristic is a compiled pure function ``(own, mask, moves, weights) -> int`` over bitboards.
``HEURISTICS`` names them; the search refers to one by its index so that the compiled core can
dispatch without Python objects, and passes the heuristic's weights array along
(``heuristic_weights``: the fitted ones read theirs from ``heuristics/data``, the others take
none).  ``windows5000`` is the default: the course's heuristic.
"""

from __future__ import annotations

import numpy as np

from board import Board
from board.compiled import njit
from heuristics.fitted import learned, windows_tuned
from heuristics.threats import threats
from heuristics.weights import WeightsError, load_weights
from heuristics.windows import windows5000

HEURISTICS: tuple[str, ...] = ("windows5000", "threats", "windows_tuned", "learned")
FITTED: tuple[str, ...] = ("windows_tuned", "learned")
DEFAULT_HEURISTIC = "windows5000"
# The weights argument of the heuristics that have none.
_NO_WEIGHTS = np.zeros((1, 1), dtype=np.float64)


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
    """The problems of the setting ``key`` naming a heuristic: none when ``name`` is known and,
    for a fitted one, its weights file reads and matches its checksum."""
    if name not in HEURISTICS:
        return [f"{key}: {_unknown(name)}"]
    try:
        heuristic_weights(name)
    except WeightsError as error:
        return [f"{key}: {error}"]
    return []


def heuristic_weights(name: str) -> np.ndarray:
    """The weights array the compiled code passes to heuristic ``name`` (read once, checked
    against its checksum: ``WeightsError`` if it is missing or damaged)."""
    heuristic_id(name)
    return load_weights(name) if name in FITTED else _NO_WEIGHTS


@njit(cache=True)
def evaluate_id(hid: int, own: int, mask: int, moves: int, weights: np.ndarray) -> int:
    """Heuristic number ``hid`` of the position (``own`` = discs of the side to move), with
    its ``weights`` (``heuristic_weights``)."""
    if hid == 1:
        return threats(own, mask, moves)
    if hid == 2:
        return windows_tuned(own, mask, moves, weights)
    if hid == 3:
        return learned(own, mask, moves, weights)
    return windows5000(own, mask)


def evaluate(board: Board, name: str = DEFAULT_HEURISTIC) -> int:
    """The static score of ``board`` for the side to move."""
    return int(evaluate_id(heuristic_id(name), board.position, board.mask, board.moves,
                           heuristic_weights(name)))


__all__ = ["DEFAULT_HEURISTIC", "FITTED", "HEURISTICS", "UnknownHeuristic", "WeightsError",
           "evaluate", "heuristic_id", "heuristic_problems", "heuristic_weights"]
