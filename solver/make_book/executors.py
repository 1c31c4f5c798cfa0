"""Where the book's solves run: a local process pool, or the workers of a Dask cluster.

Both are ``concurrent.futures.Executor``\\ s: the generator submits chunks of positions and
collects their results as they complete, whatever runs them.  A Dask cluster needs the optional
``cluster`` extra (``pip install -e ".[cluster]"``) here and this project installed on every
worker, since the workers import ``solver.make_book.layers`` to run a chunk.

Each worker process keeps one solver, with its transposition table, for all the chunks it runs
(``worker_solver``): positions next to each other in the book's key order share most of their
discs, so a chunk of neighbours, and the next chunk, find much of their work in the table.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, cast

from settings import UsageError
from solver.solver import Solver

_local = threading.local()


def worker_solver(table_bits: int) -> Solver:
    """This worker's solver (one per thread), made on first use and kept for later chunks."""
    solver: Solver | None = getattr(_local, "solver", None)
    if solver is None or solver.table.bits != table_bits:
        solver = Solver(table_bits)
        solver.warm_up()  # load the compiled code
        _local.solver = solver
    return solver


def _ignore_interrupt() -> None:
    # Ctrl-C reaches every process of the terminal's group: the parent alone handles it, and
    # lets the workers finish their chunks so that nothing solved is lost.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


@contextlib.contextmanager
def open_executor(workers: int | None = None, scheduler: str | None = None) -> Iterator[Executor]:
    """A process pool of ``workers`` (default: one per core), or, given ``scheduler`` (an address
    such as ``tcp://10.0.0.5:8786``), the executor of a Dask client connected to it.

    Raises ``UsageError`` with the reason when the cluster cannot be used.
    """
    if scheduler is None:
        pool = ProcessPoolExecutor(max_workers=workers or default_workers(),
                                   initializer=_ignore_interrupt)
        try:
            yield pool
        except BaseException:
            # A second Ctrl-C, or an error: the chunks still running are abandoned.
            pool.shutdown(wait=False, cancel_futures=True)
            for child in multiprocessing.active_children():
                child.terminate()
            raise
        pool.shutdown(wait=True)
        return
    try:
        from distributed import Client
    except ImportError:
        raise UsageError(
            "--scheduler needs Dask's distributed package: pip install -e \".[cluster]\"") from None
    # distributed has no type annotations: its client is used through Any, at this one place.
    connect = cast(Callable[..., Any], Client)
    try:
        client = connect(scheduler, timeout="5s")
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    try:
        yield cast(Executor, client.get_executor())
    finally:
        client.close()
