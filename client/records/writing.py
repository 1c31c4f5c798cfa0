"""Writing the record: a game's states, each change one transaction committed before the
action it describes can be lost.

A game goes ``starting`` (``begin``, before the request that starts it is sent) to ``running``
(``started``, with the server's answer); each move of ours is stored unconfirmed before it is
sent (``sent``) and confirmed with the server's checked reply (``replied``).  So after a crash
or a Ctrl-C the record tells exactly what is known:

- ``running`` with every move confirmed: the server's latest state is in ``last_state`` and it
  is our turn; the game can be resumed (see ``client.mirror.resume_problem``);
- ``running`` with an unconfirmed move, or ``starting``: a request was sent and its answer never
  arrived, so whether the server played it is unknown (*in doubt*);
- ``stopped``: the game was left in an unknown state (a desync, a refused move, an unreadable
  reply); ``note`` says why;
- ``finished`` (with ``result`` and its ``ending``) or ``abandoned`` (the user started a new
  game over it, or left a local game).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from client.records.masking import masked_ids, player_hash
from client.records.schema import (
    STATUS_ABANDONED,
    STATUS_FINISHED,
    STATUS_RUNNING,
    STATUS_STARTING,
    STATUS_STOPPED,
    THEM,
    US,
    state_json,
)
from course.database import transaction
from course.grid import Grid
from vocabulary import Ending

if TYPE_CHECKING:
    from engine import Decision


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class RecordWriting:
    """The changes of ``Records``: one method per step of a game, each one transaction."""

    conn: sqlite3.Connection

    def begin(self, kind: str, server: str, stil_ids: Sequence[str], opponent: str) -> int:
        """A new game, ``starting``: written before the request that starts it is sent."""
        with transaction(self.conn) as conn:
            cur = conn.execute(
                "INSERT INTO games (kind, server, player, player_masked, opponent, started_at,"
                " status) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (kind, server, player_hash(stil_ids), masked_ids(stil_ids), opponent, _now(),
                 STATUS_STARTING),
            )
            return int(cur.lastrowid or 0)

    def started(self, game_id: int, we_started: bool, state: Grid, first_bot_move: int | None) -> None:
        """The server answered the start: who starts, its first move if it started, the board."""
        with transaction(self.conn) as conn:
            conn.execute(
                "UPDATE games SET status = ?, we_started = ?, last_state = ? WHERE id = ?",
                (STATUS_RUNNING, int(we_started), state_json(state), game_id),
            )
            if first_bot_move is not None:
                conn.execute(
                    "INSERT INTO moves (game_id, ply, side, col, confirmed, at)"
                    " VALUES (?, 1, ?, ?, 1, ?)",
                    (game_id, THEM, first_bot_move, _now()),
                )

    def sent(self, game_id: int, ply: int, column: int, decision: Decision | None, seconds: float) -> None:
        """Our move, about to be sent: stored unconfirmed, so a crash leaves it marked in doubt."""
        with transaction(self.conn) as conn:
            conn.execute(
                "INSERT INTO moves (game_id, ply, side, col, confirmed, seconds, depth, score,"
                " nodes, source, mode, at) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, ply, US, column, seconds, *_decision_fields(decision), _now()),
            )

    def unsent(self, game_id: int, ply: int) -> None:
        """Our move never reached the server (or it rejected the request): forget it."""
        with transaction(self.conn) as conn:
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
        *,
        ending: Ending | None = None,
    ) -> None:
        """The checked reply to our move ``ply``: confirm it, add the bot's move and the board;
        a reply that ends the game (``result``) finishes it, with ``note`` (what the server said
        of its end, and where our rules score it otherwise) and its ``ending`` (None: read
        from the result and the board, as for a game of an earlier version's record)."""
        with transaction(self.conn) as conn:
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
                    " note = ?, ending = ? WHERE id = ?",
                    (state_json(state), STATUS_FINISHED, result, _now(), note, _value(ending),
                     game_id),
                )
            else:
                conn.execute(
                    "UPDATE games SET last_state = ? WHERE id = ?", (state_json(state), game_id)
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
        with transaction(self.conn) as conn:
            conn.execute(
                "INSERT INTO moves (game_id, ply, side, col, confirmed, seconds, depth, score,"
                " nodes, source, mode, at) VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, ply, side, column, seconds, *_decision_fields(decision), _now()),
            )

    def finish(self, game_id: int, result: float, note: str | None = None,
               state: Grid | None = None, *, ending: Ending | None = None) -> None:
        """The game is over with ``result`` (from our view, the course's number) and how it
        ended (None: read from the result and the board); unconfirmed moves are dropped."""
        with transaction(self.conn) as conn:
            conn.execute("DELETE FROM moves WHERE game_id = ? AND confirmed = 0", (game_id,))
            conn.execute(
                "UPDATE games SET status = ?, result = ?, finished_at = ?, note = ?,"
                " last_state = COALESCE(?, last_state), ending = ? WHERE id = ?",
                (STATUS_FINISHED, result, _now(), note, state_json(state) if state else None,
                 _value(ending), game_id),
            )

    def stop(self, game_id: int, note: str) -> None:
        """The game's state on the server is unknown from now on; ``note`` says why."""
        self._set_status(game_id, STATUS_STOPPED, note)

    def abandon(self, game_id: int, note: str, ending: Ending = Ending.ABANDONED) -> None:
        """The user gave the game up (a new game was started over it, a local game was left),
        or it ended without a result (``Ending.STOPPED``: a local opponent stopped from outside
        its sandbox)."""
        self._set_status(game_id, STATUS_ABANDONED, note, finished=True, ending=ending)

    def discard(self, game_id: int) -> None:
        """Delete a game whose start never reached the server."""
        with transaction(self.conn) as conn:
            conn.execute("DELETE FROM games WHERE id = ? AND status = ?", (game_id, STATUS_STARTING))

    def _set_status(self, game_id: int, status: str, note: str, *, finished: bool = False,
                    ending: Ending | None = None) -> None:
        with transaction(self.conn) as conn:
            conn.execute(
                "UPDATE games SET status = ?, note = ?, finished_at = ?, ending = ? WHERE id = ?",
                (status, note, _now() if finished else None, _value(ending), game_id),
            )


def _value(ending: Ending | None) -> str | None:
    """``games.ending``: the ending's value, or null (read from the result and the board)."""
    return None if ending is None else ending.value


def _decision_fields(decision: Decision | None) -> tuple[Any, ...]:
    if decision is None:
        return (None, None, None, None, None)
    return (decision.depth, decision.score.value, decision.nodes, decision.source, decision.mode)
