"""The one column convention of what people read, and who is X and who is O.

A person reads columns 1-7, left to right, as in a move string (Pascal Pons' notation, "4453"),
so a column copied from a log, a prompt or a picture can be pasted into ``agent.py move`` or
``analyze``.  Machines keep 0-6: the course protocol, and every JSON field named ``column``.

X is always the player who moved first and O the second, in every command and picture.
"""

from __future__ import annotations

from collections.abc import Iterable

FIRST_SYMBOL, SECOND_SYMBOL = "X", "O"


def column_label(column: int) -> str:
    """A 0-based column as people read it: ``"1"`` to ``"7"``."""
    return str(column + 1)


def columns_text(columns: Iterable[int]) -> str:
    """0-based columns as people read them, space-separated: ``"4 4 5 3"``."""
    return " ".join(column_label(c) for c in columns)


def symbol(first: bool) -> str:
    """The symbol of the player who moved first (``X``) or second (``O``)."""
    return FIRST_SYMBOL if first else SECOND_SYMBOL


def side_words(first: bool) -> str:
    """``"X (first)"`` or ``"O (second)"``: a side as every command names it."""
    return f"{symbol(first)} ({'first' if first else 'second'})"
