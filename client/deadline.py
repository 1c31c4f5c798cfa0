"""A total deadline for an HTTP exchange, which ``requests`` does not have.

``requests`` (through urllib3) times out each socket operation on its own: a server that sends
one byte every two seconds never trips a 15 s read timeout, and holds the client for as long
as it likes.  ``DeadlineAdapter`` is an ``HTTPAdapter`` whose connections register with the
``Watch`` of the exchange under way (``adapter.watch(seconds)``); when the watch runs out, a
timer thread shuts the sockets of those connections down, so the blocked read returns at once
and ``requests`` raises.  ``Watch.expired`` then tells the caller why.

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
    """The deadline of one exchange: the connections it used, and whether it ran out."""

    def __init__(self) -> None:
        self.expired = False
        self._lock = threading.Lock()
        self._connections: list[HTTPConnection] = []

    def add(self, connection: HTTPConnection) -> None:
        with self._lock:
            self._connections.append(connection)
            if self.expired:
                _shut(connection)

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            for connection in self._connections:
                _shut(connection)


def _shut(connection: HTTPConnection) -> None:
    sock = getattr(connection, "sock", None)
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


class _Watched:
    """Mixed into urllib3's connections: each request and each new socket joins the watch."""

    def request(self, *args: Any, **kwargs: Any) -> Any:
        watch: Watch | None = getattr(_current, "watch", None)
        if watch is not None:
            watch.add(self)  # type: ignore[arg-type]
        return super().request(*args, **kwargs)  # type: ignore[misc]

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        watch: Watch | None = getattr(_current, "watch", None)
        if watch is not None:
            watch.add(self)  # type: ignore[arg-type]  # shut at once if it already ran out


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
