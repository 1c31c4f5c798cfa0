"""``serve --bot ladder``: the local server's bot is the ladder's rung nearest the student's
current rating, fitted from the student's games in the server's database (a real SQLite store;
and the real server over loopback HTTP with a skeleton-style client)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ecosystems.players import parse_spec
from localserver.bots import LADDER, bots_of_option, ladder_bots
from localserver.store import GameStore
from rating.ladder import LADDER_FILE, Ladder, Rung, load_ladder
from tests.test_outside_server import client, served, stored_games
from vocabulary import Ending, Outcome

SMALL = Ladder(tuple(Rung(f"bot:{depth}", f"bot:{depth}", 300.0 * depth, 300.0 * depth - 50,
                          300.0 * depth + 50) for depth in range(1, 6)), 40.0, 0.1)


WON, LOST = Outcome.WIN, Outcome.LOSS


def _play(db: Path, student: str, bot: str, outcome: Outcome, *, first: str = "student") -> None:
    """A finished game of ``student`` against ``bot`` in the server's database."""
    store = GameStore(str(db))
    try:
        store.start(student, first == "student", (), bot=bot)
        running = store.running(student)
        assert running is not None
        store.finish(running, running.ended([3], outcome, Ending.RULED, ""))
    finally:
        store.close()


def test_the_rung_follows_the_students_results(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite3"
    GameStore(str(db)).close()
    bots = ladder_bots(str(db), seconds=0.1, ladder=SMALL)
    chosen = bots.for_game("newcomer")
    assert chosen.name == "bot:3"  # no games yet: the middle rung
    bots.game_over(chosen)
    for first in ("student", "bot", "student", "bot"):
        _play(db, "climber", "bot:3", WON, first=first)
    assert bots.for_game("climber").name == "bot:4"  # won everything: a harder rung (900 + 200)
    for first in ("student", "bot", "student", "bot"):
        _play(db, "climber", "bot:4", LOST, first=first)
    # three wins against bot:3, losses against bot:4: a finite rating between them
    assert bots.for_game("climber").name in ("bot:3", "bot:4")
    for _ in range(4):
        _play(db, "faller", "bot:3", LOST)
    assert bots.for_game("faller").name == "bot:2"  # lost everything: an easier rung
    _play(db, "other-bot", "kaggle:negamax", WON)  # not a rung: not counted
    assert bots.for_game("other-bot").name == "bot:3"
    assert "ladder" in bots.describe()


def test_an_in_memory_database_plays_the_middle_rung() -> None:
    # the server's own connection holds its games: another one sees none
    assert ladder_bots(":memory:", seconds=0.1, ladder=SMALL).for_game("anyone").name == "bot:3"


def test_the_option_needs_the_database() -> None:
    with pytest.raises(ValueError, match="database"):
        bots_of_option(LADDER, seconds=0.1)


@pytest.mark.slow
@pytest.mark.skipif(not LADDER_FILE.exists(), reason="no ladder shipped yet")
def test_serve_bot_ladder_over_http(tmp_path: Path) -> None:
    ladder = load_ladder()
    middle = parse_spec(ladder.middle().spec, seconds=0.1).label
    with served(tmp_path, "ladder") as (url, db):
        lines = client(url, 2)
    assert len(lines) == 2
    games = stored_games(db)
    assert len(games) == 2
    assert games[0]["bot"] == middle  # a new student starts at the middle rung
    labels = {parse_spec(rung.spec, seconds=0.1).label for rung in ladder.rungs}
    assert games[1]["bot"] in labels
