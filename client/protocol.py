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

Anything a server sends that we quote (a message, an excerpt of a malformed reply) passes
through ``settings.redact`` with our key and ids first: a server may echo them, and error
messages are printed and stored in the record.

This module is the one description of the protocol: the local server (``localserver``) takes
its constants and its scoring rule (``last_move_result``) from here.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from board import HEIGHT, WIDTH, Board
from settings import redact

# The values of ``result``.
RESULT_RUNNING = 0.0  # the game goes on
WIN = 1.0
DRAW = 0.5
LOSS = -1.0
ILLEGAL = -10.0
RESULTS = (RESULT_RUNNING, WIN, DRAW, LOSS, ILLEGAL)
RESULT_NAMES = {RESULT_RUNNING: "running", WIN: "won", DRAW: "draw", LOSS: "lost",
                ILLEGAL: "illegal move"}

NEW_GAME = -1  # the ``move`` that starts a game (and forfeits a running one)
NO_MOVE = -1  # the ``botmove`` when the bot did not move

MSG_WRONG_KEY = "Incorrect API key."
MSG_IMPOSSIBLE = "Impossible move."

Grid = tuple[tuple[int, ...], ...]
"""A course board: ``HEIGHT`` rows of ``WIDTH`` cells, row 0 at the top; 1 = ours, -1 = the bot's."""


def as_grid(rows: Iterable[Iterable[Any]]) -> Grid:
    """Rows of cells (lists, a NumPy array, JSON) as a ``Grid`` of plain ints; trusts the shape."""
    return tuple(tuple(int(cell) for cell in row) for row in rows)


def last_move_result(board: Board, *, full_board_win_is_draw: bool = True) -> float:
    """How the move that made ``board`` ends the game, for the player who made it.

    ``WIN``, ``DRAW`` or ``RESULT_RUNNING``.  The course decides games with its environment,
    which checks for a full board before it checks for four in a row, so a last disc that
    fills the board and connects four is a draw (``full_board_win_is_draw=False`` scores it
    as the win it is).
    """
    if board.is_full() and full_board_win_is_draw:
        return DRAW
    if board.last_mover_won():
        return WIN
    return DRAW if board.is_full() else RESULT_RUNNING


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
        return self.result != RESULT_RUNNING


@dataclass(frozen=True, slots=True)
class Stats:
    """The server's bookkeeping for our ids."""

    stil_id: str = field(repr=False)  # our ids as the server joined them: a secret
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


Secrets = Sequence[str]
"""Our key and ids: masked in anything quoted from a reply (``settings.redact``)."""


def _field(body: dict[str, Any], name: str, secrets: Secrets) -> Any:
    if name not in body:
        raise MalformedReply(f"the reply has no {name!r} field: {_excerpt(body, secrets)}")
    return body[name]


def _excerpt(value: Any, secrets: Secrets, limit: int = 200) -> str:
    """``value`` as quoted in a message: its repr, secrets masked, cut at ``limit``."""
    text = redact(repr(value), secrets)
    return text if len(text) <= limit else text[:limit] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_result(value: Any, secrets: Secrets = ()) -> float:
    """``result`` as one of ``RESULTS``; raises ``MalformedReply``."""
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or float(value) not in RESULTS):
        raise MalformedReply(
            f"result is {_excerpt(value, secrets)}, expected one of 0, 1, 0.5, -1, -10")
    return float(value)


def parse_botmove(value: Any, secrets: Secrets = ()) -> int:
    """``botmove`` as -1..6; raises ``MalformedReply``."""
    if not _is_int(value) or not NO_MOVE <= value < WIDTH:
        raise MalformedReply(
            f"botmove is {_excerpt(value, secrets)}, expected an integer -1..{WIDTH - 1}")
    return int(value)


def parse_state(value: Any, secrets: Secrets = ()) -> Grid | None:
    """``state`` as a ``Grid`` (or None for ``null``); raises ``MalformedReply``.

    Only the shape and the cell values are checked here; whether the discs make a position
    that could have been played is the game loop's business (it compares with its mirror).
    """
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != HEIGHT:
        raise MalformedReply(f"state is not a list of {HEIGHT} rows: {_excerpt(value, secrets)}")
    for index, row in enumerate(value):
        if not isinstance(row, list) or len(row) != WIDTH:
            raise MalformedReply(
                f"state row {index} is not a list of {WIDTH} cells: {_excerpt(row, secrets)}")
        for cell in row:
            if not _is_int(cell) or cell not in (-1, 0, 1):
                raise MalformedReply(
                    f"state row {index} holds {_excerpt(cell, secrets)}; cells must be -1, 0 or 1")
    return as_grid(value)


