"""The HTTP client and the game loop against a scripted course server on 127.0.0.1 that injects
faults (``tests.scripted_course``): each error reply typed, nothing in doubt re-sent, resume.

The hostile cases through ``agent.py online`` itself are in ``tests/test_client_hostile.py``;
the local emulation (``tests/test_client_localserver.py``) covers whole games against the real
bot.
"""

from __future__ import annotations

import socket
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import requests

from board import Board
from client.game import EngineMoveError
from client.http import HttpCourseServer
from client.mirror import resume_problem
from client.online import run_online
from client.records import ONLINE, Records
from course.errors import (
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
from course.grid import as_grid
from engine import Decision, Engine, SearchScore
from settings import AgentSettings, ServerSettings
from tests import reference
from tests.scripted_course import QUOTE_CUT, ScriptedCourse, replayed_grid, serve
from timecontrol import Limit
from vocabulary import Mode, Source

KEY = "course-key"
IDS = ("ab-1111", "cd-2222")
BUDGET = 0.02
# A server that quotes what it was sent: our ids and key, in a message.
ECHO = f"Refused for {IDS[0]}+{IDS[1]} (api_key {KEY})."


@pytest.fixture
def scripted() -> Iterator[tuple[ScriptedCourse, str]]:
    """A fresh scripted course and its base URL; ``course.first`` etc. may be changed before use."""
    course = ScriptedCourse(KEY, IDS)
    with serve(course) as url:
        yield course, url


@pytest.fixture(scope="module")
def engine() -> Engine:
    # Search only: the client's tests need moves, not the book's or the solver's memory.
    engine = Engine(AgentSettings(seconds_per_move=BUDGET, table_bits=14, min_depth=2,
                                  mode=Mode.COURSE))
    engine.warm_up()
    return engine


def client_for(url: str, **overrides: Any) -> HttpCourseServer:
    settings = ServerSettings(url=url, stil_ids=IDS, api_key=KEY, read_timeout=5.0)
    return HttpCourseServer(settings.model_copy(update=overrides), sleep=lambda s: None)


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
    assert course.requests[0] == {"stil_id": list(IDS), "move": ["-1"], "api_key": [KEY]}
    assert course.requests[1]["move"] == ["3"]
    assert client.stats().won == 2
    assert "move" not in course.requests[2]


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
    assert str(info.value).endswith(
        "(3 tries): connection refused (is the server running and the URL right?)")


def test_a_connection_error_is_said_without_our_class_names():
    from urllib3.exceptions import MaxRetryError, NewConnectionError

    from client.deadline import _WatchedHTTPConnection
    from client.http import _reason

    conn = _WatchedHTTPConnection("127.0.0.1", 9)
    failed = NewConnectionError(conn, "Failed to establish a new connection: [Errno 113] No route")
    exc = requests.ConnectionError(MaxRetryError(None, "/stats", failed))  # type: ignore[arg-type]
    said = _reason(exc, [])
    assert said == "NewConnectionError: Failed to establish a new connection: [Errno 113] No route"


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


def test_a_body_quoted_as_a_literal_stays_within_the_cut(scripted):
    course, url = scripted
    course.faults[0] = "notjson-escapes"
    with pytest.raises(MalformedReply, match="not JSON") as info:
        client_for(url).start_game()
    # 300 characters quoted, and the words around them: not 300 escapes of four characters.
    assert len(str(info.value)) < QUOTE_CUT + 150, len(str(info.value))


def test_the_http_librarys_text_of_a_bad_status_line_is_masked_and_cut(scripted):
    course, url = scripted
    course.faults[0] = "bad-status-line"  # our key after 60 KB of filler
    with pytest.raises(ConnectionLost, match="may or may not have received it") as info:
        client_for(url).start_game()
    text = str(info.value)
    assert len(text) < QUOTE_CUT + 250, len(text)
    assert KEY[:3] not in text


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["trickle-close", "trickle-close-unsized", "trickle-http10"])
def test_a_body_trickled_on_a_closing_connection_is_cut_at_the_deadline(scripted, fault):
    # http.client gives the socket of such a reply to the response and forgets it on the
    # connection: the deadline must shut it all the same.
    course, url = scripted
    course.faults[0] = fault
    start = time.monotonic()
    with pytest.raises(ConnectionLost, match=r"within 1.5 s \(connect timeout"):
        client_for(url, connect_timeout=0.5, read_timeout=1.0).start_game()
    assert time.monotonic() - start < 4  # the trickle alone takes about a minute
    assert course.moves_sent() == [-1]


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
        assert game.last_state == as_grid(replayed_grid(list(game.game.columns),
                                                        bool(game.we_started)))
        assert all(m.seconds is not None and m.depth for m in game.game.moves
                   if m.side == game.our_side)
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


