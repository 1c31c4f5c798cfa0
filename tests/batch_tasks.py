"""Tasks for the batch executor's tests, in a module of their own: a worker process imports
only this (and the standard library) to run them, not the test module with pytest and the
project's compiled code, so that pools start fast."""

from __future__ import annotations

import os
import time


def pid_after(seconds: float, value: int) -> tuple[int, int]:
    """``value`` and the worker's process id, after ``seconds``."""
    time.sleep(seconds)
    return value, os.getpid()


def fail(value: int) -> None:
    raise ValueError(f"task {value} failed")
