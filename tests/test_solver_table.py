"""The solver's table: the presence bitmap, and what clearing forgets."""

from __future__ import annotations

import random

import numpy as np

from solver.table import MIN_BITS, SolverTable, probe, slots, store


def test_a_cleared_table_forgets_its_entries_though_the_slots_keep_them() -> None:
    table = SolverTable(MIN_BITS)
    size = slots(table.entries)
    assert size == table.size
    key = 123_456_789_012
    index = key % size
    store(table.entries, size, index, key, 50)
    assert probe(table.entries, size, index, key) == 50
    table.clear()
    assert table.entries[index] != 0  # the stale word is still there ...
    assert probe(table.entries, size, index, key) == 0  # ... and no probe reads it
    store(table.entries, size, index, key, 7)
    assert probe(table.entries, size, index, key) == 7


def test_keys_sharing_a_slot_never_read_each_others_entries() -> None:
    table = SolverTable(MIN_BITS)
    size = table.size
    key = 987_654_321
    other = key + size  # the same slot, another key: the stored bits tell them apart
    index = key % size
    assert other % size == index
    store(table.entries, size, index, key, 30)
    assert probe(table.entries, size, index, other) == 0
    store(table.entries, size, index, other, 31)  # a new entry replaces the old one
    assert probe(table.entries, size, index, key) == 0
    assert probe(table.entries, size, index, other) == 31


def test_the_bitmap_marks_exactly_the_slots_written() -> None:
    table = SolverTable(MIN_BITS)
    size = table.size
    rng = random.Random(3)
    keys = {rng.randrange(1 << 49) for _ in range(500)}
    for key in keys:
        store(table.entries, size, key % size, key, 1)
    bitmap = table.entries[size:-1]
    marked = int(np.unpackbits(bitmap.view(np.uint8)).sum())
    assert marked == len({key % size for key in keys})
    table.clear()
    assert not bitmap.any()


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
