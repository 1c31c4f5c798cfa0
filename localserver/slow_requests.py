"""Closing connections whose request arrives too slowly, which uvicorn does not do on its own.

uvicorn closes a kept-alive connection that stays idle, but a connection that has sent half a
request (a few header bytes, then nothing, or a byte now and then) is held open for as long as
the client likes: a few hundred of them tie the server up.  ``guarded_protocol(seconds)`` is
uvicorn's h11 protocol with one timer more: from the first byte of a request (or from the
connection being made) until the request, body included, has arrived.  When it runs out the
connection is closed.  A course request is about 100 bytes and arrives at once.

It builds on uvicorn's ``H11Protocol`` (its ``conn``, ``transport`` and ``loop`` attributes and
its ``connection_made`` / ``data_received`` / ``on_response_complete`` / ``connection_lost``
hooks); ``tests/test_localserver_http.py`` checks the behaviour against the installed uvicorn.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

# Seconds a request may take to arrive, from its first byte to its last.
REQUEST_TIMEOUT = 10.0

_logger = logging.getLogger("uvicorn.error")


class _GuardedH11Protocol(H11Protocol):
    request_timeout = REQUEST_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._request_timer: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        if self._request_timer is None:
            self._request_timer = self.loop.call_later(self.request_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # a connection must bring its first request in time too

    def data_received(self, data: bytes) -> None:
        self._arm()  # the first bytes of a request on a kept-alive connection
        super().data_received(data)
        if self.conn.their_state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._disarm()  # the whole request is in (or the connection is ending)

    def on_response_complete(self) -> None:
        self._disarm()  # idle now: uvicorn's keep-alive timeout takes over
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        self._request_timer = None
        if not self.transport.is_closing():
            _logger.info("closing a connection whose request took over %g s to arrive",
                         self.request_timeout)
            self.transport.close()


def guarded_protocol(seconds: float = REQUEST_TIMEOUT) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request takes over ``seconds``."""
    return type("GuardedH11Protocol", (_GuardedH11Protocol,), {"request_timeout": seconds})
