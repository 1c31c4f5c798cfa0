"""The workers of a Dask cluster, through a ``distributed`` client (the ``cluster`` extra)."""

from __future__ import annotations

import gc
from collections.abc import Callable
from concurrent.futures import CancelledError, Executor, Future
from typing import Any, cast

from batch.executor import Args, BatchExecutor, WorkerLost
from settings import UsageError


class DaskCluster(BatchExecutor):
    """The workers of the Dask cluster whose scheduler is at ``scheduler``.  Dask runs the tasks
    of a worker that dies again elsewhere; it gives up on a task whose workers died several
    times (``KilledWorker``)."""

    def __init__(self, scheduler: str) -> None:
        try:
            from distributed import Client, KilledWorker
        except ImportError:
            raise UsageError("--scheduler needs Dask's distributed package:"
                             " pip install -e \".[cluster]\"") from None
        # distributed has no type annotations: its client is used through Any, here only.
        connect = cast(Callable[..., Any], Client)
        problem = None
        try:
            self._client = connect(scheduler, timeout="5s")
        except (OSError, TimeoutError, ValueError) as exc:  # ValueError: not an address
            problem = f"cannot reach the Dask scheduler at {scheduler}: {exc}"
        if problem is not None:
            # The client that could not connect is garbage in a reference cycle.  Collected
            # later, it would close the event-loop runner under a lock all clients share: if
            # that happened while another client starts (which holds the lock), both would
            # wait for ever.  So it goes now, before anything else can start a client.
            gc.collect()
            raise UsageError(problem)
        self._killed: type[BaseException] = KilledWorker
        self._scheduler = scheduler
        # pure=False: every task runs, even one equal to an earlier one (a game replayed).
        self._executor = cast(Executor, self._client.get_executor(pure=False))
        threads = sum(self._client.nthreads().values())
        self.slots = max(1, threads)
        self.where = f"the Dask cluster at {scheduler} ({threads} worker threads)"

    def _submit(self, function: Callable[..., Any], args: Args) -> Future[Any]:
        return self._executor.submit(function, *args)

    def _result(self, future: Future[Any]) -> Any:
        try:
            return future.result()
        except CancelledError:  # only the client cancels, when it loses the scheduler
            raise UsageError(f"lost the Dask scheduler at {self._scheduler}") from None
        except self._killed as exc:
            raise WorkerLost(f"the Dask cluster gave up on a task: {exc}") from None

    def _keeps(self, future: Future[Any]) -> bool:
        # A Dask future never says whether it has started: wait for every task sent (at most
        # ``in_flight``) rather than cancel one that is running.
        return True

    def close(self) -> None:
        self._client.close()
