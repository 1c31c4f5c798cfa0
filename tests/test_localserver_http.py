"""The local course server over loopback: the real app, served by uvicorn, spoken to over HTTP.

Whole games, every class of bad input (the server must answer each one and keep serving),
a restart on the same database, concurrent clients and the progress page's content.
"""

from __future__ import annotations

import random
import select
import socket
import threading
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import requests

from board import Board
from localserver.service import MAX_IDS
from tests.helpers import state_of
from vocabulary import Ending

KEY = "nyckel"
TIMEOUT = 30


def post(url: str, endpoint: str, data: Any = None, **kwargs: Any) -> requests.Response:
    return requests.post(url + endpoint, data=data, timeout=TIMEOUT, **kwargs)


def move(url: str, ids: list[str], col: int, key: str = KEY) -> dict[str, Any]:
    response = post(url, "move", {"stil_id": ids, "move": col, "api_key": key})
    assert response.status_code == 200, response.text
    reply: dict[str, Any] = response.json()
    return reply


def stats(url: str, ids: list[str]) -> dict[str, Any]:
    response = post(url, "stats", {"stil_id": ids, "api_key": KEY})
    assert response.status_code == 200, response.text
    reply: dict[str, Any] = response.json()
    return reply


def play_game(url: str, ids: list[str], rng: random.Random) -> tuple[float, list[list[int]]]:
    """One whole game with random legal moves; every reply is checked against a replay."""
    reply = move(url, ids, -1)
    assert reply["status"] is True and reply["result"] == 0
    first = "bot" if reply["botmove"] >= 0 else "student"
    board = Board() if first == "student" else Board().play(reply["botmove"])
    assert reply["state"] == state_of(board, first)
    while reply["result"] == 0:
        col = rng.choice(board.legal_moves())
        reply = move(url, ids, col)
        assert reply["status"] is True, reply
        board = board.play(col)
        if reply["botmove"] >= 0:
            board = board.play(reply["botmove"])
        assert reply["state"] == state_of(board, first)
    assert board.is_over() and reply["result"] in (1, 0.5, -1)
    return reply["result"], reply["state"]


def expected_stats(results: list[float]) -> dict[str, Any]:
    streak = best = 0
    for r in results:
        streak = 0 if r < 0 else streak + 1
        best = max(best, streak)
    return {"played": len(results), "won": results.count(1), "lost": sum(r < 0 for r in results),
            "streak": streak, "streak_max": best, "total_reward": float(sum(results))}


def subset(d: dict[str, Any], keys: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in keys}


# --- the protocol ---------------------------------------------------------------------------


def test_root_docs_and_openapi(course_server: Any) -> None:
    with course_server() as server:
        root = requests.get(server.url, timeout=TIMEOUT)
        assert root.status_code == 200 and "move" in root.json() and "stats" in root.json()
        assert "swagger" in requests.get(server.url + "docs", timeout=TIMEOUT).text.lower()
        schema = requests.get(server.url + "openapi.json", timeout=TIMEOUT).json()
        assert {"/move", "/stats", "/progress"} <= set(schema["paths"])


def test_whole_games_and_their_stats(course_server: Any) -> None:
    rng = random.Random(4)
    with course_server(first="random", seed=2) as server:
        results = [play_game(server.url, ["ab1234cd-s"], rng)[0] for _ in range(8)]
        reply = stats(server.url, ["ab1234cd-s"])
        assert reply["status"] is None and reply["msg"] is None
        assert reply["stil_id"] == "ab1234cd-s"
        expected = expected_stats(results)
        assert subset(reply, expected) == expected


def test_a_group_shares_one_record(course_server: Any) -> None:
    with course_server(first="student") as server:
        move(server.url, ["zz99-s", "aa11-s"], -1)
        assert move(server.url, ["aa11-s", "zz99-s"], 3)["status"] is True
        assert move(server.url, ["aa11-s"], 3)["status"] is False  # another player: no game
        assert stats(server.url, ["zz99-s", "aa11-s"])["stil_id"] == "aa11-s+zz99-s"


def test_wrong_key_is_http_200_with_status_false(course_server: Any) -> None:
    with course_server() as server:
        reply = move(server.url, ["p"], -1, key="wrong")
        assert reply["status"] is False and reply["msg"] == "Incorrect API key."
        response = post(server.url, "stats", {"stil_id": ["p"], "api_key": "wrong"})
        assert response.status_code == 200 and response.json()["status"] is False
        assert server.service.store.recent("p") == []


