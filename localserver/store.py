"""The local server's bookkeeping in SQLite: games and players' records, nothing of the rules.

``GameStore`` keeps every game (its moves, how it ended) and each player's record (played,
won, lost, streak, best streak, total reward, as the course's ``stats`` reports them), in a
file or in memory.  Every change is one transaction; at most one running game per player is
enforced by a unique index, so a game is never lost, mixed up or counted twice.  One
connection is shared by the server's threads, always under the store's lock.

A game goes in and out as one value (``StoredGame``: the row's id, player, times and bot
around an ``engine.games.PlayedGame``, named by the player and its bot); its columns are
written here: the moves as 0-based digits, how it ended in ``outcome`` (``running``, or the
``Ending``), the student's result as the course's number in ``result`` (``course_result``).
A database of an earlier version, whose ``outcome`` said ``won``, ``draw``, ``lost`` or
``timeout``, is read as the same games.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from board import Board
from course.database import MEMORY, connect, connect_read_only, transaction
from course.grid import Grid, course_grid
from course.protocol import WIN, Stats, course_result, result_ending, result_outcome
from engine.games import PlayedGame, PlayedMove, winner_of
from settings import ConfigError
from vocabulary import Ending, Outcome

RUNNING = "running"  # ``games.outcome`` of a game going on; a finished game's is its Ending
# ``games.outcome`` as earlier versions wrote it (the others were already an Ending's value);
# a game won or lost was won by four in a row, or by the bot's fault (its note says).
_EARLIER_OUTCOMES = {"draw": Ending.FULL, "timeout": Ending.LATE}
_EARLIER_WON_OR_LOST = ("won", "lost")
BOT = "bot"  # the bot's name in a game played by the course's bot

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
    finished REAL,
    -- the bot's player spec when it was not the course's bot (``serve --bot SPEC``)
    bot TEXT
);
CREATE INDEX IF NOT EXISTS games_by_player ON games (player, id);
CREATE UNIQUE INDEX IF NOT EXISTS one_running_game ON games (player) WHERE outcome = 'running';
"""


# What a reader of the games needs (``GameStore(read_only=True)``).
READ_COLUMNS = {"games": ("id", "player", "first", "moves", "outcome", "result", "note",
                          "started", "finished")}


@dataclass(frozen=True)
class StoredGame:
    """One game as the server stores it: its row (``id``, the ``player``'s ids joined, when it
    ``started`` and ``finished``, the spec of its ``bot``: None for the course's) and the
    ``game``, played by the player and the bot (named ``BOT`` or by its spec), the student
    first when ``student_first``."""

    id: int
    player: str
    student_first: bool
    started: float
    finished: float | None
    game: PlayedGame
    bot: str | None = None

    @property
    def student_side(self) -> int:
        """The student's side in ``game``: 0 when it moved first, else 1."""
        return 0 if self.student_first else 1

    @property
    def board(self) -> Board:
        return self.game.board

    @property
    def result(self) -> float | None:
        """The student's result as the course counts it (None: the game goes on)."""
        outcome = self.game.outcome(self.student_side)
        if outcome is None or self.game.ending is None:
            return None
        return course_result(outcome, self.game.ending)

    def grid(self) -> Grid:
        """The board as the course sends it: row 0 at the top, 1 = student, -1 = bot."""
        board = self.board
        return course_grid(board, student_to_move=board.first_player_to_move == self.student_first)

    def ended(self, columns: Sequence[int], student: Outcome, ending: Ending,
              detail: str) -> PlayedGame:
        """The game ended after ``columns`` (from the empty board) with the student's
        ``student`` outcome, how and why."""
        return PlayedGame(self.game.first, self.game.second, _moves(columns),
                          winner_of(self.student_side, student), ending, detail)


def _moves(columns: Sequence[int]) -> tuple[PlayedMove, ...]:
    """A server's moves: it keeps no time."""
    return tuple(PlayedMove(ply, column) for ply, column in enumerate(columns, start=1))


def _digits(columns: Sequence[int]) -> str:
    """``games.moves``: the 0-based columns as digits."""
    return "".join(str(column) for column in columns)


