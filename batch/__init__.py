"""Where batch work runs: this process, a pool of local processes, or the workers of a Dask
cluster, all under the same rules.

Tournaments (``arena.tournament``, and through it the evaluation study
``bench/heuristic_study.py`` and the report), the labelling of positions (``training.label``)
and the opening book's generator (``solver.make_book``) send their work through one
``BatchExecutor``, opened by ``open_executor(workers, scheduler)``:

- ``scheduler`` ADDRESS (``tcp://10.0.0.5:8786``): the workers of a Dask cluster, through a
  ``distributed`` client.  It needs the optional ``cluster`` extra here (``pip install -e
  ".[cluster]"``; the command is named in a one-line error when it is missing) and this
  project installed on every worker and on the scheduler, which import the functions it
  runs.  An unreachable scheduler is one line too;
- else ``workers`` local processes (default: one per core), started with ``spawn``;
- one worker: this process, one task after another, no process to start.

Commands take ``--workers K`` or ``--scheduler ADDRESS`` (``commandline.ExecutorOptions``).

``BatchExecutor.run(function, items, on_result)`` runs ``function(*args)`` for the argument
tuples of ``items``, a few tasks ahead per worker, and hands each result to ``on_result`` in
this process as soon as it is back, in whatever order they finish: the caller records it (in
its work file) and shows progress, so that a stopped run resumes from what was recorded.

The rules:

- **Ctrl-C** sends nothing more; the tasks running finish and are handed over, then
  ``KeyboardInterrupt`` goes on up (a second Ctrl-C abandons them).  Pool workers ignore
  Ctrl-C, which reaches the whole process group: only this process decides.  In this process
  the task running is interrupted (the next run does it again).  A Ctrl-C whose
  ``KeyboardInterrupt`` Python dropped (raised inside a ``__del__``) is raised between tasks.
- **A worker that dies** (killed, out of memory) loses nothing handed over, and its tasks run
  again: on a cluster Dask sends them to other workers, and a broken process pool is started
  anew with every task that had not come back.  When that keeps happening the run stops with
  ``WorkerLost``, a one-line error.
- **What a worker keeps**: ``worker_state(name, key, make)`` builds something costly (a solver
  and its table, a tournament's players) once per worker and hands it to the later tasks with
  the same key.

The modules, one job each: ``executor`` (``BatchExecutor``: the run loop and its rules),
``serial``, ``pool`` and ``cluster`` (the three kinds), ``workers`` (how many, and what each
keeps), ``interrupts`` (Ctrl-C around work in flight), ``lines`` (work files).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from batch.cluster import DaskCluster
from batch.executor import BatchExecutor, WorkerLost
from batch.interrupts import announce_stopping
from batch.pool import MAX_RESTARTS, ProcessPool
from batch.serial import Serial
from batch.workers import default_workers, worker_state
from settings import UsageError


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
        executor = DaskCluster(scheduler)
    elif count == 1:
        executor = Serial()
    else:
        executor = ProcessPool(count)
    try:
        yield executor
    finally:
        executor.close()


__all__ = [
    "MAX_RESTARTS",
    "BatchExecutor",
    "WorkerLost",
    "announce_stopping",
    "default_workers",
    "open_executor",
    "worker_state",
]
