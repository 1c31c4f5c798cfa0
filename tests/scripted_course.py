"""A scripted course server on 127.0.0.1 that plays real games and misbehaves on demand.

``ScriptedCourse`` plays the course's game against a uniformly random bot, on the tests' naive
grid (``tests.reference``, not the client's board model), and answers the n-th request with a
fault when told to (``course.faults[n] = "..."``):

- protocol-level: a dropped connection (after playing the move, ``drop``, or before,
  ``drop-unplayed``), HTTP 422 / 500, a redirect, a wrong-key or other refusal, a body that is
  not JSON, a desynchronised board, an impossible-move or late verdict, missing stats fields,
  replies that quote our ids and key;
- hostile: a reply that never comes (``hang``), one trickled a byte at a time (``trickle``),
  one whose head comes at once and whose body is trickled on a connection the reply closes
  (``trickle-close``: ``Connection: close``; ``trickle-close-unsized``: the same without a
  Content-Length; ``trickle-http10``: an HTTP/1.0 reply), JSON nested 100,000 deep
  (``nested``), a body that is not JSON and grows fourfold as a literal
  (``notjson-escapes``), a 10 MB body (``huge-body``), a 100 KB message in an otherwise good
  reply (``huge-msg``), a refusal or an error body that puts our key across the client's
  quoting cut (``secret-at-cut``, ``422-secret-at-cut``), a 100 KB error body with our key at
  the cut (``422-huge-secret``, ``500-huge-secret``), a status line that is not HTTP and
  carries our key after 60 KB of filler (``bad-status-line``), a reply that is slow but within
  the timeouts (``slow``).

Whole-server shapes: ``null_start`` (the 2021 server's reply to -1: all null),
``null_states`` (no board in replies), ``floats`` (every number a float: 0.0, 3.0, cells too).

``course.requests`` holds every request's form and ``course.illegal`` every column sent that
could not be played: tests assert that nothing in doubt was re-sent and no illegal column sent.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

from tests import reference

STUDENT, BOT = 1, -1
QUOTE_CUT = 300  # course.protocol.QUOTE_LIMIT: where the client cuts a quoted text
TRICKLE_PAUSE = 0.3  # seconds between two bytes of a body trickled after its head


def replayed_grid(columns: list[int], we_started: bool) -> reference.Grid:
    """The course board after ``columns`` (both sides, in order), on the naive grid."""
    grid = reference.empty_grid()
    player = STUDENT if we_started else BOT
    for column in columns:
        grid = reference.drop(grid, column, player)
        player = -player
    return grid


def _floats(value: Any) -> Any:
    """Every number in ``value`` as a float, as one server version sent them."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        return [_floats(v) for v in value]
    if isinstance(value, dict):
        return {k: _floats(v) for k, v in value.items()}
    return value


