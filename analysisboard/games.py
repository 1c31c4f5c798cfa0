"""The games the review can open: the client's record, a local server's database, and the games
of an ``agent.py rate`` run.

All are opened read-only for each request (nothing on disk is created or changed), and only
these files are ever read: a game is asked for by its source (``record``, ``server`` or
``rated``) and its id (a rated game's number in its run), never by a path.  A rate run's games
are the lines of its ``games.jsonl`` (docs/rate.md).  Each store hands over its games as the one
value (``engine.games.PlayedGame``); the review lists each as a ``ListedGame``: where it is
kept, which side was ours (the record's player; the server's student; a rate run's rated
player), and the game.  Ids (a student's STIL id) are shown masked.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from analysisboard.params import BadRequest
from batch.lines import read_lines
from client.records import RecordedGame, RecordError, Records
from engine.games import PlayedGame
from localserver.store import GameStore, StoredGame
from settings import ConfigError, mask_secret
from vocabulary import Outcome

RECORD, SERVER, RATED = "record", "server", "rated"
SOURCES = (RECORD, SERVER, RATED)
RATED_GAMES = "games.jsonl"  # in a rate run's folder (reporting.rate)
RESULTS = ("won", "draw", "lost", "unfinished")
RESULT_WORDS = {Outcome.WIN: "won", Outcome.DRAW: "draw", Outcome.LOSS: "lost"}
LOCAL_SERVER = "local server database"
# At most this many games are listed (newest first), after the filters.
MAX_LISTED = 500


@dataclass(frozen=True)
class ListedGame:
    """A game as the review lists it: where it is kept (``source`` and its ``id`` there, when
    it ``started`` (ISO 8601, UTC), the ``server`` and ``kind`` of game), which side was ours
    (``our_side`` 0 or 1, None: not known), and the ``game``.  ``status`` says how far an
    unfinished game of the record got; ``also`` where else the game is kept."""

    source: str
    id: int
    started: str
    server: str
    kind: str
    our_side: int | None
    game: PlayedGame
    status: str = ""
    also: str = ""

    @property
    def result(self) -> str:
        """Ours: one of ``RESULTS`` (a game without a result, or whose side is not known, is
        unfinished)."""
        outcome = None if self.our_side is None else self.game.outcome(self.our_side)
        return "unfinished" if outcome is None else RESULT_WORDS[outcome]

    @property
    def detail(self) -> str:
        """How the game ended and what was said of it."""
        game = self.game
        if game.ending is None:
            said = f"{self.status}: {game.detail}" if self.status and game.detail else (
                self.status or game.detail)
            words = f"unfinished ({said})" if said else "unfinished"
        else:
            words = game.ending.words + (f": {game.detail}" if game.detail else "")
        return f"{words} ({self.also})" if self.also else words

    def to_json(self) -> dict[str, Any]:
        game, side = self.game, self.our_side
        names = (game.first, game.second) if side != 1 else (game.second, game.first)
        return {"source": self.source, "id": self.id, "started": self.started,
                "server": self.server, "kind": self.kind, "player": names[0],
                "opponent": names[1], "result": self.result, "detail": self.detail,
                "moves": game.move_string, "plies": len(game.columns),
                "our_side": None if side is None else side + 1, "opening": len(game.opening)}


def _from_record(game: RecordedGame) -> ListedGame:
    status = "" if game.game.over else game.status
    return ListedGame(RECORD, game.id, game.started_at, game.server, game.kind, game.our_side,
                      game.game, status)


def _from_server(stored: StoredGame) -> ListedGame:
    started = dt.datetime.fromtimestamp(stored.started, dt.UTC).isoformat(timespec="milliseconds")
    masked = "+".join(mask_secret(name) for name in stored.player.split("+"))
    game = stored.game
    names = (masked, game.second) if stored.student_first else (game.first, masked)
    return ListedGame(SERVER, stored.id, started, LOCAL_SERVER, "server", stored.student_side,
                      dataclasses.replace(game, first=names[0], second=names[1]))


def _from_rated(line: dict[str, Any], run: str) -> ListedGame | None:
    """A game of a rate run's ``games.jsonl`` (None: a line that is not one)."""
    try:
        number, side = int(line["game"]), 0 if line["player_first"] else 1
        game = PlayedGame.from_dict(line)
    except (KeyError, TypeError, ValueError):
        return None
    # A game without its time (written by hand) sorts as the oldest.
    started = str(line.get("finished_at") or "1970-01-01T00:00:00+00:00")
    return ListedGame(RATED, number, started, f"rate run {run}", "rated", side, game)


SAME_GAME_SECONDS = 60.0  # a record's game and a server's with the same moves, started this close


def _once(recorded: list[ListedGame], served: list[ListedGame]) -> list[ListedGame]:
    """The record's games and the server's, a game in both listed once (as the record's, its
    detail naming the server's game)."""
    by_moves: dict[str, list[int]] = {}
    for index, game in enumerate(recorded):
        by_moves.setdefault(game.game.move_string, []).append(index)
    games = list(recorded)
    kept = []
    for game in served:
        started = dt.datetime.fromisoformat(game.started).timestamp()
        twin = next((i for i in by_moves.get(game.game.move_string, ())
                     if abs(dt.datetime.fromisoformat(recorded[i].started).timestamp() - started)
                     <= SAME_GAME_SECONDS), None)
        if twin is None:
            kept.append(game)
        else:
            games[twin] = replace(games[twin], also=f"game {game.id} of the {LOCAL_SERVER} too")
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

    def _rated_games(self) -> list[ListedGame]:
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

    def listing(self, source: str | None = None) -> list[ListedGame]:
        """Every game of ``source`` (None: all sources), newest first.

        A game our client played on the local server is in both the record and the server's
        database: listed together, it is listed once, as the record's game.
        """
        games: list[ListedGame] = []
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

    def game(self, source: str, game_id: int) -> ListedGame:
        """The game ``game_id`` of ``source``; ``BadRequest`` when there is none."""
        if source == SERVER and self.server is None:
            raise BadRequest("no local server database was given to the board (--db).")
        if source == RATED and self.rated is None:
            raise BadRequest("no rate run was given to the board (--rated).")
        found: ListedGame | None = None
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


def filtered(games: list[ListedGame], *, server: str | None = None, result: str | None = None,
             since: dt.date | None = None, until: dt.date | None = None) -> list[ListedGame]:
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
