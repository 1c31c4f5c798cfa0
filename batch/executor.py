"""The batch executor: this process, a local process pool, or a Dask cluster, one set of rules.

``open_executor(workers, scheduler)`` opens one of three kinds (the package's docstring says
when each is chosen); ``BatchExecutor.run`` sends the tasks and hands their results back as
they come, and holds the rules every kind keeps: Ctrl-C, workers that die, what a worker keeps.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    CancelledError,
    Executor,
    Future,
    ProcessPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar, cast

from settings import UsageError

T = TypeVar("T")
Args = tuple[Any, ...]
OnResult = Callable[[Args, Any], None]
"""Called in this process with a task's arguments and its result, as soon as it is back."""

# How often a process pool may lose a worker in one run before the run stops: as many times as
# Dask lets the workers running one task die (its ``distributed.scheduler.allowed-failures``).
MAX_RESTARTS = 3


class WorkerLost(UsageError):
    """Workers died (killed, out of memory) more often than a run tries again: what was handed
    over is kept by the caller, and a rerun resumes from it."""


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)


# --- what a worker keeps between tasks --------------------------------------------------------

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


# --- the executors ----------------------------------------------------------------------------

class BatchExecutor:
    """Runs ``function(*args)`` for each task in its workers (``run``).

    ``slots`` is how many tasks it runs at once (a pool's processes, a cluster's worker
    threads); ``where`` says where, for messages.
    """

    slots: int = 1
    where: str = "this process"
    _generation = 0  # a process pool's number of restarts: which pool a future belongs to

    def run(
        self,
        function: Callable[..., Any],
        items: Iterable[Args],
        on_result: OnResult,
        *,
        in_flight: int | None = None,
        stop_at: float = float("inf"),
        on_stopping: Callable[[int], None] | None = None,
    ) -> bool:
        """Call ``function(*args)`` for every ``args`` of ``items`` in the workers and
        ``on_result(args, result)`` here as each result comes back (in any order).

        At most ``in_flight`` tasks (default: two per slot) are sent ahead, so a stop takes
        effect soon and the queue stays small; none is sent after ``stop_at`` (a
        ``time.monotonic()`` value).  Returns True when every task ran, False when
        ``stop_at`` cut the run short.

        Ctrl-C: nothing more is sent, ``on_stopping(n)`` is told how many tasks already running
        it waits for, their results are handed over, and ``KeyboardInterrupt`` is raised again;
        a second Ctrl-C abandons them.  A Ctrl-C that comes while ``on_result`` runs waits until
        it returns: a result is kept whole or not at all.  A task's own error abandons the
        others and is raised.
        """
        sending = iter(items)
        limit = max(1, in_flight or 2 * self.slots)
        pending: dict[Future[Any], tuple[Args, int]] = {}
        exhausted = False
        with _ctrl_c_noted() as caught:
            try:
                while True:
                    while not exhausted and len(pending) < limit and time.monotonic() < stop_at:
                        args = next(sending, None)
                        if args is None:
                            exhausted = True
                        else:
                            self._send(pending, function, args)
                    if not pending:
                        return exhausted
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for future in done:
                        args, generation = pending.pop(future)
                        if self._lost(future, generation):  # its worker died: send it again
                            self._send(pending, function, args)
                        else:
                            _hand_over(on_result, args, self._result(future))
                    if caught:
                        raise KeyboardInterrupt  # a Ctrl-C whose own was lost (_ctrl_c_noted)
            except KeyboardInterrupt:
                self._finish(pending, on_result, on_stopping)
                raise
            except BaseException:
                self._abandon(pending)
                raise

    def _finish(self, pending: dict[Future[Any], tuple[Args, int]], on_result: OnResult,
                on_stopping: Callable[[int], None] | None) -> None:
        """After Ctrl-C: cancel what has not started, hand over what was running."""
        running = {future: item for future, item in pending.items() if self._keeps(future)}
        if running and on_stopping is not None:
            on_stopping(len(running))
        try:
            waiting = set(running)
            while waiting:
                done, waiting = wait(waiting, return_when=FIRST_COMPLETED)
                for future in done:
                    if not future.cancelled() and future.exception() is None:
                        _hand_over(on_result, running[future][0], future.result())
        except BaseException:  # a second Ctrl-C
            self._abandon(running)
            raise

    def _send(self, pending: dict[Future[Any], tuple[Args, int]], function: Callable[..., Any],
              args: Args) -> None:
        """Submit a task and note it in ``pending``, a Ctrl-C held back until both are done (or
        a task would run whose result nobody waits for, and a pool could be left starting a
        worker it does not know of)."""
        with _ctrl_c_deferred():
            pending[self._submit(function, args)] = (args, self._generation)

    # What each kind does differently.

    def _submit(self, function: Callable[..., Any], args: Args) -> Future[Any]:
        raise NotImplementedError

    def _lost(self, future: Future[Any], generation: int) -> bool:
        """True when ``future`` failed only because its worker died and must be sent again."""
        return False

    def _result(self, future: Future[Any]) -> Any:
        return future.result()

    def _keeps(self, future: Future[Any]) -> bool:
        """After Ctrl-C: cancel ``future`` if it has not started; True if it goes on."""
        return not future.cancel()

    def _abandon(self, pending: dict[Future[Any], tuple[Args, int]]) -> None:
        for future in pending:
            future.cancel()

    def close(self) -> None:
        """Release the workers (the end of ``open_executor``)."""


