"""The games the review lists: a game our client played on the local server is in the record
and in the server's database, and the review lists it once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from analysisboard.games import RECORD, SERVER, GameFiles
from client.online import run_online
from client.records import Records
from engine import Engine
from tests.helpers import course_client

IDS = ("bo-1234",)
KEY = "nyckel"
BUDGET = 0.03
ENGINE_SETTINGS = {"seconds_per_move": BUDGET, "table_bits": 16, "min_depth": 3}  # conftest's engine


def test_a_game_in_the_record_and_the_servers_database_is_listed_once(
        course_server: Callable[..., Any], engine: Engine, tmp_path: Path) -> None:
    record, database = tmp_path / "games.sqlite3", tmp_path / "server.sqlite3"
    with course_server(db=str(database), seed=3) as server, Records(record) as records:
        run = run_online(course_client(server.url, IDS, KEY), engine, records, IDS,
                         budget=BUDGET, games=2, out=lambda line: None)
    files = GameFiles(record, database)
    assert len(files.listing(RECORD)) == 2 and len(files.listing(SERVER)) == 2
    listed = files.listing()
    assert [game.source for game in listed] == [RECORD, RECORD]
    assert sorted(game.id for game in listed) == sorted(o.game_id or 0 for o in run.outcomes)
    assert all("of the local server database too" in game.detail for game in listed)
    # A server game the client did not play (not in the record) is still listed.
    assert len(GameFiles(tmp_path / "none.sqlite3", database).listing()) == 2
