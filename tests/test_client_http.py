"""The HTTP client and the game loop against a scripted course server on 127.0.0.1 that injects faults.

``ScriptedCourse`` plays real games (a random bot, the course's rules) over ``http.server`` and
can be told to answer the n-th request with a fault: a dropped connection, HTTP 422 or 500, a
wrong-key reply, a body that is not JSON, a null or wrong board, an impossible-move or late
verdict, a slow reply, a redirect, replies that quote our ids and key.  Its boards are kept on
the tests' naive grid (``tests.reference``), not with the client's board model.  The local
emulation (``tests/test_client_localserver.py``) covers whole games against the real bot.
"""

from __future__ import annotations

import json
import random
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import pytest
import requests

from board import Board
from client.cli import run_online
from client.game import EngineMoveError, resume_problem
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
    as_grid,
)
from client.records import ONLINE, Records
from engine import Decision, Engine
from settings import AgentSettings, ServerSettings
from tests import reference

KEY = "course-key"
IDS = ("ab-1111", "cd-2222")
BUDGET = 0.02
STUDENT, BOT = 1, -1
# A server that quotes what it was sent: our ids and key, in a message.
ECHO = f"Refused for {IDS[0]}+{IDS[1]} (api_key {KEY})."


def replayed_grid(columns: list[int], we_started: bool) -> reference.Grid:
    """The course board after ``columns`` (both sides, in order), on the naive grid."""
    grid = reference.empty_grid()
    player = STUDENT if we_started else BOT
    for column in columns:
        grid = reference.drop(grid, column, player)
        player = -player
    return grid


