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

Python drops an exception raised while a ``__del__`` runs, and numba frees its compiled objects
in ``__del__`` at any time: a second Ctrl-C landing there would be lost.  So it is also noted
(``stop_now``), and the game loop raises it again at its next ``checkpoint``.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

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
        self.stop_now = False  # a second Ctrl-C came: raised, and raised again at a checkpoint

    @contextmanager
    def installed(self) -> Iterator[GameInterrupts]:
        """Handle Ctrl-C by these rules during the block.

        Only in the main thread (the only one Python runs handlers in), and only over Python's
        own handler: a process started with Ctrl-C ignored goes on ignoring it.
        """
        if (threading.current_thread() is not threading.main_thread()
                or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
            yield self
            return
        signal.signal(signal.SIGINT, self.handle)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)

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
            self.stop_now = True
            self.notify(SECOND_CTRL_C)
            raise KeyboardInterrupt
        self.stop_asked = True
        self.notify(FIRST_CTRL_C)

    def checkpoint(self) -> None:
        """Raise a second Ctrl-C again, in case Python dropped its ``KeyboardInterrupt``."""
        if self.stop_now:
            raise KeyboardInterrupt


__all__ = ["FIRST_CTRL_C", "SECOND_CTRL_C", "GameInterrupts", "to_stderr"]
