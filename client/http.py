"""The course server over HTTP: every call goes through ``HttpCourseServer._post``.

One ``requests.Session`` (its connection is reused between moves, which saves a TLS handshake
per move), explicit (connect, read) timeouts on every call, and the protocol's form fields:
``stil_id`` repeated once per id, ``move``, ``api_key``.

Retries: only a request that never reached the server (connection refused, name not resolved,
connect timeout, TLS handshake failed) is sent again, up to ``retries`` times: the server has
not seen it, so sending it again cannot play a move twice.  Anything that may have reached the
server (a read timeout, a connection dropped while waiting for the reply) is never re-sent: the
error says so (``ConnectionLost``), and the caller decides.  This module never sends -1 on its
own; only ``start_game`` does, when the caller asks for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import requests
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.exceptions import SSLError as Urllib3SSLError

from client.protocol import (
    NEW_GAME,
    ConnectionLost,
    MalformedReply,
    MoveReply,
    RequestRejected,
    ServerFailed,
    ServerUnreachable,
    Stats,
    parse_move_reply,
    parse_stats,
)
from settings import ServerSettings, check_server_url, mask_secret

RETRY_PAUSE = 0.2  # seconds before the first retry; doubled for each further one


def never_reached_server(exc: requests.RequestException) -> bool:
    """True if ``exc`` happened before any byte of the request could reach the server."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    if not isinstance(exc, requests.ConnectionError):
        return False
    # requests wraps urllib3's MaxRetryError, whose ``reason`` says what went wrong; a dropped
    # connection during the exchange shows up as a ProtocolError instead.
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, (NewConnectionError, ConnectTimeoutError, Urllib3SSLError))


class HttpCourseServer:
    """``CourseServer`` over HTTP for the ids and key in ``settings``."""

    def __init__(
        self,
        settings: ServerSettings,
        *,
        url: str | None = None,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.settings = settings
        self.base_url = check_server_url(url, "--server") if url is not None else settings.url
        self.session = session or requests.Session()
        self.sleep = sleep

    @property
    def name(self) -> str:
        return self.base_url

    def close(self) -> None:
        self.session.close()

    def start_game(self) -> MoveReply:
        return parse_move_reply(self._post("move", move=NEW_GAME))

    def play(self, column: int) -> MoveReply:
        if not 0 <= column <= 6:
            # Our own bug if it happens: never let the server turn it into a lost game.
            raise ValueError(f"column {column} is not 0-6")
        return parse_move_reply(self._post("move", move=column))

    def stats(self) -> Stats:
        return parse_stats(self._post("stats"))

    def _post(self, endpoint: str, *, move: int | None = None) -> Any:
        """POST the protocol's form to ``endpoint`` and return the decoded JSON body.

        Raises ``ServerUnreachable`` (after the retries), ``ConnectionLost``,
        ``RequestRejected`` (4xx), ``ServerFailed`` (5xx) or ``MalformedReply`` (not JSON).
        """
        url = self.base_url + endpoint
        form: dict[str, Any] = {"stil_id": list(self.settings.stil_ids), "api_key": self.settings.api_key}
        if move is not None:
            form["move"] = move
        timeout = (self.settings.connect_timeout, self.settings.read_timeout)
        attempt = 0
        while True:
            try:
                # Redirects are not followed: requests would turn the POST into a GET and the
                # move would be lost; the error names the new address instead.
                response = self.session.post(url, data=form, timeout=timeout, allow_redirects=False)
                break
            except requests.RequestException as exc:
                if never_reached_server(exc):
                    if attempt < self.settings.retries:
                        self.sleep(RETRY_PAUSE * 2**attempt)
                        attempt += 1
                        continue
                    tries = f" ({attempt + 1} tries)" if attempt else ""
                    raise ServerUnreachable(
                        f"cannot reach the server at {url}{tries}: {_reason(exc)}"
                    ) from exc
                what = f"move {move}" if move is not None else endpoint
                raise ConnectionLost(
                    f"no reply from {url} to {what}: {_reason(exc)}; the server may or may not"
                    " have received it"
                ) from exc
        return self._decode(response, url)

    def _decode(self, response: requests.Response, url: str) -> Any:
        code = response.status_code
        excerpt = self._redact(response.text[:300].strip())
        if 300 <= code < 400:
            target = response.headers.get("Location", "?")
            raise RequestRejected(
                f"the server at {url} redirects (HTTP {code}) to {target}: set server.url to"
                " the new address", code,
            )
        return _body(code, excerpt, response, url)

    def _redact(self, text: str) -> str:
        """``text`` with our key and ids masked (a 422 reply echoes the offending field)."""
        for secret in (self.settings.api_key, *self.settings.stil_ids):
            if len(secret) >= 3:  # shorter ones would garble the message, and say little
                text = text.replace(secret, mask_secret(secret))
        return text


def _body(code: int, excerpt: str, response: requests.Response, url: str) -> Any:
    if 400 <= code < 500:
        hint = " (is server.url right?)" if code in (404, 405) else ""
        raise RequestRejected(f"the server rejected the request to {url}: HTTP {code}{hint}: {excerpt}", code)
    if code >= 500:
        raise ServerFailed(f"the server failed on the request to {url}: HTTP {code}: {excerpt}", code)
    if code != 200:
        raise MalformedReply(f"unexpected HTTP {code} from {url}: {excerpt}")
    try:
        return response.json()
    except ValueError as exc:  # requests' JSONDecodeError is a ValueError
        raise MalformedReply(f"the reply from {url} is not JSON: {excerpt!r}") from exc


def _reason(exc: requests.RequestException) -> str:
    """A short, readable cause: the innermost reason urllib3 gives, without its object reprs."""
    reason: Any = exc
    while True:
        inner = getattr(reason, "reason", None) or (reason.args[0] if getattr(reason, "args", None) else None)
        if not isinstance(inner, Exception) or inner is reason:
            break
        reason = inner
    text = str(reason)
    # urllib3's messages start with the connection object's repr: keep what follows it.
    if ">: " in text:
        text = text.split(">: ", 1)[1]
    return f"{type(reason).__name__}: {text}" if text else type(reason).__name__
