"""``BatchExecutor``: the run loop every kind of executor shares, and the rules it keeps.

``run`` sends the tasks a few ahead per slot and hands their results back as they come; a
Ctrl-C sends nothing more and hands over what was running (``batch.interrupts``), and a task
whose worker died is sent again.  Each kind (``serial``, ``pool``, ``cluster``) says how it
submits a task, whether a failed one was lost with its worker, and how it stops.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any

from batch.interrupts import NotedCtrlC, ctrl_c_deferred
from settings import UsageError

Args = tuple[Any, ...]
OnResult = Callable[[Args, Any], None]
"""Called in this process with a task's arguments and its result, as soon as it is back."""
Pending = dict[Future[Any], tuple[Args, int]]
"""The tasks sent and not handed over yet: each future's arguments and the generation
(``BatchExecutor._generation``) it was sent in."""


class WorkerLost(UsageError):
    """Workers died (killed, out of memory) more often than a run tries again: what was handed
    over is kept by the caller, and a rerun resumes from it."""


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
        pending: Pending = {}
        exhausted = False
        with NotedCtrlC().installed() as ctrl_c:
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
                            hand_over(on_result, args, self._result(future))
                    ctrl_c.checkpoint()
            except KeyboardInterrupt:
                self._finish(pending, on_result, on_stopping)
                raise
            except BaseException:
                self._abandon(pending)
                raise

    def _finish(self, pending: Pending, on_result: OnResult,
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
                        hand_over(on_result, running[future][0], future.result())
        except BaseException:  # a second Ctrl-C
            self._abandon(running)
            raise

    def _send(self, pending: Pending, function: Callable[..., Any], args: Args) -> None:
        """Submit a task and note it in ``pending``, a Ctrl-C held back until both are done (or
        a task would run whose result nobody waits for, and a pool could be left starting a
        worker it does not know of)."""
        with ctrl_c_deferred():
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

    def _abandon(self, pending: Pending) -> None:
        for future in pending:
            future.cancel()

    def close(self) -> None:
        """Release the workers (the end of ``open_executor``)."""


def hand_over(on_result: OnResult, args: Args, result: Any) -> None:
    """``on_result(args, result)`` whole: a Ctrl-C during it is raised once it is done, so a
    result is never half kept (counted but not written, or written but not counted)."""
    with ctrl_c_deferred():
        on_result(args, result)
