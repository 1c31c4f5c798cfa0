"""The course server's protocol as types: replies, errors, and the ``CourseServer`` interface.

Everything a server sends is checked here, where it enters the program, and becomes either a
typed reply (``MoveReply``, ``Stats``) or a typed error; the game loop trusts what it gets.

A move reply ``{status, msg, result, botmove, state}`` with ``status: true`` becomes a
``MoveReply``; ``status: false`` becomes a ``ServerRefused`` (or the more precise
``WrongApiKey``, ``ImpossibleMove``, ``LostOnServer``).  The stats reply has ``status: null``.

Each error says, through ``in_doubt``, whether the request may have changed the game on the
server: a move that never reached the server (``ServerUnreachable``) or was rejected by its
validation (``RequestRejected``) changed nothing, so the game can go on from the same position
later; after a lost connection, a server failure or an unreadable reply nobody knows whether
the move was played, so the game must not be continued blindly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

from board import HEIGHT, WIDTH

# The values of ``result``.
RUNNING = 0.0
WIN = 1.0
DRAW = 0.5
LOSS = -1.0
ILLEGAL = -10.0
RESULTS = (RUNNING, WIN, DRAW, LOSS, ILLEGAL)
RESULT_NAMES = {RUNNING: "running", WIN: "won", DRAW: "draw", LOSS: "lost", ILLEGAL: "illegal move"}

NEW_GAME = -1  # the ``move`` that starts a game (and forfeits a running one)
NO_MOVE = -1  # the ``botmove`` when the bot did not move

MSG_WRONG_KEY = "Incorrect API key."
MSG_IMPOSSIBLE = "Impossible move."

Grid = tuple[tuple[int, ...], ...]
"""A course board: ``HEIGHT`` rows of ``WIDTH`` cells, row 0 at the top; 1 = ours, -1 = the bot's."""


# --- errors ----------------------------------------------------------------------------------


class ClientError(Exception):
    """Base class: talking to the course server (or keeping our view of the game) failed.

    ``in_doubt`` is True when the request may have changed the game on the server.
    """

    in_doubt = False


class ServerUnreachable(ClientError):
    """The request never reached the server: no connection (refused, DNS, connect timeout)."""


class ConnectionLost(ClientError):
    """The request was sent but no complete reply came back (read timeout, connection dropped)."""

    in_doubt = True


class RequestRejected(ClientError):
    """The server rejected the request's fields (HTTP 4xx, e.g. 422): nothing was played."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class ServerFailed(ClientError):
    """The server failed while handling the request (HTTP 5xx): it may or may not have played it."""

    in_doubt = True

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class MalformedReply(ClientError, ValueError):
    """The reply is not what the protocol says (not JSON, a missing field, a value out of range)."""

    in_doubt = True


class ServerRefused(ClientError):
    """The server answered ``status: false``; ``msg``, ``result`` and ``state`` are what it said."""

    def __init__(
        self,
        message: str,
        *,
        msg: str = "",
        result: float | None = None,
        state: Grid | None = None,
    ) -> None:
        super().__init__(message)
        self.msg = msg
        self.result = result
        self.state = state


class WrongApiKey(ServerRefused):
    """The server does not accept our API key."""


class ImpossibleMove(ServerRefused):
    """We played a full column: the server ended the game as lost with result -10."""


class LostOnServer(ServerRefused):
    """The server ended the game as lost (result -1) without playing our move (e.g. too late)."""


class Desync(ClientError):
    """The server's board differs from our mirror of the game: we stop rather than play on it."""


class ResumeUnsafe(ClientError):
    """An unfinished game in the record cannot be resumed safely; the message says why."""


# --- replies ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MoveReply:
    """A successful (``status: true``) reply to a move or to the start of a game.

    ``state`` is None when the server sent ``null``; ``botmove`` is -1 when the bot did not move.
    """

    msg: str
    result: float
    botmove: int
    state: Grid | None

    @property
    def finished(self) -> bool:
        return self.result != RUNNING


@dataclass(frozen=True, slots=True)
class Stats:
    """The server's bookkeeping for our ids."""

    stil_id: str
    played: int
    won: int
    lost: int
    streak: int
    streak_max: int
    total_reward: float

    @property
    def drawn(self) -> int:
        """Games neither won nor lost (the server does not count them separately)."""
        return self.played - self.won - self.lost


def _field(body: dict[str, Any], name: str) -> Any:
    if name not in body:
        raise MalformedReply(f"the reply has no {name!r} field: {_excerpt(body)}")
    return body[name]


