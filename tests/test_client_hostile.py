"""``agent.py online`` against a misbehaving server on 127.0.0.1, one row per behaviour.

For each: the exit code, one clear error line (no traceback), nothing re-sent that may have
reached the server, no illegal column, no part of a secret in the output or the record, and a
record that the next run handles as it must: it resumes a game nothing was lost from, refuses
to guess about a game with a move in doubt (and sends nothing), and plays on after
``--new-game``.
"""

from __future__ import annotations

import socket
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import agent
from client.mirror import resume_problem
from client.records import ONLINE, Records
from tests.scripted_course import ScriptedCourse, serve

KEY = "kq7xzv9whj"  # letters no message has three of in a row
IDS = ("qzjvxw", "zkqwvj")
SECRETS = (KEY, *IDS)
CONNECT, READ = 1.0, 1.0


@dataclass(frozen=True)
class Case:
    """A behaviour: the faults by request number (0 = the -1, 1 = our first move, ...)."""

    name: str
    faults: dict[int, str] = field(default_factory=dict)
    shapes: tuple[str, ...] = ()  # null_start, null_states, floats
    code: int = 2
    error: str | None = None  # what the error line says
    in_doubt: bool = False  # the failing request may have reached the server


CASES = [
    Case("refused", error="cannot reach the server at"),
    Case("hang", {2: "hang"}, error="may or may not have received it", in_doubt=True),
    Case("drop", {2: "drop"}, error="may or may not have received it", in_doubt=True),
    Case("5xx", {2: "500"}, error="HTTP 500", in_doubt=True),
    Case("422", {2: "422"}, error="HTTP 422"),
    Case("not JSON", {2: "notjson"}, error="is not JSON", in_doubt=True),
    Case("nested JSON", {2: "nested"}, error="JSON nested too deeply", in_doubt=True),
    Case("huge body", {2: "huge-body"}, error="more than a course server's reply",
         in_doubt=True),
    Case("huge msg", {0: "huge-msg"}, code=0),
    Case("trickle", {2: "trickle"}, error=f"within {CONNECT + READ:g} s (connect timeout",
         in_doubt=True),
    # The head at once, then the body a byte at a time on a connection the reply closes: the
    # HTTP library moves the socket from the connection to the response.
    Case("trickle, Connection: close", {2: "trickle-close"},
         error=f"within {CONNECT + READ:g} s (connect timeout", in_doubt=True),
    Case("trickle, Connection: close, no Content-Length", {2: "trickle-close-unsized"},
         error=f"within {CONNECT + READ:g} s (connect timeout", in_doubt=True),
    Case("trickle, HTTP/1.0", {2: "trickle-http10"},
         error=f"within {CONNECT + READ:g} s (connect timeout", in_doubt=True),
    # Texts the HTTP library makes of what the server sent are masked and cut too.
    Case("bad status line, secret after 60 KB", {2: "bad-status-line"},
         error="no reply from", in_doubt=True),
    Case("secret at the cut", {2: "secret-at-cut"}, error="the server refused the request"),
    Case("secret at the cut of an error", {2: "422-secret-at-cut"}, error="HTTP 422"),
    Case("100 KB 4xx, secret at the cut", {2: "422-huge-secret"},
         error="the server rejected the request"),
    Case("100 KB 5xx, secret at the cut", {2: "500-huge-secret"},
         error="the server failed on the request", in_doubt=True),
    Case("nulls", shapes=("null_start", "null_states"), code=0),
    Case("floats", shapes=("floats",), code=0),
    Case("desync", {2: "desync"}, error="row 0 column 0 is the bot's on the server",
         in_doubt=True),
]


def write_config(tmp_path: Path, url: str) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[server]\nurl = "{url}"\nstil_ids = {list(IDS)!r}\napi_key = "{KEY}"\n'
        f"connect_timeout = {CONNECT}\nread_timeout = {READ}\nretries = 1\n"
        "[agent]\nseconds_per_move = 0.05\nmin_depth = 3\ntable_bits = 16\n"
        "mode = \"course\"\n"
        f'[record]\npath = "{tmp_path / "games.sqlite3"}"\n'.replace("'", '"'))
    return config


def online(capsys: pytest.CaptureFixture[str], config: Path, *extra: str) -> tuple[int, str, str, float]:
    start = time.monotonic()
    code = agent.main(["online", "--config", str(config), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err, time.monotonic() - start


def assert_no_secret(*texts: str | None) -> None:
    """No three characters in a row of our key or ids (a mask shows the first two)."""
    for text in texts:
        for secret in SECRETS:
            for i in range(len(secret) - 2):
                assert secret[i:i + 3] not in (text or ""), (secret[i:i + 3], (text or "")[:200])


def record_notes(path: Path) -> list[str]:
    if not path.exists():
        return []
    with sqlite3.connect(path) as conn:
        return [row[0] or "" for row in conn.execute("SELECT note FROM games")]


def free_url() -> str:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/api/"


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_online_against_a_misbehaving_server(case: Case, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    course = ScriptedCourse(KEY, IDS, seed=3)
    course.faults.update(case.faults)
    for shape in case.shapes:
        setattr(course, shape, True)
    records_path = tmp_path / "games.sqlite3"
    with serve(course) as url:
        config = write_config(tmp_path, free_url() if case.name == "refused" else url)
        code, out, err, seconds = online(capsys, config)
        lines = out.splitlines()
        assert code == case.code, (out[-2000:], err)
        assert "Traceback" not in err
        assert_no_secret(out, err, *record_notes(records_path))
        assert course.illegal == []
        assert max(map(len, lines + err.splitlines()), default=0) < 500  # texts are bounded
        if case.error is None:
            assert err == ""
            assert any(line.startswith("game 1 of 1 (record #1): won") for line in lines)  # a random bot
            with Records(records_path) as records:
                game = records.games(ONLINE)[0]
            assert game.status == "finished" and game.result == 1.0
            return
        assert err.count("\n") == 1 and err.startswith("error: ") and case.error in err, err
        assert all(len(note) < 700 for note in record_notes(records_path))  # bounded too
        if case.faults:
            failing = min(case.faults)
            # The failing request was sent once; nothing after it (no retry, no -1).
            assert len(course.requests) == failing + 1
        if case.name.startswith("trickle"):
            assert seconds < CONNECT + READ + 5  # the trickle alone would take minutes
        sent_before = len(course.requests)
        if case.name == "refused":
            assert not records_path.exists() or Records(records_path).games() == []
            return
        with Records(records_path) as records:
            game = records.games(ONLINE)[0]
            problem = resume_problem(game)
        if case.in_doubt or case.name == "secret at the cut":
            # The state on the server is unknown: the next run sends nothing and says why.
            assert problem is not None
            code, out, err, _ = online(capsys, config)
            assert code == 2 and "cannot resume safely" in err and "--new-game" in err
            assert len(course.requests) == sent_before
            course.faults.clear()
            code, out, err, _ = online(capsys, config, "--new-game")
            assert code == 0 and "giving up game #1" in out
            assert course.moves_sent().count(-1) == 2
        else:
            # Nothing reached the server's game: the next run resumes it, no -1 sent.
            assert problem is None
            course.faults.clear()
            code, out, err, _ = online(capsys, config)
            assert code == 0 and "resuming game #1" in out
            assert course.moves_sent().count(-1) == 1
        assert course.illegal == []
        assert_no_secret(out, err, *record_notes(records_path))
