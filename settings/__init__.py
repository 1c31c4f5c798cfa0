"""Typed settings: ``config.toml`` loaded once into frozen dataclasses.

Every section of the file is a dataclass below; a key the dataclass does not have, or a value
of the wrong type, raises ``ConfigError`` naming the file and the key.  Secrets (the course key
and the student ids) may come from the environment instead (``EDAP01_API_KEY`` and
``EDAP01_STIL_IDS``, comma-separated), which wins over the file; ``mask_secret`` is how they
appear in any output.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

DEFAULT_CONFIG_PATH = Path(__file__).resolve().parent.parent / "config.toml"
API_KEY_ENV = "EDAP01_API_KEY"
STIL_IDS_ENV = "EDAP01_STIL_IDS"
PLACEHOLDER_PREFIX = "your-"
# The course server's rule for one student id (``^[\w\d_-]*$``); a group sends several.
STIL_ID_PATTERN = re.compile(r"[\w\d_-]*")  # used with fullmatch: "$" would let a "\n" end it
STIL_ID_MAX_LENGTH = 50
# The course server's limit on the time to decide a move.
SERVER_MOVE_LIMIT = 5.0
# The local server's choices ([local_server]); checked by ``local_server_problem``.
LOCAL_SERVER_BOTS = ("minimax", "random")
LOCAL_SERVER_FIRST = ("student", "bot", "random")
MAX_BOT_DEPTH = 12  # deeper searches take seconds per move in the worst positions


class ConfigError(ValueError):
    """``config.toml`` (or an environment override) is missing, malformed or has a bad value."""


@dataclass(frozen=True)
class ServerSettings:
    """Where the course server is and who we are there."""

    url: str = "https://vilde.cs.lth.se/edap01-4inarow/"
    # Secrets: kept out of the repr, so printing the settings never shows them.
    stil_ids: tuple[str, ...] = field(default=("your-stil-id",), repr=False)
    api_key: str = field(default="your-course-api-key", repr=False)
    connect_timeout: float = 5.0
    read_timeout: float = 15.0
    retries: int = 2

    def __post_init__(self) -> None:
        # Normalised once here, so every user of the settings can append endpoint names.
        object.__setattr__(self, "url", check_server_url(self.url, "server.url"))
        check_stil_ids(self.stil_ids, "server.stil_ids")
        if not self.api_key:
            raise ConfigError("server.api_key: must not be empty")
        for name in ("connect_timeout", "read_timeout"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"server.{name}: must be a positive number of seconds")
        if not 0 <= self.retries <= 10:
            raise ConfigError("server.retries: must be an integer 0-10")


# Bounds of [agent] values: a deeper forced minimum could outlast the time limit, and a
# larger table would not fit in memory.
MAX_MIN_DEPTH = 12
MIN_TABLE_BITS = 10
MAX_TABLE_BITS = 27


@dataclass(frozen=True)
class AgentSettings:
    """How our agent thinks: its time per move and what it may use."""

    seconds_per_move: float = 3.0
    # Kept free of the server's 5 s limit for the network and the reply's handling.
    safety_margin: float = 1.0
    heuristic: str = "windows5000"
    min_depth: int = 5
    table_bits: int = 22
    use_book: bool = True
    use_solver: bool = True

    def __post_init__(self) -> None:
        if not self.seconds_per_move > 0:
            raise ConfigError("agent.seconds_per_move: must be a positive number of seconds")
        if not 0 <= self.safety_margin < SERVER_MOVE_LIMIT:
            raise ConfigError(
                f"agent.safety_margin: must be at least 0 and less than {SERVER_MOVE_LIMIT:g}"
                " seconds (the server's limit per move)"
            )
        if not 1 <= self.min_depth <= MAX_MIN_DEPTH:
            raise ConfigError(
                f"agent.min_depth: must be 1-{MAX_MIN_DEPTH} (it is searched whatever the clock says)"
            )
        if not MIN_TABLE_BITS <= self.table_bits <= MAX_TABLE_BITS:
            raise ConfigError(
                f"agent.table_bits: must be {MIN_TABLE_BITS}-{MAX_TABLE_BITS}"
                f" (a table of 2**bits entries of 16 bytes)"
            )
        from heuristics import HEURISTICS  # here: it loads the compiled code

        if self.heuristic not in HEURISTICS:
            raise ConfigError(
                f"agent.heuristic: unknown heuristic {self.heuristic!r};"
                f" choose one of {', '.join(HEURISTICS)}"
            )


@dataclass(frozen=True)
class RecordSettings:
    """Where finished and running games are kept."""

    path: str = "records/games.sqlite3"

    def __post_init__(self) -> None:
        if not self.path.strip():
            raise ConfigError("record.path: must not be empty")


@dataclass(frozen=True)
class LocalServerSettings:
    """The local emulation of the course server (``agent.py serve``)."""

    host: str = "127.0.0.1"
    port: int = 8000
    db: str = "records/local-server.sqlite3"
    api_key: str = "nyckel"
    bot_depth: int = 3
    bot: str = "minimax"
    first: str = "random"
    time_limit: float = 5.0
    full_board_win_is_draw: bool = True

    def __post_init__(self) -> None:
        for item in fields(self):
            problem = local_server_problem(item.name, getattr(self, item.name))
            if problem is not None:
                raise ConfigError(f"local_server.{item.name}: {problem}")


def local_server_problem(name: str, value: Any) -> str | None:
    """What is wrong with ``value`` for the ``[local_server]`` key ``name``, or None if nothing.

    The one place these rules live: the config file, ``agent.py serve``'s flags and
    ``localserver.service.CourseService`` all check with it, each naming the key or flag.
    """
    if name in ("host", "db", "api_key"):
        return None if isinstance(value, str) and value.strip() else "must not be empty"
    if name == "full_board_win_is_draw":
        return None if isinstance(value, bool) else f"must be true or false, not {value!r}"
    if name == "bot":
        return None if value in LOCAL_SERVER_BOTS else (
            f"must be one of {', '.join(LOCAL_SERVER_BOTS)}, not {value!r}")
    if name == "first":
        return None if value in LOCAL_SERVER_FIRST else (
            f"must be one of {', '.join(LOCAL_SERVER_FIRST)}, not {value!r}")
    if name in ("port", "bot_depth"):
        low, high = (0, 65535) if name == "port" else (1, MAX_BOT_DEPTH)
        if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
            return None
        return f"must be an integer {low}-{high}, not {value!r}"
    if name == "time_limit":
        if isinstance(value, (int, float)) and not isinstance(value, bool) and (
            math.isfinite(value) and value >= 0
        ):
            return None
        return f"must be a number of seconds >= 0 (0 = no limit), not {value!r}"
    raise KeyError(f"local_server has no key {name!r}")


@dataclass(frozen=True)
class SolverSettings:
    """The exact solver and the opening book (used by the engine, ``solve`` and ``analyze``)."""

    # Transposition table of a prime number of entries just above 2**table_bits, 4 bytes each.
    table_bits: int = 24
    # The opening book file; empty for the book shipped in solver/data/.
    book: str = ""
    # The part of a move's budget the engine lets the solver try to prove the position.
    share: float = 0.5

    def __post_init__(self) -> None:
        from solver.table import MAX_BITS, MIN_BITS  # here: the solver loads compiled code

        if not MIN_BITS <= self.table_bits <= MAX_BITS:
            raise ConfigError(f"solver.table_bits: must be an integer {MIN_BITS}-{MAX_BITS}")
        if not 0 < self.share <= 1:
            raise ConfigError("solver.share: must be a fraction above 0 and at most 1")


@dataclass(frozen=True)
class Settings:
    server: ServerSettings = field(default_factory=ServerSettings)
    agent: AgentSettings = field(default_factory=AgentSettings)
    record: RecordSettings = field(default_factory=RecordSettings)
    local_server: LocalServerSettings = field(default_factory=LocalServerSettings)
    solver: SolverSettings = field(default_factory=SolverSettings)


T = TypeVar("T")


def _convert(value: Any, kind: Any, where: str) -> Any:
    origin = typing.get_origin(kind)
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if kind in (int, str, bool):
        if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
            raise ConfigError(f"{where}: expected {kind.__name__}, got {value!r}")
        return value
    if origin is tuple:
        (item_kind, _) = typing.get_args(kind)
        if not isinstance(value, list):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        return tuple(_convert(v, item_kind, f"{where}[{i}]") for i, v in enumerate(value))
    raise ConfigError(f"{where}: unsupported type {kind}")


def _build(cls: type[T], table: Any, where: str) -> T:
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table, got {table!r}")
    hints = typing.get_type_hints(cls)
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})"
        )
    values = {}
    for name, value in table.items():
        kind = hints[name]
        key = f"{where}.{name}" if where else name
        if is_dataclass(kind):
            values[name] = _build(kind, value, key)  # type: ignore[arg-type]
        else:
            values[name] = _convert(value, kind, key)
    return cls(**values)


def load_settings(path: str | os.PathLike[str] | None = None, env: dict[str, str] | None = None) -> Settings:
    """Read ``path`` (default: the repository's ``config.toml``) and apply environment overrides.

    A missing default file gives the defaults; a missing file named explicitly is an error.
    """
    env = dict(os.environ) if env is None else env
    config_path = Path(path) if path is not None else DEFAULT_CONFIG_PATH
    if config_path.exists():
        try:
            with config_path.open("rb") as handle:
                data = tomllib.load(handle)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{config_path}: not valid TOML: {exc}") from exc
        except OSError as exc:
            raise ConfigError(f"{config_path}: cannot read: {exc}") from exc
        try:
            settings = _build(Settings, data, "")
        except ConfigError as exc:
            raise ConfigError(f"{config_path}: {exc}") from exc
    elif path is not None:
        raise ConfigError(f"{config_path}: no such config file")
    else:
        settings = Settings()
    server = settings.server
    if env.get(API_KEY_ENV):
        server = replace(server, api_key=env[API_KEY_ENV])
    if env.get(STIL_IDS_ENV):
        ids = tuple(part.strip() for part in env[STIL_IDS_ENV].split(",") if part.strip())
        try:
            check_stil_ids(ids, STIL_IDS_ENV)
        except ConfigError as exc:
            raise ConfigError(f"environment variable {exc}") from None
        server = replace(server, stil_ids=ids)
    return replace(settings, server=server)


def check_server_url(url: str, where: str) -> str:
    """``url`` as a base URL the endpoints are appended to (a trailing ``/`` is added).

    Raises ``ConfigError`` naming ``where`` unless it is an http(s) URL with a host.
    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        port = parts.port  # parsed on first use: raises for a port out of range or not a number
    except ValueError as exc:  # also a bracketed IPv6 address left open
        raise ConfigError(f"{where}: {url!r} is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{where}: {url!r} is not an http:// or https:// URL with a host")
    if port == 0:
        raise ConfigError(f"{where}: {url!r} has port 0; a server listens on 1-65535")
    if parts.query or parts.fragment:
        raise ConfigError(f"{where}: {url!r} must not have a query or a fragment")
    return url.strip() if url.strip().endswith("/") else url.strip() + "/"


def stil_id_problem(stil_id: object) -> str | None:
    """What is wrong with one student id by the course server's rule, or None if nothing.

    The one place the rule lives: the config, the environment override and the local server's
    validation of requests all use it.  The answer never quotes the id (it is a secret).
    We also refuse an empty id, which the server's pattern would let through.
    """
    if not isinstance(stil_id, str):
        return f"an id must be a string, not {type(stil_id).__name__}"
    if not stil_id:
        return "an id must not be empty"
    if len(stil_id) > STIL_ID_MAX_LENGTH:
        return f"an id may not be longer than {STIL_ID_MAX_LENGTH} characters"
    if not STIL_ID_PATTERN.fullmatch(stil_id):
        bad = sorted({c for c in stil_id if not STIL_ID_PATTERN.fullmatch(c)})
        return f"only letters, digits, '_' and '-' are allowed in an id, not {''.join(bad)!r}"
    return None


def check_stil_ids(ids: tuple[str, ...], where: str) -> None:
    """Raise ``ConfigError`` unless ``ids`` is one or more ids the course server accepts.

    The message names the position of a bad id and what is wrong, never the id in full.
    """
    if not ids:
        raise ConfigError(f"{where}: give at least one STIL id")
    for index, stil_id in enumerate(ids):
        problem = stil_id_problem(stil_id)
        if problem is not None:
            shown = f" ({mask_secret(stil_id)})" if stil_id else ""
            raise ConfigError(f"{where}[{index}]{shown}: {problem}")


def require_credentials(server: ServerSettings, source: str = "config.toml") -> None:
    """Raise ``ConfigError`` if the key or an id is still the placeholder the repository ships.

    Called before anything is sent to a server that records games under our ids.
    """
    if is_placeholder(server.api_key):
        raise ConfigError(
            f"{source}: server.api_key is still the placeholder; set it to the course's key"
            f" (or set {API_KEY_ENV})"
        )
    for index, stil_id in enumerate(server.stil_ids):
        if is_placeholder(stil_id):
            raise ConfigError(
                f"{source}: server.stil_ids[{index}] is still the placeholder; put your STIL"
                f" id(s) there (or set {STIL_IDS_ENV}, comma-separated)"
            )


def mask_secret(secret: str) -> str:
    """A secret as it may appear in output: its first two characters and its length."""
    if len(secret) <= 2:
        return "*" * len(secret)
    return f"{secret[:2]}{'*' * (len(secret) - 2)}"


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of each secret masked by ``mask_secret``.

    For anything quoted from outside (a server's reply, an error body) before it is printed
    or stored.  Longer secrets first, so an id that contains another is masked whole.  A
    secret of one or two characters is masked only where it stands alone (not inside a
    longer word), or every such letter of the message would be starred.
    """
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        if len(secret) >= 3:
            text = text.replace(secret, mask_secret(secret))
        else:
            alone = rf"(?<![\w-]){re.escape(secret)}(?![\w-])"
            text = re.sub(alone, mask_secret(secret), text)
    return text


def config_relative(path: str, config: str | os.PathLike[str] | None) -> Path:
    """A path from a config value: a relative one is relative to the config file's folder.

    So the same file is used whatever folder a command runs from.  (Paths given on the
    command line are relative to the working directory, as usual; they do not come here.)
    """
    resolved = Path(path).expanduser()
    if resolved.is_absolute():
        return resolved
    folder = Path(config).resolve().parent if config is not None else DEFAULT_CONFIG_PATH.parent
    return folder / resolved


def is_placeholder(value: str) -> bool:
    """True for the placeholder values the repository ships in ``config.toml``."""
    return value.startswith(PLACEHOLDER_PREFIX)


__all__ = [
    "API_KEY_ENV",
    "LOCAL_SERVER_BOTS",
    "LOCAL_SERVER_FIRST",
    "MAX_BOT_DEPTH",
    "SERVER_MOVE_LIMIT",
    "STIL_IDS_ENV",
    "STIL_ID_MAX_LENGTH",
    "AgentSettings",
    "ConfigError",
    "LocalServerSettings",
    "RecordSettings",
    "ServerSettings",
    "Settings",
    "SolverSettings",
    "check_server_url",
    "check_stil_ids",
    "config_relative",
    "is_placeholder",
    "load_settings",
    "local_server_problem",
    "mask_secret",
    "redact",
    "require_credentials",
    "stil_id_problem",
]
