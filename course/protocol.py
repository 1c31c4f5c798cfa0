"""The course server's protocol as types: constants, replies, stats, the scoring rule, and the
``CourseServer`` interface with its shared base.

Everything a server sends is checked here, where it enters the program, and becomes either a
typed reply (``MoveReply``, ``Stats``) or a typed error (``course.errors``); the game loop
trusts what it gets.  A move reply ``{status, msg, result, botmove, state}`` with ``status``
true (or null) becomes a ``MoveReply``; ``status: false`` is a ``Refusal``, raised as a
``ServerRefused``.  The stats reply has ``status: null``.  Each type writes itself too
(``to_json``: the local server sends what they write, in the shape of the server version it
plays), so a reply is written by the type that reads it.

Be liberal in what is accepted (the course server has been rewritten over the years, and its
versions differ): any of ``result``, ``botmove``, ``state`` and ``msg`` may be null or missing
in any reply (``None`` in ``MoveReply``: the game loop works out what it can from the board in
hand), numbers may be floats (``0.0``, ``3.0``) where they hold whole values, and fields we do
not know are ignored.  ``docs/protocol.md`` lists every reply shape accepted, with examples.

Anything a server sends that we quote (a message, an excerpt of a malformed reply) goes
through ``quote``: our key and ids are masked first (a server may echo them), then the text is
cut to ``QUOTE_LIMIT`` characters, so that no part of a secret survives a cut and a huge
message cannot flood the terminal or the record.

This module is the one description of the protocol: the client (``client``) and the local
server (``localserver``) both take their constants, types and scoring rule from here.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from board import HEIGHT, WIDTH, Board
from course.errors import (
    ImpossibleMove,
    LostOnServer,
    MalformedReply,
    ServerRefused,
    WrongApiKey,
)
from course.grid import Grid
from settings import redact
from settings.schema import COURSE_MOVE_SECONDS
from vocabulary import Ending, Outcome

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
# The course server's limit on the time to decide a move (the settings check the safety margin
# against it, so it is defined there).
SERVER_MOVE_LIMIT = COURSE_MOVE_SECONDS


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


def course_result(outcome: Outcome, ending: Ending) -> float:
    """A finished game's ``result`` for the student whose ``outcome`` it was: ``WIN``,
    ``DRAW``, ``ILLEGAL`` for a loss by an impossible move, ``LOSS`` for any other loss.  The
    one conversion of a played game's end into the course's number."""
    if outcome is Outcome.LOSS:
        return ILLEGAL if ending is Ending.ILLEGAL else LOSS
    return WIN if outcome is Outcome.WIN else DRAW


def result_outcome(result: float) -> Outcome:
    """The student's outcome of a finished game the course scored ``result`` (any negative
    result is a loss)."""
    return Outcome.WIN if result == WIN else Outcome.DRAW if result == DRAW else Outcome.LOSS


def result_ending(result: float, *, four: bool) -> Ending:
    """How a game the course scored ``result`` ended, as far as a client can tell: ``four``
    says whether its winner has four in a row on the last board.  -10 is an impossible move,
    a draw a full board (the course's environment scores a last disc that fills the board and
    connects four as one too); a win or a loss without a four is the server's ruling (a late
    move, a bot's fault: its message says which)."""
    if result == ILLEGAL:
        return Ending.ILLEGAL
    if result == DRAW:
        return Ending.FULL
    return Ending.FOUR if four else Ending.RULED


# --- replies ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MoveReply:
    """A successful reply to a move or to the start of a game.

    ``result``, ``botmove`` and ``state`` are None where the server sent null (or nothing);
    ``botmove`` is -1 when the server says the bot did not move.  ``msg`` is "" for none.
    """

    msg: str
    result: float | None
    botmove: int | None
    state: Grid | None

    @property
    def finished(self) -> bool:
        """The server says the game is over (a null result says nothing)."""
        return self.result is not None and self.result != RESULT_RUNNING

    @classmethod
    def from_json(cls, body: Any, secrets: Secrets = ()) -> MoveReply:
        """A move reply's JSON body; raises ``MalformedReply``, or ``ServerRefused`` for a
        ``Refusal``.

        ``status`` false (or 0) is a refusal; true (or 1), null or missing is a reply to go on
        with (the game loop checks it against its mirror).  ``secrets`` (our key and ids) are
        masked in every text taken from the reply.
        """
        if not isinstance(body, dict):
            raise MalformedReply(
                f"the reply is not a JSON object: {quote(body, secrets, literal=True)}")
        if _status(body.get("status"), secrets) is False:
            raise Refusal.from_json(body, secrets).error()
        return cls(
            msg=parse_msg(body.get("msg"), secrets),
            result=parse_result(body.get("result"), secrets),
            botmove=parse_botmove(body.get("botmove"), secrets),
            state=parse_state(body.get("state"), secrets),
        )

    def to_json(self, *, float_results: bool = False) -> dict[str, Any]:
        """The reply's JSON body (``status`` true), as the course server writes it: a null
        for each field that is None; ``result`` whole numbers as integers and 0.5, or every one
        a float (``float_results``, as a server version did)."""
        return {"status": True, "msg": self.msg,
                "result": _result_json(self.result, float_results), "botmove": self.botmove,
                "state": None if self.state is None else [list(row) for row in self.state]}


