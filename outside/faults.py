"""What an outside agent did wrong: a typed kind and the words that say why.

An outside player (``outside.connectx``, ``outside.program``) raises ``AgentFault`` from its
``choose``; the arena records it as a loss of that player with the kind as the game's reason
and the words as its detail (``arena.match``), so a tournament, a rating or a server game goes
on and every table can count faults by kind.  ``AgentStopped`` is no fault: the agent's
process was ended from outside its sandbox, and the game has no result.
"""

from __future__ import annotations

from enum import StrEnum


class FaultKind(StrEnum):
    """Why an outside agent lost a game without the board deciding it."""

    LATE = "late"
    """No answer within the move's time: the budget and its grace (``program:``), or
    ``actTimeout`` and the overage left (``connectx:``, Kaggle's TIMEOUT)."""
    ILLEGAL = "illegal"
    """A column that cannot be played: out of range or full (Kaggle's INVALID)."""
    NOT_A_COLUMN = "not_a_column"
    """An answer that is not a column at all: a line that is no number, a ``numpy.int64``,
    a string, ``3.0`` (Kaggle's INVALID, or what crashes its ``env.run``)."""
    ERROR = "error"
    """The agent's function raised, or its file could not be loaded (Kaggle's ERROR)."""
    CRASHED = "crashed"
    """The process died: killed by a signal (a limit of processor time or memory
    included) or ended with a non-zero status, or could not be started."""
    EXITED = "exited"
    """The process ended with status 0 in the middle of a game."""
    FLOODED = "flooded"
    """More output than a move may write (``outside.process``'s caps)."""
    PROTOCOL = "protocol"
    """A line the protocol does not allow there (a wrong handshake)."""
    SANDBOX = "sandbox"
    """The sandbox stopped it: it passed a limit of its whole sandbox (the memory of all its
    processes, the size of its folder), or it failed to move after the sandbox denied it
    something (a file, the network, a signal, another process); the detail says what."""


class AgentFault(Exception):
    """An outside agent's fault in a move: ``kind`` and ``detail`` (the words that say why, for
    a person: ``returned numpy.int64: Kaggle rejects it as an invalid action``).

    ``seconds``: how long the move had taken when the fault was found (None: not timed).
    """

    def __init__(self, kind: FaultKind, detail: str, *, seconds: float | None = None) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail
        self.seconds = seconds


STOPPED = "stopped"  # the reason of a game stopped from outside an agent's sandbox: no result


class AgentStopped(Exception):
    """An outside agent's process was ended from outside its sandbox (by a person, the system,
    another program): no fault of its own, nor of its opponent's.  The game has no result
    (``arena.match`` records it as stopped); ``detail`` says what happened."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


FAULT_KINDS = tuple(kind.value for kind in FaultKind)

__all__ = ["FAULT_KINDS", "STOPPED", "AgentFault", "AgentStopped", "FaultKind"]
