"""Typed settings: ``config.toml`` loaded once into frozen dataclasses.

Every section of the file is a dataclass below; a key the dataclass does not have, or a value
of the wrong type, raises ``ConfigError`` naming the file and the key.  Secrets (the course key
and the student ids) may come from the environment instead (``EDAP01_API_KEY`` and
``EDAP01_STIL_IDS``, comma-separated), which wins over the file; ``mask_secret`` is how they
appear in any output.
"""

from __future__ import annotations

import os
import tomllib
import types
import typing
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

DEFAULT_CONFIG_PATH = Path(__file__).resolve().parent.parent / "config.toml"
API_KEY_ENV = "EDAP01_API_KEY"
STIL_IDS_ENV = "EDAP01_STIL_IDS"
PLACEHOLDER_PREFIX = "your-"


class ConfigError(ValueError):
    """``config.toml`` (or an environment override) is missing, malformed or has a bad value."""


@dataclass(frozen=True)
class ServerSettings:
    """Where the course server is and who we are there."""

    url: str = "https://vilde.cs.lth.se/edap01-4inarow/"
    stil_ids: tuple[str, ...] = ("your-stil-id",)
    api_key: str = "your-course-api-key"
    connect_timeout: float = 5.0
    read_timeout: float = 15.0
    retries: int = 2


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


@dataclass(frozen=True)
class RecordSettings:
    """Where finished and running games are kept."""

    path: str = "records/games.sqlite3"


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


@dataclass(frozen=True)
class Settings:
    server: ServerSettings = field(default_factory=ServerSettings)
    agent: AgentSettings = field(default_factory=AgentSettings)
    record: RecordSettings = field(default_factory=RecordSettings)
    local_server: LocalServerSettings = field(default_factory=LocalServerSettings)


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
    if origin in (typing.Union, types.UnionType):
        raise ConfigError(f"{where}: unsupported type {kind}")  # none of ours use unions
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
        server = replace(server, stil_ids=ids)
    return replace(settings, server=server)


def mask_secret(secret: str) -> str:
    """A secret as it may appear in output: its first two characters and its length."""
    if len(secret) <= 2:
        return "*" * len(secret)
    return f"{secret[:2]}{'*' * (len(secret) - 2)}"


def is_placeholder(value: str) -> bool:
    """True for the placeholder values the repository ships in ``config.toml``."""
    return value.startswith(PLACEHOLDER_PREFIX)


__all__ = [
    "API_KEY_ENV",
    "STIL_IDS_ENV",
    "AgentSettings",
    "ConfigError",
    "LocalServerSettings",
    "RecordSettings",
    "ServerSettings",
    "Settings",
    "is_placeholder",
    "load_settings",
    "mask_secret",
]