@dataclass(frozen=True, slots=True)
class Refusal:
    """A reply with ``status`` false: the server refused the request (a wrong key, an
    impossible or a late move, a move without a game), with its message and, to a move, the
    game's ``result`` and ``state`` (None where it sent null).  A client raises it as the
    matching ``ServerRefused`` (``error``)."""

    msg: str
    result: float | None = RESULT_RUNNING
    state: Grid | None = None

    @classmethod
    def from_json(cls, body: dict[str, Any], secrets: Secrets = ()) -> Refusal:
        """A refusal's body (its message masked and cut); a result or a state that is not well
        formed is left out rather than refused: the refusal is what counts."""
        try:
            result = parse_result(body.get("result"))
        except MalformedReply:
            result = None
        try:
            state = parse_state(body.get("state"))
        except MalformedReply:
            state = None
        return cls(parse_msg(body.get("msg"), secrets), result, state)

    def error(self) -> ServerRefused:
        """The typed error a client raises for this refusal."""
        msg, result, state = self.msg, self.result, self.state
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
        return ServerRefused(f"the server refused the request ({said})", msg=msg, result=result,
                             state=state)

    def to_json(self, *, float_results: bool = False) -> dict[str, Any]:
        """The refusal of a move as the course server writes it (``MoveReply.to_json``'s
        numbers; the bot did not move)."""
        return {"status": False, "msg": self.msg,
                "result": _result_json(self.result, float_results), "botmove": NO_MOVE,
                "state": None if self.state is None else [list(row) for row in self.state]}

    def stats_json(self, player: str) -> dict[str, Any]:
        """The refusal of a stats request: its message and the ids as the server joined them."""
        return {"msg": self.msg, "status": False, "stil_id": player}


def _result_json(result: float | None, float_results: bool) -> float | int | None:
    """A result as the server writes it: 1, -1, -10 and 0 as integers and 0.5 as a float, or
    every one a float (``float_results``)."""
    if result is None or float_results:
        return result
    return int(result) if result.is_integer() else result


@dataclass(frozen=True, slots=True)
class Stats:
    """A player's record as the server keeps it (the client reads it, the local server keeps
    it): ``player`` is the ids as the server joined them, a secret kept out of the repr."""

    player: str = field(repr=False)
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

    @classmethod
    def from_json(cls, body: Any, secrets: Secrets = ()) -> Stats:
        """A stats reply's JSON body; raises ``MalformedReply``, or ``ServerRefused`` for a
        ``Refusal``.

        The counts may be whole floats; ``secrets`` (our key and ids) are masked in every text
        taken from the reply.
        """
        if not isinstance(body, dict):
            raise MalformedReply(
                f"the stats reply is not a JSON object: {quote(body, secrets, literal=True)}")
        if _status(body.get("status"), secrets) is False:
            raise Refusal.from_json(body, secrets).error()
        counts = {}
        for name in ("played", "won", "lost", "streak", "streak_max"):
            value = _field(body, name, secrets)
            count = _whole_number(value)
            if count is None or count < 0:
                raise MalformedReply(
                    f"stats field {name} is {quote(value, secrets, literal=True)}, expected a"
                    " count")
            counts[name] = count
        reward = _field(body, "total_reward", secrets)
        if (isinstance(reward, bool) or not isinstance(reward, (int, float))
                or not math.isfinite(reward)):
            raise MalformedReply(f"stats field total_reward is"
                                 f" {quote(reward, secrets, literal=True)}, expected a number")
        stil_id = body.get("stil_id")
        if stil_id is not None and not isinstance(stil_id, str):
            raise MalformedReply(
                f"stats field stil_id is {quote(stil_id, secrets, literal=True)}, expected a"
                " string")
        if counts["won"] + counts["lost"] > counts["played"]:
            raise MalformedReply(f"stats say {counts['won']} won and {counts['lost']} lost of"
                                 f" {counts['played']} played")
        return cls(player=stil_id or "", total_reward=float(reward), **counts)

    def to_json(self) -> dict[str, Any]:
        """The stats reply as the course server writes it: ``msg`` and ``status`` null."""
        return {"msg": None, "status": None, "stil_id": self.player, "played": self.played,
                "won": self.won, "lost": self.lost, "streak": self.streak,
                "streak_max": self.streak_max, "total_reward": self.total_reward}


