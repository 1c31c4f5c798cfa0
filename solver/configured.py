"""A solver built from the settings (or a command's ``--table-bits``), its size checked here."""

from __future__ import annotations

from settings import SolverSettings, UsageError
from solver.book import Book
from solver.solver import Solver


def configured_solver(settings: SolverSettings, table_bits: int | None = None, *,
                      book: Book | None = None) -> Solver:
    """A solver with ``table_bits`` (None: ``solver.table_bits`` of the settings) and the
    ``book``'s bounds if given; a size out of range is a ``UsageError`` naming where it came
    from."""
    where = "--table-bits"
    if table_bits is None:
        table_bits, where = settings.table_bits, "solver.table_bits"
    try:
        return Solver(table_bits, book=book)
    except ValueError as exc:
        raise UsageError(f"{where}: {exc}") from None
