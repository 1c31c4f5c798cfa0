"""The exact solver's transposition table: bounds on scores, one 32-bit word per entry, a
presence bitmap that keeps probes of empty slots in the cache, and a small table in front of
it for short searches.

Slot ``i`` holds the low 25 bits of a position's key (``position + mask``) above a 7-bit value:
an upper or a lower bound on the position's score (encoded in ``solver.core``).  The index is
the key modulo the size, a prime above ``2**24``: a key has at most 49 bits, so the index (the
key modulo the prime) and the stored bits (the key modulo ``2**25``) determine the whole key by
the Chinese remainder theorem, and a match is never a false hit.  A new entry always replaces
the old one.  Entries are valid for every root (a score depends on the position only), so the
table is kept between searches and games.

**The presence bitmap.**  One bit per slot says whether the slot holds an entry at all.  A
probe reads the bit first and touches the slot only when it is set.  The slots take 64 MiB and
the bitmap 2 MiB (``table_bits = 24``): in a fresh or cleared table nearly every probe finds
its slot empty, and reading the bit (a cache hit: the bitmap stays in the caches) instead of the
slot (a miss to memory, about 200 ns on the project's machine) is most of the cost of a node
in short searches.  Clearing the large table clears its bitmap alone (the slots keep stale
words that no probe reads), 32 times less memory to write.

**The small table.**  A search of a few hundred nodes touches a few hundred slots spread over
the 64 MiB: each a cache and a TLB miss, most of the time of such a search (on the Intel Xeon
of issue 38, Pons' End-Easy set took 5.2 us a position with the large table alone, 2.4 us
with the small one first: ``bench/solver_bench.py``).  So every table starts small:
``SMALL_SLOTS`` slots of two words (1 MiB, in the processor's L2 cache once touched), each
holding a whole key (``key`` below ``2**49``) and its value, found by linear probing from a
Fibonacci hash of the key, with a presence bitmap of its own: no entry is ever lost or
replaced by another key's.  Once it holds ``SMALL_LIMIT`` entries (a quarter full, so that a
probe reads one or two slots), the search moves them into the large table (``promote``) and
goes on there; the table is then large until it is cleared.  A search in the small table
loses no entry, and stores and reads entries two discs deeper
(``solver.core.SMALL_TABLE_PLIES``): on Pons' sets, fewer nodes.
Clearing a table that stayed small clears the small table alone (1 MiB).

Layout of ``entries`` (uint32), one array so that a compiled call takes it as one argument:
the ``size`` slots, then ``size // 32 + 1`` bitmap words (bit ``i % 32`` of word
``size + i // 32`` for slot ``i``), then from ``small_base(size)`` (even) the small table's
``SMALL_SLOTS`` pairs of words (the key's low 32 bits; then above the value's 7 bits the key's
high bits: a word of 0 is an empty slot) and its ``SMALL_SLOTS // 32`` bitmap words, then
the state word (``entries[-SMALL_FILL]``: the small table's number of entries, or ``LARGE``
once promoted), then one word holding ``size``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from board.keys import TableBits

# The Chinese remainder argument needs size * 2**25 > 2**49.
MIN_BITS = 24
MAX_BITS = 28
TABLE_BITS = TableBits(MIN_BITS, MAX_BITS, "a table of about 2**bits entries of 4 bytes")

# An entry: the low KEY_BITS bits of the key, shifted left by VALUE_BITS, above the value.
KEY_BITS = 25
VALUE_BITS = 7
_KEY_MASK = (1 << KEY_BITS) - 1
_VALUE_MASK = (1 << VALUE_BITS) - 1

# The small table: 2**SMALL_BITS two-word slots and their presence bits, promoted once 1 slot
# in 4 holds an entry (see above; the search checks at each node it enters, and stores at most
# one entry a ply in between, so the table never fills and a probe always ends).
SMALL_BITS = 17
SMALL_SLOTS = 1 << SMALL_BITS
SMALL_LIMIT = SMALL_SLOTS // 4
_SMALL_WORDS = 2 * SMALL_SLOTS + SMALL_SLOTS // 32
_LOW_WORD = (1 << 32) - 1
_FIBONACCI = 2_654_435_769  # 2**32 divided by the golden ratio
# The state word, entries[-SMALL_FILL]: the small table's number of entries, or LARGE once
# the large table is in use.  After it, the large table's size.
SMALL_FILL = 2
LARGE = _LOW_WORD


def table_bits_problems(bits: int, key: str = "solver.table_bits") -> list[str]:
    """The problems of the setting ``key`` sizing this table: none when it takes ``bits``."""
    problem = TABLE_BITS.problem(bits)
    return [] if problem is None else [f"{key}: {problem}"]


def _small_base(size: int) -> int:
    """Where the small table of a table of ``size`` slots begins (even: a slot's two words
    never straddle a cache line)."""
    end = size + size // 32 + 1
    return end + (end & 1)


small_base = njit(cache=True, inline="always")(_small_base)


def new_entries(size: int) -> np.ndarray:
    """An empty table of ``size`` slots in the layout above.

    Its memory is the system's zero pages until a search writes it: a process holds as much of
    the table as its searches have touched, and the first touch of a page costs a page fault
    (for the whole table of ``table_bits = 24``, about 5 ms more than writing it again, spread
    over the first searches)."""
    entries = np.zeros(_small_base(size) + _SMALL_WORDS + SMALL_FILL, dtype=np.uint32)
    entries[-1] = size
    return entries


# A table of one slot for searches that never reach the table (``solver.core.TABLE_PLIES``
# discs or more): a solver's warm-up, before its table is needed.  Large from the start, so
# that no search writes in it (the small table is used up to ``SMALL_TABLE_PLIES`` discs).
NO_TABLE = new_entries(1)
NO_TABLE[-SMALL_FILL] = LARGE


@njit(cache=True, inline="always")
def slots(entries: np.ndarray) -> int:
    """The number of slots of the large table ``entries`` (a prime)."""
    return int(np.int64(entries[entries.size - 1]))  # signed: see probe


@njit(cache=True, inline="always")
def probe(entries: np.ndarray, size: int, index: int, key: int) -> int:
    """The value stored for ``key`` (1 to ``2**VALUE_BITS - 1``), or 0 when there is none;
    ``index`` is its slot, ``key % size``."""
    # Unsigned indices: numba checks a signed one for being negative.
    if (entries[np.uint64(size + (index >> 5))] >> (index & 31)) & 1 == 0:
        return 0
    # As int64: numba compares an unsigned and a signed integer as floats.
    entry = np.int64(entries[np.uint64(index)])
    if (entry >> VALUE_BITS) != (key & _KEY_MASK):
        return 0
    return int(entry & _VALUE_MASK)


@njit(cache=True, inline="always")
def store(entries: np.ndarray, size: int, index: int, key: int, value: int) -> None:
    """Store ``value`` (1 to ``2**VALUE_BITS - 1``) for ``key`` in its slot ``index``
    (``key % size``), replacing the slot's entry."""
    entries[np.uint64(index)] = ((key & _KEY_MASK) << VALUE_BITS) | value
    entries[np.uint64(size + (index >> 5))] |= np.uint32(1 << (index & 31))