def test_illegal_move_over_http(course_server: Any) -> None:
    with course_server(first="student", bot="random", seed=3) as server:
        move(server.url, ["ill"], -1)
        reply: dict[str, Any] = {"result": 0}
        while reply["result"] == 0:  # keep dropping into column 0 until it is full
            reply = move(server.url, ["ill"], 0)
        if reply["result"] == -10:
            assert reply["status"] is False and reply["msg"] == "Impossible move."
            assert stats(server.url, ["ill"])["total_reward"] == -10.0
        else:  # the random bot finished the game before the column filled up
            assert reply["result"] in (1, 0.5, -1)


# --- bad input ------------------------------------------------------------------------------

BAD_FORMS = [  # (form, the field at fault)
    pytest.param({"stil_id": "p", "move": 7, "api_key": KEY}, "move", id="move-too-big"),
    pytest.param({"stil_id": "p", "move": -2, "api_key": KEY}, "move", id="move-too-small"),
    pytest.param({"stil_id": "p", "move": "x", "api_key": KEY}, "move", id="move-not-a-number"),
    pytest.param({"stil_id": "p", "move": "1.5", "api_key": KEY}, "move", id="move-fraction"),
    pytest.param({"stil_id": "p", "move": "", "api_key": KEY}, "move", id="move-empty"),
    pytest.param({"stil_id": "p", "api_key": KEY}, "move", id="move-missing"),
    pytest.param({"move": 1, "api_key": KEY}, "stil_id", id="id-missing"),
    pytest.param({"stil_id": "p", "move": 1}, "api_key", id="key-missing"),
    pytest.param({"stil_id": "a b", "move": 1, "api_key": KEY}, "stil_id", id="id-with-space"),
    pytest.param({"stil_id": "", "move": 1, "api_key": KEY}, "stil_id", id="id-empty"),
    pytest.param({"stil_id": "x" * 51, "move": 1, "api_key": KEY}, "stil_id", id="id-too-long"),
    pytest.param({"stil_id": "a';DROP TABLE games;--", "move": 1, "api_key": KEY}, "stil_id",
                 id="id-sql"),
    pytest.param({"stil_id": "<script>", "move": 1, "api_key": KEY}, "stil_id", id="id-html"),
    pytest.param({"stil_id": [f"i{n}" for n in range(MAX_IDS + 1)], "move": 1, "api_key": KEY},
                 "stil_id", id="too-many-ids"),
    pytest.param({"stil_id": "p", "move": 1, "api_key": "k" * 201}, "api_key",
                 id="key-too-long"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("form", "field"), BAD_FORMS)
def test_bad_fields_get_422(course_server: Any, form: dict[str, Any], field: str) -> None:
    with course_server() as server:
        response = post(server.url, "move", form)
        assert response.status_code == 422, response.text
        assert any(field in error["loc"] for error in response.json()["detail"])
        if field != "move":
            stats_form = {k: v for k, v in form.items() if k != "move"}
            assert post(server.url, "stats", stats_form).status_code == 422
        assert server.service.store.all_stats() == []


def test_malformed_requests_never_take_the_server_down(course_server: Any) -> None:
    with course_server(first="student") as server:
        url = server.url
        move(url, ["alive"], -1)
        statuses = {
            "json body": post(url, "move", json={"stil_id": ["p"], "move": 1, "api_key": KEY}),
            "binary body": post(url, "move", data=bytes(range(256)) * 4,
                                headers={"content-type": "application/x-www-form-urlencoded"}),
            "broken multipart": post(url, "move", data=b"--xx\r\ngarbage",
                                     headers={"content-type": "multipart/form-data; boundary=xx"}),
            "huge body": post(url, "move", data={"stil_id": "p", "move": 1,
                                                 "api_key": "k" * 100_000}),
            "get on move": requests.get(url + "move", timeout=TIMEOUT),
            "unknown path": post(url, "nothing", {"a": 1}),
        }
        got = {name: r.status_code for name, r in statuses.items()}
        # Starlette answers a broken multipart body with 400 or 422 depending on its version.
        assert 400 <= got.pop("broken multipart") < 500
        assert got == {"json body": 422, "binary body": 422, "huge body": 413,
                       "get on move": 405, "unknown path": 404}
        # Below HTTP: bytes that are not HTTP at all, a lying Content-Length, a hang-up.
        port = int(url.rsplit(":", 1)[1].strip("/"))
        raw = [b"\x00\xff garbage\r\n\r\n",
               b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\nabc",
               b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n",
               b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\nstil_id=p"]
        for payload in raw:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
                sock.sendall(payload)
                sock.shutdown(socket.SHUT_WR)
                answer = b""
                try:
                    while chunk := sock.recv(4096):
                        answer += chunk
                except (ConnectionResetError, TimeoutError):
                    pass
                assert not answer.startswith(b"HTTP/1.1 2"), answer[:100]
        # Still serving, and the game in progress was not touched.
        assert move(url, ["alive"], 3)["status"] is True
        assert stats(url, ["alive"])["played"] == 0


# --- time limit, restart, concurrency ------------------------------------------------------


def test_a_late_move_loses_the_game(course_server: Any) -> None:
    now = [0.0]
    with course_server(first="student", time_limit=5.0, clock=lambda: now[0]) as server:
        move(server.url, ["late"], -1)
        now[0] += 6.0
        reply = move(server.url, ["late"], 3)
        assert reply["status"] is False and reply["result"] == -1
        assert "Time limit exceeded" in reply["msg"]
        assert subset(stats(server.url, ["late"]), {"played": 1, "lost": 1}) == {
            "played": 1, "lost": 1}


def test_games_and_stats_survive_a_restart(course_server: Any, tmp_path: Path) -> None:
    db = str(tmp_path / "local-server.sqlite3")
    rng = random.Random(8)
    with course_server(db=db, first="student", seed=1) as server:
        results = [play_game(server.url, ["rs"], rng)[0] for _ in range(3)]
        move(server.url, ["rs"], -1)
        state = move(server.url, ["rs"], 3)["state"]
        url = server.url
        server.restart()
        assert server.url == url  # same port: a client can carry on
        expected = expected_stats(results)
        assert subset(stats(server.url, ["rs"]), expected) == expected
        # The running game goes on from where it was.
        first_empty = next(c for c in range(7) if state[0][c] == 0)
        reply = move(server.url, ["rs"], first_empty)
        assert reply["status"] is True
        kept = [(r, c) for r in range(6) for c in range(7) if state[r][c] != 0]
        assert all(reply["state"][r][c] == state[r][c] for r, c in kept)
        assert len(server.service.store.recent("rs", 10)) == 4


def test_concurrent_clients_never_lose_or_double_count_a_game(course_server: Any) -> None:
    players, games_each = 6, 3
    with course_server(first="random", bot_depth=2, seed=5) as server:
        results: dict[str, list[float]] = {}
        errors: list[BaseException] = []

        def client(n: int) -> None:
            ids = [f"conc{n}-s"]
            try:
                results[ids[0]] = [play_game(server.url, ids, random.Random(n))[0]
                                   for _ in range(games_each)]
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=client, args=(n,)) for n in range(players)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors[0]
        assert len(results) == players
        for player, got in results.items():
            expected = expected_stats(got)
            assert subset(stats(server.url, [player]), expected) == expected
        assert sum(s.played for s in server.service.store.all_stats()) == players * games_each


def test_one_player_hammered_from_many_threads_keeps_a_consistent_record(
    course_server: Any,
) -> None:
    # Every "-1" ends the game before it (if any) as a loss: with N new-game requests racing,
    # exactly N - 1 games must be counted, all lost, and exactly one must still be running.
    threads_n, each = 8, 5
    with course_server(first="random", bot="random", seed=6) as server:
        replies: list[dict[str, Any]] = []
        lock = threading.Lock()

        def client() -> None:
            for _ in range(each):
                reply = move(server.url, ["same"], -1)
                with lock:
                    replies.append(reply)

        threads = [threading.Thread(target=client) for _ in range(threads_n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        total = threads_n * each
        assert len(replies) == total and all(r["status"] for r in replies)
        record = stats(server.url, ["same"])
        assert subset(record, {"played": 0, "lost": 0}) == {"played": total - 1,
                                                           "lost": total - 1}
        endings = Counter(g.game.ending for g in server.service.store.recent("same", 1000))
        assert endings == {Ending.ABANDONED: total - 1, None: 1}


# --- the progress page ----------------------------------------------------------------------


class _Cells(HTMLParser):
    """Collects the text of each player row's cells and the classes of board cells."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, dict[str, str]] = {}
        self.boards: list[Counter[str]] = []  # cell classes of each board, in page order
        self._row: str | None = None
        self._cell: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "tr" and a.get("class") == "player":
            self._row = a["data-player"] or ""
            self.rows[self._row] = {}
        elif tag == "td" and self._row is not None and a.get("class"):
            self._cell = a["class"]
        elif tag == "table" and a.get("class") == "board":
            self.boards.append(Counter())
        elif tag == "td" and a.get("class") in ("student", "bot", "empty"):
            self.boards[-1][a["class"] or ""] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr":
            self._row = None
        if tag == "td":
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._row is not None and self._cell is not None:
            self.rows[self._row][self._cell] = data


def test_progress_page_shows_each_players_record(course_server: Any) -> None:
    rng = random.Random(9)
    with course_server(first="student", seed=4) as server:
        results = [play_game(server.url, ["prog1"], rng)[0] for _ in range(3)]
        final = play_game(server.url, ["prog2"], rng)
        response = requests.get(server.url + "progress", timeout=TIMEOUT)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/html")
        page = _Cells()
        page.feed(response.text)
        assert set(page.rows) == {"prog1", "prog2"}
        expected = expected_stats(results)
        row = page.rows["prog1"]
        assert [int(row[k]) for k in ("played", "won", "lost", "streak", "streak_max")] == [
            expected[k] for k in ("played", "won", "lost", "streak", "streak_max")]
        # One page for one player: their last board is drawn cell by cell.
        response = requests.get(server.url + "progress", params={"stil_id": "prog2"},
                                timeout=TIMEOUT)
        page = _Cells()
        page.feed(response.text)
        assert set(page.rows) == {"prog2"}
        state = final[1]
        assert len(page.boards) == 1
        assert page.boards[0] == Counter({
            "student": sum(r.count(1) for r in state), "bot": sum(r.count(-1) for r in state),
            "empty": sum(r.count(0) for r in state)})
        bad = requests.get(server.url + "progress", params={"stil_id": "<b>"}, timeout=TIMEOUT)
        assert bad.status_code == 422


def test_the_listening_socket_says_it_is_tcp() -> None:
    # asyncio turns Nagle's algorithm off only for sockets created as IPPROTO_TCP; without
    # that, every request on a keep-alive connection waits for a delayed ACK.
    from localserver.background import bind_socket

    with bind_socket("127.0.0.1", 0) as sock:
        assert sock.proto == socket.IPPROTO_TCP


@pytest.mark.slow
def test_connections_sending_a_request_too_slowly_are_closed(course_server: Any) -> None:
    """Half-sent requests (slowloris) are dropped after the request timeout; the server keeps
    serving everyone else meanwhile."""
    with course_server(request_timeout=0.5) as server:
        port = int(server.url.rsplit(":", 1)[1].strip("/"))
        stalled = []
        for index in range(200):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            if index % 2:
                sock.sendall(b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Len")  # then nothing
            stalled.append(sock)
        form = {"stil_id": ["slow-1"], "move": -1, "api_key": "nyckel"}
        assert requests.post(server.url + "move", data=form, timeout=10).json()["status"] is True
        deadline = time.monotonic() + 20
        for sock in stalled:
            sock.settimeout(max(0.1, deadline - time.monotonic()))
            assert sock.recv(1024) == b""  # closed by the server, nothing sent
            sock.close()
        assert time.monotonic() < deadline
        # A request trickling in, a byte every 0.1 s, is cut off at the timeout all the same.
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            start = time.monotonic()
            closed_after = None
            for byte in b"POST /move HTTP/1.1\r\nHost: x\r\nContent-Length: 60\r\n\r\nmove=1":
                try:
                    sock.sendall(bytes([byte]))
                except OSError:
                    closed_after = time.monotonic() - start
                    break
                if select.select([sock], [], [], 0.1)[0] and sock.recv(1024) == b"":
                    closed_after = time.monotonic() - start
                    break
            assert closed_after is not None and closed_after < 2.0
