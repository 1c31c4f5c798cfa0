"""Ctrl-C around work in flight: noted in case Python drops it, held back while a result is
kept, ignored by pool workers, announced while a run waits.

Python drops an exception raised while a ``__del__`` runs (it prints "Exception ignored"), and
numba's compiler frees its LLVM objects in ``__del__`` at any time: a Ctrl-C whose
``KeyboardInterrupt`` is raised there is lost, and the work would go on to its end.
``NotedCtrlC`` notes every ``KeyboardInterrupt`` its handler raises, so that the work raises it
again at its next ``checkpoint``.  The batch executor checks between tasks; an online run
(``client.interrupt``) before each game and after each move is chosen.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

SignalHandler = Callable[[int, FrameType | None], None]


def _raise_keyboard_interrupt(number: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _python_handles_ctrl_c() -> bool:
    """True in the main thread (the only one Python runs handlers in) over Python's own
    handler: a process started with Ctrl-C ignored goes on ignoring it."""
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)


class NotedCtrlC:
    """Ctrl-C handled by ``handle`` during ``installed()`` (by default, ``KeyboardInterrupt`` as
    usual), each ``KeyboardInterrupt`` it raises noted and raised again by ``checkpoint``."""

    def __init__(self, handle: SignalHandler = _raise_keyboard_interrupt) -> None:
        self.handle = handle
        self.raised = False

    @contextlib.contextmanager
    def installed(self) -> Iterator[NotedCtrlC]:
        """``handle`` in place of Python's handler for the block, where Python handles Ctrl-C
        (the main thread, Ctrl-C not ignored); nothing noted yet."""
        self.raised = False
        if not _python_handles_ctrl_c():
            yield self
            return
        signal.signal(signal.SIGINT, self._on_signal)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    def _on_signal(self, number: int, frame: FrameType | None) -> None:
        try:
            self.handle(number, frame)
        except KeyboardInterrupt:
            self.raised = True
            raise

    def checkpoint(self) -> None:
        """Raise a noted Ctrl-C again, in case Python dropped its ``KeyboardInterrupt``."""
        if self.raised:
            raise KeyboardInterrupt


@contextlib.contextmanager
def ctrl_c_deferred() -> Iterator[None]:
    """Hold a Ctrl-C back until the block is done, then raise it.

    Python raises ``KeyboardInterrupt`` in the main thread whichever thread the signal reaches,
    so the handler itself is swapped for one that notes the signal.  The signal is also
    blocked in this thread, so that a worker process started meanwhile inherits it blocked
    until its initializer ignores it (``ignore_ctrl_c``; Windows has no signal masks).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    handler = signal.signal(signal.SIGINT, lambda number, _frame: caught.append(number))
    blocking = hasattr(signal, "pthread_sigmask")
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if blocking else set()
    try:
        yield
    finally:
        if blocking:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, handler)
    if caught and callable(handler):
        handler(signal.SIGINT, None)  # the default handler raises KeyboardInterrupt


def ignore_ctrl_c() -> None:
    """A pool worker's start: Ctrl-C reaches every process of the terminal's process group, and
    only the parent decides what it means.  The parent held SIGINT blocked while starting us
    (the mask is inherited): ignore it, then unblock it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def announce_stopping(what: str) -> Callable[[int], None]:
    """An ``on_stopping`` for ``BatchExecutor.run`` that says on stderr what a Ctrl-C waits for
    (``what``: the tasks' name, "game", "chunk"...)."""

    def announce(running: int) -> None:
        print(f"stopping: waiting for the {running} {what}(s) running to finish and be"
              " recorded; Ctrl-C again to abandon them", file=sys.stderr, flush=True)

    return announce