@njit(cache=True, inline="always")
def small_at(entries: np.ndarray, size: int) -> int:
    """Where the small table begins (``small_base(size)``) while it is in use, -1 once the
    large table is."""
    if np.int64(entries[np.uint64(entries.size - SMALL_FILL)]) == LARGE:
        return -1
    return small_base(size)


@njit(cache=True, inline="always")
def small_full(entries: np.ndarray) -> bool:
    """Whether the small table holds ``SMALL_LIMIT`` entries (or the large one is in use)."""
    return bool(np.int64(entries[np.uint64(entries.size - SMALL_FILL)]) >= SMALL_LIMIT)


@njit(cache=True, inline="always")
def _small_home(key: int) -> int:
    """The small table's slot where the search for ``key`` starts: Fibonacci hashing of the
    key folded to 32 bits (the product's top bits)."""
    return (((key ^ (key >> 17)) & _LOW_WORD) * _FIBONACCI & _LOW_WORD) >> (32 - SMALL_BITS)


@njit(cache=True, inline="always")
def _small_slot(entries: np.ndarray, small: int, key: int, home: int) -> int:
    """The index of the first word of ``key``'s slot in the small table from ``small``, its
    search started at the occupied slot ``home``: the slot holding it, or the empty one where
    it would go."""
    i = home
    low = key & _LOW_WORD
    high = key >> 32
    while True:
        at = np.uint64(small + 2 * i)
        word = np.int64(entries[at + np.uint64(1)])
        if word == 0 or (word >> VALUE_BITS == high and np.int64(entries[at]) == low):
            return int(at)
        i = (i + 1) & (SMALL_SLOTS - 1)


