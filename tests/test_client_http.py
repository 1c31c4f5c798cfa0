"""The HTTP client and the game loop against a scripted course server on 127.0.0.1 that injects faults.

``ScriptedCourse`` plays real games (a random bot, the course's rules) over ``http.server`` and
can be told to answer the n-th request with a fault: a dropped connection, HTTP 422 or 500, a
wrong-key reply, a body that is not JSON, a null or wrong board, an impossible-move or late
verdict, a slow reply, a redirect.  The local emulation (``tests/test_client_localserver.py``)
covers whole games against the real bot.
"""

from __future__ import annotations

import json
import random
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import pytest

from board import Board
from client.cli import run_online
from client.game import Mirror, resume_problem
from client.http import HttpCourseServer
from client.protocol import (
    ConnectionLost,
    Desync,
    MalformedReply,
    RequestRejected,
    ResumeUnsafe,
    ServerFailed,
    ServerRefused,
    ServerUnreachable,
    WrongApiKey,
)
from client.records import ONLINE, Records
from engine import Engine
from settings import AgentSettings, ServerSettings

KEY = "course-key"
IDS = ("ab-1111", "cd-2222")
BUDGET = 0.02


class ScriptedCourse:
    """The course server's game logic with a random bot, and faults by request number."""

    def __init__(self, first: str = "student", seed: int = 0, null_states: bool = False) -> None:
        self.first = first
        self.rng = random.Random(seed)
        self.null_states = null_states
        self.faults: dict[int, str] = {}
        self.forms: list[dict[str, list[str]]] = []
        self.board: Board | None = None  # None: no game running
        self.we_started = True
        self.lock = threading.Lock()

    # the game

    def grid(self) -> list[list[int]]:
        assert self.board is not None
        return [list(map(int, r)) for r in Mirror(self.board, self.we_started).grid()]

    def _reply(self, result: float, botmove: int, *, status: bool = True, msg: str = "") -> dict[str, Any]:
        state = None if self.null_states else self.grid()
        return {"status": status, "msg": msg, "result": result, "botmove": botmove, "state": state}

    def _ended(self) -> bool:
        assert self.board is not None
        return self.board.is_full() or self.board.last_mover_won()

    def new_game(self) -> dict[str, Any]:
        self.we_started = self.first == "student"
        self.board = Board()
        botmove = -1
        if not self.we_started:
            botmove = self.rng.choice(self.board.legal_moves())
            self.board = self.board.play(botmove)
        return self._reply(0, botmove, msg="New game.")

    def play(self, column: int) -> dict[str, Any]:
        assert self.board is not None
        self.board = self.board.play(column)
        if self._ended():
            result = 0.5 if self.board.is_full() else 1
            reply = self._reply(result, -1, msg="Game over.")
            self.board = None
            return reply
        botmove = self.rng.choice(self.board.legal_moves())
        self.board = self.board.play(botmove)
        if self._ended():
            reply = self._reply(0.5 if self.board.is_full() else -1, botmove, msg="Game over.")
            self.board = None
            return reply
        return self._reply(0, botmove, msg=f"The bot played {botmove}.")

    # one request: (status code, body or None to drop the connection, extra headers)

    def handle(self, path: str, form: dict[str, list[str]]) -> tuple[int, bytes | None, dict[str, str]]:
        with self.lock:
            index = len(self.forms)
            self.forms.append(form)
            fault = self.faults.get(index)
            if fault == "slow":
                time.sleep(1.0)
            if fault in ("drop-unplayed", "drop"):
                if fault == "drop":
                    self._dispatch(path, form)  # the server got the move, the reply is lost
                return 0, None, {}
            if fault == "500":
                return 500, b"Internal Server Error", {}
            if fault == "422":
                detail = {"detail": [{"loc": ["body", "move"], "input": form.get("move"),
                                      "msg": "bad", "key": form.get("api_key")}]}
                return 422, json.dumps(detail).encode(), {}
            if fault == "redirect":
                return 301, b"", {"Location": "https://elsewhere.example/"}
            if fault == "badkey" or form.get("api_key") != [KEY]:
                return 200, json.dumps({"status": False, "msg": "Incorrect API key.", "result": 0,
                                        "botmove": -1, "state": None}).encode(), {}
            if fault == "impossible":
                self.board = None
                return 200, json.dumps({"status": False, "msg": "Impossible move.", "result": -10,
                                        "botmove": -1, "state": None}).encode(), {}
            if fault == "late":
                self.board = None
                return 200, json.dumps({"status": False, "msg": "Time limit exceeded.",
                                        "result": -1, "botmove": -1, "state": None}).encode(), {}
            if fault == "nogame":
                return 200, json.dumps({"status": False, "msg": "No game is running.",
                                        "result": 0, "botmove": -1, "state": None}).encode(), {}
            body = self._dispatch(path, form)
            if fault == "notjson":
                return 200, b"<html>Bad Gateway</html>", {}
            if fault == "desync" and body.get("state"):
                state: list[list[int]] = body["state"]
                state[0][0] = -1  # a disc that cannot be there
            return 200, json.dumps(body).encode(), {}

    def _dispatch(self, path: str, form: dict[str, list[str]]) -> dict[str, Any]:
        if path.endswith("/stats"):
            return {"msg": None, "status": None, "stil_id": "+".join(sorted(form["stil_id"])),
                    "played": 3, "won": 2, "lost": 1, "streak": 1, "streak_max": 2,
                    "total_reward": 1.0}
        move = int(form["move"][0])
        return self.new_game() if move == -1 else self.play(move)

    def moves_sent(self) -> list[int]:
        return [int(f["move"][0]) for f in self.forms if "move" in f]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the real server: the session reuses it
    course: ScriptedCourse

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        form = parse_qs(self.rfile.read(length).decode())
        code, body, headers = self.course.handle(self.path, form)
        if body is None:
            self.close_connection = True  # no reply at all: the client sees the connection drop
            return
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def scripted() -> Iterator[tuple[ScriptedCourse, str]]:
    """A fresh scripted course and its base URL; ``course.first`` etc. may be changed before use."""
    course = ScriptedCourse()
    handler = type("BoundHandler", (Handler,), {"course": course})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield course, f"http://127.0.0.1:{httpd.server_address[1]}/api/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def engine() -> Engine:
    # Search only: the client's tests need moves, not the book's or the solver's memory.
    engine = Engine(AgentSettings(seconds_per_move=BUDGET, table_bits=14, min_depth=2,
                                  use_book=False, use_solver=False))
    engine.warm_up()
    return engine


