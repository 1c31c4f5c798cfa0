"""Whole games against each version of the course server the local server can be (its
``variant`` and switches), over real HTTP on 127.0.0.1, through ``run_online`` and ``agent.py``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests

import agent
from client.online import run_online
from client.records import ONLINE, Records
from course.protocol import WIN
from engine import Engine
from localserver.background import LocalCourseServer
from tests.helpers import course_client
from vocabulary import ExitStatus

IDS = ("va-1234",)
KEY = "nyckel"
BUDGET = 0.1
# conftest's engine: the heuristic search alone (the course's algorithm), enough to beat a
# depth-3 bot.
ENGINE_SETTINGS = {"seconds_per_move": BUDGET, "table_bits": 18, "min_depth": 5}


def quiet(line: str) -> None:
    pass


@pytest.mark.parametrize(("options", "games"), [
    ({"variant": "current", "first": "student"}, 2),
    ({"variant": "current", "first": "bot"}, 2),
    ({"variant": "2021"}, 4),
])
@pytest.mark.slow
def test_whole_games_against_each_variant_are_never_lost(
        course_server: Callable[..., LocalCourseServer], engine: Engine, tmp_path: Path,
        options: dict[str, Any], games: int) -> None:
    with course_server(seed=11, **options) as server, Records(tmp_path / "r.sqlite3") as records:
        run = run_online(course_client(server.url, IDS, KEY), engine, records, IDS, budget=BUDGET,
                         games=games, out=quiet)
        recorded = records.games(ONLINE)
    assert len(run.outcomes) == games and not run.stopped_by_loss
    assert all(o.result >= 0 for o in run.outcomes)
    if options["variant"] == "2021":  # its bot plays at random: every game is won
        assert all(o.result == WIN for o in run.outcomes)
        assert all(o.we_started for o in run.outcomes)
    assert all(g.status == "finished" and g.result == o.result
               for g, o in zip(reversed(recorded), run.outcomes, strict=True))


@pytest.mark.slow
def test_the_2021_server_has_no_stats_and_the_streak_is_counted_from_the_record(
        course_server: Callable[..., LocalCourseServer], engine: Engine, tmp_path: Path) -> None:
    lines: list[str] = []
    with course_server(variant="2021", seed=5) as server, \
            Records(tmp_path / "r.sqlite3") as records:
        assert requests.post(server.url + "stats", data={"stil_id": IDS, "api_key": KEY},
                             timeout=10).status_code == 404
        run = run_online(course_client(server.url, IDS, KEY), engine, records, IDS, budget=BUDGET, games=None,
                         until_streak=3, out=lines.append)
    assert [o.result for o in run.outcomes] == [WIN] * 3
    assert run.streak == 3 and run.streak_from_record and not run.streak_stalled
    assert any("has no stats endpoint" in line for line in lines)
    assert any("the server's own count may differ" in line for line in lines)
    assert [line for line in lines if " of 3" in line] == [
        f"our record's streak is {n} of 3" for n in (1, 2, 3)]
    assert lines[-1] == "current streak: 3 by our record (the server keeps no stats)"


@pytest.mark.slow
def test_a_server_whose_streak_never_grows_stops_the_run_with_the_reason(
        course_server: Callable[..., LocalCourseServer], engine: Engine, tmp_path: Path) -> None:
    lines: list[str] = []
    with course_server(first="student", bot="random", every_start_lost=True, seed=5) as server, \
            Records(tmp_path / "r.sqlite3") as records:
        run = run_online(course_client(server.url, IDS, KEY), engine, records, IDS, budget=BUDGET, games=None,
                         until_streak=5, out=lines.append)
        stats = server.service.stats(list(IDS), KEY) if server.service else {}
    # Each game was won, yet the server booked each -1 as a loss: 0 -> 1 after the first game,
    # 1 -> 1 after the second, never 5.
    assert [o.result for o in run.outcomes] == [WIN, WIN]
    assert run.streak_stalled and not run.stopped_by_loss
    assert stats["lost"] == 2 and stats["won"] == 2 and stats["streak"] == 1
    assert any(line.startswith("stopping: the server's streak did not grow after game #2") and
               "(it was 1, it is 1)" in line for line in lines)


@pytest.mark.slow
def test_online_command_exits_3_when_the_streak_cannot_grow(
        course_server: Callable[..., LocalCourseServer], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '[server]\nstil_ids = ["va-1234"]\napi_key = "nyckel"\n'
        '[agent]\nseconds_per_move = 0.1\ntable_bits = 18\nmode = "course"\n'
        f'[record]\npath = "{tmp_path / "games.sqlite3"}"\n')
    with course_server(first="student", bot="random", every_start_lost=True, seed=2) as server:
        code = agent.main(["online", "--config", str(config), "--server", server.url,
                           "--until-streak", "4"])
    out = capsys.readouterr().out
    assert code == ExitStatus.STREAK_STALLED
    assert "the goal cannot be reached by playing on" in out


def test_stats_command_says_the_server_has_none(
        course_server: Callable[..., LocalCourseServer], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[server]\nstil_ids = ["va-1234"]\napi_key = "nyckel"\n')
    with course_server(variant="2021") as server:
        code = agent.main(["stats", "--config", str(config), "--server", server.url])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"error: the server at {server.url} has no stats endpoint (HTTP 404")
