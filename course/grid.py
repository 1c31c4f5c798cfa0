"""The board as the course server sends it: 6 rows of 7 cells, row 0 at the top, 1 = the
student's discs, -1 = the bot's, 0 = empty."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from board import Board

Grid = tuple[tuple[int, ...], ...]
"""A course board: ``HEIGHT`` rows of ``WIDTH`` cells, row 0 at the top; 1 = ours, -1 = the bot's."""


def as_grid(rows: Iterable[Iterable[Any]]) -> Grid:
    """Rows of cells (lists, a NumPy array, JSON) as a ``Grid`` of plain ints; trusts the shape."""
    return tuple(tuple(int(cell) for cell in row) for row in rows)


def course_grid(board: Board, *, student_to_move: bool) -> Grid:
    """``board`` as the server sends it: the student's discs are 1 whoever is to move."""
    return as_grid(board.to_grid(1 if student_to_move else -1))
