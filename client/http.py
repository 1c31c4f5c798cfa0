"""The course server over HTTP: every call goes through ``HttpCourseServer._post``.

One ``requests.Session`` (its connection is reused between moves, which saves a TLS handshake
per move), explicit (connect, read) timeouts on every call, and the protocol's form fields:
``stil_id`` repeated once per id, ``move``, ``api_key``.

Retries: only a request that never reached the server (connection refused, name not resolved,
connect timeout, TLS handshake failed) is sent again, up to ``retries`` times: the server has
not seen it, so sending it again cannot play a move twice.  Anything that may have reached the
server (a read timeout, a connection dropped while waiting for the reply) is never re-sent: the
error says so (``ConnectionLost``), and the caller decides.  This module never sends -1 on its
own; only ``start_game`` does, when the caller asks for it.  A URL that requests cannot use
(a bad host name) is reported at once as never sent.

The server allows 5 s per move from its reply to our next one, so for a move (not for -1 or
stats) the connect timeout and the retries are cut to what is left of that window, counted
from the last reply to a move this client received: a retry that could only arrive late is
not made.  The read timeout is not cut: once the move is sent, waiting for its reply longer
cannot make it late, and giving up would leave it in doubt.

Every exchange has a total deadline too, connect timeout + read timeout, for the connection,
the request and the whole reply (``client.deadline``): a server that trickles its reply byte
by byte cannot hold the client longer.  A reply is read up to ``MAX_REPLY_BYTES`` (a course
reply is a few hundred bytes) and must be JSON of a sane depth; anything else is a
``MalformedReply`` whose excerpt is masked and cut (``course.protocol.quote``).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any

import requests
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.exceptions import SSLError as Urllib3SSLError

from client.deadline import DeadlineAdapter
from course.errors import (
    ConnectionLost,
    MalformedReply,
    RequestRejected,
    ServerFailed,
    ServerUnreachable,
    StatsUnavailable,
)
from course.protocol import NEW_GAME, SERVER_MOVE_LIMIT, CourseServerBase, Secrets, quote
from settings import ConfigError, ServerSettings, check_server_url

# A course reply is a few hundred bytes; a body this large is not one, and is not read further.
MAX_REPLY_BYTES = 1 << 20
RETRY_PAUSE = 0.2  # seconds before the first retry; doubled for each further one
# The least connect timeout of a move's request, even at the end of its window: it is sent
# anyway (the server may forgive a late move), and less would fail on any real network.
MIN_CONNECT_TIMEOUT = 0.5
# Errors requests raises while preparing a request, before anything is sent.
UNSENDABLE = (
    requests.exceptions.InvalidURL,
    requests.exceptions.InvalidSchema,
    requests.exceptions.MissingSchema,
    requests.exceptions.InvalidHeader,
)


def never_reached_server(exc: requests.RequestException) -> bool:
    """True if ``exc`` happened before any byte of the request could reach the server."""
    if isinstance(exc, (requests.ConnectTimeout, *UNSENDABLE)):
        return True
    if not isinstance(exc, requests.ConnectionError):
        return False
    # requests wraps urllib3's MaxRetryError, whose ``reason`` says what went wrong; a dropped
    # connection during the exchange shows up as a ProtocolError instead.
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, (NewConnectionError, ConnectTimeoutError, Urllib3SSLError))


class HttpCourseServer(CourseServerBase):
    """``CourseServer`` over HTTP for the ids and key in ``settings``.

    ``sleep`` and ``clock`` (monotonic seconds) are injectable for tests.
    """

    def __init__(
        self,
        settings: ServerSettings,
        *,
        url: str | None = None,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(settings.stil_ids, settings.api_key)
        self.settings = settings
        self.base_url = settings.url
        if url is not None:
            try:
                self.base_url = check_server_url(url)
            except ValueError as exc:
                raise ConfigError(f"--server: {exc}") from None
        self.session = session or requests.Session()
        self.adapter = DeadlineAdapter()
        self.session.mount("http://", self.adapter)
        self.session.mount("https://", self.adapter)
        self.sleep = sleep
        self.clock = clock
        # When the last reply to a move or to -1 arrived: the server's 5 s for our next move
        # run from about then.  None until the first reply (a resumed game: unknown).
        self._last_move_reply: float | None = None

    @property
    def name(self) -> str:
        return self.base_url

    def close(self) -> None:
        self.session.close()

    def replied_ago(self, seconds: float) -> None:
        self._last_move_reply = self.clock() - seconds

    def _send_move(self, move: int) -> Any:
        window_end = None
        if move != NEW_GAME and self._last_move_reply is not None:
            window_end = self._last_move_reply + SERVER_MOVE_LIMIT
        return self._post("move", move=move, window_end=window_end)

    def _send_stats(self) -> Any:
        return self._post("stats")

    def _post(self, endpoint: str, *, move: int | None = None, window_end: float | None = None) -> Any:
        """POST the protocol's form to ``endpoint`` and return the decoded JSON body.

        Raises ``ServerUnreachable`` (after the retries, or at the end of a move's window
        ``window_end``), ``ConnectionLost``, ``RequestRejected`` (4xx; ``StatsUnavailable`` for
        a 404 to stats), ``ServerFailed`` (5xx) or ``MalformedReply``.
        """
        url = self.base_url + endpoint
        form: dict[str, Any] = {"stil_id": list(self.stil_ids), "api_key": self.api_key}
        if move is not None:
            form["move"] = move
        what = f"move {move}" if move is not None else endpoint
        attempt = 0
        while True:
            connect_timeout = self.settings.connect_timeout
            if window_end is not None:
                left = window_end - self.clock()
                connect_timeout = max(MIN_CONNECT_TIMEOUT, min(connect_timeout, left))
            try:
                response, body = self._exchange(url, form, connect_timeout, what)
                break
            except _NeverArrived as never:
                exc = never.cause
            pause = RETRY_PAUSE * 2**attempt
            in_window = window_end is None or (
                self.clock() + pause + MIN_CONNECT_TIMEOUT <= window_end)
            if attempt < self.settings.retries and in_window:
                self.sleep(pause)
                attempt += 1
                continue
            notes = [f"{attempt + 1} tries"] if attempt else []
            if attempt < self.settings.retries:  # stopped by the window, not the count
                notes.append(f"no retry could arrive within the server's"
                             f" {SERVER_MOVE_LIMIT:g} s per move")
            said = f" ({'; '.join(notes)})" if notes else ""
            raise ServerUnreachable(
                f"cannot reach the server at {url}{said}: {_reason(exc, self.secrets)}") from exc
        if endpoint == "move":
            self._last_move_reply = self.clock()
        return self._decode(response, body, url, endpoint)

    def _exchange(self, url: str, form: dict[str, Any], connect_timeout: float,
                  what: str) -> tuple[requests.Response, bytes]:
        """One POST and its whole reply body, within connect + read timeout in all.

        Raises ``_NeverArrived`` when the request cannot have reached the server (it may be
        sent again), ``ServerUnreachable`` when it cannot be sent at all, ``ConnectionLost``
        when it may have arrived but no complete reply came, ``MalformedReply`` for a body
        over ``MAX_REPLY_BYTES``.
        """
        total = connect_timeout + self.settings.read_timeout
        with self.adapter.watch(total) as watch:
            try:
                # Redirects are not followed: requests would turn the POST into a GET and the
                # move would be lost; the error names the new address instead.
                response = self.session.post(
                    url, data=form, timeout=(connect_timeout, self.settings.read_timeout),
                    allow_redirects=False, stream=True,
                )
                try:
                    body = _read_body(response, url)
                finally:
                    response.close()
                if watch.expired:
                    # A body without a Content-Length ends where the socket was shut: it may
                    # look whole, but it is cut.
                    raise _past_deadline(url, what, total)
                return response, body
            except UNSENDABLE as exc:
                raise ServerUnreachable(
                    f"cannot send a request to {url}: {_reason(exc, self.secrets)}; nothing was"
                    " sent"
                ) from exc
            except requests.RequestException as exc:
                # Through our own connections we know whether a byte was written; through any
                # other (a proxy's) only the kind of error tells.
                may_have_arrived = watch.sent if watch.used else not never_reached_server(exc)
                if not may_have_arrived:
                    raise _NeverArrived(exc) from exc
                if watch.expired:
                    raise _past_deadline(url, what, total) from exc
                raise ConnectionLost(
                    f"no reply from {url} to {what}: {_reason(exc, self.secrets)}; the server"
                    " may or may not have received it"
                ) from exc

    def _decode(self, response: requests.Response, body: bytes, url: str, endpoint: str) -> Any:
        """The JSON of a 200 reply's ``body``; any other reply raises the matching error.

        What is quoted from the reply (a 422 echoes the offending fields) is masked, then cut.
        """
        code = response.status_code
        if code == 200:
            try:
                return json.loads(body)
            except RecursionError:
                raise MalformedReply(f"the reply from {url} is JSON nested too deeply to be a"
                                     " course server's reply") from None
            except ValueError as exc:  # not JSON, or not text
                # Quoted as a literal by ``quote`` itself, so that the cut holds after the
                # escapes (a repr of the cut excerpt could be four times as long).
                text = body.decode("utf-8", "replace").strip()
                raise MalformedReply(f"the reply from {url} is not JSON:"
                                     f" {quote(text, self.secrets, literal=True)}") from exc
        # Not a reply to play on: its body is decoded and quoted only here, off the move's path.
        excerpt = quote(body.decode("utf-8", "replace").strip(), self.secrets)
        if 300 <= code < 400:
            target = quote(response.headers.get("Location", "?"), self.secrets)
            raise RequestRejected(
                f"the server at {url} redirects (HTTP {code}) to {target}: set server.url to"
                " the new address", code,
            )
        if code == 404 and endpoint == "stats":
            raise StatsUnavailable(
                f"the server at {self.base_url} has no stats endpoint (HTTP 404 to {url}): this"
                " version of the course server keeps no stats (the 2021 one had none), or"
                " server.url is wrong", code)
        if 400 <= code < 500:
            hint = " (is server.url right?)" if code in (404, 405) else ""
            raise RequestRejected(
                f"the server rejected the request to {url}: HTTP {code}{hint}: {excerpt}", code)
        if code >= 500:
            raise ServerFailed(f"the server failed on the request to {url}: HTTP {code}: {excerpt}",
                               code)
        raise MalformedReply(f"unexpected HTTP {code} from {url}: {excerpt}")


class _NeverArrived(Exception):
    """Internal: the request cannot have reached the server (``cause`` says why)."""

    def __init__(self, cause: requests.RequestException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _past_deadline(url: str, what: str, total: float) -> ConnectionLost:
    return ConnectionLost(
        f"no complete reply from {url} to {what} within {total:g} s (connect timeout + read"
        " timeout); the server may or may not have received it")


def _read_body(response: requests.Response, url: str) -> bytes:
    """The whole body of ``response``, refused beyond ``MAX_REPLY_BYTES``."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > MAX_REPLY_BYTES:
        raise MalformedReply(f"the reply from {url} announces {int(declared):,} bytes, more than a"
                             f" course server's reply ({MAX_REPLY_BYTES:,} at most): not read")
    chunks = []
    size = 0
    for chunk in response.iter_content(chunk_size=64 * 1024):
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise MalformedReply(f"the reply from {url} is over {MAX_REPLY_BYTES:,} bytes, more"
                                 " than a course server's reply: not read further")
        chunks.append(chunk)
    return b"".join(chunks)


