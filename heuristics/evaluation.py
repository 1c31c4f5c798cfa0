"""The compiled evaluations behind one number: ``evaluate_id`` is what the compiled searches
call (a heuristic's number and its weights), ``evaluate`` the same from Python; the weights
each one takes (``heuristic_weights``) and whether a named one is ready to use
(``heuristic_problems``)."""

from __future__ import annotations

import numpy as np

from board import Board
from board.compiled import njit
from heuristics.fitted import learned, windows_tuned
from heuristics.names import DEFAULT_HEURISTIC, FITTED, HEURISTICS, heuristic_id, unknown_words
from heuristics.threats import threats
from heuristics.weights import WeightsError, load_weights
from heuristics.windows import windows5000

# The weights argument of the heuristics that have none.
_NO_WEIGHTS = np.zeros((1, 1), dtype=np.float64)


def heuristic_problems(name: str, key: str = "agent.heuristic") -> list[str]:
    """The problems of the setting ``key`` naming a heuristic: none when ``name`` is known and,
    for a fitted one, its weights file reads and matches its checksum."""
    if name not in HEURISTICS:
        return [f"{key}: {unknown_words(name)}"]
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


__all__ = ["evaluate", "evaluate_id", "heuristic_problems", "heuristic_weights"]