class _InProcess(BatchExecutor):
    """One worker: this process, one task after the other, no process to start."""

    def run(self, function: Callable[..., Any], items: Iterable[Args], on_result: OnResult, *,
            in_flight: int | None = None, stop_at: float = float("inf"),
            on_stopping: Callable[[int], None] | None = None) -> bool:
        with _ctrl_c_noted() as caught:
            for args in items:
                if time.monotonic() >= stop_at:
                    return False
                _hand_over(on_result, args, function(*args))
                if caught:
                    raise KeyboardInterrupt  # a Ctrl-C whose own was lost (_ctrl_c_noted)
        return True

    def close(self) -> None:
        forget_worker_state()


def _hand_over(on_result: OnResult, args: Args, result: Any) -> None:
    """``on_result(args, result)`` whole: a Ctrl-C during it is raised once it is done, so a
    result is never half kept (counted but not written, or written but not counted)."""
    with _ctrl_c_deferred():
        on_result(args, result)


def _ignore_ctrl_c() -> None:
    """A pool worker's start: Ctrl-C reaches every process of the terminal's process group, and
    only the parent decides what it means.  The parent held SIGINT blocked while starting us
    (the mask is inherited): ignore it, then unblock it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextlib.contextmanager
def _ctrl_c_noted() -> Iterator[list[int]]:
    """Ctrl-C raises ``KeyboardInterrupt`` as usual, and is also noted in the list yielded.

    Python drops an exception raised while a ``__del__`` runs (printing "Exception ignored"),
    and numba's compiler frees its LLVM objects in ``__del__`` at any time: a Ctrl-C landing
    there would be lost, and the run would go on to its end.  A noted Ctrl-C is raised again
    between tasks.  Only in the main thread, and only over Python's own handler (a process that
    ignores Ctrl-C goes on ignoring it).
    """
    caught: list[int] = []
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield caught
        return

    def note(number: int, frame: object) -> None:
        caught.append(number)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, note)
    try:
        yield caught
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@contextlib.contextmanager
def _ctrl_c_deferred() -> Iterator[None]:
    """Hold a Ctrl-C back until the block is done, then raise it.

    Python raises ``KeyboardInterrupt`` in the main thread whichever thread the signal reaches,
    so the handler itself is swapped for one that notes the signal.  The signal is also
    blocked in this thread, so that a worker process started meanwhile inherits it blocked
    until its initializer ignores it (``_ignore_ctrl_c``; Windows has no signal masks).
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


class _Pool(BatchExecutor):
    """Local worker processes, started with ``spawn`` on every platform (so Linux behaves as
    macOS and Windows do), each ignoring Ctrl-C.  A worker that dies breaks the whole pool:
    a new one is started and the tasks that had not come back are sent again."""

    def __init__(self, workers: int) -> None:
        self.slots = workers
        self.where = f"{workers} local worker processes"
        # Made here, not under _ctrl_c_deferred: the first pool starts multiprocessing's
        # resource tracker, which unblocks SIGINT once it has started it.
        self._pool: ProcessPoolExecutor | None = self._new_pool()
        self._restarts = 0

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.slots,
                                   mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_ignore_ctrl_c)

    def _submit(self, function: Callable[..., Any], args: Args) -> Future[Any]:
        # The pool starts its processes from submit(), which runs under _ctrl_c_deferred.
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

    def _abandon(self, pending: dict[Future[Any], tuple[Args, int]]) -> None:
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


class _Cluster(BatchExecutor):
    """The workers of a Dask cluster, through a ``distributed`` client.  Dask runs the tasks of
    a worker that dies again elsewhere; it gives up on a task whose workers died several times
    (``KilledWorker``)."""

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


def announce_stopping(what: str) -> Callable[[int], None]:
    """An ``on_stopping`` for ``run`` that says on stderr what a Ctrl-C waits for (``what``:
    the tasks' name, "game", "chunk"...)."""

    def announce(running: int) -> None:
        print(f"stopping: waiting for the {running} {what}(s) running to finish and be"
              " recorded; Ctrl-C again to abandon them", file=sys.stderr, flush=True)

    return announce


@contextlib.contextmanager
def open_executor(workers: int | None = None, scheduler: str | None = None
                  ) -> Iterator[BatchExecutor]:
    """Given ``scheduler`` (an address such as ``tcp://10.0.0.5:8786``), the workers of that
    Dask cluster; else ``workers`` local processes (default: one per core), or this process
    when that is one.

    Raises ``UsageError`` with the reason when the cluster cannot be used.
    """
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, not {workers}")
    count = workers or default_workers()
    executor: BatchExecutor
    if scheduler is not None:
        executor = _Cluster(scheduler)
    elif count == 1:
        executor = _InProcess()
    else:
        executor = _Pool(count)
    try:
        yield executor
    finally:
        executor.close()
