"""Local worker processes: a process pool that starts again when one of its workers dies."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from batch.executor import Args, BatchExecutor, Pending, WorkerLost
from batch.interrupts import ignore_ctrl_c

# How often a process pool may lose a worker in one run before the run stops: as many times as
# Dask lets the workers running one task die (its ``distributed.scheduler.allowed-failures``).
MAX_RESTARTS = 3


class ProcessPool(BatchExecutor):
    """Local worker processes, started with ``spawn`` on every platform (so Linux behaves as
    macOS and Windows do), each ignoring Ctrl-C.  A worker that dies breaks the whole pool:
    a new one is started and the tasks that had not come back are sent again."""

    def __init__(self, workers: int) -> None:
        self.slots = workers
        self.where = f"{workers} local worker processes"
        # Made here, not under ctrl_c_deferred: the first pool starts multiprocessing's
        # resource tracker, which unblocks SIGINT once it has started it.
        self._pool: ProcessPoolExecutor | None = self._new_pool()
        self._restarts = 0

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.slots,
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=ignore_ctrl_c)

    def _submit(self, function: Callable[..., Any], args: Args) -> Future[Any]:
        # The pool starts its processes from submit(), which runs under ctrl_c_deferred.
        if self._pool is None:  # stopped after a worker died, or abandoned
            self._pool = self._new_pool()
        try:
            return self._pool.submit(function, *args)
        except BrokenProcessPool:  # a worker died since the last task came back
            self._restart()
            return self._submit(function, args)

    def _lost(self, future: Future[Any], generation: int) -> bool:
        if future.cancelled() or not isinstance(future.exception(), BrokenProcessPool):
            return False
        if generation == self._generation:  # the first of the broken pool's tasks seen
            self._restart()
        return True

    def _restart(self) -> None:
        self._restarts += 1
        if self._restarts > MAX_RESTARTS:
            raise WorkerLost(f"a worker process died (killed, or out of memory?) {self._restarts}"
                             " times in this run: stopping")
        self._stop_processes()
        self._generation += 1

    def _abandon(self, pending: Pending) -> None:
        self._stop_processes()

    def _stop_processes(self) -> None:
        """End the workers now, in the middle of their tasks; the next task starts a new pool."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
        if terminate is not None:
            terminate()
            return
        # Before 3.14 the executor has no public way to stop a running task.  Its processes are
        # taken from the pool itself, not from multiprocessing.active_children(), which would
        # take every child of this process (a Dask LocalCluster's too).
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=10)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
