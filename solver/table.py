"""The exact solver's transposition table: bounds on scores, one 32-bit word per entry.

Entry ``i`` holds the low 25 bits of a position's key (``position + mask``) above a 7-bit value:
0 for no entry, else an upper or a lower bound on the position's score (encoded in
``solver.core``).  The index is the key modulo the size, a prime above ``2**24``: a key has at
most 49 bits, so the index (the key modulo the prime) and the stored bits (the key modulo
``2**25``) determine the whole key by the Chinese remainder theorem, and a match is never a
false hit.  One word per entry means one cache miss per probe, which is most of the cost of a
node in short searches.  A new entry always replaces the old one.  Entries are valid for every
root (a score depends on the position only), so the table is kept between searches and games.
"""

from __future__ import annotations

import numpy as np

from board.keys import TableBits

# The Chinese remainder argument needs size * 2**25 > 2**49.
MIN_BITS = 24
MAX_BITS = 28
TABLE_BITS = TableBits(MIN_BITS, MAX_BITS, "a table of about 2**bits entries of 4 bytes")


def table_bits_problems(bits: int, key: str = "solver.table_bits") -> list[str]:
    """The problems of the setting ``key`` sizing this table: none when it takes ``bits``."""
    problem = TABLE_BITS.problem(bits)
    return [] if problem is None else [f"{key}: {problem}"]


class SolverTable:
    """A prime number of entries just above ``2**bits``, 4 bytes each (``bits=24``: 64 MiB)."""

    def __init__(self, bits: int = MIN_BITS) -> None:
        self.bits = bits
        self.size = TABLE_BITS.size(bits)
        self.entries = np.zeros(self.size, dtype=np.uint32)
        # Written now: fresh zero pages are mapped on first touch, which would slow the first
        # solve of a game (page faults in the middle of a move).
        self.entries.fill(0)

    def clear(self) -> None:
        self.entries.fill(0)
