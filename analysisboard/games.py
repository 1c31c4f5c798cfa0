"""The games the review can open: the client's record, a local server's database, and the games
of an ``agent.py rate`` run.

All are opened read-only for each request (nothing on disk is created or changed), and only
these files are ever read: a game is asked for by its source (``record``, ``server`` or
``rated``) and its id (a rated game's number in its run), never by a path.  A rate run's games
are the lines of its ``games.jsonl`` (docs/rate.md).  Each game becomes a ``GameSummary``: its
moves from the first disc on, which side was ours (the record's player; the server's student;
a rate run's rated player), and how it ended.
Ids (a student's STIL id) are shown masked.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from analysisboard.params import BadRequest
from batch.lines import read_lines
from client.records import STATUS_ABANDONED, STATUS_FINISHED, RecordedGame, RecordError, Records
from localserver.store import GameStore, StoredGame
from settings import ConfigError, mask_secret

RECORD, SERVER, RATED = "record", "server", "rated"
SOURCES = (RECORD, SERVER, RATED)
RATED_GAMES = "games.jsonl"  # in a rate run's folder (reporting.rate)
RESULTS = ("won", "draw", "lost", "unfinished")
LOCAL_SERVER = "local server database"
# At most this many games are listed (newest first), after the filters.
MAX_LISTED = 500


@dataclass(frozen=True)
class GameSummary:
    """A game as the review lists it; ``moves`` is Pons' move string from the first disc,
    ``our_side`` 1 when we moved first, 2 when second (None: not known)."""

    source: str
    id: int
    started: str  # ISO 8601, UTC
    server: str
    kind: str
    player: str
    opponent: str
    result: str  # one of RESULTS
    detail: str
    moves: str
    our_side: int | None
    opening: int = 0  # moves played before the players took over (a rate run's opening)

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "id": self.id, "started": self.started,
                "server": self.server, "kind": self.kind, "player": self.player,
                "opponent": self.opponent, "result": self.result, "detail": self.detail,
                "moves": self.moves, "plies": len(self.moves), "our_side": self.our_side,
                "opening": self.opening}


def _record_result(game: RecordedGame) -> tuple[str, str]:
    if game.status == STATUS_FINISHED and game.result is not None:
        if game.result >= 1:
            return "won", "won"
        if game.result > 0:
            return "draw", "draw"
        return "lost", "lost: impossible move" if game.result <= -10 else "lost"
    if game.status == STATUS_ABANDONED:
        return "lost", "abandoned (a new game was started over it)"
    return "unfinished", f"unfinished ({game.status}{': ' + game.note if game.note else ''})"


def _from_record(game: RecordedGame) -> GameSummary:
    result, detail = _record_result(game)
    moves = "".join(str(col + 1) for col in game.columns)
    side = None if game.we_started is None else 1 if game.we_started else 2
    return GameSummary(RECORD, game.id, game.started_at, game.server, game.kind,
                       game.player_masked, game.opponent, result, detail, moves, side)


SERVER_RESULTS = {"won": "won", "draw": "draw", "lost": "lost", "illegal": "lost",
                  "timeout": "lost", "abandoned": "lost", "running": "unfinished"}


def _from_server(game: StoredGame) -> GameSummary:
    started = dt.datetime.fromtimestamp(game.started, dt.UTC).isoformat(timespec="milliseconds")
    players = "+".join(mask_secret(name) for name in game.player.split("+"))
    opponent = game.bot or "bot"  # a serve --bot SPEC game names its bot's spec
    return GameSummary(SERVER, game.id, started, LOCAL_SERVER, "server", players, opponent,
                       SERVER_RESULTS.get(game.outcome, "lost"), game.note or game.outcome,
                       "".join(str(int(c) + 1) for c in game.moves),
                       1 if game.first == "student" else 2)


def _from_rated(line: dict[str, Any], run: str) -> GameSummary | None:
    """A game of a rate run's ``games.jsonl`` (None: a line that is not one)."""
    try:
        number, first = int(line["game"]), bool(line["player_first"])
        columns = [int(c) for c in line.get("opening", [])]
        columns += [int(move["column"]) for move in line["moves"]]
        winner = line["winner"]
        names = (str(line["first"]), str(line["second"]))
    except (KeyError, TypeError, ValueError):
        return None
    side = 0 if first else 1
    result = "draw" if winner is None else "won" if winner == side else "lost"
    detail = str(line.get("reason", ""))
    if line.get("detail"):
        detail += f": {line['detail']}"
    # A game without its time (written by hand) sorts as the oldest.
    started = str(line.get("finished_at") or "1970-01-01T00:00:00+00:00")
    return GameSummary(RATED, number, started, f"rate run {run}",
                       "rated", names[side], names[1 - side], result, detail,
                       "".join(str(c + 1) for c in columns), side + 1,
                       len(line.get("opening", [])))


SAME_GAME_SECONDS = 60.0  # a record's game and a server's with the same moves, started this close