class ScriptedCourse:
    """The course server's game logic with a random bot, and faults by request number."""

    def __init__(self, key: str, ids: tuple[str, ...], *, first: str = "student",
                 seed: int = 0) -> None:
        self.key = key
        self.ids = ids
        self.first = first
        self.rng = random.Random(seed)
        self.null_start = False
        self.null_states = False
        self.floats = False
        self.faults: dict[int, str] = {}
        self.requests: list[dict[str, list[str]]] = []
        self.illegal: list[int] = []
        self.cells: reference.Grid | None = None  # None: no game running
        self.streak = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()  # set when the server shuts down: ends a hang

    @property
    def echo(self) -> str:
        """A message quoting what we were sent: the ids and the key."""
        return f"Refused for {'+'.join(self.ids)} (api_key {self.key})."

    # --- the game --------------------------------------------------------------------------

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
        if self.null_start:
            return {"msg": "New game initiated, you start. Make your move", "status": True,
                    "result": None, "botmove": None, "state": None}
        botmove = -1
        if self.first != "student":
            botmove = self.rng.choice(reference.legal(self.cells))
            self._drop(botmove, BOT)
        return self._reply(0, botmove, msg="New game.")

    def play(self, column: int) -> dict[str, Any]:
        if self.cells is None:
            return {"status": False, "msg": "No game is running.", "result": 0, "botmove": -1,
                    "state": None}
        if column not in reference.legal(self.cells):
            self.illegal.append(column)
            self.cells = None
            return {"status": False, "msg": "Impossible move.", "result": -10, "botmove": -1,
                    "state": None}
        ours = self._drop(column, STUDENT)
        if ours:
            return self._reply(ours, -1, msg="Game over.")
        botmove = self.rng.choice(reference.legal(self.cells))
        theirs = self._drop(botmove, BOT)
        if theirs:
            return self._reply(0.5 if theirs == 0.5 else -1, botmove, msg="Game over.")
        return self._reply(0, botmove, msg=f"The bot played {botmove}.")

    def _dispatch(self, path: str, form: dict[str, list[str]]) -> dict[str, Any]:
        if path.endswith("/stats"):
            return {"msg": None, "status": None, "stil_id": "+".join(sorted(form["stil_id"])),
                    "played": 3, "won": 2, "lost": 1, "streak": self.streak, "streak_max": 2,
                    "total_reward": 1.0}
        move = int(form["move"][0])
        return self.new_game() if move == -1 else self.play(move)

    def moves_sent(self) -> list[int]:
        return [int(f["move"][0]) for f in self.requests if "move" in f]

    def _huge_secret(self) -> bytes:
        """A 100 KB error body with our key three characters before the client's cut."""
        text = "x" * (QUOTE_CUT - 3) + self.key + " was the key"
        return (text + " filler" * 15_000)[:100_000].encode()

    # --- one request: (status code, body or None to drop the connection, headers, how) ------

    def handle(self, path: str, form: dict[str, list[str]]) -> tuple[int, bytes | None,
                                                                     dict[str, str], str]:
        """The reply; ``how`` is "" to send it at once, or "trickle" / "hang", or "raw" /
        "raw-trickle-body" when ``body`` is the whole reply, head included, written as it is
        (at once, or the head at once and the body a byte at a time)."""
        with self.lock:
            index = len(self.requests)
            self.requests.append(form)
            fault = self.faults.get(index)
            if fault == "slow":
                time.sleep(1.0)
            if fault == "hang":
                self._dispatch(path, form)  # the server played the move; the reply never comes
                return 200, b"", {}, "hang"
            if fault in ("drop-unplayed", "drop"):
                if fault == "drop":
                    self._dispatch(path, form)  # the server got the move, the reply is lost
                return 0, None, {}, ""
            if fault == "500":
                return 500, b"Internal Server Error", {}, ""
            if fault == "422":
                detail = {"detail": [{"loc": ["body", "move"], "input": form.get("move"),
                                      "msg": "bad", "key": form.get("api_key")}]}
                return 422, json.dumps(detail).encode(), {}, ""
            if fault == "422-secret-at-cut":  # the same across the cut of an error excerpt
                text = "x" * (QUOTE_CUT - 3) + self.key + " was the key"
                return 422, text.encode(), {}, ""
            if fault in ("422-huge-secret", "500-huge-secret"):
                return int(fault[:3]), self._huge_secret(), {}, ""
            if fault == "bad-status-line":  # after the move was played: the reply is garbage
                self._dispatch(path, form)
                line = "XYZ " + "x" * 60_000 + self.key + " more\r\n\r\n"
                return 0, line.encode(), {}, "raw"
            if fault == "redirect":
                return 301, b"", {"Location": "https://elsewhere.example/"}, ""
            if fault == "badkey" or form.get("api_key") != [self.key]:
                return 200, json.dumps({"status": False, "msg": "Incorrect API key.", "result": 0,
                                        "botmove": -1, "state": None}).encode(), {}, ""
            if fault == "echo-refusal":
                return 200, json.dumps({"status": False, "msg": self.echo, "result": 0,
                                        "botmove": -1, "state": None}).encode(), {}, ""
            if fault == "secret-at-cut":
                # Our key starts three characters before the client's cut: quoting it cut
                # first and masked second would leave its first characters in the open.
                msg = "x" * (QUOTE_CUT - 3) + self.key + " and more words after it"
                return 200, json.dumps({"status": False, "msg": msg, "result": 0,
                                        "botmove": -1, "state": None}).encode(), {}, ""
            if fault == "impossible":
                self.cells = None
                return 200, json.dumps({"status": False, "msg": "Impossible move.", "result": -10,
                                        "botmove": -1, "state": None}).encode(), {}, ""
            if fault == "late":
                self.cells = None
                return 200, json.dumps({"status": False, "msg": "Time limit exceeded.",
                                        "result": -1, "botmove": -1, "state": None}).encode(), {}, ""
            if fault == "nogame":
                return 200, json.dumps({"status": False, "msg": "No game is running.",
                                        "result": 0, "botmove": -1, "state": None}).encode(), {}, ""
            body = self._dispatch(path, form)
            if self.floats:
                body = _floats(body)
            if fault == "notjson":
                return 200, b"<html>Bad Gateway</html>", {}, ""
            if fault == "notjson-escapes":  # each byte quoted as a literal is four characters
                return 200, b"\x01" * 1000, {}, ""
            if fault == "nested":
                return 200, b"[" * 100_000 + b"]" * 100_000, {}, ""
            if fault == "huge-body":
                body["msg"] = "y" * 10_000_000
            if fault == "huge-msg":
                body["msg"] = ("The bot played. " * 6400)[:100_000]
            if fault == "trickle":
                return 200, json.dumps(body).encode(), {}, "trickle"
            if fault in ("trickle-close", "trickle-close-unsized", "trickle-http10"):
                data = json.dumps(body).encode()
                status = "HTTP/1.0 200 OK" if fault == "trickle-http10" else "HTTP/1.1 200 OK"
                head = [status, "Content-Type: application/json"]
                if fault != "trickle-close-unsized":
                    head.append(f"Content-Length: {len(data)}")
                if fault != "trickle-http10":
                    head.append("Connection: close")
                raw = ("\r\n".join(head) + "\r\n\r\n").encode() + data
                return 200, raw, {}, "raw-trickle-body"
            if fault == "echo-ok":
                body["msg"] = self.echo
            if fault == "stats-missing":
                del body["played"]
            if fault == "desync" and body.get("state"):
                state: list[list[int]] = body["state"]
                state[0][0] = -1  # a disc that cannot be there
            return 200, json.dumps(body).encode(), {}, ""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the real server: the session reuses it
    course: ScriptedCourse

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        form = parse_qs(self.rfile.read(length).decode())
        code, body, headers, how = self.course.handle(self.path, form)
        if body is None:
            self.close_connection = True  # no reply at all: the client sees the connection drop
            return
        if how == "hang":
            self.course.stop.wait(60)
            self.close_connection = True
            return
        if how.startswith("raw"):
            self.close_connection = True
            head, sep, rest = body.partition(b"\r\n\r\n")
            try:
                self.wfile.write(head + sep if how == "raw-trickle-body" else body)
                self.wfile.flush()
                # The body a byte at a time: the client has the head, and http.client has
                # handed the socket from the connection to the response.
                for byte in rest if how == "raw-trickle-body" else b"":
                    if self.course.stop.wait(TRICKLE_PAUSE):
                        return
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
            except OSError:
                pass
            return
        head_lines = [f"HTTP/1.1 {code} Whatever", "Content-Type: application/json",
                      f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in headers.items())]
        raw = ("\r\n".join(head_lines) + "\r\n\r\n").encode() + body
        if how == "trickle":  # a byte every half second: a 15 s read timeout never trips
            self.close_connection = True
            for byte in raw:
                if self.course.stop.is_set():
                    return
                try:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.5)
            return
        try:
            self.wfile.write(raw)
        except OSError:
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(course: ScriptedCourse) -> Iterator[str]:
    """Serve ``course`` on 127.0.0.1 (a free port) in a thread; yields its base URL."""
    handler = type("BoundHandler", (_Handler,), {"course": course})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/api/"
    finally:
        course.stop.set()
        httpd.shutdown()
        httpd.server_close()
