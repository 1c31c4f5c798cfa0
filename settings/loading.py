"""Reading ``config.toml`` once into ``Settings``, with the environment's overrides, and making
changed copies of a section that are checked like the file.

Every problem is reported at once, each naming the file and the key (``config.toml:
agent.min_depth: must be at least 1, got 0``); values of secret keys are never quoted.  The
schema checks types and ranges; what a value means to another package (a heuristic's name, a
table's size, a server variant) that package checks, and its rules come in as ``checks``
(``agent.py`` passes them), so that their problems are reported with the schema's, in one
error.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel, ValidationError

from settings.errors import ConfigError
from settings.schema import Settings
from settings.secrets import API_KEY_ENV, STIL_IDS_ENV
from settings.shipped import CONFIG_ENV, CONFIG_NAME

_checkout: Path | None = None  # the folder the program was started from (``use_checkout``)


def use_checkout(folder: Path) -> None:
    """Name the checkout the program runs from: ``agent.py``'s folder as it was invoked, a
    link not followed, so that a copy of the checkout whose files are links to another's
    reads and writes its own settings and record, not the other's."""
    global _checkout
    _checkout = folder


def default_config_path(env: Mapping[str, str] | None = None) -> Path:
    """The settings file used without ``--config``: ``EDAP01_CONFIG``, else ``config.toml`` of
    the checkout (``use_checkout``; this package's own when none was named)."""
    named = (os.environ if env is None else env).get(CONFIG_ENV, "").strip()
    if named:
        return Path(named).expanduser()
    folder = _checkout if _checkout is not None else Path(__file__).resolve().parent.parent
    return folder / CONFIG_NAME
SECRET_KEYS = ("api_key", "stil_ids")

Model = TypeVar("Model", bound=BaseModel)
# A rule of the package that uses some settings: the problems it finds, each a line
# ``section.key: what is wrong`` (none when the settings suit it).
Check = Callable[[Settings], list[str]]

_PLAIN = {
    "float_type": "expected a number",
    "int_type": "expected a whole number",
    "bool_type": "expected true or false",
    "string_type": "expected text in quotes",
    "tuple_type": "expected a list",
    "finite_number": "must be a finite number",
    "string_too_short": "must not be empty",
    "string_pattern_mismatch": "must not be empty",
    "too_short": "must not be empty",
    "model_type": "expected a table (a [section])",
}


def _message(error: Any, known: Mapping[str, Any]) -> str:
    kind = error["type"]
    context = error.get("ctx") or {}
    if kind == "extra_forbidden":
        return f"unknown key (known: {', '.join(sorted(known))})"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {"greater_than_equal": "at least", "greater_than": "more than",
                 "less_than_equal": "at most", "less_than": "less than"}[kind]
        bound = next(iter(context.values()))
        return f"must be {words} {bound:g}" if isinstance(bound, float) else f"must be {words} {bound}"
    if kind in ("literal_error", "enum"):
        return f"must be one of {context.get('expected', '?').replace(' or ', ', ')}"
    if kind == "value_error":
        return str(context.get("error", error["msg"]))
    return _PLAIN.get(kind, str(error["msg"]))


def describe(exc: ValidationError, model: type[BaseModel], names: Mapping[str, str] | None = None,
             prefix: str = "") -> list[str]:
    """One line per problem: ``section.key: what is wrong, got VALUE``.

    ``names`` renames top-level keys (a flag that set the value); ``prefix`` goes before
    the key (a section's name).
    """
    lines = []
    errors = exc.errors()
    for error in errors:
        raw = tuple(error["loc"])
        if error["type"] == "too_short" and any(
                len(other["loc"]) > len(raw) and tuple(other["loc"][:len(raw)]) == raw
                for other in errors):
            continue  # a list whose item is bad is not also "empty"
        loc = [str(part) for part in raw]
        head = names[loc[0]] if names and loc and loc[0] in names else loc[0] if loc else ""
        where = head + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in loc[1:])
        if prefix and not (names and loc and loc[0] in names):
            where = f"{prefix}.{where}"
        owner: type[BaseModel] | None = model
        for part in loc[:-1]:
            annotation = owner.model_fields.get(part) if owner else None
            sub = getattr(annotation, "annotation", None)
            owner = sub if isinstance(sub, type) and issubclass(sub, BaseModel) else None
        removed: Mapping[str, str] = getattr(owner, "removed_keys", {})
        if error["type"] == "extra_forbidden" and loc and loc[-1] in removed:
            # Said of the section, once for all the old keys one change replaced.
            line = f"{where.rpartition('.')[0] or where}: {removed[loc[-1]]}"
            if line not in lines:
                lines.append(line)
            continue
        message = _message(error, owner.model_fields if owner else {})
        secret = any(part in SECRET_KEYS for part in loc)
        if "input" in error and not secret and error["type"] not in ("extra_forbidden",
                                                                       "value_error"):
            message += f", got {error['input']!r}"
        lines.append(f"{where}: {message}")
    return lines


