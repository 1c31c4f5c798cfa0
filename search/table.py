"""A transposition table for the heuristic search: two flat arrays and compiled probe/store.

Entry ``i`` holds the full key (``position + mask``) of the position stored there, and one
packed word: the score (biased to be non-negative), the remaining depth it was searched to,
a bound flag and the best move found.  Index = key modulo the size, a prime
(``board.keys.prime_above``).  Empty slots hold key -1.  A new entry always replaces the old one.  Scores are
absolute (a win is ``WIN - discs at the end``), so no adjustment for the distance from the
root is needed when they are read back.
"""

from __future__ import annotations

import numpy as np

from board.compiled import njit
from board.keys import TableBits

EXACT = 1
LOWER = 2  # the true score is >= the stored one (the search failed high)
UPPER = 3  # the true score is <= the stored one (the search failed low)

_SCORE_BIAS = 1 << 31
_NO_MOVE = 7


@njit(cache=True)
def tt_pack(score: int, depth: int, flag: int, move: int) -> int:
    return ((score + _SCORE_BIAS) << 16) | (depth << 8) | (flag << 4) | move


@njit(cache=True)
def tt_score(data: int) -> int:
    return (data >> 16) - _SCORE_BIAS


@njit(cache=True)
def tt_depth(data: int) -> int:
    return (data >> 8) & 0xFF


@njit(cache=True)
def tt_flag(data: int) -> int:
    return (data >> 4) & 0xF


@njit(cache=True)
def tt_move(data: int) -> int:
    """The stored best column, or -1."""
    move = data & 0xF
    return -1 if move == _NO_MOVE else move


# Table sizes the search accepts: a smaller table thrashes, a larger one does not fit in memory.
MIN_BITS, MAX_BITS = 10, 27
TABLE_BITS = TableBits(MIN_BITS, MAX_BITS, "a table of 2**bits entries of 16 bytes")


def table_bits_problems(bits: int, key: str = "agent.table_bits") -> list[str]:
    """The problems of the setting ``key`` sizing this table: none when it takes ``bits``."""
    problem = TABLE_BITS.problem(bits)
    return [] if problem is None else [f"{key}: {problem}"]


class TranspositionTable:
    """About ``2**bits`` entries (16 bytes each); ``owner`` names the settings that filled it."""

    def __init__(self, bits: int = 21) -> None:
        self.size = TABLE_BITS.size(bits)
        # Both filled now (np.zeros would map pages lazily): the first search of a game must
        # not pay for touching tens of MB of fresh memory.
        self.keys = np.full(self.size, -1, dtype=np.int64)
        self.data = np.full(self.size, 0, dtype=np.int64)
        self.owner: object = None

    def clear(self) -> None:
        """Empty the table (an empty table suits any owner: ``owner`` stays)."""
        self.keys.fill(-1)
        self.data.fill(0)

    def claim(self, owner: object) -> None:
        """Clear the table unless it was filled by a search with the same ``owner`` settings."""
        if self.owner != owner:
            self.clear()
            self.owner = owner

    def best_move(self, key: int) -> int:
        """The best move stored for ``key``, or -1."""
        i = key % self.size
        if self.keys[i] != key:
            return -1
        return int(tt_move(int(self.data[i])))
