"""The client against the local emulation of the course server (its real bot, bookkeeping and HTTP
app on 127.0.0.1), in process, and through ``agent.py``'s commands."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import agent
from board import Board
from client.game import EngineMoveError
from client.localgame import LocalGameError, play_local_game
from client.online import run_online
from client.records import ONLINE, RecordBusy, Records
from course.errors import ClientError
from course.ids import player_key
from engine import Decision, Engine
from gym_connect_four import ConnectFourEnv
from localserver.inprocess import InProcessCourseServer
from localserver.service import CourseService
from settings import UsageError
from tests.helpers import assert_option_refused, course_client
from timecontrol import Limit
from vocabulary import Ending

IDS = ("te-1234", "st-5678")
KEY = "nyckel"
BUDGET = 0.03
ENGINE_SETTINGS = {"seconds_per_move": BUDGET, "table_bits": 16, "min_depth": 3}  # conftest's engine


def assert_record_matches_server(records: Records, service: CourseService) -> None:
    """Every recorded game has the server's moves and result."""
    ours = {g.game.columns: (g.result, g.game.ending) for g in records.games(ONLINE)}
    theirs = {g.game.columns: (g.result, g.game.ending)
              for g in service.store.recent(player_key(IDS), 50)}
    assert ours == theirs


@pytest.mark.slow
@pytest.mark.parametrize("first", ["student", "bot"])
def test_whole_games_against_the_local_server(course_server, engine, tmp_path, first):
    with course_server(first=first, seed=7) as server, Records(tmp_path / "r.sqlite3") as records:
        result = run_online(course_client(server.url, IDS, KEY), engine, records, IDS, budget=BUDGET, games=2,
                            out=lambda line: None)
        assert all(o.we_started == (first == "student") for o in result.outcomes)
        stats = server.service.stats(list(IDS), KEY)
        assert stats["played"] == len(result.outcomes)
        assert result.streak == stats["streak"]
        assert_record_matches_server(records, server.service)
        # What the server said of each game's end is kept with it.
        for outcome in result.outcomes:
            assert outcome.game_id is not None
            note = records.game(outcome.game_id).game.detail
            assert note.startswith("server: ") and ("won" in note or "Draw" in note), note


def test_a_game_in_process(engine, tmp_path):
    service = CourseService(":memory:", api_key=KEY, first="bot", rng=random.Random(3), time_limit=0)
    server = InProcessCourseServer(service, IDS, KEY)
    with Records(tmp_path / "r.sqlite3") as records:
        result = run_online(server, engine, records, IDS, budget=BUDGET, out=lambda line: None)
        assert len(result.outcomes) == 1 and not result.outcomes[0].we_started
        assert_record_matches_server(records, service)
    assert server.stats().played == 1


class InterruptedEngine:
    """Our engine, but the user presses Ctrl-C while it thinks about its ``stop_at``-th move."""

    def __init__(self, engine: Engine, stop_at: int) -> None:
        self.engine = engine
        self.stop_at = stop_at
        self.calls = 0

    def new_game(self) -> None:
        self.engine.new_game()

    def decide(self, board: Board, limit: Limit) -> Decision:
        self.calls += 1
        if self.calls == self.stop_at:
            raise KeyboardInterrupt
        return self.engine.decide(board, limit)


