"""Whether a move may have reached the server, decided by what was written, not by the error's
name: over HTTPS on 127.0.0.1 (a certificate made for the test) and with a slow name lookup.

A move the server may have read must never be sent again (the client stops with the game in
doubt); a move no byte of which was written may be retried and leaves the game resumable.
"""

from __future__ import annotations

import contextlib
import os
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from client.http import HttpCourseServer
from course.errors import ConnectionLost, ServerUnreachable
from settings import ServerSettings

trustme = pytest.importorskip("trustme")


class TlsServer:
    """A TLS server on 127.0.0.1 that reads each request and then misbehaves as told:
    ``"bad-record"`` answers with a corrupt TLS record, ``"no-handshake"`` accepts the TCP
    connection and never completes the handshake."""

    def __init__(self, how: str, context: ssl.SSLContext) -> None:
        self.how = how
        self.context = context
        self.requests: list[bytes] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.held: list[socket.socket] = []
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.listener.getsockname()[1]}/"

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                raw, _ = self.listener.accept()
            except OSError:
                return
            if self.how == "no-handshake":
                self.held.append(raw)
                continue
            with contextlib.suppress(OSError, ssl.SSLError):
                conn = self.context.wrap_socket(raw, server_side=True)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                self.requests.append(data)
                # An application-data record whose MAC cannot be right: the client's TLS fails
                # after the server has read the whole request (the move is played).
                os.write(conn.fileno(), b"\x17\x03\x03\x00\x20" + os.urandom(32))
                conn.close()

    def close(self) -> None:
        self.stop.set()
        self.listener.close()
        for sock in self.held:
            sock.close()


@pytest.fixture
def tls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ssl.SSLContext]:
    """A server-side TLS context whose certificate the client trusts (REQUESTS_CA_BUNDLE)."""
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(context)
    yield context


def settings(url: str) -> ServerSettings:
    return ServerSettings(url=url, stil_ids=("ab1234cd-s",), api_key="k" * 20,
                          connect_timeout=0.5, read_timeout=1.0, retries=2)


def test_a_tls_failure_after_the_move_was_read_leaves_it_in_doubt_and_unsent_again(
        tls: ssl.SSLContext) -> None:
    server = TlsServer("bad-record", tls)
    try:
        with pytest.raises(ConnectionLost) as lost:
            HttpCourseServer(settings(server.url)).play(3)
        assert lost.value.in_doubt and "may or may not have received it" in str(lost.value)
        assert len(server.requests) == 1 and server.requests[0].startswith(b"POST /move ")
    finally:
        server.close()


@pytest.mark.slow
def test_a_tls_handshake_that_never_ends_sent_nothing_and_may_be_retried(
        tls: ssl.SSLContext) -> None:
    server = TlsServer("no-handshake", tls)
    try:
        with pytest.raises(ServerUnreachable) as unreachable:
            HttpCourseServer(settings(server.url)).play(3)
        assert not unreachable.value.in_doubt and "3 tries" in str(unreachable.value)
        assert server.requests == [] and len(server.held) == 3
    finally:
        server.close()


@pytest.mark.slow
def test_a_name_lookup_outlasting_the_deadline_sent_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    hits: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            hits.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(500)
            self.end_headers()

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    real = socket.getaddrinfo

    def slow(*args: object, **kwargs: object) -> object:
        time.sleep(1.8)  # longer than connect + read timeout: the watch runs out first
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    try:
        url = f"http://localhost:{httpd.server_address[1]}/"
        with pytest.raises(ServerUnreachable) as unreachable:
            HttpCourseServer(settings(url)).play(3)
        assert not unreachable.value.in_doubt and hits == []
    finally:
        httpd.shutdown()
