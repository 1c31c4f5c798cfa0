"""What every outside player does the same way: one confined process a game, a fault that is
the next move's, the fault blamed where it belongs (``Child.blame``), and the process ended
(politely at a game's end, at once after a fault)."""

from __future__ import annotations

from board import Board
from outside.faults import AgentFault, AgentStopped
from outside.process import Child


class ProcessPlayer:
    """A player whose moves come from a child process (``_child``, started by the subclass's
    ``new_game``).  A fault found while starting (or the news that it was stopped from
    outside) is kept in ``_pending`` and raised by the first ``choose``; a fault while moving
    kills the process and is raised.  ``QUIT`` is the line sent at a game's end (None:
    none)."""

    QUIT: str | None = None

    def __init__(self) -> None:
        self._child: Child | None = None
        self._pending: AgentFault | AgentStopped | None = None

    def new_game(self) -> None:
        raise NotImplementedError

    def _move(self, child: Child, board: Board) -> int:
        raise NotImplementedError

    def end_game(self) -> None:
        """End the game's process (and anything it started)."""
        if self._child is not None:
            self._child.finish(self.QUIT)
            self._child = None

    def close(self) -> None:
        self.end_game()

    def _kill(self) -> None:
        """End the process at once (after a fault: it is not asked to quit)."""
        if self._child is not None:
            self._child.kill()
            self._child = None

    def choose(self, board: Board) -> int:
        if self._pending is not None:
            fault, self._pending = self._pending, None
            raise fault
        if self._child is None:
            self.new_game()
            return self.choose(board)
        child = self._child
        try:
            return self._move(child, board)
        except AgentFault as fault:
            blamed = child.blame(fault)
            self._kill()
            raise blamed from None
        except AgentStopped:
            self._kill()
            raise
