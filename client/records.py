"""The game record: every game we play, move by move, in SQLite, so that it survives a crash.

Each change is one committed transaction, written *before* the action it describes can be
lost: our move is stored (unconfirmed) before it is sent, and confirmed together with the
server's answer (the bot's move and the new state) when the reply has been checked.  So after
a crash or a Ctrl-C the record tells exactly what is known:

- ``running`` with every move confirmed: the server's latest state is in ``last_state`` and it
  is our turn; the game can be resumed (see ``client.game.resume_problem``);
- ``running`` with an unconfirmed move, or ``starting``: a request was sent and its answer never
  arrived, so whether the server played it is unknown (*in doubt*);
- ``stopped``: the game was left in an unknown state (a desync, a refused move, an unreadable
  reply); ``note`` says why;
- ``finished`` (with ``result``) or ``abandoned`` (the user started a new game over it).

Games are stored under a hash of the group's name on the server (``course.ids.player_key``:
the ids sorted, each once; ``player``), never the ids themselves, and under the server's
address: a resume only picks up a game of the same ids on the same server.

Two ``online`` runs on one record would both resume the same running game; ``Records.exclusive``
is the lock (on ``<record>.lock``) an online run holds from start to end.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from filelock import FileLock, Timeout

from course.database import connect, connect_read_only, transaction
from course.grid import Grid, as_grid
from course.ids import player_key
from settings import UsageError, mask_secret

if TYPE_CHECKING:
    from engine import Decision

ONLINE, LOCAL = "online", "local"
# A game's status in the record (``games.status``).
STATUS_STARTING, STATUS_RUNNING, STATUS_FINISHED, STATUS_STOPPED, STATUS_ABANDONED = (
    "starting", "running", "finished", "stopped", "abandoned",
)
US, THEM = "us", "them"

# The layout of the record file (PRAGMA user_version); Records migrates older ones.
VERSION = 2
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
    note TEXT
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


class RecordBusy(RecordError):
    """Another online run holds the record's lock."""


def _hash(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:24]


def player_hash(stil_ids: Sequence[str]) -> str:
    """A stable, non-reversible name for a group: the hash of its name on the server
    (``player_key``: the ids sorted, each once)."""
    return _hash(player_key(stil_ids))


def _player_hashes(stil_ids: Sequence[str]) -> tuple[str, str]:
    """``player_hash`` and the hash that records written before it used: the sorted ids
    joined with every duplicate kept.  They differ only for a group giving an id twice, whose
    older games are still that group's (the server counts a repeated id once)."""
    return player_hash(stil_ids), _hash("+".join(sorted(stil_ids)))


def masked_ids(stil_ids: Sequence[str]) -> str:
    return "+".join(mask_secret(i) for i in sorted(stil_ids))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class RecordedMove:
    ply: int
    side: str
    column: int
    confirmed: bool
    seconds: float | None
    depth: int | None
    score: int | None
    nodes: int | None
    source: str | None
    at: str
    mode: str | None = None


@dataclass(frozen=True, slots=True)
class RecordedGame:
    id: int
    kind: str
    server: str
    player_masked: str
    opponent: str
    started_at: str
    finished_at: str | None
    we_started: bool | None
    status: str
    result: float | None
    last_state: Grid | None
    note: str | None
    moves: tuple[RecordedMove, ...]

    @property
    def columns(self) -> list[int]:
        """The confirmed moves' columns, in order (both sides)."""
        return [m.column for m in self.moves if m.confirmed]

    @property
    def pending(self) -> RecordedMove | None:
        """Our move that was sent and whose reply was never recorded, if any."""
        return next((m for m in self.moves if not m.confirmed), None)

    @property
    def last_reply_at(self) -> datetime:
        """About when the server's latest recorded reply came (UTC).

        The bot's moves are recorded as their replies arrive; before any, the game's start
        (a little before the server's reply to it: so the age is never underestimated).
        """
        times = [m.at for m in self.moves if m.confirmed]
        return datetime.fromisoformat(max(times) if times else self.started_at)


