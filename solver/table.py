"""The exact solver's transposition table: bounds on scores, one 32-bit word per entry, and a
presence bitmap that keeps probes of empty slots in the cache.

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
in short searches.  Clearing the table clears the bitmap alone (the slots keep stale words
that no probe reads), 32 times less memory to write.

Layout of ``entries`` (uint32), one array so that a compiled call takes it as one argument:
the ``size`` slots, then ``size // 32 + 1`` bitmap words (bit ``i % 32`` of word
``size + i // 32`` for slot ``i``), then one word holding ``size``.
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


def table_bits_problems(bits: int, key: str = "solver.table_bits") -> list[str]:
    """The problems of the setting ``key`` sizing this table: none when it takes ``bits``."""
    problem = TABLE_BITS.problem(bits)
    return [] if problem is None else [f"{key}: {problem}"]


def new_entries(size: int) -> np.ndarray:
    """An empty table of ``size`` slots in the layout above.

    Its memory is the system's zero pages until a search writes it: a process holds as much of
    the table as its searches have touched, and the first touch of a page costs a page fault
    (for the whole table of ``table_bits = 24``, about 5 ms more than writing it again, spread
    over the first searches)."""
    entries = np.zeros(size + size // 32 + 2, dtype=np.uint32)
    entries[-1] = size
    return entries


# A table of one slot for searches that never reach the table (``solver.core.TABLE_PLIES``
# discs or more): a solver's warm-up, before its table is needed.
NO_TABLE = new_entries(1)


@njit(cache=True, inline="always")
def slots(entries: np.ndarray) -> int:
    """The number of slots of the table ``entries`` (a prime)."""
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
    """A prime number of slots just above ``2**bits``, 4 bytes each, and the presence bitmap
    (``bits=24``: 64 MiB and 2 MiB), allocated at the first use of ``entries``."""

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
        """Forget every entry (the bitmap is cleared; the slots are not read again before
        they are written)."""
        if self.allocated:
            self.entries[self.size:-1] = 0