def _refusal(body: dict[str, Any], secrets: Secrets) -> ServerRefused:
    """The typed error for a ``status: false`` reply (its message with our secrets masked)."""
    msg = body.get("msg")
    msg = redact(msg if isinstance(msg, str) else "" if msg is None else repr(msg), secrets)
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


def parse_move_reply(body: Any, secrets: Secrets = ()) -> MoveReply:
    """A move reply's JSON body as a ``MoveReply``; raises ``MalformedReply`` or ``ServerRefused``.

    ``secrets`` (our key and ids) are masked in every text taken from the reply.
    """
    if not isinstance(body, dict):
        raise MalformedReply(f"the reply is not a JSON object: {_excerpt(body, secrets)}")
    status = _field(body, "status", secrets)
    if status is False:
        raise _refusal(body, secrets)
    if status is not True:
        raise MalformedReply(f"status is {_excerpt(status, secrets)}, expected true or false")
    msg = _field(body, "msg", secrets)
    if msg is not None and not isinstance(msg, str):
        raise MalformedReply(f"msg is {_excerpt(msg, secrets)}, expected a string")
    return MoveReply(
        msg=redact(msg or "", secrets),
        result=parse_result(_field(body, "result", secrets), secrets),
        botmove=parse_botmove(_field(body, "botmove", secrets), secrets),
        state=parse_state(_field(body, "state", secrets), secrets),
    )


def parse_stats(body: Any, secrets: Secrets = ()) -> Stats:
    """A stats reply's JSON body as ``Stats``; raises ``MalformedReply`` or ``ServerRefused``.

    ``secrets`` (our key and ids) are masked in every text taken from the reply.
    """
    if not isinstance(body, dict):
        raise MalformedReply(f"the stats reply is not a JSON object: {_excerpt(body, secrets)}")
    if body.get("status") is False:
        raise _refusal(body, secrets)
    counts = {}
    for name in ("played", "won", "lost", "streak", "streak_max"):
        value = _field(body, name, secrets)
        if not _is_int(value) or value < 0:
            raise MalformedReply(
                f"stats field {name} is {_excerpt(value, secrets)}, expected a count")
        counts[name] = int(value)
    reward = _field(body, "total_reward", secrets)
    if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not math.isfinite(reward):
        raise MalformedReply(
            f"stats field total_reward is {_excerpt(reward, secrets)}, expected a number")
    stil_id = body.get("stil_id")
    if stil_id is not None and not isinstance(stil_id, str):
        raise MalformedReply(
            f"stats field stil_id is {_excerpt(stil_id, secrets)}, expected a string")
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


class CourseServerBase(ABC):
    """What every ``CourseServer`` shares, whatever carries its requests.

    The three calls, their replies parsed with our key and ids masked in anything quoted, and a
    column off the board refused before it is sent (our own bug if it happens: the server
    would turn it into a lost game).  A transport implements ``name``, ``_send_move`` and
    ``_send_stats``, which return the decoded JSON body.
    """

    def __init__(self, stil_ids: Sequence[str], api_key: str) -> None:
        self.stil_ids = tuple(stil_ids)
        self.api_key = api_key

    @property
    def secrets(self) -> tuple[str, ...]:
        return (self.api_key, *self.stil_ids)

    @property
    @abstractmethod
    def name(self) -> str: ...

    def start_game(self) -> MoveReply:
        """Send -1: start a new game (a running one is counted as lost by the server)."""
        return parse_move_reply(self._send_move(NEW_GAME), self.secrets)

    def play(self, column: int) -> MoveReply:
        """Send our move (0-based column)."""
        if not 0 <= column < WIDTH:
            raise ValueError(f"column {column} is not 0-{WIDTH - 1}")
        return parse_move_reply(self._send_move(column), self.secrets)

    def stats(self) -> Stats:
        return parse_stats(self._send_stats(), self.secrets)

    @abstractmethod
    def _send_move(self, move: int) -> Any:
        """POST ``move`` (-1 or a column); the reply's JSON body."""

    @abstractmethod
    def _send_stats(self) -> Any:
        """POST ``stats``; the reply's JSON body."""