def client_for(url: str, **overrides: Any) -> HttpCourseServer:
    settings = ServerSettings(url=url, stil_ids=IDS, api_key=KEY, read_timeout=5.0)
    return HttpCourseServer(replace(settings, **overrides), sleep=lambda s: None)


def run(url: str, engine: Engine, records: Records, lines: list[str], **options: Any):
    server = options.pop("server", None) or client_for(url)
    return run_online(server, engine, records, IDS, budget=BUDGET, out=lines.append, **options)


# --- requests ---------------------------------------------------------------------------------


def test_the_form_carries_every_id_the_move_and_the_key(scripted):
    course, url = scripted
    client = client_for(url)
    client.start_game()
    client.play(3)
    assert course.forms[0] == {"stil_id": list(IDS), "move": ["-1"], "api_key": [KEY]}
    assert course.forms[1]["move"] == ["3"]
    assert client.stats().won == 2
    assert "move" not in course.forms[2]


def test_an_unreachable_server_is_retried_then_reported(tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    pauses: list[float] = []
    settings = ServerSettings(url=f"http://127.0.0.1:{port}/", stil_ids=IDS, api_key=KEY, retries=2)
    client = HttpCourseServer(settings, sleep=pauses.append)
    with pytest.raises(ServerUnreachable, match=r"cannot reach .* \(3 tries\)") as info:
        client.start_game()
    assert pauses == [0.2, 0.4]
    assert not info.value.in_doubt


@pytest.mark.parametrize(
    ("fault", "error", "message"),
    [
        ("500", ServerFailed, "HTTP 500"),
        ("422", RequestRejected, "HTTP 422"),
        ("redirect", RequestRejected, "redirects .* to https://elsewhere.example/"),
        ("badkey", WrongApiKey, "wrong API key"),
        ("notjson", MalformedReply, "not JSON"),
        ("drop", ConnectionLost, "may or may not have received it"),
        ("nogame", ServerRefused, "No game is running"),
    ],
)
def test_every_error_reply_is_a_typed_error(scripted, fault, error, message):
    course, url = scripted
    course.faults[0] = fault
    with pytest.raises(error, match=message):
        client_for(url).start_game()


def test_an_error_body_never_shows_the_key(scripted):
    course, url = scripted
    course.faults[0] = "422"
    with pytest.raises(RequestRejected) as info:
        client_for(url).start_game()
    assert KEY not in str(info.value) and "co********" in str(info.value)


def test_a_slow_reply_is_a_lost_connection_and_is_not_resent(scripted):
    course, url = scripted
    course.faults[0] = "slow"
    with pytest.raises(ConnectionLost):
        client_for(url, read_timeout=0.3).start_game()
    assert course.moves_sent() == [-1]


# --- whole games ------------------------------------------------------------------------------


@pytest.mark.parametrize("first", ["student", "bot"])
def test_whole_games_with_either_starter(scripted, engine, tmp_path, first):
    course, url = scripted
    course.first = first
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        result = run(url, engine, records, lines, games=2)
        games = records.games(ONLINE)
    assert len(result.outcomes) == 2 or result.stopped_by_loss
    assert all(o.we_started == (first == "student") for o in result.outcomes)
    # Each recorded game replays to its last board, with the server's result.
    for game, outcome in zip(reversed(games), result.outcomes, strict=True):
        assert game.status == "finished" and game.result == outcome.result
        replayed = Board.from_moves(game.columns, one_based=False)
        assert Mirror(replayed, bool(game.we_started)).grid() == game.last_state
        assert all(m.seconds is not None and m.depth for m in game.moves if m.side == "us")
    sent = course.moves_sent()
    assert sent.count(-1) == len(result.outcomes)
    assert any(line.startswith("summary:") for line in lines)
    assert any("slowest move" in line for line in lines)


def test_a_game_with_null_states_is_played_on_the_mirror(scripted, engine, tmp_path):
    course, url = scripted
    course.null_states = True
    course.first = "bot"
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        result = run(url, engine, records, lines)
    assert len(result.outcomes) == 1 and result.outcomes[0].result in (1.0, 0.5, -1.0)
    assert any("this is our mirror's" in line for line in lines)


# --- faults in the middle of a game -----------------------------------------------------------


def test_a_rejected_move_leaves_a_game_that_the_next_run_resumes(scripted, engine, tmp_path):
    course, url = scripted
    course.faults[2] = "422"  # our second move
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        with pytest.raises(RequestRejected):
            run(url, engine, records, lines)
        record = records.unfinished(ONLINE, client_for(url).name, IDS)
        assert record is not None and record.pending is None and resume_problem(record) is None
        result = run(url, engine, records, lines)
    assert any(line.startswith(f"resuming game #{record.id}") for line in lines)
    assert result.outcomes[0].resumed and result.outcomes[0].game_id == record.id
    assert course.moves_sent().count(-1) == 1  # the game was never given up


@pytest.mark.parametrize("fault", ["drop", "500", "notjson"])
def test_a_move_in_doubt_is_not_resent_and_blocks_the_next_run(scripted, engine, tmp_path, fault):
    course, url = scripted
    course.faults[2] = fault
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        with pytest.raises((ConnectionLost, ServerFailed, MalformedReply)) as info:
            run(url, engine, records, lines)
        assert info.value.in_doubt
        assert len(course.forms) == 3  # the move was sent once, never again
        record = records.unfinished(ONLINE, client_for(url).name, IDS)
        assert record is not None and "in doubt" in (record.note or "")
        with pytest.raises(ResumeUnsafe, match="--new-game"):
            run(url, engine, records, lines)
        assert len(course.forms) == 3  # nothing was sent: no -1 while a game may be running
        result = run(url, engine, records, lines, new_game=True)
        assert records.game(record.id).status == "abandoned"
    assert course.moves_sent().count(-1) == 2
    assert len(result.outcomes) == 1 and not result.outcomes[0].resumed


def test_a_desync_stops_the_game_and_shows_the_servers_board(scripted, engine, tmp_path):
    course, url = scripted
    course.faults[2] = "desync"
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        with pytest.raises(Desync, match="row 0 column 0 is the bot's on the server"):
            run(url, engine, records, lines)
        record = records.games(ONLINE)[0]
    assert record.status == "stopped" and (record.note or "").startswith("desync")
    assert any(line.startswith("the server's board:") for line in lines)
    assert len(course.forms) == 3


@pytest.mark.parametrize(("fault", "result"), [("impossible", -10.0), ("late", -1.0)])
def test_a_game_lost_by_the_servers_verdict_is_recorded_and_stops_the_run(
    scripted, engine, tmp_path, fault, result
):
    course, url = scripted
    course.faults[2] = fault
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        run_result = run(url, engine, records, lines, games=3)
        record = records.games(ONLINE)[0]
    assert run_result.stopped_by_loss and len(run_result.outcomes) == 1
    assert record.status == "finished" and record.result == result
    assert course.moves_sent().count(-1) == 1


def test_a_wrong_key_at_the_start_leaves_no_game_behind(scripted, engine, tmp_path):
    course, url = scripted
    server = client_for(url, api_key="not-the-key")
    with Records(tmp_path / "games.sqlite3") as records:
        with pytest.raises(WrongApiKey):
            run(url, engine, records, [], server=server)
        assert records.games() == []
        # A refusal of an unknown kind in the middle of a game leaves it stopped, not running.
        course.faults[2] = "nogame"
        with pytest.raises(ServerRefused, match="No game is running"):
            run(url, engine, records, [])
        assert records.games()[0].status == "stopped"


def test_until_streak_stops_at_the_goal_without_playing(scripted, engine, tmp_path):
    course, url = scripted
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        result = run(url, engine, records, lines, games=None, until_streak=1)
    assert result.outcomes == [] and result.streak == 1
    assert course.moves_sent() == []
