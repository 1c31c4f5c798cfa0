"""Tasks for the batch executor's tests, in a module of their own: a worker process imports
only this (and the standard library) to run them, not the test module with pytest and the
project's compiled code, so that pools start fast."""

from __future__ import annotations

import os
import signal
import time


def pid_after(seconds: float, value: int) -> tuple[int, int]:
    """``value`` and the worker's process id, after ``seconds``."""
    time.sleep(seconds)
    return value, os.getpid()


def fail(value: int) -> None:
    raise ValueError(f"task {value} failed")


class _CtrlCWhenFreed:
    """Sends this process a Ctrl-C from its ``__del__`` and waits there for the handler: the
    handler's ``KeyboardInterrupt`` is raised inside ``__del__``, where Python drops it."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # the handler runs during the sleep


def ctrl_c_lost_in_a_finalizer(value: int) -> int:
    """``value``, after a Ctrl-C whose ``KeyboardInterrupt`` Python dropped (as when numba's
    compiler frees LLVM objects in ``__del__`` while the Ctrl-C comes)."""
    _CtrlCWhenFreed()
    return value
