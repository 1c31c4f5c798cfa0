"""How a game ended: one value for each way (python-chess's ``Termination``), with its words.

Every game of the program ends with one of these: a tournament's, a rate run's, a game of the
client's record, a local server's.  Beside the two endings the board decides (``FOUR``,
``FULL``) are the forfeits, a game lost by what its loser did (an illegal move, a late one,
a player whose code raised, an outside agent's process that crashed...: ``forfeit``), a game
``ABANDONED`` (a new game started over it, a person who quit), one ``STOPPED`` from outside an
outside agent's sandbox, which has no result, and one ``RULED`` for a reason the board does
not show (by a server).  The value is what files keep (``"late"``); ``words`` what people
read.
"""

from __future__ import annotations

from enum import StrEnum


class Ending(StrEnum):
    """How a game ended."""

    FOUR = "four"
    """The winner connected four."""
    FULL = "full"
    """The board filled up: a draw (the course's environment scores a last disc that fills the
    board and connects four as a draw too)."""
    ILLEGAL = "illegal"
    """A column that cannot be played: out of range or full (the course's -10, Kaggle's
    INVALID)."""
    NOT_A_COLUMN = "not_a_column"
    """An answer that is not a column at all: a line that is no number, a ``numpy.int64``,
    a string, ``3.0`` (Kaggle's INVALID, or what crashes its ``env.run``)."""
    LATE = "late"
    """No move in time: after the course server's 5 s, or past an outside agent's budget and
    its grace (``program:``), or its ``actTimeout`` and the overage left (``connectx:``,
    Kaggle's TIMEOUT)."""
    ERROR = "error"
    """The player's code raised, or an outside agent's file could not be loaded (Kaggle's
    ERROR)."""
    CRASHED = "crashed"
    """An outside agent's process died: killed by a signal (a limit of processor time or memory
    included) or ended with a non-zero status, or could not be started."""
    EXITED = "exited"
    """An outside agent's process ended with status 0 in the middle of a game."""
    FLOODED = "flooded"
    """An outside agent wrote more output than a move may (``outside.process``'s caps)."""
    PROTOCOL = "protocol"
    """An outside agent wrote a line the protocol does not allow there (a wrong handshake)."""
    SANDBOX = "sandbox"
    """An outside agent's sandbox stopped it: it passed a limit of its whole sandbox (the memory
    of all its processes, the size of its folder), or it failed to move after the sandbox
    denied it something (a file, the network, a signal, another process)."""
    ABANDONED = "abandoned"
    """Given up: a new game was started over it (the course server counts it lost), or the
    game was left (Ctrl-C in a local game)."""
    STOPPED = "stopped"
    """An outside agent's process was ended from outside its sandbox (by a person, the system,
    another program): no one's fault, and no result."""
    RULED = "ruled"
    """Decided for a reason the board does not show: the server ruled it so (its message says
    why), or a record of an earlier version kept only the result."""

    @property
    def words(self) -> str:
        """The ending as people read it: ``"four in a row"``, ``"late"``..."""
        return _WORDS[self]

    @property
    def on_board(self) -> bool:
        """Whether the board decided the game (four in a row, a full board)."""
        return self in (Ending.FOUR, Ending.FULL)

    @property
    def has_result(self) -> bool:
        """Whether the game counts: every ending but ``STOPPED``."""
        return self is not Ending.STOPPED

    @property
    def forfeit(self) -> bool:
        """Whether the loser lost it by what it did rather than on the board (an illegal or a
        late move, a crash, a new game over it...): every ending but the board's, ``STOPPED``
        and ``RULED``."""
        return not self.on_board and self not in (Ending.STOPPED, Ending.RULED)

    @property
    def fault(self) -> bool:
        """Whether a player's fault in a move ends the game this way: what an outside agent's
        ``AgentFault`` (``outside.faults``) may be, and a player of ours whose code raised."""
        return self.forfeit and self is not Ending.ABANDONED


_WORDS = {
    Ending.FOUR: "four in a row",
    Ending.FULL: "board full",
    Ending.ILLEGAL: "illegal move",
    Ending.NOT_A_COLUMN: "not a column",
    Ending.LATE: "late",
    Ending.ERROR: "error",
    Ending.CRASHED: "crashed",
    Ending.EXITED: "exited",
    Ending.FLOODED: "flooded its output",
    Ending.PROTOCOL: "broke the protocol",
    Ending.SANDBOX: "stopped by its sandbox",
    Ending.ABANDONED: "abandoned",
    Ending.STOPPED: "stopped from outside",
    Ending.RULED: "decided off the board",
}