class Records:
    """The record file; one connection, used from one thread."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        """Open (or create) the record at ``path``; with ``read_only``, open an existing one
        without changing anything (the analysis board's review reads it that way)."""
        self.path = Path(path)
        try:
            if read_only:
                self.conn = connect_read_only(self.path, READ_COLUMNS)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # Each change below is one transaction, committed before the caller goes on
                # (and durable across a crash: see course.database).
                self.conn = connect(self.path, SCHEMA)
        except (OSError, sqlite3.DatabaseError) as exc:
            raise RecordError(f"cannot use {self.path} as the game record: {exc}") from exc
        self._migrate(read_only)

    def _migrate(self, read_only: bool) -> None:
        """Bring a record written by an earlier version of this program up to ``VERSION``.

        Version 1 (no ``user_version``) had no ``moves.mode``: its moves keep a null mode (they
        were played before the modes existed).  A record from a later version is refused.
        """
        version = int(self.conn.execute("PRAGMA user_version").fetchone()[0])
        if version > VERSION:
            self.conn.close()
            raise RecordError(f"{self.path} was written by a newer version of this program"
                              f" (record version {version}, this one reads up to {VERSION})")
        if version == VERSION or read_only:
            return  # an older record is read as it is (its moves have no mode)
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(moves)")}
        with self._transaction() as conn:
            if "mode" not in columns:
                conn.execute("ALTER TABLE moves ADD COLUMN mode TEXT")
            conn.execute(f"PRAGMA user_version = {VERSION}")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Records:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self.conn)

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the record's lock (``<record>.lock``, a ``filelock.FileLock``) for the block;
        ``RecordBusy`` if another process holds it.

        An online run holds it from start to end, so two runs on one record can never resume
        the same game.  The system releases the lock when the process ends, however it ends.
        """
        lock_path = self.path.with_name(self.path.name + ".lock")
        lock = FileLock(lock_path, timeout=0)
        try:
            lock.acquire()
        except Timeout:
            raise RecordBusy(
                f"another `agent.py online` is using the record {self.path} (it holds"
                f" {lock_path}): let it finish or stop it first"
            ) from None
        except OSError as exc:
            raise RecordError(f"cannot open the record's lock {lock_path}: {exc}") from exc
        try:
            yield
        finally:
            lock.release()

    # --- writing ------------------------------------------------------------------------------

    def begin(self, kind: str, server: str, stil_ids: Sequence[str], opponent: str) -> int:
        """A new game, ``starting``: written before the request that starts it is sent."""
        with self._transaction() as conn:
            cur = conn.execute(
                "INSERT INTO games (kind, server, player, player_masked, opponent, started_at,"
                " status) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (kind, server, player_hash(stil_ids), masked_ids(stil_ids), opponent, _now(),
                 STATUS_STARTING),
            )
            return int(cur.lastrowid or 0)

    def started(self, game_id: int, we_started: bool, state: Grid, first_bot_move: int | None) -> None:
        """The server answered the start: who starts, its first move if it started, the board."""
        with self._transaction() as conn:
            conn.execute(
                "UPDATE games SET status = ?, we_started = ?, last_state = ? WHERE id = ?",
                (STATUS_RUNNING, int(we_started), _state_json(state), game_id),
            )
            if first_bot_move is not None:
                conn.execute(
                    "INSERT INTO moves (game_id, ply, side, col, confirmed, at)"
                    " VALUES (?, 1, ?, ?, 1, ?)",
                    (game_id, THEM, first_bot_move, _now()),
                )

    def sent(self, game_id: int, ply: int, column: int, decision: Decision | None, seconds: float) -> None:
        """Our move, about to be sent: stored unconfirmed, so a crash leaves it marked in doubt."""
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO moves (game_id, ply, side, col, confirmed, seconds, depth, score,"
                " nodes, source, mode, at) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, ply, US, column, seconds, *_decision_fields(decision), _now()),
            )

    def unsent(self, game_id: int, ply: int) -> None:
        """Our move never reached the server (or it rejected the request): forget it."""
        with self._transaction() as conn:
            conn.execute(
                "DELETE FROM moves WHERE game_id = ? AND ply = ? AND confirmed = 0", (game_id, ply)
            )

    def replied(
        self,
        game_id: int,
        ply: int,
        seconds: float,
        bot_column: int | None,
        state: Grid,
        result: float,
        note: str | None = None,
    ) -> None:
        """The checked reply to our move ``ply``: confirm it, add the bot's move and the board;
        a reply that ends the game finishes it, with ``note`` (what the server said of its end,
        and where our rules score it otherwise)."""
        with self._transaction() as conn:
            conn.execute(
                "UPDATE moves SET confirmed = 1, seconds = ? WHERE game_id = ? AND ply = ?",
                (seconds, game_id, ply),
            )
            if bot_column is not None:
                conn.execute(
                    "INSERT INTO moves (game_id, ply, side, col, confirmed, at)"
                    " VALUES (?, ?, ?, ?, 1, ?)",
                    (game_id, ply + 1, THEM, bot_column, _now()),
                )
            if result:
                conn.execute(
                    "UPDATE games SET last_state = ?, status = ?, result = ?, finished_at = ?,"
                    " note = ? WHERE id = ?",
                    (_state_json(state), STATUS_FINISHED, result, _now(), note, game_id),
                )
            else:
                conn.execute(
                    "UPDATE games SET last_state = ? WHERE id = ?", (_state_json(state), game_id)
                )

    def played(
        self,
        game_id: int,
        ply: int,
        side: str,
        column: int,
        decision: Decision | None = None,
        seconds: float | None = None,
    ) -> None:
        """A move of a local game, where nothing can be in doubt."""
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO moves (game_id, ply, side, col, confirmed, seconds, depth, score,"
                " nodes, source, mode, at) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, ply, side, column, seconds, *_decision_fields(decision), _now()),
            )

    def finish(self, game_id: int, result: float, note: str | None = None, state: Grid | None = None) -> None:
        """The game is over with ``result`` (from our view); unconfirmed moves are dropped."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM moves WHERE game_id = ? AND confirmed = 0", (game_id,))
            conn.execute(
                "UPDATE games SET status = ?, result = ?, finished_at = ?, note = ?,"
                " last_state = COALESCE(?, last_state) WHERE id = ?",
                (STATUS_FINISHED, result, _now(), note, _state_json(state) if state else None,
                 game_id),
            )

    def stop(self, game_id: int, note: str) -> None:
        """The game's state on the server is unknown from now on; ``note`` says why."""
        self._set_status(game_id, STATUS_STOPPED, note)

    def abandon(self, game_id: int, note: str) -> None:
        """The user gave the game up (a new game was started over it)."""
        self._set_status(game_id, STATUS_ABANDONED, note, finished=True)

    def discard(self, game_id: int) -> None:
        """Delete a game whose start never reached the server."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM games WHERE id = ? AND status = ?", (game_id, STATUS_STARTING))

    def _set_status(self, game_id: int, status: str, note: str, *, finished: bool = False) -> None:
        with self._transaction() as conn:
            conn.execute(
                "UPDATE games SET status = ?, note = ?, finished_at = ? WHERE id = ?",
                (status, note, _now() if finished else None, game_id),
            )

    # --- reading ------------------------------------------------------------------------------

    def game(self, game_id: int) -> RecordedGame:
        row = self.conn.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in {self.path}")
        return self._record(row)

    def unfinished(self, kind: str, server: str, stil_ids: Sequence[str]) -> RecordedGame | None:
        """The latest game of these ids on this server whose end we do not know, if any."""
        row = self.conn.execute(
            "SELECT * FROM games WHERE kind = ? AND server = ? AND player IN (?, ?)"
            " AND status IN (?, ?, ?) ORDER BY id DESC LIMIT 1",
            (kind, server, *_player_hashes(stil_ids), STATUS_STARTING, STATUS_RUNNING,
             STATUS_STOPPED),
        ).fetchone()
        return self._record(row) if row is not None else None

    def streak(self, kind: str, server: str, stil_ids: Sequence[str]) -> int:
        """Games of these ids on this server not lost in a row, newest back (a draw counts,
        as on the course server); a game given up, stopped in doubt or lost ends the count.
        A game still running is not counted yet."""
        rows = self.conn.execute(
            "SELECT status, result FROM games WHERE kind = ? AND server = ? AND player IN (?, ?)"
            " AND status NOT IN (?, ?) ORDER BY id DESC",
            (kind, server, *_player_hashes(stil_ids), STATUS_STARTING, STATUS_RUNNING),
        ).fetchall()
        count = 0
        for row in rows:
            if row["status"] != STATUS_FINISHED or row["result"] is None or row["result"] < 0:
                break
            count += 1
        return count

    def games(self, kind: str | None = None, limit: int | None = None) -> list[RecordedGame]:
        """Games, newest first (their moves read in one query, not one per game)."""
        params: list[Any] = [] if kind is None else [kind]
        where = "" if kind is None else "WHERE kind = ?"
        chosen = f"SELECT id FROM games {where} ORDER BY id DESC LIMIT ?"
        params.append(-1 if limit is None else limit)
        moves: dict[int, list[sqlite3.Row]] = {}
        for move in self.conn.execute(f"SELECT * FROM moves WHERE game_id IN ({chosen})"
                                      " ORDER BY game_id, ply", params):
            moves.setdefault(move["game_id"], []).append(move)
        rows = self.conn.execute(f"SELECT * FROM games WHERE id IN ({chosen}) ORDER BY id DESC",
                                 params).fetchall()
        return [self._record(row, moves.get(row["id"], [])) for row in rows]

    def _record(self, row: sqlite3.Row, rows: list[sqlite3.Row] | None = None) -> RecordedGame:
        """The game of ``row``, with its moves' ``rows`` (read here when not given)."""
        if rows is None:
            rows = self.conn.execute(
                "SELECT * FROM moves WHERE game_id = ? ORDER BY ply", (row["id"],)).fetchall()
        # A record of version 1, read without migrating it, has no mode column.
        has_mode = bool(rows) and "mode" in rows[0].keys()  # noqa: SIM118 (a Row's `in` reads values)
        moves = tuple(
            RecordedMove(
                ply=m["ply"], side=m["side"], column=m["col"], confirmed=bool(m["confirmed"]),
                seconds=m["seconds"], depth=m["depth"], score=m["score"], nodes=m["nodes"],
                source=m["source"], at=m["at"], mode=m["mode"] if has_mode else None,
            )
            for m in rows
        )
        return RecordedGame(
            id=row["id"],
            kind=row["kind"],
            server=row["server"],
            player_masked=row["player_masked"],
            opponent=row["opponent"],
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            we_started=None if row["we_started"] is None else bool(row["we_started"]),
            status=row["status"],
            result=row["result"],
            last_state=_state_from_json(row["last_state"]),
            note=row["note"],
            moves=moves,
        )


def _decision_fields(decision: Decision | None) -> tuple[Any, ...]:
    if decision is None:
        return (None, None, None, None, None)
    return (decision.depth, decision.score.value, decision.nodes, decision.source, decision.mode)


def _state_json(state: Grid) -> str:
    return json.dumps([list(row) for row in state])


def _state_from_json(text: str | None) -> Grid | None:
    return None if text is None else as_grid(json.loads(text))
