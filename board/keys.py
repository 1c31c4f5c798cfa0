"""Keys of positions, and the sizes of the tables indexed by them.

A position's key is ``position + mask`` (``Board.key``): unique, below ``2**49``.  A position
and its mirror image (column ``c`` played as ``6 - c``) have the same value, so stores that
keep one of the two (the opening book) use the smaller of the two keys (``canonical_key``).
Tables index a key modulo a prime (``prime_above``): keys are structured (the low bits are the
first columns), so a power of two would crowd them into few slots.  ``TableBits`` is the rule
for a table's size setting: its range, and the prime number of entries it gives.
"""

from __future__ import annotations

from dataclasses import dataclass

from board import bits
from board.board import Board
from board.compiled import njit


@njit(cache=True, inline="always")
def mirror(bitboard: int) -> int:
    """The bitboard reflected left to right (column ``c`` becomes ``6 - c``)."""
    out = 0
    for col in range(bits.WIDTH):
        out |= ((bitboard >> (col * bits.H1)) & 0x7F) << ((bits.WIDTH - 1 - col) * bits.H1)
    return out


def canonical_key(board: Board) -> tuple[int, bool]:
    """The smaller of the keys of ``board`` and of its mirror image, and whether it is the
    mirror image's."""
    key = board.key
    mirrored = int(mirror(key))
    if mirrored < key:
        return mirrored, True
    return key, False


def prime_above(n: int) -> int:
    """The smallest prime larger than ``n`` (n >= 1)."""
    candidate = n + 1
    while candidate < 2 or any(candidate % d == 0 for d in range(2, int(candidate**0.5) + 1)):
        candidate += 1
    return candidate


@dataclass(frozen=True, slots=True)
class TableBits:
    """The sizes a table of keys takes: ``bits`` from ``low`` to ``high``, for a prime number of
    entries just above ``2**bits``.  ``table`` says what ``bits`` sizes, for the messages."""

    low: int
    high: int
    table: str

    def problem(self, bits: int) -> str | None:
        """What is wrong with sizing the table by ``bits``, or None."""
        if self.low <= bits <= self.high:
            return None
        return f"must be {self.low}-{self.high} ({self.table}), not {bits}"

    def size(self, bits: int) -> int:
        """The table's number of entries for ``bits``; ``ValueError`` (``problem``) if out of range."""
        problem = self.problem(bits)
        if problem is not None:
            raise ValueError(problem)
        return prime_above(1 << bits)
