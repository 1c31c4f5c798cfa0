"""Workers: how many a machine runs by default, and what each keeps between its tasks."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

T = TypeVar("T")


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)


_local = threading.local()


def worker_state(name: str, key: object, make: Callable[[], T]) -> T:
    """What this worker keeps under ``name`` for tasks of the same ``key``: ``make()`` on first
    use, and again (the old value dropped first, to free its memory) when ``key`` changes.

    One value per name and per thread (a Dask worker may run several tasks at once, each in a
    thread of its own): a solver and its table, a tournament's players.
    """
    kept: dict[str, tuple[object, Any]] = _local.__dict__.setdefault("kept", {})
    found = kept.get(name)
    if found is not None and found[0] == key:
        return cast(T, found[1])
    kept.pop(name, None)
    value = make()
    kept[name] = (key, value)
    return value


def forget_worker_state() -> None:
    """Drop what this thread keeps (the in-process executor, when it closes)."""
    _local.__dict__.pop("kept", None)
