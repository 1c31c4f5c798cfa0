"""The game record: every game we play, move by move, in SQLite, so that it survives a crash.

Each change is one committed transaction, written *before* the action it describes can be
lost: our move is stored (unconfirmed) before it is sent, and confirmed together with the
server's answer (the bot's move and the new state) when the reply has been checked.  So after
a crash or a Ctrl-C the record tells exactly what is known (``writing`` has the states a game
goes through, and what each means for resuming it).

Games are stored under a hash of the group's name on the server, never the ids themselves
(``masking``), and under the server's address: a resume only picks up a game of the same ids
on the same server.  Two ``online`` runs on one record would both resume the same running
game; ``Records.exclusive`` is the lock (``lock``) an online run holds from start to end.

The modules, one job each: ``schema`` (the tables, their values, the migration of an older
file), ``lock``, ``masking``, ``writing`` (a game's states, each change one transaction),
``reading`` (the games as values: ``RecordedGame``, a row around an
``engine.games.PlayedGame``), ``record`` (``Records``, the file opened).
"""

from client.records.lock import RecordBusy
from client.records.masking import masked_ids, player_hash
from client.records.reading import RecordedGame
from client.records.record import Records
from client.records.schema import (
    LOCAL,
    ONLINE,
    STATUS_ABANDONED,
    STATUS_FINISHED,
    STATUS_RUNNING,
    STATUS_STARTING,
    STATUS_STOPPED,
    THEM,
    US,
    RecordError,
)

__all__ = [
    "LOCAL",
    "ONLINE",
    "STATUS_ABANDONED",
    "STATUS_FINISHED",
    "STATUS_RUNNING",
    "STATUS_STARTING",
    "STATUS_STOPPED",
    "THEM",
    "US",
    "RecordBusy",
    "RecordError",
    "RecordedGame",
    "Records",
    "masked_ids",
    "player_hash",
]
