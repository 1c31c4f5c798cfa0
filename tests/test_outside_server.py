"""``agent.py serve --bot SPEC`` over loopback HTTP: a skeleton-style client (a real process,
form-encoded POSTs) plays the server whose bot is a ``program:`` engine, and the games are in
the server's database with their bot; a bot that crashes loses its game to the student."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from localserver.bots import SpecBots, bots_of_option
from localserver.service import CourseService
from outside import OutsideSpec
from tests.helpers import gone, new_tag, tagged
from vocabulary import Ending

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "outside"
ENGINE = DATA / "engine.py"
CLIENT = DATA / "skeleton_client.py"
PYTHON = sys.executable


@contextmanager
def served(tmp_path: Path, bot: str, tag: str | None = None) -> Iterator[tuple[str, Path]]:
    """``agent.py serve --bot BOT`` on a free port of 127.0.0.1: its URL and database.  Once
    it stops, every engine it started (found by its ``--tag``, if given) is checked gone."""
    db = tmp_path / "server.sqlite3"
    proc = subprocess.Popen(
        [PYTHON, str(ROOT / "agent.py"), "serve", "--port", "0", "--host", "127.0.0.1",
         "--db", str(db), "--bot", bot, "--first", "random"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = ""
        banner = []
        deadline = time.monotonic() + 120
        while not url and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            banner.append(line)
            if line.startswith("local course server on "):
                url = line.split()[4]
        assert url, f"no banner: {''.join(banner)} {proc.stderr.read() if proc.stderr else ''}"
        proc.stdout.readline()  # the variant's line
        yield url, db
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if tag is not None:
        assert gone(tagged(tag), 20) and not tagged(tag)


def client(url: str, games: int) -> list[str]:
    done = subprocess.run([PYTHON, str(CLIENT), "--server", url, "--games", str(games),
                           "--id", "skeleton-test"], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def stored_games(db: Path) -> list[sqlite3.Row]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute("SELECT * FROM games ORDER BY id").fetchall()
    finally:
        conn.close()


@pytest.mark.slow
def test_a_skeleton_client_plays_a_program_bot_over_http(tmp_path: Path) -> None:
    tag = new_tag()
    spec = f'program:"{PYTHON} {ENGINE} --tag {tag}":0.2'
    with served(tmp_path, spec, tag) as (url, db):
        lines = client(url, 3)
    assert len(lines) == 3
    results = [float(line.split()[1]) for line in lines]
    assert all(result in (1, 0.5, -1) for result in results)
    games = stored_games(db)
    assert len(games) == 3
    assert {game["outcome"] for game in games} <= {"four", "full"}  # the games' endings
    assert all(game["bot"] and game["bot"].startswith("program:") for game in games)
    for line, game in zip(lines, games, strict=True):
        assert line.split()[3] == game["moves"]  # the client's moves are the stored ones
    # the analysis board lists the server's games with their bot as the opponent
    from analysisboard.games import GameFiles

    listed = GameFiles(tmp_path / "no-record.sqlite3", db).listing("server")
    assert len(listed) == 3 and all(game.to_json()["opponent"].startswith("program:")
                                    for game in listed)


@pytest.mark.slow
def test_a_bot_that_crashes_loses_its_game_to_the_student(tmp_path: Path) -> None:
    tag = new_tag()
    spec = f'program:"{PYTHON} {ENGINE} --misbehave crash --tag {tag}":0.2'
    with served(tmp_path, spec, tag) as (url, db):
        lines = client(url, 2)
    games = stored_games(db)
    assert [(game["outcome"], game["result"]) for game in games] == [("crashed", 1.0)] * 2
    assert all("crashed" in game["note"] for game in games)
    assert all(float(line.split()[1]) == 1 for line in lines)


def test_course_bots_keep_their_names_and_a_spec_makes_players(tmp_path: Path) -> None:
    assert bots_of_option(None, seconds=1) is None
    assert bots_of_option("minimax", seconds=1) is None
    assert bots_of_option("random", seconds=1) is None
    bots = bots_of_option(f"connectx:{DATA / 'connectx' / 'good.py'}", seconds=0.3)
    assert isinstance(bots, SpecBots) and bots.describe().startswith("connectx:")
    # in process: the service plays whole games against a ConnectX file, one player per game
    service = CourseService(":memory:", api_key="k", bots=bots, first="bot")
    try:
        reply = service.move(["s1"], -1, "k")
        assert reply["botmove"] == 3  # the file's agent plays the centre
        while reply["result"] == 0:
            free = next(col for col in range(7) if reply["state"][0][col] == 0)
            reply = service.move(["s1"], free, "k")
        game = service.store.recent("s1")[0]
        assert game.bot == bots.describe() and game.game.ending in (Ending.FOUR, Ending.FULL)
    finally:
        service.close()


def test_a_bad_bot_spec_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    import agent

    code = agent.main(["serve", "--bot", "connectx:/no/such/file.py", "--port", "0"])
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("error: ") and "is not a file" in err
    assert err.count("\n") == 1


def test_the_spec_of_a_bot_is_a_player_spec() -> None:
    bots = bots_of_option(f'program:"{PYTHON} {ENGINE}"', seconds=0.5)
    assert bots is not None
    assert bots.describe() == OutsideSpec("program", f"{PYTHON} {ENGINE}", 0.5).label