def _reason(exc: requests.RequestException, secrets: Secrets) -> str:
    """A short, readable cause: the innermost reason urllib3 gives, without its object reprs.

    The text comes from the HTTP library, which quotes what the server sent (a bad status
    line whole, for one): masked, then cut, as any text from a server (``quote``).
    """
    reason: Any = exc
    while True:
        inner = getattr(reason, "reason", None) or (reason.args[0] if getattr(reason, "args", None) else None)
        if not isinstance(inner, Exception) or inner is reason:
            break
        reason = inner
    if _refused(reason):
        return REFUSED
    # urllib3's messages start with the pool's or the connection's repr, ``<...>`` or
    # ``_WatchedHTTPConnection(host=..., port=...)``: our class names, and the URL says the rest.
    text = _OBJECT_PREFIX.sub("", str(reason), count=1)
    return f"{type(reason).__name__}: {quote(text, secrets)}" if text else type(reason).__name__


REFUSED = "connection refused (is the server running and the URL right?)"
_OBJECT_PREFIX = re.compile(r"^(?:<[^>]*>|[A-Za-z_][\w.]*\([^()]*\)): ")


def _refused(reason: BaseException) -> bool:
    """True when the connection was refused: the OS error is the cause of urllib3's error."""
    seen: BaseException | None = reason
    for _ in range(10):  # a chain of causes, never endless
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
