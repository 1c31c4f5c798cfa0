"""The solver's table: the small table and its promotion, the large table's presence bitmap,
and what clearing forgets."""

from __future__ import annotations

import random

import numpy as np

from solver.table import (
    MIN_BITS,
    NO_TABLE,
    SMALL_BITS,
    SMALL_FILL,
    SMALL_LIMIT,
    SolverTable,
    _small_home,
    probe,
    promote,
    slots,
    small_at,
    small_store,
    store,
    stored,
)


def _large(table: SolverTable) -> np.ndarray:
    """The table's entries with the large table in use (an empty small table promoted)."""
    promote(table.entries)
    assert small_at(table.entries, table.size) == -1
    return table.entries


def test_a_cleared_large_table_forgets_its_entries_though_the_slots_keep_them() -> None:
    table = SolverTable(MIN_BITS)
    entries = _large(table)
    size = slots(entries)
    assert size == table.size
    key = 123_456_789_012
    index = key % size
    store(entries, size, index, key, 50)
    assert probe(entries, size, index, key) == 50
    table.clear()
    assert small_at(entries, size) >= 0  # cleared, the table is small again
    assert entries[index] != 0  # the stale word is still there ...
    assert probe(entries, size, index, key) == 0  # ... and no probe reads it
    assert stored(entries, key) == 0
    store(entries, size, index, key, 7)
    assert probe(entries, size, index, key) == 7


def test_keys_sharing_a_slot_never_read_each_others_entries() -> None:
    table = SolverTable(MIN_BITS)
    entries = _large(table)
    size = table.size
    key = 987_654_321
    other = key + size  # the same slot, another key: the stored bits tell them apart
    index = key % size
    assert other % size == index
    store(entries, size, index, key, 30)
    assert probe(entries, size, index, other) == 0
    store(entries, size, index, other, 31)  # a new entry replaces the old one
    assert probe(entries, size, index, key) == 0
    assert probe(entries, size, index, other) == 31


def test_the_bitmap_marks_exactly_the_slots_written() -> None:
    table = SolverTable(MIN_BITS)
    entries = _large(table)
    size = table.size
    rng = random.Random(3)
    keys = {rng.randrange(1 << 49) for _ in range(500)}
    for key in keys:
        store(entries, size, key % size, key, 1)
    bitmap = entries[size:size + size // 32 + 1]
    marked = int(np.unpackbits(bitmap.view(np.uint8)).sum())
    assert marked == len({key % size for key in keys})
    table.clear()
    assert not bitmap.any()


def test_the_small_table_keeps_every_entry_and_promotion_moves_them_all() -> None:
    """Keys starting from one slot all keep their values (no entry is replaced by another
    key's); promoted, the large table answers the same for each; cleared, nothing is left
    and the small table is in use again."""
    table = SolverTable(MIN_BITS)
    entries = table.entries
    small = small_at(entries, table.size)
    assert small >= 0
    rng = random.Random(5)
    keys = [rng.randrange(1, 1 << 49) for _ in range(2_000)]
    # Keys whose search starts at the same slot (the hash of _small_home, on arrays).
    candidates = np.arange(1, 1 << 23, dtype=np.uint64) << np.uint64(20)
    homes = ((((candidates ^ (candidates >> np.uint64(17))) & np.uint64(0xFFFFFFFF))
              * np.uint64(2_654_435_769)) & np.uint64(0xFFFFFFFF)) >> np.uint64(32 - SMALL_BITS)
    crowd = [int(k) for k in candidates[homes == homes[0]][:6]]
    assert len(crowd) == 6 and {_small_home(k) for k in crowd} == {_small_home(crowd[0])}
    values = {key: 1 + i % 86 for i, key in enumerate(keys + crowd)}
    for key, value in values.items():
        small_store(entries, small, key, value)
    small_store(entries, small, crowd[0], 9)  # a new value for a key replaces its old one
    values[crowd[0]] = 9
    assert [stored(entries, key) for key in values] == list(values.values())
    promote(entries)
    assert small_at(entries, table.size) == -1
    assert [stored(entries, key) for key in values] == list(values.values())
    table.clear()
    assert small_at(entries, table.size) == small
    assert not any(stored(entries, key) for key in values)


def test_a_search_outgrowing_the_small_table_goes_on_in_the_large_one() -> None:
    """A position whose search stores more than ``SMALL_LIMIT`` entries moves them into the
    large table in the middle of the search, and gets Pons' score, as a search in the large
    table from the start does."""
    from board import Board
    from solver import Solver

    board = Board.from_moves("335662333565")  # Pons' Begin-Medium, score -2
    solver = Solver()
    solution = solver.solve(board)
    assert solution is not None and solution.score == -2
    assert solution.nodes > SMALL_LIMIT
    assert small_at(solver.table.entries, solver.table.size) == -1
    large = Solver()
    _large(large.table)
    again = large.solve(board)
    assert again is not None and again.score == -2
    solver.table.clear()  # small again: a smaller search stays there
    smaller = solver.solve(Board.from_moves("4642332434166445"))  # Middle-Medium
    assert smaller is not None and smaller.score == -2
    assert small_at(solver.table.entries, solver.table.size) >= 0


def test_a_solver_holds_no_table_until_its_first_search() -> None:
    """Made and warmed up (its compiled code loaded), a solver has asked for no table memory,
    and a strongest engine answering from the book never does; the first search allocates it,
    and scores are the same as a solver's that had one from the start."""
    from board import Board
    from engine import Engine
    from settings import AgentSettings
    from solver import Solver
    from timecontrol import Limit
    from vocabulary import Mode

    solver = Solver()
    solver.warm_up()
    assert not solver.table.allocated
    assert not NO_TABLE[:-SMALL_FILL].any()  # the warm-up's searches wrote nothing in its stand-in
    assert solver.losing_columns(Board.from_moves("4444")) == set()  # nothing proven yet
    engine = Engine(AgentSettings(mode=Mode.STRONGEST))
    engine.warm_up()
    decision = engine.decide(Board.from_moves("44"), Limit(engine.clock() + 5))
    assert engine.solver is not None and not engine.solver.table.allocated
    assert 0 <= decision.column < 7
    board = Board.from_moves("4642332434166445")  # Pons' Middle-Medium, score -2
    first = solver.solve(board)
    assert solver.table.allocated and first is not None and first.score == -2
    fresh = Solver()
    fresh.table.entries  # noqa: B018 (allocated before anything is asked)
    again = fresh.solve(board)
    assert again is not None and (again.score, again.nodes) == (first.score, first.nodes)
