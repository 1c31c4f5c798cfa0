"""The board as text: one renderer for every picture of a board the program prints.

Rows are given top first as cells 1, -1 and 0 (the course's grid, or a ``Board``'s), with a
symbol for each value (X for the player who moved first, O for the second, whatever the
grid's values).  The column numbers 1-7 (as people read them, and as move strings write them:
``vocabulary.columns``) are printed underneath, and ``last`` puts a ``^`` under the column
played last.  ``paint`` may dress a symbol (the terminal game colours the discs).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from board.bits import WIDTH

Paint = Callable[[int, str], str]


def render_rows(rows: Sequence[Sequence[int]], symbols: Mapping[int, str], *,
                last: int | None = None, paint: Paint | None = None) -> str:
    """``rows`` as text, one line per row, then the column numbers (see the module)."""
    lines = []
    for row in rows:
        cells = []
        for value in row:
            symbol = symbols[int(value)]
            cells.append(paint(int(value), symbol) if paint else symbol)
        lines.append(" ".join(cells))
    lines.append(" ".join(str(c + 1) for c in range(WIDTH)))
    if last is not None:
        lines.append(" " * (2 * last) + "^")
    return "\n".join(lines)