def _excerpt(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_result(value: Any) -> float:
    """``result`` as one of ``RESULTS``; raises ``MalformedReply``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise MalformedReply(f"result is {value!r}, expected one of 0, 1, 0.5, -1, -10")
    if float(value) not in RESULTS:
        raise MalformedReply(f"result is {value!r}, expected one of 0, 1, 0.5, -1, -10")
    return float(value)


def parse_botmove(value: Any) -> int:
    """``botmove`` as -1..6; raises ``MalformedReply``."""
    if not _is_int(value) or not NO_MOVE <= value < WIDTH:
        raise MalformedReply(f"botmove is {value!r}, expected an integer -1..{WIDTH - 1}")
    return int(value)


def parse_state(value: Any) -> Grid | None:
    """``state`` as a ``Grid`` (or None for ``null``); raises ``MalformedReply``.

    Only the shape and the cell values are checked here; whether the discs make a position
    that could have been played is the game loop's business (it compares with its mirror).
    """
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != HEIGHT:
        raise MalformedReply(f"state is not a list of {HEIGHT} rows: {_excerpt(value)}")
    rows = []
    for index, row in enumerate(value):
        if not isinstance(row, list) or len(row) != WIDTH:
            raise MalformedReply(f"state row {index} is not a list of {WIDTH} cells: {_excerpt(row)}")
        for cell in row:
            if not _is_int(cell) or cell not in (-1, 0, 1):
                raise MalformedReply(f"state row {index} holds {cell!r}; cells must be -1, 0 or 1")
        rows.append(tuple(row))
    return tuple(rows)


def _refusal(body: dict[str, Any]) -> ServerRefused:
    """The typed error for a ``status: false`` reply."""
    msg = body.get("msg")
    msg = msg if isinstance(msg, str) else "" if msg is None else repr(msg)
    # A refusal may carry a result and a state; they are kept when they are well formed.
    try:
        result = parse_result(body["result"]) if body.get("result") is not None else None
    except MalformedReply:
        result = None
    try:
        state = parse_state(body.get("state"))
    except MalformedReply:
        state = None
    said = f'the server says "{msg}"' if msg else "the server gave no message"
    if msg == MSG_WRONG_KEY or "api key" in msg.lower():
        return WrongApiKey(
            f"wrong API key ({said}): check server.api_key in config.toml or EDAP01_API_KEY",
            msg=msg, result=result, state=state,
        )
    if result == ILLEGAL or msg == MSG_IMPOSSIBLE:
        return ImpossibleMove(
            f"impossible move: the column was full; the game is lost with -10 ({said})",
            msg=msg, result=ILLEGAL, state=state,
        )
    if result == LOSS:
        return LostOnServer(
            f"the server ended the game as lost without playing our move ({said})",
            msg=msg, result=result, state=state,
        )
    return ServerRefused(f"the server refused the request ({said})", msg=msg, result=result, state=state)


def parse_move_reply(body: Any) -> MoveReply:
    """A move reply's JSON body as a ``MoveReply``; raises ``MalformedReply`` or ``ServerRefused``."""
    if not isinstance(body, dict):
        raise MalformedReply(f"the reply is not a JSON object: {_excerpt(body)}")
    status = _field(body, "status")
    if status is False:
        raise _refusal(body)
    if status is not True:
        raise MalformedReply(f"status is {status!r}, expected true or false")
    msg = _field(body, "msg")
    if msg is not None and not isinstance(msg, str):
        raise MalformedReply(f"msg is {_excerpt(msg)}, expected a string")
    return MoveReply(
        msg=msg or "",
        result=parse_result(_field(body, "result")),
        botmove=parse_botmove(_field(body, "botmove")),
        state=parse_state(_field(body, "state")),
    )


def parse_stats(body: Any) -> Stats:
    """A stats reply's JSON body as ``Stats``; raises ``MalformedReply`` or ``ServerRefused``."""
    if not isinstance(body, dict):
        raise MalformedReply(f"the stats reply is not a JSON object: {_excerpt(body)}")
    if body.get("status") is False:
        raise _refusal(body)
    counts = {}
    for name in ("played", "won", "lost", "streak", "streak_max"):
        value = _field(body, name)
        if not _is_int(value) or value < 0:
            raise MalformedReply(f"stats field {name} is {value!r}, expected a count")
        counts[name] = int(value)
    reward = _field(body, "total_reward")
    if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not math.isfinite(reward):
        raise MalformedReply(f"stats field total_reward is {reward!r}, expected a number")
    stil_id = body.get("stil_id")
    if stil_id is not None and not isinstance(stil_id, str):
        raise MalformedReply(f"stats field stil_id is {_excerpt(stil_id)}, expected a string")
    if counts["won"] + counts["lost"] > counts["played"]:
        raise MalformedReply(
            f"stats say {counts['won']} won and {counts['lost']} lost of {counts['played']} played"
        )
    return Stats(stil_id=stil_id or "", total_reward=float(reward), **counts)


# --- the interface ---------------------------------------------------------------------------


class CourseServer(Protocol):
    """A course server for one player (ids and key are given when it is made).

    ``name`` says which server it is (for records and messages).  Every method raises the
    ``ClientError`` family above on failure.
    """

    @property
    def name(self) -> str: ...

    def start_game(self) -> MoveReply:
        """Send -1: start a new game (a running one is counted as lost by the server)."""
        ...

    def play(self, column: int) -> MoveReply:
        """Send our move (0-based column)."""
        ...

    def stats(self) -> Stats: ...
