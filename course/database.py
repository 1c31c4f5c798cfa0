"""SQLite the way both stores use it: the client's game record and the local server's database.

Autocommit connections with explicit ``BEGIN IMMEDIATE`` transactions, each committed before
the caller goes on.  A file database runs in WAL mode with ``synchronous=NORMAL``: a commit is
in the file as soon as it returns, so it survives the process crashing or being killed; only a
power cut may lose the last commits (never corrupt the file), and a commit skips the two
fsyncs of SQLite's default journal, which cost tens of ms per move on a slow disk.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

MEMORY = ":memory:"


def connect(path: str | Path, schema: str, *, shared: bool = False) -> sqlite3.Connection:
    """Open (or create) the database at ``path`` and make sure ``schema`` exists.

    ``shared``: the connection may be used from several threads (the caller serialises).
    Raises ``sqlite3.DatabaseError`` (not a database, locked, ...) or ``OSError``.
    """
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=not shared)
    try:
        if str(path) != MEMORY:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.executescript(schema)
    except BaseException:
        conn.close()
        raise
    conn.row_factory = sqlite3.Row
    return conn


def connect_read_only(path: str | Path, tables: Mapping[str, Iterable[str]], *,
                      shared: bool = False) -> sqlite3.Connection:
    """Open the existing database at ``path`` for reading only: nothing is created or changed
    (no folder, no file, no schema), so a reader cannot damage a record another program writes.

    ``tables`` names the tables the reader needs, each with the columns it reads: a database
    without them (another program's, or the other store of this one) is refused now, not in
    the middle of a read.  ``shared`` as for ``connect``.  Raises ``sqlite3.DatabaseError``
    (not a database, missing, not the expected tables, ...).
    """
    uri = f"file:{quote(str(Path(path).resolve()))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=not shared)
    conn.row_factory = sqlite3.Row
    try:
        for table, columns in tables.items():
            found = {row["name"] for row in
                     conn.execute("SELECT name FROM pragma_table_info(?)", (table,)).fetchall()}
            missing = sorted(set(columns) - found)
            if missing:
                raise sqlite3.DatabaseError(
                    f"it has no table {table!r} with {', '.join(missing)}: not the expected file")
    except BaseException:
        conn.close()
        raise
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One transaction: committed when the block ends, rolled back if it raises."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
