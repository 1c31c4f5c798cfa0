"""The settings' schema: one frozen pydantic model per section of ``config.toml``.

A section accepts exactly its keys, each of its type (strict: ``"5"`` is not a number, ``1``
is not ``true``) and range.  What a value means to another part of the program is checked
where that part uses it (a heuristic's name by the engine, a table size by the table, a
server variant by the local server, an id by the protocol), so this package imports nothing
of the project; ``agent.py`` hands those packages' rules to ``load_settings``, which reports
their problems with the schema's.  A removed key is refused with what replaced it
(``removed_keys``).  Secrets (the course key, the student ids) are kept out of the models' repr.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

import vocabulary
from settings import shipped

COURSE_SERVER_URL = "https://vilde.cs.lth.se/edap01-4inarow/"
# The seconds the course server allows per move (``course.protocol.SERVER_MOVE_LIMIT`` is this
# value; ``settings`` imports nothing of the project): the safety margin must leave some.
COURSE_MOVE_SECONDS = 5.0
DEFAULT_PORTS = {"http": 80, "https": 443}

Seconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]
NonNegativeSeconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Text = Annotated[str, Field(min_length=1, pattern=r"\S")]


def check_server_url(url: str) -> str:
    """``url`` as a base URL the endpoints are appended to: a trailing ``/`` added, the scheme and
    host in lower case, a default port (80, 443) left out.

    Raises ``ValueError`` saying what is wrong unless it is an http(s) URL with a host.
    """
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port  # parsed on first use: raises for a port out of range or not a number
    except ValueError as exc:  # also a bracketed IPv6 address left open
        raise ValueError(f"{url!r} is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// URL with a host")
    if port == 0:
        raise ValueError(f"{url!r} has port 0; a server listens on 1-65535")
    if parts.query or parts.fragment:
        raise ValueError(f"{url!r} must not have a query or a fragment")
    # One spelling per server: the record keys its games by this URL, and a game running under
    # one spelling must not be missed (and forfeited by a new game) under another.
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = (f"{userinfo}@" if userinfo else "") + host
    if port is not None and port != DEFAULT_PORTS[parts.scheme]:
        netloc += f":{port}"
    path = parts.path if parts.path.endswith("/") else parts.path + "/"
    return urlunsplit((parts.scheme, netloc, path, "", ""))


class Section(BaseModel):
    """A section of ``config.toml``: frozen, strict, no unknown keys."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    # Keys of earlier versions, each with what replaced it: refused with that message instead
    # of "unknown key", as one problem among the section's others (``settings.loading``).
    removed_keys: ClassVar[Mapping[str, str]] = {}


class ServerSettings(Section):
    """Where the course server is and who we are there (``[server]``)."""

    url: str = COURSE_SERVER_URL
    stil_ids: Annotated[tuple[str, ...], Field(strict=False, min_length=1, repr=False)] = (
        "your-stil-id",)
    api_key: Annotated[str, Field(min_length=1, repr=False)] = "your-course-api-key"
    connect_timeout: Seconds = 5.0
    read_timeout: Seconds = 15.0
    retries: Annotated[int, Field(ge=0, le=10)] = 2

    @field_validator("url")
    @classmethod
    def _base_url(cls, url: str) -> str:
        return check_server_url(url)


MODES = tuple(vocabulary.Mode)
# Read from TOML as its string (strict mode would take only the enum itself).
Mode = Annotated[vocabulary.Mode, Field(strict=False)]


class AgentSettings(Section):
    """How our agent plays (``[agent]``).

    ``mode`` ``course``: the iterative-deepening alpha-beta search with ``heuristic`` alone,
    the assignment's algorithm; ``strongest``: the opening book, then the exact solver, then
    that search.
    """

    mode: Mode = vocabulary.Mode(shipped.MODE)
    seconds_per_move: Seconds = shipped.SECONDS_PER_MOVE
    # Kept free of the server's 5 s limit for the network and the reply's handling: with
    # none, the engine would think the whole 5 s and every move would arrive late.
    safety_margin: Annotated[float, Field(ge=0.25, allow_inf_nan=False)] = 1.0
    heuristic: Text = "windows5000"
    # Depth always completed, whatever the clock says (deeper ones could outlast the limit).
    min_depth: Annotated[int, Field(ge=1, le=12)] = 5
    table_bits: int = 22

    removed_keys: ClassVar[Mapping[str, str]] = dict.fromkeys(
        ("use_book", "use_solver"),
        'use_book and use_solver are replaced by mode: "course" (the heuristic search alone)'
        ' or "strongest" (book, solver, search)')

    @field_validator("safety_margin")
    @classmethod
    def _time_left(cls, margin: float) -> float:
        if margin >= COURSE_MOVE_SECONDS:
            raise ValueError(f"must be less than {COURSE_MOVE_SECONDS:g} seconds, the course"
                             f" server's limit per move (no time would be left to think),"
                             f" got {margin:g}")
        return margin


