"""The versions of the course server, as behaviours the local server can take on.

The course server has been rewritten over the years and a student meets whichever version
runs.  A ``Behaviour`` is one switch per known difference:

=====================  =====================  ===========================================
switch                 ``current``            ``2021``
=====================  =====================  ===========================================
``first``              random                 student (the student always starts)
``bot``                minimax (depth 3)      random (uniformly random columns)
``null_start_reply``   false                  true: the reply to -1 has ``result``,
                                              ``botmove`` and ``state`` null
``float_results``      false                  true: ``result`` is sent as a float (0.0, 1.0)
``stats_endpoint``     true                   false: ``stats`` answers HTTP 404
``every_start_lost``   false                  true: every -1 is booked as a lost game, a game
                                              running or not
=====================  =====================  ===========================================

``current`` is the server as the course describes it today, and every switch may be set on
its own on top of it (a server with stats that books every -1 as a loss, say).  ``2021`` is
that version as it was seen: its switches are what it is, and setting one against it is
refused (a ``ConfigError``), so a test that says "2021" means exactly that server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from settings import ConfigError

if TYPE_CHECKING:
    from settings import LocalServerSettings

START_MESSAGE_2021 = "New game initiated, you start. Make your move"


@dataclass(frozen=True)
class Behaviour:
    """How the local server behaves where the course server's versions differ."""

    first: str = "random"
    bot: str = "minimax"
    null_start_reply: bool = False
    float_results: bool = False
    stats_endpoint: bool = True
    every_start_lost: bool = False


SWITCHES = tuple(f.name for f in fields(Behaviour))
VARIANTS: dict[str, Behaviour] = {
    "current": Behaviour(),
    "2021": Behaviour(first="student", bot="random", null_start_reply=True, float_results=True,
                      stats_endpoint=False, every_start_lost=True),
}
# The switches a variant fixes: setting one otherwise contradicts it.
FIXED: dict[str, tuple[str, ...]] = {"current": (), "2021": SWITCHES}


def _shown(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def conflicts(variant: str, chosen: Mapping[str, tuple[object, str]], *,
              variant_source: str = "variant") -> list[str]:
    """Why ``variant`` with the switches in ``chosen`` cannot be: none when it can.

    ``chosen`` maps a switch to its value and where it was set (a config key or a flag), for
    the message; ``variant_source`` names where the variant was chosen.  The problems are an
    unknown variant, each switch set against a fixed variant, or switches that cannot work
    together.
    """
    if variant not in VARIANTS:
        return [f"{variant_source}: unknown variant {variant!r};"
                f" choose one of {', '.join(VARIANTS)}"]
    base = VARIANTS[variant]
    problems = [
        f"{source} {_shown(value)} contradicts {variant_source} {variant}, whose {name} is"
        f" {_shown(getattr(base, name))}: leave it out, or use variant current and set the"
        " switches one by one"
        for name, (value, source) in chosen.items()
        if name in FIXED[variant] and value != getattr(base, name)]
    if problems:  # whether switches against the variant could work together is moot
        return problems
    values: dict[str, Any] = {name: value for name, (value, _) in chosen.items()}
    behaviour = replace(base, **values)
    if behaviour.null_start_reply and behaviour.first != "student":
        where = chosen.get("first", (None, "first"))[1]
        problems.append(
            f"{where} {behaviour.first} cannot go with null_start_reply: a reply to -1 with a"
            " null board cannot say where the bot started (set first to student)")
    return problems


def resolve(variant: str, chosen: Mapping[str, tuple[object, str]], *,
            variant_source: str = "variant") -> Behaviour:
    """The behaviour of ``variant`` with the switches in ``chosen`` applied.

    Raises ``ConfigError`` with every problem ``conflicts`` finds, naming where each side
    was set.
    """
    problems = conflicts(variant, chosen, variant_source=variant_source)
    if problems:
        raise ConfigError("; ".join(problems))
    values: dict[str, Any] = {name: value for name, (value, _) in chosen.items()}
    return replace(VARIANTS[variant], **values)


def variant_problems(settings: LocalServerSettings) -> list[str]:
    """The problems of ``[local_server]``'s variant and switches (``conflicts``), each naming
    its keys."""
    chosen = {name: (getattr(settings, name), f"local_server.{name}") for name in SWITCHES
              if getattr(settings, name) is not None}
    return conflicts(settings.variant, chosen, variant_source="local_server.variant")
