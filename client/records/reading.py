"""Reading the record: its games as values (``RecordedGame``, around the one played game), the
game to resume, the streak our record counts, the games of a review."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from client.records.masking import player_hashes
from client.records.schema import (
    STATUS_ABANDONED,
    STATUS_FINISHED,
    STATUS_RUNNING,
    STATUS_STARTING,
    STATUS_STOPPED,
    state_from_json,
)
from course.grid import Grid
from course.protocol import course_result, result_ending, result_outcome
from engine.games import PlayedGame, PlayedMove, winner_of
from vocabulary import Ending


@dataclass(frozen=True, slots=True)
class RecordedGame:
    """A game of the record: its row and the game.

    ``kind`` is online or local, ``server`` where it was played, ``status`` how far the record
    knows it (``client.records.writing``), ``last_state`` the latest board the server sent,
    ``last_reply_at`` when the latest reply of the server was recorded (ISO 8601, UTC).  The
    ``game`` is played by our ids (masked) and the opponent, ours on ``our_side`` (None until
    the server said who starts); its moves are those the server confirmed, its detail the
    record's note, and it has no ending while it is not finished.  ``pending`` is our move that
    was sent and whose reply was never recorded, if any.
    """

    id: int
    kind: str
    server: str
    started_at: str
    finished_at: str | None
    status: str
    our_side: int | None
    last_state: Grid | None
    last_reply: str
    game: PlayedGame
    pending: PlayedMove | None = None

    @property
    def we_started(self) -> bool | None:
        return None if self.our_side is None else self.our_side == 0

    @property
    def result(self) -> float | None:
        """The game's result for us in the course's terms (1, 0.5, -1, -10; None: no result)."""
        if self.our_side is None or self.game.ending is None:
            return None
        outcome = self.game.outcome(self.our_side)
        return None if outcome is None else course_result(outcome, self.game.ending)

    @property
    def last_reply_at(self) -> datetime:
        """About when the server's latest recorded reply came (UTC).

        The bot's moves are recorded as their replies arrive; before any, the game's start
        (a little before the server's reply to it: so the age is never underestimated).
        """
        return datetime.fromisoformat(self.last_reply)


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
        moves = [(bool(m["confirmed"]), PlayedMove(
            m["ply"], m["col"], m["seconds"], depth=m["depth"], source=m["source"],
            nodes=m["nodes"], mode=m["mode"] if has_mode else None)) for m in rows]
        our_side = None if row["we_started"] is None else 0 if row["we_started"] else 1
        names = (row["player_masked"], row["opponent"])
        if our_side == 1:
            names = names[::-1]
        played = tuple(move for confirmed, move in moves if confirmed)
        winner, ending = _end(row, our_side, played)
        game = PlayedGame(names[0], names[1], played, winner, ending, row["note"] or "")
        replies = [m["at"] for m in rows if m["confirmed"]]
        return RecordedGame(
            id=row["id"],
            kind=row["kind"],
            server=row["server"],
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            status=row["status"],
            our_side=our_side,
            last_state=state_from_json(row["last_state"]),
            last_reply=max(replies) if replies else row["started_at"],
            game=game,
            pending=next((move for confirmed, move in moves if not confirmed), None),
        )


def _end(row: sqlite3.Row, our_side: int | None,
         moves: tuple[PlayedMove, ...]) -> tuple[int | None, Ending | None]:
    """The winner and the ending of a game's row: its ``ending`` column, or for a game of a
    record of an earlier version, what its result and its board say (``result_ending``)."""
    status = row["status"]
    if status not in (STATUS_FINISHED, STATUS_ABANDONED):
        return None, None
    stored = row["ending"] if "ending" in row.keys() else None  # noqa: SIM118
    if status == STATUS_ABANDONED:
        ending = Ending(stored) if stored else Ending.ABANDONED
        lost = our_side is not None and ending.has_result
        return (1 - our_side if lost and our_side is not None else None), ending
    if our_side is None or row["result"] is None:
        return None, Ending(stored) if stored else None
    winner = winner_of(our_side, result_outcome(float(row["result"])))
    if stored:
        return winner, Ending(stored)
    four = PlayedGame("", "", moves, winner).won_on_board
    return winner, result_ending(float(row["result"]), four=four)


__all__ = ["RecordReading", "RecordedGame"]
