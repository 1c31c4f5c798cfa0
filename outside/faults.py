"""What an outside agent did wrong: how its game ends (an ``Ending``) and the words that say why.

An outside player (``outside.connectx``, ``outside.program``) raises ``AgentFault`` from its
``choose``; the arena records it as a loss of that player with the fault's ending and its words
as the game's detail (``arena.match``), so a tournament, a rating or a server game goes on and
every table can count faults by kind.  The kinds are the endings a fault may have
(``vocabulary.Ending.fault``: late, illegal, not a column, crashed, exited, flooded, protocol,
sandbox, error).  ``AgentStopped`` is no fault: the agent's process was ended from outside its
sandbox, and the game has no result (``Ending.STOPPED``).
"""

from __future__ import annotations

from vocabulary import Ending


class AgentFault(Exception):
    """An outside agent's fault in a move: ``kind`` (the game's ending) and ``detail`` (the
    words that say why, for a person: ``returned numpy.int64: Kaggle rejects it as an invalid
    action``).

    ``seconds``: how long the move had taken when the fault was found (None: not timed).
    """

    def __init__(self, kind: Ending, detail: str, *, seconds: float | None = None) -> None:
        if not kind.fault:
            raise ValueError(f"{kind.value} is not how a fault ends a game")
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail
        self.seconds = seconds


class AgentStopped(Exception):
    """An outside agent's process was ended from outside its sandbox (by a person, the system,
    another program): no fault of its own, nor of its opponent's.  The game has no result
    (``arena.match`` records it as ``Ending.STOPPED``); ``detail`` says what happened."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


__all__ = ["AgentFault", "AgentStopped"]