class RecordSettings(Section):
    """Where finished and running games are kept (``[record]``)."""

    path: Text = "records/games.sqlite3"


class LocalServerSettings(Section):
    """The local emulation of the course server (``[local_server]``, ``agent.py serve``).

    ``variant`` is the version of the course server to behave like (``localserver.variants``);
    the switches after it are None to take the variant's, or set one by one.
    """

    host: Text = shipped.LOCAL_SERVER_HOST
    port: Annotated[int, Field(ge=0, le=65535)] = shipped.LOCAL_SERVER_PORT
    db: Text = shipped.LOCAL_SERVER_DB
    api_key: Text = "nyckel"
    bot_depth: Annotated[int, Field(ge=1, le=12)] = shipped.BOT_DEPTH
    time_limit: NonNegativeSeconds = shipped.LOCAL_SERVER_TIME_LIMIT
    full_board_win_is_draw: bool = True
    variant: Text = shipped.LOCAL_SERVER_VARIANT
    first: Literal["student", "bot", "random"] | None = None
    bot: Literal["minimax", "random"] | None = None
    null_start_reply: bool | None = None
    float_results: bool | None = None
    stats_endpoint: bool | None = None
    every_start_lost: bool | None = None


class SolverSettings(Section):
    """The exact solver and the opening book (``[solver]``)."""

    # A table of a prime number of entries just above 2**table_bits, 4 bytes each.
    table_bits: int = 24
    # The opening book file; empty for the book shipped in solver/data/.
    book: str = ""
    # The part of a move's budget the engine lets the solver try to prove the position
    # (issue 20: at 0.1 s a move, 0.9 keeps the outcome more often than 0.5; the search left
    # with the rest plays only the positions the solver could not settle).
    share: Annotated[float, Field(gt=0, le=1)] = 0.9


class AnalysisBoardSettings(Section):
    """The analysis board in the browser (``[board]``, ``agent.py board``).

    ``db`` is a local server's database whose games the review lists beside the record's
    (empty: none); ``analysts`` is how many analyses run at once, each with its own tables.
    """

    host: Text = shipped.BOARD_HOST
    port: Annotated[int, Field(ge=0, le=65535)] = shipped.BOARD_PORT
    db: str = ""
    analysts: Annotated[int, Field(ge=1, le=8)] = 2


class OutsideSettings(Section):
    """Agents we did not write (``[outside]``, docs/outside-agents.md): ``sandbox`` is how a
    layer of their sandbox that the system lacks is treated (``available``: run with what
    there is and say what is missing; ``strict``: refuse to start them)."""

    sandbox: Annotated[vocabulary.Sandbox, Field(strict=False)] = vocabulary.Sandbox.AVAILABLE


@dataclass(frozen=True)
class SpecDefaults:
    """What a front end gives a player spec that leaves it out (``ecosystems.players``): the
    time per move (its ``--time``, else ``agent.seconds_per_move``; None: none given), the
    Python that runs a ``connectx:`` file (``--python``; None: ours) and how strictly an outside
    agent is confined (``--sandbox``, else ``[outside] sandbox``)."""

    seconds: float | None = None
    python: str | None = None
    sandbox: vocabulary.Sandbox = vocabulary.Sandbox.AVAILABLE


class Settings(Section):
    """The whole of ``config.toml``."""

    server: ServerSettings = ServerSettings()
    agent: AgentSettings = AgentSettings()
    record: RecordSettings = RecordSettings()
    local_server: LocalServerSettings = LocalServerSettings()
    solver: SolverSettings = SolverSettings()
    board: AnalysisBoardSettings = AnalysisBoardSettings()
    outside: OutsideSettings = OutsideSettings()