@njit(cache=True, inline="always")
def _small_taken(entries: np.ndarray, small: int, i: int) -> int:
    """The presence bit of the small table's slot ``i`` (0: empty)."""
    return int((entries[np.uint64(small + 2 * SMALL_SLOTS + (i >> 5))] >> (i & 31)) & 1)


@njit(cache=True, inline="always")
def small_probe(entries: np.ndarray, small: int, key: int) -> int:
    """The value the small table from ``small`` holds for ``key``, or 0 when there is none."""
    home = _small_home(key)
    if _small_taken(entries, small, home) == 0:
        return 0
    at = np.uint64(_small_slot(entries, small, key, home) + 1)
    return int(np.int64(entries[at]) & _VALUE_MASK)


@njit(cache=True, inline="always")
def small_store(entries: np.ndarray, small: int, key: int, value: int) -> None:
    """Store ``value`` for ``key`` in the small table from ``small``, replacing its value."""
    at = np.uint64(_small_slot(entries, small, key, _small_home(key)))
    if entries[at + np.uint64(1)] == 0:
        entries[at] = key & _LOW_WORD
        i = (at - np.uint64(small)) >> np.uint64(1)
        entries[np.uint64(small + 2 * SMALL_SLOTS) + (i >> np.uint64(5))] |= (
            np.uint32(1) << np.uint32(i & np.uint64(31)))
        fill = np.uint64(entries.size - SMALL_FILL)
        entries[fill] = entries[fill] + np.uint32(1)
    entries[at + np.uint64(1)] = ((key >> 32) << VALUE_BITS) | value


@njit(cache=True)
def promote(entries: np.ndarray) -> None:
    """Move the small table's entries into the large table, which is used from then on."""
    size = slots(entries)
    small = small_base(size)
    for i in range(SMALL_SLOTS):
        at = np.uint64(small + 2 * i)
        word = np.int64(entries[at + np.uint64(1)])
        if word:
            key = ((word >> VALUE_BITS) << 32) | np.int64(entries[at])
            store(entries, size, int(key % size), int(key), int(word & _VALUE_MASK))
    entries[np.uint64(entries.size - SMALL_FILL)] = LARGE


@njit(cache=True, inline="always")
def lookup(entries: np.ndarray, size: int, small: int, key: int) -> int:
    """The value stored for ``key`` (0: none), in the small table ``small`` (see ``small_at``)
    or, with ``small`` -1, in the large table."""
    if small >= 0:
        return small_probe(entries, small, key)
    return probe(entries, size, key % size, key)


@njit(cache=True, inline="always")
def put(entries: np.ndarray, size: int, small: int, index: int, key: int, value: int) -> None:
    """Store ``value`` for ``key``, in the small table ``small`` or, with ``small`` -1, in the
    large table's slot ``index`` (``key % size``)."""
    if small >= 0:
        small_store(entries, small, key, value)
    else:
        store(entries, size, index, key, value)


