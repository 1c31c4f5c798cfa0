"""Ctrl-C in ``agent.py online``: the first finishes the game in progress, the second stops at once.

The course server's clock keeps running while nobody answers it: a game left in the middle is
ruled late at its next move and counted as lost, however soon the next run resumes it.  So a
habit (Ctrl-C) must not cost a ranked game by itself.  While an online run lasts,
``GameInterrupts`` stands in for Python's Ctrl-C handler:

- during a game, the first Ctrl-C only asks the run to stop: the terminal says at once that the
  game will be played to its end and what a second Ctrl-C would cost; the game goes on, and no
  new game is started after it (``stop_asked``);
- a second Ctrl-C during that game raises ``KeyboardInterrupt`` at once, saying that the game
  will most likely be lost and why;
- between games (``in_game`` is False) Ctrl-C raises ``KeyboardInterrupt`` at once: nothing is
  running that it could cost.

Its lines go to stderr through the file descriptor, not ``sys.stderr``: a signal handler runs
between two bytecodes of the main thread, maybe in the middle of a ``print`` to the same
stream, which Python refuses to re-enter.

A Ctrl-C that raises ``KeyboardInterrupt`` is also noted (``batch.interrupts.NotedCtrlC``: Python
drops an exception raised inside a ``__del__``, where numba frees its compiled objects), and
raised again at the run's next ``checkpoint`` (after each move is chosen, before each game).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from batch.interrupts import NotedCtrlC
from course.protocol import SERVER_MOVE_LIMIT

Notify = Callable[[str], None]

# What the terminal says at each Ctrl-C during a game (the tests look for these beginnings).
FIRST_CTRL_C = (
    "Ctrl-C: finishing the game in progress, then stopping (no new game will start). Ctrl-C"
    " again stops at once, and that game would most likely be lost: the server's clock keeps"
    f" running, and a move it does not get within {SERVER_MOVE_LIMIT:g} s is ruled late"
)
SECOND_CTRL_C = (
    "Ctrl-C again: stopping at once. The game in progress will most likely be lost: the"
    " server's clock keeps running and rules our next move late. The record keeps the moves"
    " played; the next `online` run resumes the game if the server still allows it"
)


def to_stderr(line: str) -> None:
    """Write ``line`` to stderr through its file descriptor (safe inside a signal handler);
    a stderr that is gone is not an error worth stopping a game for."""
    data = (line + "\n").encode(errors="replace")
    try:
        fileno = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        fileno = None  # not a real file (a test's capture)
    try:
        if fileno is None:
            sys.stderr.write(line + "\n")
        else:
            os.write(fileno, data)
    except (OSError, ValueError):
        pass


class GameInterrupts:
    """The online run's Ctrl-C rules (see the module's docstring); ``installed()`` puts them in
    place of Python's handler for a block."""

    def __init__(self, notify: Notify = to_stderr) -> None:
        self.notify = notify
        self.in_game = False
        self.stop_asked = False  # a first Ctrl-C came during a game: start no other
        self._ctrl_c = NotedCtrlC(self.handle)

    @contextmanager
    def installed(self) -> Iterator[GameInterrupts]:
        """Handle Ctrl-C by these rules during the block, where Python would handle it (the
        main thread, Ctrl-C not ignored)."""
        with self._ctrl_c.installed():
            yield self

    @contextmanager
    def game(self) -> Iterator[None]:
        """The block plays one game: a first Ctrl-C in it waits for its end."""
        self.in_game = True
        try:
            yield
        finally:
            self.in_game = False

    def handle(self, number: int, frame: FrameType | None) -> None:
        """The SIGINT handler."""
        if not self.in_game:
            raise KeyboardInterrupt
        if self.stop_asked:
            self.notify(SECOND_CTRL_C)
            raise KeyboardInterrupt
        self.stop_asked = True
        self.notify(FIRST_CTRL_C)

    def checkpoint(self) -> None:
        """Raise a Ctrl-C that raised ``KeyboardInterrupt`` again, in case Python dropped it."""
        self._ctrl_c.checkpoint()


__all__ = ["FIRST_CTRL_C", "SECOND_CTRL_C", "GameInterrupts", "to_stderr"]
