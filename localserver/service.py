"""The course server's game logic without HTTP: games, the bot, the clock and the bookkeeping.

``CourseService.move`` and ``CourseService.stats`` return exactly the JSON bodies the course
server sends, so the HTTP app (``localserver.app``) is a thin wrapper and an in-process client
can call the service directly.  State lives in SQLite (a file, or ``":memory:"``), so running
games and stats survive a restart of the server.

What comes from ``COURSE.md`` (the specification) and what is our guess:

* From the specification: the fields and their ranges (``stil_id`` a list of ids matching
  ``^[\\w\\d_-]*$`` of at most 50 characters, stored as the sorted ids joined with ``+``;
  ``move`` -1..6; ``api_key``), out-of-range values rejected (HTTP 422 in the app, a
  ``RequestError`` here); the reply ``{status, msg, result, botmove, state}`` with ``state`` row 0
  at the top, 1 = the student's discs, -1 = the bot's; -1 starting a new game and counting a
  running one as a loss; results 1 / 0.5 / -1 / -10; an illegal move ending the game with -10,
  ``status: false`` and ``msg: "Impossible move."``; a wrong key answered with ``status: false``
  and ``msg: "Incorrect API key."``; the stats dict with ``status: null``; the bookkeeping of
  played / won / lost / streak / streak_max / total_reward; the bot (alpha-beta minimax cut off
  at depth 3); the course environment's quirk that a move filling the last cell and connecting
  four is a draw (``full_board_win_is_draw``, on by default); a 5 s limit per move.
* Our guesses: every other message text (who starts, the bot's move, the end of a game); the
  bot's evaluation (``windows5000``) and its random choice among equally good moves; who starts
  (random unless configured); what a late move does (the game is lost with result -1,
  ``status: false`` and a message saying how late it was; the clock runs from our reply to the
  next request, and restarts for running games when the server restarts); a move 0..6 without a
  running game (``status: false``, ``result: 0``, ``state: null``); empty ids (rejected, while
  the specification's pattern would allow them), at most ``MAX_IDS`` ids in a group, duplicate
  ids in a group counted once; the stats of a player who never played (all zeros); the reply to
  stats with a wrong key (``status: false`` with the message and ``stil_id``).

Thread safety: requests for one player (one joined id) are serialised by that player's lock,
so a player's game is never advanced twice at once; requests of different players run in
parallel and only share the database connection, under its own lock.  Every change to a game
and to the player's stats is one SQLite transaction, and at most one running game per player is
enforced by a unique index, so a game is never lost, mixed up or counted twice.  A move's time
is taken when it arrives, before it waits for its player's lock.

The protocol's constants and its scoring rule come from ``client.protocol`` (the one
description of the protocol), the rule for ids and the checks of the settings from
``settings``.
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from board import WIDTH, Board
from client.database import MEMORY, connect, transaction
from client.protocol import (
    DRAW,
    ILLEGAL,
    LOSS,
    MSG_IMPOSSIBLE,
    MSG_WRONG_KEY,
    NEW_GAME,
    NO_MOVE,
    RESULT_RUNNING,
    WIN,
    last_move_result,
)
from settings import local_server_problem, stil_id_problem

MAX_IDS = 10  # our limit on the ids of one group; the real server's is unknown
MIN_MOVE, MAX_MOVE = NEW_GAME, WIDTH - 1

STUDENT, BOT = 1, -1

# How a game ended, as stored in ``games.outcome``.
RUNNING, WON, DRAWN, LOST, ILLEGAL_MOVE, TIMEOUT, ABANDONED = (
    "running", "won", "draw", "lost", "illegal", "timeout", "abandoned",
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    player TEXT PRIMARY KEY,
    played INTEGER NOT NULL DEFAULT 0,
    won INTEGER NOT NULL DEFAULT 0,
    lost INTEGER NOT NULL DEFAULT 0,
    streak INTEGER NOT NULL DEFAULT 0,
    streak_max INTEGER NOT NULL DEFAULT 0,
    total_reward REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    player TEXT NOT NULL,
    first TEXT NOT NULL CHECK (first IN ('student', 'bot')),
    -- the columns played so far (0-based digits), starting with the first player's move
    moves TEXT NOT NULL DEFAULT '',
    outcome TEXT NOT NULL DEFAULT 'running',
    result REAL,
    note TEXT,
    started REAL NOT NULL,
    finished REAL
);
CREATE INDEX IF NOT EXISTS games_by_player ON games (player, id);
CREATE UNIQUE INDEX IF NOT EXISTS one_running_game ON games (player) WHERE outcome = 'running';
"""

