"""The analysis board's request parameters, checked where they come in.

Every parameter arrives as text (a query string can hold anything a browser sends).  Each
parser returns the value or raises ``BadRequest`` with one sentence naming the parameter and
what was wrong; the app answers it with HTTP 400.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from vocabulary import Mode

if TYPE_CHECKING:
    from board import Board

MIN_SECONDS, MAX_SECONDS = 0.05, 10.0
DEFAULT_SECONDS = 1.0
MODES: tuple[str, ...] = tuple(Mode)
MAX_TEXT = 200  # no parameter of the API is longer: a move string has at most 42 digits
PAGE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
DECIMAL = re.compile(r"[0-9]{1,6}(\.[0-9]{0,6})?|\.[0-9]{1,6}")


class BadRequest(ValueError):
    """A parameter a client sent is wrong; the message is one sentence saying what."""


def _short(text: str) -> str:
    return repr(text if len(text) <= 20 else text[:20] + "...")


def position(moves: str | None, *, playable: bool = True) -> tuple[str, Board]:
    """The move string (Pons' notation, 1-based columns; none: the empty board) and its board;
    with ``playable``, a finished game is refused (there is nothing to analyse or play)."""
    from board import Board, BoardError  # the API reads a position: the compiled board

    text = (moves or "").strip()
    if len(text) > MAX_TEXT:
        raise BadRequest(f"moves is {len(text)} characters long; a game has at most 42 moves.")
    try:
        board = Board.from_moves(text)
    except BoardError as exc:
        raise BadRequest(f"moves {_short(text)} is not a game: {exc}.") from None
    if playable and board.is_over():
        raise BadRequest(f"the game {_short(text)} is already over: there is no move to analyse.")
    return text, board


def seconds(text: str | None, *, default: float = DEFAULT_SECONDS, name: str = "seconds") -> float:
    """A time in seconds, from ``MIN_SECONDS`` to ``MAX_SECONDS``."""
    if text is None or text == "":
        return default
    if not DECIMAL.fullmatch(text.strip()):  # float() would also take "1_0", "nan", "1e3"
        raise BadRequest(f"{name} must be a number of seconds, not {_short(text)}.")
    value = float(text)
    if not math.isfinite(value) or not MIN_SECONDS <= value <= MAX_SECONDS:
        raise BadRequest(f"{name} must be from {MIN_SECONDS:g} to {MAX_SECONDS:g} seconds,"
                         f" not {_short(text)}.")
    return value


def choice(text: str | None, name: str, options: tuple[str, ...], default: str) -> str:
    """One of ``options`` (none given: ``default``)."""
    if text is None or text == "":
        return default
    if text not in options:
        raise BadRequest(f"{name} must be {' or '.join(options)}, not {_short(text)}.")
    return text


def parts(text: str | None, options: tuple[str, ...]) -> tuple[str, ...]:
    """A comma-separated subset of ``options`` (none given: all of them)."""
    if text is None or text == "":
        return options
    wanted = tuple(part.strip() for part in text[:MAX_TEXT].split(","))
    unknown = [part for part in wanted if part not in options]
    if unknown:
        raise BadRequest(f"parts must be a comma-separated list of {', '.join(options)};"
                         f" {_short(unknown[0])} is not one.")
    return tuple(part for part in options if part in wanted)


def page(text: str | None) -> str | None:
    """The id a page sends with each request (letters, digits, - and _), or None."""
    if text is None or text == "":
        return None
    if not PAGE_ID.fullmatch(text):
        raise BadRequest("page must be 1-64 letters, digits, '-' or '_'.")
    return text


def whole(text: str | None, name: str, *, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high``."""
    if text is None or not text.isascii() or not text.strip().isdigit() or len(text) > 12:
        raise BadRequest(f"{name} must be a whole number from {low} to {high}, not"
                         f" {_short(text or '')}.")
    value = int(text)
    if not low <= value <= high:
        raise BadRequest(f"{name} must be a whole number from {low} to {high}, not {value}.")
    return value