def test_an_interrupted_run_is_resumed_by_the_next_one(course_server, engine, tmp_path):
    lines: list[str] = []
    with course_server(first="bot", seed=11) as server, Records(tmp_path / "r.sqlite3") as records:
        client = course_client(server.url, IDS, KEY)
        with pytest.raises(KeyboardInterrupt):
            run_online(client, InterruptedEngine(engine, 3), records, IDS, budget=BUDGET,
                       out=lines.append)
        assert any("the next `online` run resumes it" in line for line in lines)
        running = records.unfinished(ONLINE, client.name, IDS)
        assert running is not None and len(running.game.columns) == 5  # bot, us, bot, us, bot
        result = run_online(client, engine, records, IDS, budget=BUDGET, out=lines.append)
        assert result.outcomes[0].resumed and result.outcomes[0].game_id == running.id
        assert any(line.startswith(f"resuming game #{running.id}") for line in lines)
        assert not any(line.startswith("warning:") for line in lines)  # resumed at once
        # One game on the server, finished normally: nothing was forfeited with -1.
        games = server.service.store.recent(player_key(IDS), 10)
        assert len(games) == 1 and games[0].game.ending in (Ending.FOUR, Ending.FULL)
        assert_record_matches_server(records, server.service)


# --- through agent.py ------------------------------------------------------------------------


def write_config(tmp_path: Path, key: str = KEY, ids: tuple[str, ...] = IDS) -> Path:
    path = tmp_path / "config.toml"
    id_list = ", ".join(f'"{i}"' for i in ids)
    path.write_text(
        f'[server]\nstil_ids = [{id_list}]\napi_key = "{key}"\nretries = 0\n'
        f"[agent]\nseconds_per_move = {BUDGET}\ntable_bits = 16\nmin_depth = 3\n"
        'mode = "course"\n'
        '[record]\npath = "rec/games.sqlite3"\n'
    )
    return path


