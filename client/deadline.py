"""A total deadline for an HTTP exchange, which ``requests`` does not have.

``requests`` (through urllib3) times out each socket operation on its own: a server that sends
one byte every two seconds never trips a 15 s read timeout, and holds the client for as long
as it likes.  ``DeadlineAdapter`` is an ``HTTPAdapter`` whose connections register their
sockets with the ``Watch`` of the exchange under way (``adapter.watch(seconds)``); when the
watch runs out, a timer thread shuts those sockets down, so the blocked read returns at once
and ``requests`` raises (or the body ends early).  ``Watch.expired`` then tells the caller why.

The watch keeps the sockets themselves, not the connections: for a reply that ends the
connection (``Connection: close``, HTTP/1.0, no Content-Length) ``http.client`` hands the
socket to the response and sets the connection's ``sock`` to None before the body is read, so
a watch that looked the socket up on the connection would find nothing to shut.

A watch covers everything read inside its ``with`` block, the body of a streamed response
included.  Only direct connections are watched: through a proxy the per-read timeouts alone
apply.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

_current = threading.local()


class Watch:
    """The deadline of one exchange: the sockets it used, whether it ran out, and whether any
    byte of the request was handed to a socket.

    ``used`` is set when one of our connections takes up the exchange, ``sent`` just before its
    first byte is written (after the connection, and for HTTPS its handshake, is made): a
    failure while ``used`` and not ``sent`` cannot have reached the server, whatever the
    library calls it (a TLS handshake that timed out, a name lookup that outlasted the watch).
    """

    def __init__(self) -> None:
        self.expired = False
        self.used = False
        self.sent = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def mark_sent(self) -> None:
        """A byte of the request is about to be written to a socket of this watch.

        Not once the watch has run out: its sockets are shut by then, and nothing written to
        them can leave (a name lookup or a connect that outlasted the deadline).
        """
        with self._lock:
            if not self.expired:
                self.sent = True

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    # A socket closed since is detached (its descriptor is -1), so this cannot reach a
    # descriptor the system has given to another socket meanwhile.
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _this_watch() -> Watch | None:
    watch: Watch | None = getattr(_current, "watch", None)
    return watch


def _take_up() -> None:
    """Note on this thread's watch that one of our connections took up its exchange."""
    watch = _this_watch()
    if watch is not None:
        watch.used = True


def _join_watch(connection: HTTPConnection) -> None:
    """Register ``connection``'s socket, if it has one, with this thread's watch."""
    watch = _this_watch()
    sock = getattr(connection, "sock", None)
    if watch is not None and sock is not None:
        watch.add(sock)  # shut at once if the watch already ran out


class _Watched:
    """Mixed into urllib3's connections: the socket of each request joins the watch.

    ``request`` catches a kept-alive socket reused from an earlier exchange, ``connect`` a
    socket made for this one; either way the watch holds the socket from then on, whatever
    the connection does with its ``sock`` afterwards.
    """

    def request(self, *args: Any, **kwargs: Any) -> Any:
        _take_up()
        _join_watch(self)  # type: ignore[arg-type]
        return super().request(*args, **kwargs)  # type: ignore[misc]

    def connect(self) -> None:
        _take_up()  # urllib3 makes an HTTPS connection (its handshake) before the request
        super().connect()  # type: ignore[misc]
        _join_watch(self)  # type: ignore[arg-type]

    def send(self, data: Any) -> None:
        # Every byte of a request goes through here (http.client connects on the first send
        # when the pool has not connected already): from now on the server may have it.
        if getattr(self, "sock", None) is None:
            self.connect()
        watch = _this_watch()
        if watch is not None:
            watch.mark_sent()
        super().send(data)  # type: ignore[misc]


class _WatchedHTTPConnection(_Watched, HTTPConnection):
    pass


class _WatchedHTTPSConnection(_Watched, HTTPSConnection):
    pass


class _WatchedHTTPPool(HTTPConnectionPool):
    ConnectionCls = _WatchedHTTPConnection


class _WatchedHTTPSPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedHTTPSConnection


class DeadlineAdapter(HTTPAdapter):
    """An ``HTTPAdapter`` whose exchanges can be given a total deadline (``watch``)."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _WatchedHTTPPool,
                                                   "https": _WatchedHTTPSPool}

    @staticmethod
    @contextlib.contextmanager
    def watch(seconds: float) -> Iterator[Watch]:
        """Within the block, every exchange of this thread gives up ``seconds`` after it began."""
        watch = Watch()
        timer = threading.Timer(seconds, watch.expire)
        timer.daemon = True
        _current.watch = watch
        timer.start()
        try:
            yield watch
        finally:
            timer.cancel()
            _current.watch = None
