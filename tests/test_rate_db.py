"""``agent.py rate --db FILE --student ID`` from a local server's database made by real games over
loopback HTTP, and ``report --player`` about a player that is not ours."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from agent import main
from board import Board
from localserver.background import LocalCourseServer
from rating.ladder import Ladder, Rung, save_ladder
from tests.test_localserver_http import move, play_game

STUDENT = "ab1234cd-s"


def ladder_with_bot3(path: Path) -> Path:
    rungs = tuple(Rung(name, name, rating, rating - 40, rating + 40)
                  for name, rating in (("random", 0.0), ("bot:1", 300.0), ("bot:3", 700.0)))
    return save_ladder(Ladder(rungs, 30.0, 0.1), path)


def illegal_move(url: str, rng: random.Random) -> int:
    """Games of random moves until, in one, a column is full while the game runs: the student
    plays it (the server books the game as lost by an illegal move).  The games played."""
    for games in range(1, 30):
        reply = move(url, [STUDENT], -1)
        board = Board() if reply["botmove"] < 0 else Board().play(reply["botmove"])
        while reply["result"] == 0:
            full = [c for c in range(7) if not board.can_play(c)]
            if full:
                assert move(url, [STUDENT], full[0])["result"] < 0
                return games
            col = rng.choice(board.legal_moves())
            reply = move(url, [STUDENT], col)
            board = board.play(col)
            if reply["botmove"] >= 0:
                board = board.play(reply["botmove"])
    raise AssertionError("no column filled in 30 games")


@pytest.fixture(scope="module")
def server_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """Four games of random moves, then more until one is lost by an illegal move, against the local server's
    course bot (minimax at depth 3), and one game of another student."""
    db = tmp_path_factory.mktemp("server") / "local-server.sqlite3"
    rng = random.Random(4)
    with LocalCourseServer(str(db), seed=3, time_limit=0) as server:
        for _ in range(4):
            play_game(server.url, [STUDENT], rng)
        games = 4 + illegal_move(server.url, rng)
        play_game(server.url, ["zz9999zz-s"], rng)
    return db, games


@pytest.mark.slow
def test_rate_db_rates_the_students_games_against_rungs(
        server_db: tuple[Path, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, games = server_db
    ladder = ladder_with_bot3(tmp_path / "ladder.json")
    out = tmp_path / "rated"
    # The server's games record no rung yet (the course's bot of some depth): none counts.
    assert main(["rate", "--db", str(db), "--student", STUDENT, "--out", str(out),
                 "--ladder", str(ladder), "--workers", "1"]) == 2
    assert "no finished game" in capsys.readouterr().err
    # What `serve --bot bot:3` records of each game: the bot's spec.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET bot = 'bot:3'")
    assert main(["rate", "--db", str(db), "--student", STUDENT, "--out", str(out),
                 "--ladder", str(ladder), "--workers", "1"]) == 0
    report: dict[str, Any] = json.loads((out / "rate.json").read_text())
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT moves, first, outcome FROM games WHERE player = ?",
                            (STUDENT,)).fetchall()
    assert report["games"] == len(rows) == games
    assert [o["rung"] for o in report["opponents"]] == ["bot:3"]
    assert report["opponents"][0]["games"] == games
    assert [f["kind"] for f in report["faults"]] == ["illegal"]
    # Every move of the student judged: as many as the student's discs in the stored games.
    students = sum((len(m) + (f == "student")) // 2 for m, f, _ in rows)
    assert report["accuracy"]["moves"] == students
    assert report["time"] is None  # the server records no time per move
    text = (out / "rate.md").read_text()
    assert STUDENT not in text and "ab*" in text  # the id is masked
    assert all("?review=server:" in w["link"] for w in report["worst_moves"])
    assert "agent.py board --db" in text


def test_rate_needs_a_player_or_a_database(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rate"]) == 2
    assert "name the PLAYER" in capsys.readouterr().err
    assert main(["rate", "--db", "nowhere.sqlite3"]) == 2
    assert "--student" in capsys.readouterr().err
    assert main(["rate", "random", "--student", "x"]) == 2
    assert "--student goes with --db" in capsys.readouterr().err


@pytest.mark.slow
def test_report_about_a_player_that_is_not_ours(tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert main(["report", "--out", str(out), "--player", "bot:2", "--games", "2", "--quick",
                 "--opponents", "random", "--seed", "3"]) == 0
    text = (out / "report.md").read_text()
    assert text.startswith("# `bot:2`: measurements for the report")
    assert "| `random` | 2 |" in text
    assert text.count("Not available for this player") == 3  # depth, depth and speed, evaluations
    assert "The player's" in text and (out / "correctness.png").is_file()
    assert (out / "time_per_move.png").is_file()
    assert not (out / "depth_vs_budget.png").exists()


@pytest.mark.slow
def test_rate_db_of_a_skeleton_client_against_serve_bot(tmp_path: Path) -> None:
    """`agent.py serve --bot bot:1` (a real process) records its bot per game; the course's
    skeleton-style client plays it over HTTP; `rate --db` rates the client against that rung."""
    from tests.test_outside_server import client, served, stored_games

    with served(tmp_path, "bot:1") as (url, db):
        assert len(client(url, 4)) == 4
    assert [game["bot"] for game in stored_games(db)] == ["bot:1"] * 4
    ladder = ladder_with_bot3(tmp_path / "ladder.json")
    out = tmp_path / "rated"
    assert main(["rate", "--db", str(db), "--student", "skeleton-test", "--out", str(out),
                 "--ladder", str(ladder), "--workers", "1"]) == 0
    report = json.loads((out / "rate.json").read_text())
    assert report["games"] == 4
    assert [(o["rung"], o["games"]) for o in report["opponents"]] == [("bot:1", 4)]
