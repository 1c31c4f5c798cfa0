"""Reading the record: its games as values (``RecordedGame``, ``RecordedMove``), the game to
resume, the streak our record counts, the games of a review."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from client.records.masking import player_hashes
from client.records.schema import (
    STATUS_FINISHED,
    STATUS_RUNNING,
    STATUS_STARTING,
    STATUS_STOPPED,
    state_from_json,
)
from course.grid import Grid


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


class RecordReading:
    """The queries of ``Records``."""

    conn: sqlite3.Connection
    path: Path

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
            (kind, server, *player_hashes(stil_ids), STATUS_STARTING, STATUS_RUNNING,
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
            (kind, server, *player_hashes(stil_ids), STATUS_STARTING, STATUS_RUNNING),
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
            last_state=state_from_json(row["last_state"]),
            note=row["note"],
            moves=moves,
        )
