"""``Limit``: the time a move may take, as one value made once by whoever asks for the move."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

Clock = Callable[[], float]
"""A clock as the searches take it: seconds from any origin (``time.perf_counter``, a test's)."""

MAX_SECONDS = 3600.0  # the longest time a move (or an analysis) may be given


def seconds_problem(value: float) -> str | None:
    """What is wrong with ``value`` as a time per move, or None: the one rule for ``--time``,
    ``ours:SECONDS`` and the like."""
    if not 0 < value <= MAX_SECONDS:  # also refuses nan
        return f"must be a number of seconds in (0, {MAX_SECONDS:g}], not {value:g}"
    return None


@dataclass(frozen=True, slots=True)
class Limit:
    """Think until ``deadline`` (a time of the engine's clock); search no deeper than ``depth``
    plies when it is given (the heuristic search alone then decides)."""

    deadline: float
    depth: int | None = None

    @classmethod
    def seconds(cls, seconds: float, *, start: float | None = None,
                clock: Clock = time.perf_counter, depth: int | None = None) -> Limit:
        """A limit ``seconds`` after ``start`` (default: now on ``clock``)."""
        return cls((clock() if start is None else start) + seconds, depth)