class ScriptedCourse:
    """The course server's game logic with a random bot, and faults by request number.

    The board is the tests' naive grid (``tests.reference``), 1 = the student's discs.
    """

    def __init__(self, first: str = "student", seed: int = 0, null_states: bool = False) -> None:
        self.first = first
        self.rng = random.Random(seed)
        self.null_states = null_states
        self.faults: dict[int, str] = {}
        self.forms: list[dict[str, list[str]]] = []
        self.cells: reference.Grid | None = None  # None: no game running
        self.streak = 0
        self.lock = threading.Lock()

    # the game

    def _reply(self, result: float, botmove: int, *, msg: str = "") -> dict[str, Any]:
        assert self.cells is not None
        state = None if self.null_states else [row[:] for row in self.cells]
        if result != 0:
            self.cells = None
            self.streak = 0 if result < 0 else self.streak + 1
        return {"status": True, "msg": msg, "result": result, "botmove": botmove, "state": state}

    def _drop(self, column: int, player: int) -> float:
        """Drop a disc; the result for ``player``: 0.5 a full board (checked first), 1 a win."""
        assert self.cells is not None
        self.cells = reference.drop(self.cells, column, player)
        if not reference.legal(self.cells):
            return 0.5
        return 1 if reference.has_four(self.cells, player) else 0

    def new_game(self) -> dict[str, Any]:
        self.cells = reference.empty_grid()
        botmove = -1
        if self.first != "student":
            botmove = self.rng.choice(reference.legal(self.cells))
            self._drop(botmove, BOT)
        return self._reply(0, botmove, msg="New game.")

    def play(self, column: int) -> dict[str, Any]:
        assert self.cells is not None
        ours = self._drop(column, STUDENT)
        if ours:
            return self._reply(ours, -1, msg="Game over.")
        botmove = self.rng.choice(reference.legal(self.cells))
        theirs = self._drop(botmove, BOT)
        if theirs:
            return self._reply(0.5 if theirs == 0.5 else -1, botmove, msg="Game over.")
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
            if fault == "echo-refusal":
                return 200, json.dumps({"status": False, "msg": ECHO, "result": 0,
                                        "botmove": -1, "state": None}).encode(), {}
            if fault == "impossible":
                self.cells = None
                return 200, json.dumps({"status": False, "msg": "Impossible move.", "result": -10,
                                        "botmove": -1, "state": None}).encode(), {}
            if fault == "late":
                self.cells = None
                return 200, json.dumps({"status": False, "msg": "Time limit exceeded.",
                                        "result": -1, "botmove": -1, "state": None}).encode(), {}
            if fault == "nogame":
                return 200, json.dumps({"status": False, "msg": "No game is running.",
                                        "result": 0, "botmove": -1, "state": None}).encode(), {}
            body = self._dispatch(path, form)
            if fault == "notjson":
                return 200, b"<html>Bad Gateway</html>", {}
            if fault == "echo-ok":
                body["msg"] = ECHO
            if fault == "stats-missing":
                del body["played"]
            if fault == "desync" and body.get("state"):
                state: list[list[int]] = body["state"]
                state[0][0] = -1  # a disc that cannot be there
            return 200, json.dumps(body).encode(), {}

    def _dispatch(self, path: str, form: dict[str, list[str]]) -> dict[str, Any]:
        if path.endswith("/stats"):
            return {"msg": None, "status": None, "stil_id": "+".join(sorted(form["stil_id"])),
                    "played": 3, "won": 2, "lost": 1, "streak": self.streak, "streak_max": 2,
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
    out = options.pop("out", lines.append)
    return run_online(server, engine, records, IDS, budget=BUDGET, out=out, **options)


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
        assert game.last_state == as_grid(replayed_grid(game.columns, bool(game.we_started)))
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


@pytest.mark.parametrize("fault", ["drop", "slow", "500", "notjson"])
def test_a_move_in_doubt_is_not_resent_and_blocks_the_next_run(scripted, engine, tmp_path, fault):
    course, url = scripted
    course.faults[2] = fault  # our second move; "slow": the reply comes after the read timeout
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        with pytest.raises((ConnectionLost, ServerFailed, MalformedReply)) as info:
            run(url, engine, records, lines, server=client_for(url, read_timeout=0.3))
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
    course.streak = 1
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        result = run(url, engine, records, lines, games=None, until_streak=1)
    assert result.outcomes == [] and result.streak == 1
    assert course.moves_sent() == []


def test_until_streak_plays_until_the_servers_streak_reaches_the_goal(scripted, engine, tmp_path):
    course, url = scripted
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        result = run(url, engine, records, lines, games=None, until_streak=3)
    # Against a random bot our engine never loses: three games, each followed by a stats call.
    assert [o.result >= 0 for o in result.outcomes] == [True, True, True]
    assert result.streak == 3 and not result.stopped_by_loss
    assert [line for line in lines if "of 3" in line] == [
        f"the server's streak is {n} of 3" for n in (1, 2, 3)]
    assert course.moves_sent().count(-1) == 3


# --- URLs that cannot be used, secrets in replies, the 5 s window --------------------------------


def test_a_url_requests_cannot_use_is_never_sent_and_leaves_no_game(engine, tmp_path):
    # Passes the settings' check (scheme, host, port) but requests refuses the host name.
    server = HttpCourseServer(ServerSettings(url="http://.bad-label/", stil_ids=IDS, api_key=KEY))
    with pytest.raises(ServerUnreachable, match="nothing was sent") as info:
        server.start_game()
    assert not info.value.in_doubt
    with Records(tmp_path / "games.sqlite3") as records:
        with pytest.raises(ServerUnreachable):
            run("", engine, records, [], server=server)
        assert records.games() == []  # not a stopped game that would block the next run


def assert_no_secret(*texts: str | None) -> None:
    for text in texts:
        assert text is not None
        assert KEY not in text and all(i not in text for i in IDS), text


def test_secrets_a_server_quotes_are_masked_in_errors_output_and_record(scripted, engine, tmp_path):
    course, url = scripted
    client = client_for(url)
    course.faults[0] = "stats-missing"
    with pytest.raises(MalformedReply, match="no 'played' field") as missing:
        client.stats()
    assert_no_secret(str(missing.value))
    assert "ab*****+cd*****" in str(missing.value)
    assert "ab-1111" not in repr(client.stats())  # the stats' stil_id is kept out of the repr
    course.faults[2] = "echo-ok"  # the reply to -1 says who starts, quoting us
    course.faults[4] = "echo-refusal"  # our second move is refused, quoting us
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        with pytest.raises(ServerRefused) as refused:
            run(url, engine, records, lines, server=client)
        note = records.games(ONLINE)[0].note
    assert_no_secret(str(refused.value), refused.value.msg, note, *lines)
    assert "co********" in str(refused.value) and "co********" in (note or "")
    assert any("Refused for ab*****+cd*****" in line for line in lines)


def test_a_moves_retries_stop_at_the_end_of_its_5_s_window(course_server):
    now = [100.0]
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        now[0] += seconds

    class RecordingSession(requests.Session):
        def __init__(self) -> None:
            super().__init__()
            self.timeouts: list[Any] = []

        def post(self, url: str | bytes, data: Any = None, json: Any = None, **kwargs: Any) -> Any:
            self.timeouts.append(kwargs["timeout"])
            return super().post(url, data=data, json=json, **kwargs)

    session = RecordingSession()
    with course_server(first="student", api_key=KEY) as server:
        settings = ServerSettings(url=server.url, stil_ids=IDS, api_key=KEY, retries=10,
                                  connect_timeout=30.0)
        client = HttpCourseServer(settings, session=session, sleep=sleep, clock=lambda: now[0])
        client.start_game()
    session.close()  # its kept-alive connection went with the server: now nobody listens
    with pytest.raises(ServerUnreachable, match="no retry could arrive within the server's 5 s"):
        client.play(3)
    # Every attempt could still arrive in time; without the window: 10 retries over 204 s.
    assert 0 < sum(pauses) <= 5.0 and len(pauses) < 10
    connects = [connect for connect, _ in session.timeouts]
    assert connects[0] == 30.0  # -1 has no window
    assert all(c <= 5.0 for c in connects[1:]) and connects[1:] == sorted(connects[1:], reverse=True)
    pauses.clear()
    with pytest.raises(ServerUnreachable, match=r"\(11 tries\)"):
        client.start_game()  # a new game is not a move: every retry


# --- our own side: an illegal engine move, a failing terminal, a resume after a long break ----


class FullColumnEngine:
    """An engine with a bug: it always answers column 3, full or not."""

    def new_game(self) -> None:
        pass

    def choose(self, board: Board, seconds: float | None = None) -> Decision:
        return Decision(column=3, score=0, depth=1, nodes=1, seconds=0.0, pv=(3,),
                        source="search", proven=False)


def record_running_game(records: Records, server: str, columns: list[int]) -> int:
    """A running game we started, with ``columns`` played and confirmed, our turn."""
    game_id = records.begin(ONLINE, server, IDS, "server bot")
    records.started(game_id, True, as_grid(reference.empty_grid()), None)
    for ply in range(1, len(columns), 2):
        records.sent(game_id, ply, columns[ply - 1], None, 0.1)
        records.replied(game_id, ply, 0.1, columns[ply],
                        as_grid(replayed_grid(columns[: ply + 1], True)), 0.0)
    return game_id


def test_an_engine_move_into_a_full_column_is_never_sent(scripted, tmp_path):
    course, url = scripted
    with Records(tmp_path / "games.sqlite3") as records:
        game_id = record_running_game(records, client_for(url).name, [3, 3, 3, 3, 3, 3])
        with pytest.raises(EngineMoveError, match=r"column 3, which cannot be played.*nothing was"):
            run(url, FullColumnEngine(), records, [])  # type: ignore[arg-type]
        game = records.game(game_id)
    assert course.forms == []  # not the move, and no -1 either
    assert game.status == "running" and game.pending is None and resume_problem(game) is None


def test_a_failure_while_printing_leaves_the_move_recorded(scripted, engine, tmp_path):
    course, url = scripted
    lines: list[str] = []

    def out(line: str) -> None:
        if " we play " in line and not lines:
            lines.append(line)
            raise BrokenPipeError("the terminal went away")

    with Records(tmp_path / "games.sqlite3") as records:
        with pytest.raises(BrokenPipeError):
            run(url, engine, records, [], out=out)
        game = records.games(ONLINE)[0]
        # The reply was recorded before the line: nothing is in doubt, the game resumes.
        assert game.pending is None and resume_problem(game) is None
        resumed: list[str] = []
        result = run(url, engine, records, resumed)
    assert result.outcomes[0].resumed and course.moves_sent().count(-1) == 1


def test_a_resume_long_after_the_servers_reply_warns_that_the_move_is_late(scripted, engine, tmp_path):
    course, url = scripted
    course.faults[2] = "422"  # our second move is rejected: the game stays resumable
    lines: list[str] = []
    path = tmp_path / "games.sqlite3"
    with Records(path) as records, pytest.raises(RequestRejected):
        run(url, engine, records, lines)
    hour_ago = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE moves SET at = ?", (hour_ago,))
        conn.execute("UPDATE games SET started_at = ?", (hour_ago,))
    with Records(path) as records:
        run(url, engine, records, lines)
    resuming = next(line for line in lines if line.startswith("resuming game"))
    assert "last reply came 3600" in resuming
    assert any(line.startswith("warning:") and "late" in line for line in lines)