def run_agent(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = agent.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.slow
def test_online_and_stats_commands(course_server, tmp_path, capsys):
    config = str(write_config(tmp_path))
    with course_server(seed=5) as server:
        code, out, err = run_agent(capsys, "-o", "--config", config, "--server", server.url,
                                   "--games", "2")
        assert code in (0, 1), err
        assert "summary:" in out and "slowest move:" in out and "current streak" in out
        assert (tmp_path / "rec" / "games.sqlite3").exists()  # next to the config file
        code, stats_out, err = run_agent(capsys, "-s", "--config", config, "--server", server.url)
        assert code == 0, err
        played = server.service.stats(list(IDS), KEY)["played"]
        assert f"played        {played}" in stats_out
        for text in (out, err, stats_out):
            assert all(i not in text for i in IDS) and KEY not in text
        assert "st*****+te*****" in stats_out  # sorted, as the server stores a group


@pytest.mark.slow
def test_a_closed_stdout_finishes_the_running_game_and_exits_1(course_server, tmp_path):
    """``agent.py online | head``: the reader goes away mid-game; the game is still played out."""
    config = str(write_config(tmp_path))
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDAP01_")}
    env["PYTHONUNBUFFERED"] = "1"  # every line reaches the pipe at once, as on a terminal
    with course_server(first="student", seed=3) as server:
        proc = subprocess.Popen(
            [sys.executable, "agent.py", "online", "--config", config, "--server", server.url,
             "--games", "3"], cwd=Path(agent.__file__).parent, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        for line in proc.stdout:
            if " we play " in line:
                break  # mid-game: our first move was printed, the bot's reply is next
        proc.stdout.close()
        code = proc.wait(timeout=120)
        err = proc.stderr.read()
        assert code == 1, err
        assert err.startswith("output went away") and err.count("\n") == 1
        # One game, finished on the server (not abandoned, not left to run out of time).
        games = server.service.store.recent(player_key(IDS), 10)
        assert len(games) == 1 and games[0].game.ending in (Ending.FOUR, Ending.FULL)
        with Records(tmp_path / "rec" / "games.sqlite3") as records:
            (game,) = records.games(ONLINE)
            assert game.status == "finished" and f"game #{game.id} was played to its end" in err
            assert_record_matches_server(records, server.service)


@pytest.mark.slow
def test_online_time_sets_the_budget_for_the_run(course_server, tmp_path, capsys):
    config = str(write_config(tmp_path))  # 0.03 s per move in the file
    with course_server(first="student", seed=5) as server:
        code, out, err = run_agent(capsys, "online", "--config", config, "--server", server.url,
                                   "--time", "0.3")
    assert code in (0, 1), err
    assert "course mode, 0.3 s per move" in out.splitlines()[0]
    with Records(tmp_path / "rec" / "games.sqlite3") as records:
        (game,) = records.games(ONLINE)
    thought = [m.seconds for m in game.game.moves if m.side == game.our_side and m.seconds is not None]
    assert thought and max(thought) <= 0.3 + 0.15 and max(thought) > 0.1


def test_online_time_is_capped_below_the_servers_limit(tmp_path, capsys):
    with socket.socket() as probe:  # a port nothing listens on: no game is played
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/"
    config = str(write_config(tmp_path))  # safety_margin: the default 1 s
    code, out, err = run_agent(capsys, "online", "--config", config, "--server", url,
                               "--time", "9")
    assert "course mode, 4 s per move" in out and "9 s" not in out
    assert code == 2 and "cannot reach the server" in err


def test_command_errors_are_one_clean_line(course_server, tmp_path, capsys):
    placeholder = tmp_path / "placeholder"
    placeholder.mkdir()
    config = write_config(placeholder, ids=("your-stil-id",))
    code, out, err = run_agent(capsys, "online", "--config", str(config))
    assert code == 2 and err.startswith("error: ") and "placeholder" in err
    assert err.count("\n") == 1 and out == ""
    with course_server() as server:
        config = write_config(tmp_path, key="wrong-key")
        code, _, err = run_agent(capsys, "stats", "--config", str(config), "--server", server.url)
        assert code == 2 and "error: wrong API key" in err and "wrong-key" not in err
        code, _, err = run_agent(capsys, "online", "--config", str(config), "--server", "ftp://x")
        assert code == 2 and "--server: 'ftp://x' is not an http" in err
        for url, said in (("http://127.0.0.1:99999/", "Port out of range"),
                          ("http://[::1/", "not a valid URL")):
            code, _, err = run_agent(capsys, "online", "--config", str(config), "--server", url)
            assert code == 2 and err.startswith("error: --server: ") and said in err
            assert err.count("\n") == 1
        assert not (tmp_path / "rec").exists()  # nothing recorded: nothing was sent
    code, _, err = run_agent(capsys, "online", "--config", str(config), "--server", server.url)
    assert code == 2 and "error: cannot reach the server" in err
    code, _, err = run_agent(capsys, "online", "--config", str(config), "--games", "0")
    assert code == 2
    assert_option_refused(err, "online", "--games", "must be at least 1, not 0")


@pytest.mark.parametrize(("server", "agent_text", "message"), [
    ('stil_ids = ["ok-1", "has space"]', "",
     r"server.stil_ids[1] (ha*******): only letters, digits, '_' and '-'"),
    (f'stil_ids = ["{"a" * 51}"]', "", "an id may not be longer than 50 characters"),
    ('stil_ids = ["ok-1"]', "safety_margin = 5",
     "config.toml: agent.safety_margin: must be less than 5 seconds, the course server's limit"
     " per move"),
])
def test_ids_and_the_margin_are_checked_before_anything_is_sent(tmp_path, capsys, server,
                                                                agent_text, message):
    config = tmp_path / "config.toml"
    config.write_text(f'[server]\nurl = "http://127.0.0.1:1/"\n{server}\napi_key = "k"\n'
                      f"[agent]\n{agent_text}\n")
    code, _, err = run_agent(capsys, "online", "--config", str(config))
    assert code == 2 and err.count("\n") == 1 and message in err, err
    assert "has space" not in err


def test_local_command_with_the_configured_engine(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text('[agent]\nseconds_per_move = 0.05\ntable_bits = 16\n'
                      '[record]\npath = "games.sqlite3"\n')
    code, out, err = run_agent(capsys, "local", "--config", str(config), "--first", "me",
                               "--mode", "strongest")
    assert code == 0, err
    # The book and the solver of [solver] are in use: the first move comes from the book.
    first_move = next(line for line in out.splitlines() if line.startswith("  1. we play"))
    # The centre, column 4 as people count (as in move strings).
    assert first_move.startswith("  1. we play 4 ") and first_move.endswith("(book, strongest mode)")
    # In course mode (the default) the search decides, and the record says so.
    code, out, err = run_agent(capsys, "local", "--config", str(config), "--first", "me")
    assert code == 0, err
    first_move = next(line for line in out.splitlines() if line.startswith("  1. we play"))
    assert first_move.endswith("(search, course mode)")
    with Records(tmp_path / "games.sqlite3") as records:
        newest, older = records.games("local")[:2]
    assert {m.mode for m in newest.game.moves if m.side == newest.our_side} == {"course"}
    assert {m.mode for m in older.game.moves if m.side == older.our_side} == {"strongest"}


def test_local_command_plays_in_the_course_environment(tmp_path, capsys):
    config = str(write_config(tmp_path))
    code, out, err = run_agent(capsys, "-l", "--config", config, "--games", "2", "--first", "them",
                               "--opponent", "bot:1", "--time", "0.02")
    assert code == 0, err
    assert out.count("bot:1 starts") == 2
    assert "summary: 2 games against bot:1" in out
    with Records(tmp_path / "rec" / "games.sqlite3") as records:
        games = records.games("local")
    assert len(games) == 2 and all(g.our_side == 1 and g.game.first == "bot:1"
                                   and g.result is not None for g in games)
    code, _, err = run_agent(capsys, "local", "--config", config, "--opponent", "alphago")
    assert code == 2 and "error: unknown player 'alphago'" in err


def test_two_online_runs_on_one_record_cannot_run_at_once(course_server, engine, tmp_path, capsys):
    config = write_config(tmp_path)
    with course_server() as server:
        with Records(tmp_path / "rec" / "games.sqlite3") as holder, holder.exclusive():
            # Another run (here: this test) holds the record: the command stops before sending.
            code, _, err = run_agent(capsys, "online", "--config", str(config), "--server",
                                     server.url)
            assert code == 2 and err.count("\n") == 1
            assert err.startswith("error: another `agent.py online` is using the record")
            with Records(holder.path) as second, pytest.raises(RecordBusy):
                run_online(course_client(server.url, IDS, KEY), engine, second, IDS, budget=BUDGET)
            assert server.service is not None
            assert server.service.store.recent(player_key(IDS)) == []
        # Released: the next run plays.
        code, _, err = run_agent(capsys, "online", "--config", str(config), "--server", server.url)
        assert code in (0, 1), err


def test_internal_errors_are_not_reported_as_user_errors():
    # A bug in the engine or the environment ends with its traceback, not a one-line "error:".
    for internal in (LocalGameError, EngineMoveError):
        assert not issubclass(internal, (UsageError, ClientError))


class InterruptingOpponent:
    """An opponent at whose ``at``-th move the user presses Ctrl-C."""

    name = "interrupter"

    def __init__(self, at: int) -> None:
        self.at = at
        self.calls = 0

    def new_game(self) -> None:
        self.calls = 0

    def choose(self, board: Board) -> int:
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return board.legal_moves()[0]


def test_an_interrupted_local_game_is_recorded_as_abandoned(engine, tmp_path):
    with Records(tmp_path / "r.sqlite3") as records:
        with pytest.raises(KeyboardInterrupt):
            play_local_game(ConnectFourEnv(), engine, InterruptingOpponent(2), we_start=False,
                            seconds=BUDGET, records=records, out=lambda line: None)
        game = records.games("local")[0]
    assert game.status == "abandoned" and game.game.detail == "interrupted"
    assert game.game.ending is Ending.ABANDONED and game.game.winner == 0  # the opponent's
    assert game.we_started is False and len(game.game.columns) == 2  # theirs, ours