class GameStore:
    """The games and the players' records of one database (a file path, or ``":memory:"``)."""

    def __init__(self, db_path: str, *, read_only: bool = False) -> None:
        """Open (or create) the database; with ``read_only``, open an existing file without
        changing anything (the analysis board's review reads a server's games that way)."""
        if db_path != MEMORY and not read_only:
            try:
                Path(db_path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ConfigError(f"cannot create the folder of {db_path}: {exc}") from exc
        try:
            if read_only:
                self._conn = connect_read_only(db_path, READ_COLUMNS, shared=True)
            else:
                self._conn = connect(db_path, SCHEMA, shared=True)
                _add_bot_column(self._conn)
        except (OSError, sqlite3.DatabaseError) as exc:
            raise ConfigError(f"cannot use {db_path} as the server's database: {exc}") from exc
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock, transaction(self._conn) as conn:
            yield conn

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()

    # --- changes ----------------------------------------------------------------------------

    @staticmethod
    def _finish(conn: sqlite3.Connection, game_id: int, player: str, columns: Sequence[int],
                ending: Ending, result: float, note: str) -> None:
        """End a running game and add it to the player's record, in the caller's transaction."""
        cur = conn.execute(
            "UPDATE games SET moves = ?, outcome = ?, result = ?, note = ?, finished = ?"
            " WHERE id = ? AND outcome = ?",
            (_digits(columns), ending.value, result, note, time.time(), game_id, RUNNING),
        )
        if cur.rowcount != 1:  # the server's per-player lock makes this impossible
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

    def start(self, player: str, student_first: bool, columns: Sequence[int], *,
              abandon: StoredGame | None = None, lost_start: str | None = None,
              bot: str | None = None) -> int:
        """A new running game after ``columns`` (the bot's first move, if it started); returns
        its id.  In the same transaction ``abandon`` (the player's running game) is ended as
        lost, or with ``lost_start`` (a note) the start itself is booked as a lost game.
        ``bot``: the spec of the game's bot (None: the course's)."""
        loss = course_result(Outcome.LOSS, Ending.ABANDONED)
        with self._transaction() as conn:
            if abandon is not None:
                self._finish(conn, abandon.id, player, abandon.game.columns, Ending.ABANDONED,
                             loss, "A new game was started while this one was running.")
            elif lost_start is not None:
                cur = conn.execute("INSERT INTO games (player, first, started) VALUES (?, ?, ?)",
                                   (player, "student", time.time()))
                self._finish(conn, int(cur.lastrowid or 0), player, (), Ending.ABANDONED, loss,
                             lost_start)
            cur = conn.execute(
                "INSERT INTO games (player, first, moves, started, bot) VALUES (?, ?, ?, ?, ?)",
                (player, "student" if student_first else "bot", _digits(columns), time.time(),
                 bot))
            return int(cur.lastrowid or 0)

    def advance(self, game: StoredGame, columns: Sequence[int]) -> None:
        """The running game's moves so far."""
        with self._transaction() as conn:
            conn.execute("UPDATE games SET moves = ? WHERE id = ? AND outcome = ?",
                         (_digits(columns), game.id, RUNNING))

    def finish(self, stored: StoredGame, game: PlayedGame) -> None:
        """End the running game as ``game`` (``StoredGame.ended``) and count it."""
        outcome = game.outcome(stored.student_side)
        if game.ending is None or outcome is None:
            raise ValueError(f"game {stored.id} of {stored.player} has no result to store")
        with self._transaction() as conn:
            self._finish(conn, stored.id, stored.player, game.columns, game.ending,
                         course_result(outcome, game.ending), game.detail)

    # --- reading ----------------------------------------------------------------------------

    def running(self, player: str) -> StoredGame | None:
        rows = self._query("SELECT * FROM games WHERE player = ? AND outcome = ?",
                           (player, RUNNING))
        return _game(rows[0]) if rows else None

    def stats(self, player: str) -> Stats:
        """A player's record (zeros for one who never finished a game)."""
        rows = self._query("SELECT * FROM players WHERE player = ?", (player,))
        if not rows:
            return Stats(player, 0, 0, 0, 0, 0, 0.0)
        return _stats(rows[0])

    def all_stats(self) -> list[Stats]:
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

    def games(self, limit: int | None = None) -> list[StoredGame]:
        """Every player's games, newest first (at most ``limit``)."""
        rows = self._query("SELECT * FROM games ORDER BY id DESC LIMIT ?",
                           (-1 if limit is None else limit,))
        return [_game(row) for row in rows]

    def game(self, game_id: int) -> StoredGame | None:
        """The game with this id, if there is one."""
        rows = self._query("SELECT * FROM games WHERE id = ?", (game_id,))
        return _game(rows[0]) if rows else None

    def recent(self, player: str, limit: int = 10) -> list[StoredGame]:
        """The player's latest games, newest first (a running game included)."""
        rows = self._query("SELECT * FROM games WHERE player = ? ORDER BY id DESC LIMIT ?",
                           (player, limit))
        return [_game(row) for row in rows]


def _stats(row: sqlite3.Row) -> Stats:
    return Stats(row["player"], int(row["played"]), int(row["won"]), int(row["lost"]),
                 int(row["streak"]), int(row["streak_max"]), float(row["total_reward"]))


def _game(row: sqlite3.Row) -> StoredGame:
    """The stored game of a row: its columns read as the one value."""
    names = row.keys()  # (``in row`` would look among the values)
    bot = row["bot"] if "bot" in names else None  # a database of an older version has none
    student_first = row["first"] == "student"
    player = str(row["player"])
    first, second = (player, bot or BOT) if student_first else (bot or BOT, player)
    moves = _moves([int(c) for c in row["moves"]])
    outcome, winner, ending = row["outcome"], None, None
    if outcome != RUNNING:
        result = float(row["result"])
        winner = winner_of(0 if student_first else 1, result_outcome(result))
        if outcome in _EARLIER_WON_OR_LOST:
            ending = result_ending(result, four=PlayedGame("", "", moves, winner).won_on_board)
        else:
            ending = _EARLIER_OUTCOMES.get(outcome) or _ending(outcome)
    game = PlayedGame(first, second, moves, winner, ending, row["note"] or "")
    return StoredGame(int(row["id"]), player, student_first, float(row["started"]),
                      row["finished"], game, bot)


def _ending(outcome: str) -> Ending:
    """A finished game's ``games.outcome`` (another program's word: the server's ruling)."""
    try:
        return Ending(outcome)
    except ValueError:
        return Ending.RULED


def _add_bot_column(conn: sqlite3.Connection) -> None:
    """Give a database of an older version the ``bot`` column (its games: the course's bot)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
    if "bot" not in columns:
        conn.execute("ALTER TABLE games ADD COLUMN bot TEXT")
