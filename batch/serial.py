"""One worker: this process, one task after the other, no process to start."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from batch.executor import Args, BatchExecutor, OnResult, hand_over
from batch.interrupts import NotedCtrlC
from batch.workers import forget_worker_state


class Serial(BatchExecutor):
    """Each task in this process, in order.  A Ctrl-C interrupts the task running (the next
    run does it again) and hands over the ones before it."""

    def run(self, function: Callable[..., Any], items: Iterable[Args], on_result: OnResult, *,
            in_flight: int | None = None, stop_at: float = float("inf"),
            on_stopping: Callable[[int], None] | None = None) -> bool:
        with NotedCtrlC().installed() as ctrl_c:
            for args in items:
                if time.monotonic() >= stop_at:
                    return False
                hand_over(on_result, args, function(*args))
                ctrl_c.checkpoint()
        return True

    def close(self) -> None:
        forget_worker_state()