def _once(recorded: list[GameSummary], served: list[GameSummary]) -> list[GameSummary]:
    """The record's games and the server's, a game in both listed once (as the record's, its
    detail naming the server's game)."""
    by_moves: dict[str, list[int]] = {}
    for index, game in enumerate(recorded):
        by_moves.setdefault(game.moves, []).append(index)
    games = list(recorded)
    kept = []
    for game in served:
        started = dt.datetime.fromisoformat(game.started).timestamp()
        twin = next((i for i in by_moves.get(game.moves, ())
                     if abs(dt.datetime.fromisoformat(recorded[i].started).timestamp() - started)
                     <= SAME_GAME_SECONDS), None)
        if twin is None:
            kept.append(game)
        else:
            games[twin] = replace(games[twin], detail=f"{games[twin].detail} (game {game.id} of"
                                                      f" the {LOCAL_SERVER} too)")
    return games + kept


@dataclass(frozen=True)
class GameFiles:
    """Where the games are: the client's record (``record``), and a local server's database
    (``server``, optional).  Neither needs to exist: a missing file has no games.  A file that
    cannot be read as what it should be (another program's database, the two swapped) is a
    ``BadRequest`` naming it."""

    record: Path
    server: Path | None = None
    rated: Path | None = None  # a rate run's folder

    def sources(self) -> list[str]:
        return ([RECORD] + ([SERVER] if self.server is not None else [])
                + ([RATED] if self.rated is not None else []))

    def _rated_games(self) -> list[GameSummary]:
        """The games of the rate run (none without one, or before its first game)."""
        if self.rated is None:
            return []
        run = self.rated.resolve().name
        games = [_from_rated(line, run) for line in read_lines(self.rated / RATED_GAMES)
                 if "game" in line]
        return [game for game in games if game is not None]

    @contextmanager
    def _records(self) -> Iterator[Records | None]:
        """The record opened read-only (None when there is no file)."""
        if not self.record.exists():
            yield None
            return
        try:
            with Records(self.record, read_only=True) as records:
                yield records
        except (RecordError, sqlite3.Error) as exc:
            raise BadRequest(f"the game record {self.record} cannot be read: {exc}.") from None

    @contextmanager
    def _store(self) -> Iterator[GameStore | None]:
        """The local server's database opened read-only (None when there is none)."""
        if self.server is None or not self.server.exists():
            yield None
            return
        try:
            store = GameStore(str(self.server), read_only=True)
        except ConfigError as exc:
            raise BadRequest(f"the local server's database cannot be read: {exc}.") from None
        try:
            yield store
        except sqlite3.Error as exc:
            raise BadRequest(f"the local server's database {self.server} cannot be read:"
                             f" {exc}.") from None
        finally:
            store.close()

    def listing(self, source: str | None = None) -> list[GameSummary]:
        """Every game of ``source`` (None: all sources), newest first.

        A game our client played on the local server is in both the record and the server's
        database: listed together, it is listed once, as the record's game.
        """
        games: list[GameSummary] = []
        if source in (None, RECORD):
            with self._records() as records:
                if records is not None:
                    games += [_from_record(game) for game in records.games()]
        if source in (None, SERVER):
            with self._store() as store:
                if store is not None:
                    served = [_from_server(game) for game in store.games()]
                    games = _once(games, served) if source is None else served
        if source in (None, RATED):
            games += self._rated_games()
        games.sort(key=lambda g: g.started, reverse=True)
        return games

    def game(self, source: str, game_id: int) -> GameSummary:
        """The game ``game_id`` of ``source``; ``BadRequest`` when there is none."""
        if source == SERVER and self.server is None:
            raise BadRequest("no local server database was given to the board (--db).")
        if source == RATED and self.rated is None:
            raise BadRequest("no rate run was given to the board (--rated).")
        found: GameSummary | None = None
        if source == RATED:
            found = next((g for g in self._rated_games() if g.id == game_id), None)
        elif source == RECORD:
            with self._records() as records:
                if records is not None:
                    with suppress(KeyError):  # no such game
                        found = _from_record(records.game(game_id))
        else:
            with self._store() as store:
                stored = store.game(game_id) if store is not None else None
                found = _from_server(stored) if stored is not None else None
        if found is None:
            raise BadRequest(f"there is no game {game_id} in the {source} games.")
        return found


def filtered(games: list[GameSummary], *, server: str | None = None, result: str | None = None,
             since: dt.date | None = None, until: dt.date | None = None) -> list[GameSummary]:
    """The games played on ``server`` (its URL as recorded), with ``result``, started on a day
    from ``since`` to ``until`` (UTC, both included)."""
    kept = []
    for game in games:
        day = dt.datetime.fromisoformat(game.started).date()
        if server is not None and game.server != server:
            continue
        if result is not None and game.result != result:
            continue
        if since is not None and day < since:
            continue
        if until is not None and day > until:
            continue
        kept.append(game)
    return kept


def date(text: str | None, name: str) -> dt.date | None:
    """A day, ``YYYY-MM-DD`` (none given: None)."""
    if text is None or text == "":
        return None
    try:
        return dt.date.fromisoformat(text[:20])
    except ValueError:
        raise BadRequest(f"{name} must be a date written YYYY-MM-DD, not {text[:20]!r}.") from None