def _raise(source: str, lines: list[str]) -> NoReturn:
    if len(lines) == 1:
        raise ConfigError(f"{source}: {lines[0]}")
    raise ConfigError(f"{source}: {len(lines)} problems:\n" + "\n".join(f"  {line}" for line in lines))


def revised(model: Model, changes: Mapping[str, Any], *, names: Mapping[str, str] | None = None,
            source: str = "") -> Model:
    """A copy of ``model`` with ``changes``, checked like the file (``ConfigError``).

    ``names`` says how to name each changed key in a message (its flag, say).
    """
    data = {**model.model_dump(), **changes}
    try:
        return type(model).model_validate(data)
    except ValidationError as exc:
        lines = describe(exc, type(model), names)
        if source:
            _raise(source, lines)
        raise ConfigError("\n".join(lines)) from None


def _valid_part(data: Mapping[str, Any], exc: ValidationError) -> Settings | None:
    """The settings of ``data`` with each value the schema refused left at its default, so
    that the checks still see every value that passed; None if even that is not valid."""
    kept: dict[str, Any] = {name: dict(section) if isinstance(section, dict) else section
                            for name, section in data.items()}
    for error in exc.errors():
        section, *inner = (str(part) for part in error["loc"])
        if inner and isinstance(kept.get(section), dict):
            kept[section].pop(inner[0], None)
        else:
            kept.pop(section, None)
    try:
        return Settings.model_validate(kept)
    except ValidationError:
        return None


def load_settings(path: str | os.PathLike[str] | None = None,
                  env: Mapping[str, str] | None = None, *,
                  checks: Sequence[Check] = ()) -> Settings:
    """Read ``path`` (default: ``default_config_path``) and apply the environment.

    A missing default file gives the defaults; a missing file named explicitly (``path``, or
    ``EDAP01_CONFIG``) is an error.
    The problems the schema and ``checks`` find are one ``ConfigError`` naming the file.
    ``EDAP01_API_KEY`` and ``EDAP01_STIL_IDS`` (comma-separated) win over ``[server]``.
    """
    env = os.environ if env is None else env
    config_path = Path(path) if path is not None else default_config_path(env)
    named = path is not None or bool(env.get(CONFIG_ENV, "").strip())
    data: dict[str, Any] = {}
    if config_path.exists():
        try:
            with config_path.open("rb") as handle:
                data = tomllib.load(handle)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{config_path}: not valid TOML: {exc}") from exc
        except OSError as exc:
            raise ConfigError(f"{config_path}: cannot read: {exc.strerror or exc}") from exc
    elif named:
        raise ConfigError(f"{config_path}: no such config file")
    problems: list[str] = []
    try:
        valid: Settings | None = Settings.model_validate(data)
    except ValidationError as exc:
        problems = describe(exc, Settings)
        valid = _valid_part(data, exc)
    if valid is not None:
        for check in checks:
            problems += check(valid)
    if problems or valid is None:
        _raise(str(config_path), problems)
    settings = valid
    overrides: dict[str, Any] = {}
    names: dict[str, str] = {}
    # An empty variable overrides nothing: ``require_credentials`` reports it to the commands
    # that send, and the others (``solve``, ``move``) run as without it.
    if env.get(API_KEY_ENV, "").strip():
        overrides["api_key"], names["api_key"] = env[API_KEY_ENV], API_KEY_ENV
    if env.get(STIL_IDS_ENV):
        ids = tuple(part.strip() for part in env[STIL_IDS_ENV].split(",") if part.strip())
        overrides["stil_ids"], names["stil_ids"] = ids, STIL_IDS_ENV
    if overrides:
        server = revised(settings.server, overrides, names=names, source="environment")
        settings = settings.model_copy(update={"server": server})
    return settings


def config_relative(path: str, config: str | os.PathLike[str] | None) -> Path:
    """A path from a config value: a relative one is relative to the config file's folder.

    So the same file is used whatever folder a command runs from.  (Paths given on the
    command line are relative to the working directory, as usual; they do not come here.)
    """
    resolved = Path(path).expanduser()
    if resolved.is_absolute():
        return resolved
    folder = Path(config).resolve().parent if config is not None else \
        default_config_path().absolute().parent
    return folder / resolved
