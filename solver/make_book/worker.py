"""What a worker of the book's generator keeps: one solver, with its transposition table, for
all the chunks it runs (``worker_solver``).

Positions next to each other in the book's key order share most of their discs, so a chunk of
neighbours, and the next chunk, find much of their work in the table.  The workers themselves,
a local process pool or a Dask cluster, are the ``batch`` package's.
"""

from __future__ import annotations

from batch import worker_state
from solver.book import load_book
from solver.solver import Solver


def _warm_solver(table_bits: int, with_book: bool) -> Solver:
    solver = Solver(table_bits, book=load_book() if with_book else None)
    solver.warm_up()  # load the compiled code
    return solver


def worker_solver(table_bits: int, with_book: bool = False) -> Solver:
    """This worker's solver, made on first use and kept for later chunks; ``with_book``, with
    the worker's shipped book (its bounds one disc past its complete layers)."""
    return worker_state("solver", (table_bits, with_book), lambda: _warm_solver(table_bits, with_book))