@pytest.mark.slow
@pytest.mark.parametrize("fault", ["drop", "slow", "500", "notjson"])
def test_a_move_in_doubt_is_not_resent_and_blocks_the_next_run(scripted, engine, tmp_path, fault):
    course, url = scripted
    course.faults[2] = fault  # our second move; "slow": the reply comes after the read timeout
    lines: list[str] = []
    with Records(tmp_path / "games.sqlite3") as records:
        with pytest.raises((ConnectionLost, ServerFailed, MalformedReply)) as info:
            run(url, engine, records, lines, server=client_for(url, read_timeout=0.3))
        assert info.value.in_doubt
        assert len(course.requests) == 3  # the move was sent once, never again
        record = records.unfinished(ONLINE, client_for(url).name, IDS)
        assert record is not None and "in doubt" in record.game.detail
        with pytest.raises(ResumeUnsafe, match="--new-game"):
            run(url, engine, records, lines)
        assert len(course.requests) == 3  # nothing was sent: no -1 while a game may be running
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
    assert record.status == "stopped" and record.game.detail.startswith("desync")
    assert any(line.startswith("the server's board:") for line in lines)
    assert len(course.requests) == 3


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
        note = records.games(ONLINE)[0].game.detail
    assert_no_secret(str(refused.value), refused.value.msg, note, *lines)
    assert "co********" in str(refused.value) and "co********" in note
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


def test_a_resumed_games_first_move_gets_what_is_left_of_the_5_s() -> None:
    # Nobody listens; the server's last reply (recorded by an earlier run) came 4.6 s ago.
    now = [50.0]
    session = requests.Session()
    timeouts: list[Any] = []
    post = session.post

    def recording_post(url: str | bytes, data: Any = None, json: Any = None, **kwargs: Any) -> Any:
        timeouts.append(kwargs["timeout"])
        return post(url, data=data, json=json, **kwargs)

    session.post = recording_post  # type: ignore[method-assign]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = ServerSettings(url=f"http://127.0.0.1:{port}/", stil_ids=IDS, api_key=KEY,
                              retries=10, connect_timeout=30.0)
    client = HttpCourseServer(settings, session=session, sleep=lambda s: None,
                              clock=lambda: now[0])
    client.replied_ago(4.6)
    with pytest.raises(ServerUnreachable, match="no retry could arrive within the server's 5 s"):
        client.play(3)
    assert len(timeouts) == 1 and timeouts[0][0] == pytest.approx(0.5)  # the least connect time


# --- our own side: an illegal engine move, a failing terminal, a resume after a long break ----


class FullColumnEngine:
    """An engine with a bug: it always answers column 3, full or not."""

    def new_game(self) -> None:
        pass

    def decide(self, board: Board, limit: Limit) -> Decision:
        return Decision(column=3, score=SearchScore(0), depth=1, nodes=1, seconds=0.0, pv=(3,),
                        source=Source.SEARCH)


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
    assert course.requests == []  # not the move, and no -1 either
    assert game.status == "running" and game.pending is None and resume_problem(game) is None


def test_a_closed_output_finishes_the_running_game_and_starts_no_other(scripted, engine, tmp_path):
    course, url = scripted
    lines: list[str] = []

    def out(line: str) -> None:
        lines.append(line)
        if " we play " in line:
            raise BrokenPipeError("the terminal went away")

    with Records(tmp_path / "games.sqlite3") as records:
        result = run(url, engine, records, [], out=out, games=3)
        games = records.games(ONLINE)
    # Played to its end with nothing more printed, not left to be lost on time; no second game.
    assert result.output_lost and len(result.outcomes) == 1 and len(games) == 1
    assert games[0].status == "finished" and games[0].pending is None
    assert sum(" we play " in line for line in lines) == 1
    assert course.moves_sent().count(-1) == 1 and len(course.moves_sent()) > 2


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