Secrets = Sequence[str]
"""Our key and ids: masked in anything quoted from a reply (``quote``)."""

QUOTE_LIMIT = 300  # characters of a server's text we print or store, at most


def quote(value: Any, secrets: Secrets, limit: int = QUOTE_LIMIT, *, literal: bool = False) -> str:
    """A server's ``value`` as we may print or store it: secrets masked, *then* cut.

    A string is taken as it is (with ``literal``: as its ``repr``, for a value quoted in an
    error), anything else as its ``repr``.  Masking first means a secret straddling the cut is
    masked whole before the cut can keep a part of it.  The cut says how much it dropped.
    """
    try:
        text = value if isinstance(value, str) and not literal else repr(value)
    except RecursionError:  # a structure nested too deeply to print
        return "(a value nested too deeply to quote)"
    text = redact(text, secrets)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


def _field(body: dict[str, Any], name: str, secrets: Secrets) -> Any:
    if name not in body:
        raise MalformedReply(
            f"the reply has no {name!r} field: {quote(body, secrets, literal=True)}")
    return body[name]


def _whole_number(value: Any) -> int | None:
    """``value`` as an int if it is a JSON number holding a whole value (``3`` or ``3.0``)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def parse_result(value: Any, secrets: Secrets = ()) -> float | None:
    """``result`` as one of ``RESULTS`` (None for null); raises ``MalformedReply``."""
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or float(value) not in RESULTS):
        raise MalformedReply(
            f"result is {quote(value, secrets, literal=True)}, expected one of 0, 1, 0.5, -1,"
            " -10 or null")
    return float(value)


def parse_botmove(value: Any, secrets: Secrets = ()) -> int | None:
    """``botmove`` as -1..6 (None for null); raises ``MalformedReply``."""
    if value is None:
        return None
    column = _whole_number(value)
    if column is None or not NO_MOVE <= column < WIDTH:
        raise MalformedReply(
            f"botmove is {quote(value, secrets, literal=True)}, expected a whole number"
            f" -1..{WIDTH - 1} or null")
    return column


def parse_state(value: Any, secrets: Secrets = ()) -> Grid | None:
    """``state`` as a ``Grid`` (None for null); raises ``MalformedReply``.

    Only the shape and the cell values (-1, 0, 1, as integers or whole floats) are checked
    here; whether the discs make a position that could have been played is the game loop's
    business (it compares with its mirror).
    """
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != HEIGHT:
        raise MalformedReply(
            f"state is not a list of {HEIGHT} rows: {quote(value, secrets, literal=True)}")
    rows = []
    for index, row in enumerate(value):
        if not isinstance(row, list) or len(row) != WIDTH:
            raise MalformedReply(
                f"state row {index} is not a list of {WIDTH} cells:"
                f" {quote(row, secrets, literal=True)}")
        cells = []
        for cell in row:
            number = _whole_number(cell)
            if number not in (-1, 0, 1):
                raise MalformedReply(
                    f"state row {index} holds {quote(cell, secrets, literal=True)};"
                    " cells must be -1, 0 or 1")
            cells.append(number)
        rows.append(tuple(cells))
    return tuple(rows)


def parse_msg(value: Any, secrets: Secrets = ()) -> str:
    """``msg`` as text to show ("" for null or missing), masked and cut (``quote``)."""
    if value is None:
        return ""
    return quote(value, secrets)


def _status(value: Any, secrets: Secrets) -> bool | None:
    """A reply's ``status``: true, false or null, also written as the numbers 1 and 0 (a server
    that builds its JSON from integers); raises ``MalformedReply`` for anything else."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    raise MalformedReply(
        f"status is {quote(value, secrets, literal=True)}, expected true, false or null")


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

    def replied_ago(self, seconds: float) -> None:
        """The server's last reply to a move came ``seconds`` ago (a resumed game): the 5 s
        for our next move run from then."""
        ...


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
        return MoveReply.from_json(self._send_move(NEW_GAME), self.secrets)

    def play(self, column: int) -> MoveReply:
        """Send our move (0-based column)."""
        if not 0 <= column < WIDTH:
            raise ValueError(f"column {column} is not 0-{WIDTH - 1}")
        return MoveReply.from_json(self._send_move(column), self.secrets)

    def stats(self) -> Stats:
        return Stats.from_json(self._send_stats(), self.secrets)

    def replied_ago(self, seconds: float) -> None:
        """The server's last reply to a move came ``seconds`` ago: a transport that times its
        requests against the server's 5 s (HTTP) overrides this; others need not know."""
        del seconds

    @abstractmethod
    def _send_move(self, move: int) -> Any:
        """POST ``move`` (-1 or a column); the reply's JSON body."""

    @abstractmethod
    def _send_stats(self) -> Any:
        """POST ``stats``; the reply's JSON body."""
