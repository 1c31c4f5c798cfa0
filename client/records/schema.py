"""The record file's layout: its tables, the values its columns take, its version, and how a
file written by an earlier version of this program is brought up to it.

A game's end is kept in the course's terms (``result``: the server's number for us, the truth of
an online game) and as its ``Ending`` (``ending``, since version 3: how it ended, which the
number alone does not say of a game won by an opponent's fault)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from course.database import connect, connect_read_only, transaction
from course.grid import Grid, as_grid
from settings import UsageError

ONLINE, LOCAL = "online", "local"
# A game's status in the record (``games.status``).
STATUS_STARTING, STATUS_RUNNING, STATUS_FINISHED, STATUS_STOPPED, STATUS_ABANDONED = (
    "starting", "running", "finished", "stopped", "abandoned",
)
US, THEM = "us", "them"

# The layout of the record file (PRAGMA user_version); ``open_record`` migrates older ones.
VERSION = 3
SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('online', 'local')),
    server TEXT NOT NULL,
    player TEXT NOT NULL,          -- a hash of the group's ids: see player_hash
    player_masked TEXT NOT NULL,   -- the ids as they may be shown
    opponent TEXT NOT NULL,
    started_at TEXT NOT NULL,      -- ISO 8601, UTC
    finished_at TEXT,
    we_started INTEGER,            -- NULL until the server said who starts
    status TEXT NOT NULL
        CHECK (status IN ('starting', 'running', 'finished', 'stopped', 'abandoned')),
    result REAL,                   -- the server's result once finished: 1, 0.5, -1, -10
    last_state TEXT,               -- JSON: the latest board the server sent (row 0 at the top)
    note TEXT,
    ending TEXT                    -- how it ended (vocabulary.Ending; since version 3)
);
CREATE INDEX IF NOT EXISTS games_by_player ON games (kind, server, player, id);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply INTEGER NOT NULL,          -- 1 for the game's first disc
    side TEXT NOT NULL CHECK (side IN ('us', 'them')),
    col INTEGER NOT NULL CHECK (col BETWEEN 0 AND 6),
    confirmed INTEGER NOT NULL,    -- 0: our move was sent and its reply has not been recorded
    seconds REAL,                  -- ours: from the reply received to the move sent
    depth INTEGER,
    score INTEGER,
    nodes INTEGER,
    source TEXT,                   -- book, solver or search
    mode TEXT,                     -- the engine's mode: course or strongest (since version 2)
    at TEXT NOT NULL,              -- when it was recorded: ours when sent, the bot's on the reply
    PRIMARY KEY (game_id, ply)
);
"""

# What a reader of the record needs (the columns of version 1, which later versions keep).
READ_COLUMNS = {
    "games": ("id", "kind", "server", "player_masked", "opponent", "started_at", "finished_at",
              "we_started", "status", "result", "last_state", "note"),
    "moves": ("game_id", "ply", "side", "col", "confirmed", "seconds", "depth", "score",
              "nodes", "source", "at"),
}


class RecordError(UsageError):
    """The record file cannot be opened or is not a record of this program."""


def open_record(path: Path, *, read_only: bool) -> sqlite3.Connection:
    """The record at ``path``, created if need be and brought up to ``VERSION``; with
    ``read_only``, an existing one opened without changing anything."""
    try:
        if read_only:
            conn = connect_read_only(path, READ_COLUMNS)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Each change is one transaction, committed before the caller goes on (and durable
            # across a crash: see course.database).
            conn = connect(path, SCHEMA)
    except (OSError, sqlite3.DatabaseError) as exc:
        raise RecordError(f"cannot use {path} as the game record: {exc}") from exc
    _migrate(conn, path, read_only)
    return conn


def _migrate(conn: sqlite3.Connection, path: Path, read_only: bool) -> None:
    """Bring a record written by an earlier version of this program up to ``VERSION``.

    Version 1 (no ``user_version``) had no ``moves.mode``: its moves keep a null mode (they
    were played before the modes existed).  Versions 1 and 2 had no ``games.ending``: their
    games keep a null one, read from their result and board (``reading``).  A record from a
    later version is refused.
    """
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > VERSION:
        conn.close()
        raise RecordError(f"{path} was written by a newer version of this program"
                          f" (record version {version}, this one reads up to {VERSION})")
    if version == VERSION or read_only:
        return  # an older record is read as it is (its moves have no mode)
    columns = {row[1] for row in conn.execute("PRAGMA table_info(moves)")}
    game_columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
    with transaction(conn):
        if "mode" not in columns:
            conn.execute("ALTER TABLE moves ADD COLUMN mode TEXT")
        if "ending" not in game_columns:
            conn.execute("ALTER TABLE games ADD COLUMN ending TEXT")
        conn.execute(f"PRAGMA user_version = {VERSION}")


def state_json(state: Grid) -> str:
    """A board as ``games.last_state`` keeps it."""
    return json.dumps([list(row) for row in state])


def state_from_json(text: str | None) -> Grid | None:
    return None if text is None else as_grid(json.loads(text))