Reply = dict[str, Any]


class RequestError(ValueError):
    """A request field is out of range: the course server's validation answers HTTP 422."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class CorruptRecord(RuntimeError):
    """A stored game cannot be right (e.g. not the student's turn): the database was altered."""


class ServiceConfigError(ValueError):
    """A setting of the local server (bot, depth, who starts, time limit, database) is bad."""


@dataclass(frozen=True)
class PlayerStats:
    player: str
    played: int
    won: int
    lost: int
    streak: int
    streak_max: int
    total_reward: float

    @property
    def drawn(self) -> int:
        return self.played - self.won - self.lost


@dataclass(frozen=True)
class StoredGame:
    """One game as the server stores it: ``moves`` are 0-based columns from the first move on."""

    id: int
    player: str
    first: str
    moves: str
    outcome: str
    result: float | None
    note: str | None
    started: float
    finished: float | None

    @property
    def board(self) -> Board:
        return Board.from_moves((int(c) for c in self.moves), one_based=False)

    def grid(self) -> list[list[int]]:
        """The board as the course sends it: row 0 at the top, 1 = student, -1 = bot."""
        return course_grid(self.board, self.first)


def course_grid(board: Board, first: str) -> list[list[int]]:
    """``board`` as a course ``state``: the student's discs are 1 whoever is to move."""
    student_to_move = board.first_player_to_move == (first == "student")
    grid: list[list[int]] = board.to_grid(STUDENT if student_to_move else BOT).tolist()
    return grid


def player_key(stil_ids: Sequence[str]) -> str:
    """Check the ids and return the key a group is stored under (sorted, joined with ``+``).

    Raises ``RequestError`` for a missing, empty, too long or malformed id.
    """
    if isinstance(stil_ids, str):  # a bare string would be split into letters
        stil_ids = [stil_ids]
    ids = list(stil_ids)
    if not ids:
        raise RequestError("stil_id", "at least one id is required")
    if len(ids) > MAX_IDS:
        raise RequestError("stil_id", f"at most {MAX_IDS} ids, got {len(ids)}")
    for sid in ids:
        problem = stil_id_problem(sid)
        if problem is not None:
            raise RequestError("stil_id", problem)
    return "+".join(sorted(set(ids)))


def check_move(move: int) -> int:
    if isinstance(move, bool) or not isinstance(move, int):
        raise RequestError("move", f"must be an integer, got {move!r}")
    if not MIN_MOVE <= move <= MAX_MOVE:
        raise RequestError("move", f"must be between {MIN_MOVE} and {MAX_MOVE}, got {move}")
    return move


def _error_reply(msg: str, *, result: float = 0, state: list[list[int]] | None = None) -> Reply:
    return {"status": False, "msg": msg, "result": result, "botmove": NO_MOVE, "state": state}


def _result_json(value: float) -> float | int:
    # The course sends 1, -1 and -10 as integers in JSON and 0.5 as a float.
    return int(value) if float(value).is_integer() else value


class CourseService:
    """Games against the course's bot for any number of players, kept in SQLite."""

    def __init__(
        self,
        db_path: str,
        *,
        api_key: str,
        bot: str = "minimax",
        bot_depth: int = 3,
        first: str = "random",
        time_limit: float = 5.0,
        full_board_win_is_draw: bool = True,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        checked = {"db": db_path, "api_key": api_key, "bot": bot, "bot_depth": bot_depth,
                   "first": first, "time_limit": time_limit,
                   "full_board_win_is_draw": full_board_win_is_draw}
        for name, value in checked.items():
            problem = local_server_problem(name, value)
            if problem is not None:
                raise ServiceConfigError(f"local_server.{name}: {problem}")
        self.db_path = db_path
        self.api_key = api_key
        self.bot = bot
        self.bot_depth = bot_depth
        self.first = first
        self.time_limit = float(time_limit)
        self.full_board_win_is_draw = full_board_win_is_draw
        self._rng = rng or random.Random()
        self._rng_lock = threading.Lock()
        self._clock = clock
        self._db_lock = threading.Lock()
        self._players_lock = threading.Lock()
        self._player_locks: dict[str, threading.Lock] = {}
        # When the reply before each running game's next move was sent (by ``clock``).  Kept
        # in memory only: a monotonic clock means nothing after a restart, so a game found in
        # the database gets a fresh allowance with its first move after the restart.
        self._last_reply: dict[int, float] = {}
        self._conn = self._connect(db_path)

    # --- database ---------------------------------------------------------------------------

    @staticmethod
    def _connect(db_path: str) -> sqlite3.Connection:
        if db_path != MEMORY:
            try:
                Path(db_path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ServiceConfigError(f"cannot create the folder of {db_path}: {exc}") from exc
        try:
            # One connection shared by all threads, always used under ``_db_lock``.
            return connect(db_path, SCHEMA, shared=True)
        except (OSError, sqlite3.DatabaseError) as exc:
            raise ServiceConfigError(
                f"cannot use {db_path} as the server's database: {exc}"
            ) from exc

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._db_lock, transaction(self._conn) as conn:
            yield conn

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._db_lock:
            return self._conn.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._db_lock:
            self._conn.close()

    # --- locks and randomness -----------------------------------------------------------------

    def _player_lock(self, player: str) -> threading.Lock:
        with self._players_lock:
            lock = self._player_locks.get(player)
            if lock is None:
                lock = self._player_locks[player] = threading.Lock()
            return lock

    def _choice(self, options: Sequence[Any]) -> Any:
        with self._rng_lock:
            return self._rng.choice(options)

    # --- the bot ------------------------------------------------------------------------------

    def _bot_move(self, board: Board) -> int:
        if self.bot == "random":
            return int(self._choice(board.legal_moves()))
        from search.bot import move_values  # imported here: it loads the compiled search

        values = move_values(board, self.bot_depth)
        best = max(values.values())
        return int(self._choice(sorted(col for col, v in values.items() if v == best)))

    def warm_up(self) -> None:
        """Compile (or load) the bot's search now rather than on the first game."""
        if self.bot == "minimax":
            self._bot_move(Board())

    def _ends(self, board: Board) -> float:
        """The result of the move that made ``board`` for its mover (``last_move_result``)."""
        return last_move_result(board, full_board_win_is_draw=self.full_board_win_is_draw)

    # --- bookkeeping --------------------------------------------------------------------------

    @staticmethod
    def _finish(
        conn: sqlite3.Connection, game_id: int, player: str, moves: str, outcome: str,
        result: float, note: str,
    ) -> None:
        """End a running game and add it to the player's stats, in the caller's transaction."""
        cur = conn.execute(
            "UPDATE games SET moves = ?, outcome = ?, result = ?, note = ?, finished = ?"
            " WHERE id = ? AND outcome = ?",
            (moves, outcome, result, note, time.time(), game_id, RUNNING),
        )
        if cur.rowcount != 1:  # the per-player lock makes this impossible; never count twice
            raise RuntimeError(f"game {game_id} of {player} was not running")
        conn.execute("INSERT OR IGNORE INTO players (player) VALUES (?)", (player,))
        won = 1 if result == WIN else 0
        lost = 1 if result < 0 else 0
        conn.execute(
            "UPDATE players SET played = played + 1, won = won + ?, lost = lost + ?,"
            " streak = CASE WHEN ? THEN 0 ELSE streak + 1 END,"
            " streak_max = MAX(streak_max, CASE WHEN ? THEN 0 ELSE streak + 1 END),"
            " total_reward = total_reward + ? WHERE player = ?",
            (won, lost, lost, lost, result, player),
        )

    def _running_game(self, player: str) -> StoredGame | None:
        rows = self._query(
            "SELECT * FROM games WHERE player = ? AND outcome = ?", (player, RUNNING)
        )
        return _record(rows[0]) if rows else None

    # --- the protocol -------------------------------------------------------------------------

    def move(self, stil_ids: list[str], move: int, api_key: str) -> Reply:
        """``POST move``: the reply body ``{status, msg, result, botmove, state}``.

        Raises ``RequestError`` for out-of-range fields (the app answers HTTP 422).
        """
        # The time limit counts from arrival, not from when the player's lock is free.
        arrived = self._clock()
        player = player_key(stil_ids)
        check_move(move)
        if api_key != self.api_key:
            return _error_reply(MSG_WRONG_KEY)
        with self._player_lock(player):
            game = self._running_game(player)
            if move == NEW_GAME:
                return self._new_game(player, game)
            if game is None:
                return _error_reply("No game is running: send move -1 to start a new game.")
            return self._play(game, move, arrived)

    def _new_game(self, player: str, running: StoredGame | None) -> Reply:
        first = self.first if self.first != "random" else self._choice(("student", "bot"))
        board = Board()
        botmove = NO_MOVE
        if first == "bot":
            botmove = self._bot_move(board)
            board = board.play_unchecked(botmove)
        with self._transaction() as conn:
            if running is not None:
                self._finish(conn, running.id, player, running.moves, ABANDONED, LOSS,
                             "A new game was started while this one was running.")
            cur = conn.execute(
                "INSERT INTO games (player, first, moves, started) VALUES (?, ?, ?, ?)",
                (player, first, "" if botmove < 0 else str(botmove), time.time()),
            )
            game_id = int(cur.lastrowid or 0)
        prefix = "Your running game was counted as a loss. " if running is not None else ""
        if first == "student":
            msg = f"{prefix}New game: you start."
        else:
            msg = f"{prefix}New game: the bot started and played column {botmove}."
        reply = {"status": True, "msg": msg, "result": 0, "botmove": botmove,
                 "state": course_grid(board, first)}
        if running is not None:
            self._last_reply.pop(running.id, None)
        self._last_reply[game_id] = self._clock()
        return reply

    def _play(self, game: StoredGame, col: int, arrived: float) -> Reply:
        board = game.board  # the stored moves were legal when stored; only their order is checked
        if board.is_over() or board.first_player_to_move != (game.first == "student"):
            raise CorruptRecord(f"game {game.id} of {game.player}: not the student's turn")
        last = self._last_reply.get(game.id)
        if self.time_limit > 0 and last is not None and arrived - last > self.time_limit:
            late = arrived - last
            msg = (f"Time limit exceeded: your move came {late:.2f} s after the server's reply"
                   f" (the limit is {self.time_limit:g} s). The game is lost.")
            self._end(game, game.moves, TIMEOUT, LOSS, msg)
            return _error_reply(msg, result=_result_json(LOSS),
                                state=course_grid(board, game.first))
        if not board.can_play(col):
            self._end(game, game.moves, ILLEGAL_MOVE, ILLEGAL,
                      f"Impossible move: column {col} is full.")
            return _error_reply(MSG_IMPOSSIBLE, result=_result_json(ILLEGAL),
                                state=course_grid(board, game.first))
        board = board.play_unchecked(col)
        moves = game.moves + str(col)
        ending = self._ends(board)
        if ending != RESULT_RUNNING:
            if ending == WIN:
                result, outcome, msg = WIN, WON, "You won!"
            elif board.last_mover_won():
                result, outcome, msg = DRAW, DRAWN, (
                    "Draw: your four in a row filled the board, and a full board is a draw"
                    " in the course environment.")
            else:
                result, outcome, msg = DRAW, DRAWN, "Draw: the board is full."
            self._end(game, moves, outcome, result, msg)
            return {"status": True, "msg": msg, "result": _result_json(result), "botmove": NO_MOVE,
                    "state": course_grid(board, game.first)}
        botmove = self._bot_move(board)
        board = board.play_unchecked(botmove)
        moves += str(botmove)
        ending = self._ends(board)
        state = course_grid(board, game.first)
        if ending == RESULT_RUNNING:
            with self._transaction() as conn:
                conn.execute("UPDATE games SET moves = ? WHERE id = ? AND outcome = ?",
                             (moves, game.id, RUNNING))
            reply = {"status": True, "msg": f"The bot played column {botmove}.", "result": 0,
                     "botmove": botmove, "state": state}
            self._last_reply[game.id] = self._clock()
            return reply
        if ending == WIN:
            result, outcome, msg = LOSS, LOST, f"The bot played column {botmove} and won."
        elif board.last_mover_won():
            result, outcome, msg = DRAW, DRAWN, (
                f"Draw: the bot's four in a row in column {botmove} filled the board, and a"
                " full board is a draw in the course environment.")
        else:
            result, outcome, msg = DRAW, DRAWN, (
                f"Draw: the bot played column {botmove} and the board is full.")
        self._end(game, moves, outcome, result, msg)
        return {"status": True, "msg": msg, "result": _result_json(result), "botmove": botmove,
                "state": state}

    def _end(self, game: StoredGame, moves: str, outcome: str, result: float, note: str) -> None:
        with self._transaction() as conn:
            self._finish(conn, game.id, game.player, moves, outcome, result, note)
        self._last_reply.pop(game.id, None)

    def stats(self, stil_ids: list[str], api_key: str) -> Reply:
        """``POST stats``: the stats dict (its ``status`` is null, as on the course server)."""
        player = player_key(stil_ids)
        if api_key != self.api_key:
            return {"msg": MSG_WRONG_KEY, "status": False, "stil_id": player}
        s = self.player_stats(player)
        return {"msg": None, "status": None, "stil_id": player, "played": s.played,
                "won": s.won, "lost": s.lost, "streak": s.streak, "streak_max": s.streak_max,
                "total_reward": s.total_reward}

    # --- reading the records (the progress page, tests) ---------------------------------------

    def player_stats(self, player: str) -> PlayerStats:
        """The stats of a stored player key (zeros for one who never finished a game)."""
        rows = self._query("SELECT * FROM players WHERE player = ?", (player,))
        if not rows:
            return PlayerStats(player, 0, 0, 0, 0, 0, 0.0)
        return _stats(rows[0])

    def all_stats(self) -> list[PlayerStats]:
        """Every player who has started a game, most recently active first."""
        rows = self._query(
            "SELECT g.player AS player, COALESCE(p.played, 0) AS played,"
            " COALESCE(p.won, 0) AS won, COALESCE(p.lost, 0) AS lost,"
            " COALESCE(p.streak, 0) AS streak, COALESCE(p.streak_max, 0) AS streak_max,"
            " COALESCE(p.total_reward, 0) AS total_reward"
            " FROM (SELECT player, MAX(id) AS last FROM games GROUP BY player) AS g"
            " LEFT JOIN players AS p ON p.player = g.player ORDER BY g.last DESC"
        )
        return [_stats(row) for row in rows]

    def recent_games(self, player: str, limit: int = 10) -> list[StoredGame]:
        """The player's latest games, newest first (a running game included)."""
        rows = self._query(
            "SELECT * FROM games WHERE player = ? ORDER BY id DESC LIMIT ?", (player, limit)
        )
        return [_record(row) for row in rows]


def _stats(row: sqlite3.Row) -> PlayerStats:
    return PlayerStats(row["player"], int(row["played"]), int(row["won"]), int(row["lost"]),
                       int(row["streak"]), int(row["streak_max"]), float(row["total_reward"]))


def _record(row: sqlite3.Row) -> StoredGame:
    return StoredGame(int(row["id"]), row["player"], row["first"], row["moves"], row["outcome"],
                      row["result"], row["note"], float(row["started"]), row["finished"])


__all__ = [
    "MAX_IDS",
    "CorruptRecord",
    "CourseService",
    "PlayerStats",
    "RequestError",
    "ServiceConfigError",
    "StoredGame",
    "check_move",
    "course_grid",
    "player_key",
]
