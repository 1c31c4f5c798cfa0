"""``StoppableClock``: a clock that can make every deadline on it pass at once.

The searches and the solver take a deadline and a clock and check one against the other
between slices of compiled work.  Stopping their clock is therefore how a computation in
flight is cancelled from another thread (the analysis board cancels the analysis of a position
when a newer one arrives from the same page) without the search core knowing of cancellation.

A stopped clock reads ``STOPPED``, a time so far in the future that adding any budget to it
leaves it unchanged (``STOPPED + 3600 == STOPPED`` in floating point): every deadline, made
before the stop or after it, has passed, and differences of two stopped readings are 0, never
``inf - inf``.
"""

from __future__ import annotations

import threading
import time

from timecontrol.limit import Clock

STOPPED = 1e300


class StoppableClock:
    """``clock`` until ``stop()``, then ``STOPPED`` until ``restart()``; safe across threads."""

    def __init__(self, clock: Clock = time.perf_counter) -> None:
        self._clock = clock
        self._stopped = threading.Event()

    def __call__(self) -> float:
        return STOPPED if self._stopped.is_set() else self._clock()

    def stop(self) -> None:
        self._stopped.set()

    def restart(self) -> None:
        self._stopped.clear()