@njit(cache=True)
def stored(entries: np.ndarray, key: int) -> int:
    """The value the table ``entries`` holds for ``key`` (0: none), for callers outside the
    search."""
    size = slots(entries)
    return lookup(entries, size, small_at(entries, size), key)


# numba's code generation helpers carry no types.
_cgutils: Any = cgutils


def prefetch(entries: np.ndarray, size: int, index: int) -> None:
    """Ask the processor to bring slot ``index`` and its bitmap word into the cache, so that a
    probe a little later does not wait for memory.  A hint only: run as Python it does
    nothing, and compiled it is one instruction per cache line (``_prefetch_line``)."""


def prefetch_for_store(entries: np.ndarray, index: int) -> None:
    """Ask the processor to fetch slot ``index``'s cache line for writing: a store to a slot not
    in the cache waits for its line, and a node stores its entry when its children are done,
    by when the line has come.  A hint only, like ``prefetch``."""


def _prefetch_intrinsic(for_writing: int) -> Any:
    """An intrinsic: LLVM's prefetch of the cache line holding ``array[index]`` (for reading,
    or for writing, kept in all cache levels).  NumPy and numba have no such call."""

    def prefetch_line(typingctx: Any, array: Any, index: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            array_type = signature.args[0]
            view = context.make_array(array_type)(context, builder, args[0])
            pointer = _cgutils.get_item_pointer(context, builder, array_type, view,
                                                [args[1]], wraparound=False, boundscheck=False)
            byte_pointer = ir.IntType(8).as_pointer()
            int32 = ir.IntType(32)
            function = _cgutils.get_or_insert_function(
                builder.module,
                ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32]),
                "llvm.prefetch.p0i8")
            builder.call(function, [builder.bitcast(pointer, byte_pointer), int32(for_writing),
                                    int32(3), int32(1)])
            return context.get_dummy_value()

        return types.void(array, index), codegen

    return intrinsic(prefetch_line)


# Called from compiled code only, with the array and the index (numba supplies typingctx).
_prefetch_line: Any = _prefetch_intrinsic(0)
_prefetch_line_for_writing: Any = _prefetch_intrinsic(1)


@overload(prefetch, inline="always")
def _prefetch_compiled(entries: Any, size: Any, index: Any) -> Any:
    def implementation(entries: Any, size: Any, index: Any) -> None:
        _prefetch_line(entries, np.uint64(size + (index >> 5)))
        _prefetch_line(entries, np.uint64(index))

    return implementation


@overload(prefetch_for_store, inline="always")
def _prefetch_for_store_compiled(entries: Any, index: Any) -> Any:
    def implementation(entries: Any, index: Any) -> None:
        _prefetch_line_for_writing(entries, np.uint64(index))

    return implementation


class SolverTable:
    """A prime number of slots just above ``2**bits``, 4 bytes each, the presence bitmap
    (``bits=24``: 64 MiB and 2 MiB) and the small table (1 MiB), allocated at the first use of
    ``entries`` (a process holds the pages its searches touch: the small table's alone until
    it is promoted)."""

    def __init__(self, bits: int = MIN_BITS) -> None:
        self.bits = bits
        self.size = TABLE_BITS.size(bits)

    def __getattr__(self, name: str) -> np.ndarray:
        # Called only while ``entries`` is not set: a solver that never searches never holds it.
        if name != "entries":
            raise AttributeError(name)
        self.entries = new_entries(self.size)
        return self.entries

    @property
    def allocated(self) -> bool:
        """Whether the table's memory has been asked for yet (``entries``)."""
        return "entries" in self.__dict__

    def clear(self) -> None:
        """Forget every entry: the small table is emptied and used again; the large table's
        bitmap is cleared if it was in use (its slots are not read again before they are
        written)."""
        if self.allocated:
            entries = self.entries
            if entries[-SMALL_FILL] == LARGE:
                entries[self.size:-1] = 0  # the large table's bitmap, and the small table
            else:
                entries[_small_base(self.size):-1] = 0
