"""The engines behind the analysis board, and how a newer request cancels older work.

An ``Analyst`` holds what one analysis needs: a course-mode engine (the assignment's search,
the "what does my search think" view and the course-mode player), a strongest-mode engine
(its book and solver prove the verdicts and the review; it is also the strongest player), and
the ``StoppableClock`` both run on.  ``Analysts`` is a fixed pool of them: a request borrows
one for its work and gives it back, so at most ``count`` analyses run at once and each has
tables of its own (a table is not shared between threads).

Every request may name the page it comes from, and says what kind of work it is.  A new
request from a page cancels that page's work of the same kind (whatever its position) and, for
the analysis of a position (``ANALYSIS``: its columns, its search), the page's analysis of any
other position: a new move on the board ends the analysis of the previous position at once
(its clock is stopped: every deadline passes), so no stale work queues up and the page never
waits for it; a review of a game in flight goes on while the page steps through it.  A
cancelled request raises ``Cancelled``.  At most ``MAX_WAITING`` requests per analyst wait for
one; more are told at once that the board is busy, so waiting requests never fill the
server's threads.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from engine import Engine
from settings import Settings, revised
from solver import Solver
from solver.book import Book
from timecontrol import StoppableClock
from vocabulary import Mode

# How long a request waits for a free analyst before it is told the board is busy, and how
# many may wait for each analyst.
WAIT_SECONDS = 30.0
MAX_WAITING = 4
# The kinds of work that are the analysis of one position: a new position cancels them all.
ANALYSIS = ("columns", "search", "evaluations")


class Cancelled(Exception):
    """The work was cancelled by a newer request from the same page."""


class Busy(Exception):
    """Every analyst stayed busy for ``WAIT_SECONDS``."""


class Analyst:
    """A course-mode and a strongest-mode engine on one stoppable clock."""

    def __init__(self, settings: Settings) -> None:
        self.clock = StoppableClock()
        self.course = Engine(revised(settings.agent, {"mode": Mode.COURSE}), solver=settings.solver,
                             clock=self.clock)
        self.strongest = Engine(revised(settings.agent, {"mode": Mode.STRONGEST}),
                                solver=settings.solver, clock=self.clock)
        self.course.warm_up()
        self.strongest.warm_up()

    @property
    def solver(self) -> Solver:
        assert self.strongest.solver is not None  # strongest mode always has one
        return self.strongest.solver

    @property
    def book(self) -> Book:
        assert self.strongest.book is not None
        return self.strongest.book

    def engine(self, mode: Mode) -> Engine:
        return self.strongest if mode == Mode.STRONGEST else self.course


@dataclass(eq=False)
class _Job:
    """One request's work: what it is about, and the analyst doing it once it has one."""

    position: str
    kind: str
    analyst: Analyst | None = None
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True
        if self.analyst is not None:
            self.analyst.clock.stop()

    def replaced_by(self, newer: _Job) -> bool:
        """Whether ``newer`` (from the same page) makes this work stale."""
        if newer.kind == self.kind:
            return True
        return (newer.kind in ANALYSIS and self.kind in ANALYSIS
                and newer.position != self.position)


@dataclass
class Analysts:
    """A pool of ``count`` analysts (built at once: building one loads the compiled code, the
    book and allocates its tables) and the work in flight, by page."""

    settings: Settings
    count: int = 2
    _idle: queue.Queue[Analyst] = field(default_factory=queue.Queue, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _jobs: dict[str, list[_Job]] = field(default_factory=dict, init=False)
    _waiting: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        for _ in range(self.count):
            self._idle.put(Analyst(self.settings))

    def _borrow(self) -> Analyst:
        """A free analyst, waited for at most ``WAIT_SECONDS``; ``Busy`` when too many wait."""
        with self._lock:
            if self._waiting >= MAX_WAITING * self.count:
                raise Busy()
            self._waiting += 1
        try:
            return self._idle.get(timeout=WAIT_SECONDS)
        except queue.Empty:
            raise Busy() from None
        finally:
            with self._lock:
                self._waiting -= 1

    @contextmanager
    def working(self, page: str | None, position: str, kind: str) -> Iterator[Analyst]:
        """An analyst for ``kind`` of work on ``position`` (a move string) for ``page``.

        First cancels ``page``'s work in flight that this request makes stale.
        Raises ``Busy`` when no analyst is free in time, and ``Cancelled`` (on entry or when
        the block ends) when a newer request from the page cancelled this one: whatever the
        block computed then is stale.
        """
        job = _Job(position, kind)
        if page is not None:
            with self._lock:
                jobs = self._jobs.setdefault(page, [])
                for other in jobs:
                    if other.replaced_by(job):
                        other.cancel()
                jobs.append(job)
        try:
            analyst = self._borrow()
            try:
                with self._lock:
                    analyst.clock.restart()
                    job.analyst = analyst
                    if job.cancelled:
                        raise Cancelled()
                yield analyst
                if job.cancelled:
                    raise Cancelled()
            finally:
                with self._lock:
                    job.analyst = None
                    analyst.clock.restart()
                self._idle.put(analyst)
        finally:
            if page is not None:
                with self._lock:
                    jobs = self._jobs.get(page, [])
                    if job in jobs:
                        jobs.remove(job)
                    if not jobs:
                        self._jobs.pop(page, None)
