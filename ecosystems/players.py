"""Every player spec, parsed and built in one place: the front ends' single entry point.

A spec is ``KIND[:OPTIONS]`` (a list of them is split at the commas outside quotes,
``split_specs``).  ``parse_spec`` reads the kind and hands the options to the parser of that
kind, which the package that knows it contributes in its table, each listed here:

- ``engine.specs.SPEC_KINDS``: ``ours``, ``bot``, ``random``, ``seed``, ``human``;
- ``outside.specs.SPEC_KINDS``: ``connectx:PATH`` and ``program:COMMAND``, agents from outside,
  each in a process of its own (``docs/outside-agents.md``);
- ``ecosystems.foreign.SPEC_KINDS``: ``kaggle:...`` and ``openspiel:...``, the other arenas'
  bots.

``build_player`` builds the player a checked spec names by the same division of work.  The front
ends (the arena, ``local``, ``report``, ``rate``, ``serve --bot``, the board) parse and build
every player here, so no package imports upwards to learn a kind.  Parsing loads no compiled
code (a command's help quotes ``SPEC_HELP``); building a player loads what it plays with.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeGuard

import outside
from ecosystems import foreign
from ecosystems.foreign import ForeignSpec, build_foreign
from engine import specs as engine_specs
from engine.specs import PlayerSpec
from outside import OutsideSpec
from outside import specs as outside_specs
from settings import UsageError
from vocabulary import Sandbox

if TYPE_CHECKING:
    from engine.players import Player
    from settings import AgentSettings, SolverSettings, SpecDefaults

Spec = PlayerSpec | ForeignSpec | OutsideSpec

# Every kind, with the parser of its options, from the package that knows it.
SPEC_KINDS: dict[str, Callable[[str, str, SpecDefaults], Spec]] = {
    **engine_specs.SPEC_KINDS,
    **outside_specs.SPEC_KINDS,
    **foreign.SPEC_KINDS,
}
SPEC_HELP = (f"{engine_specs.KINDS_HELP}; {foreign.KINDS_HELP};"
             f" {outside_specs.KINDS_HELP}")


def spec_kind(text: str) -> str:
    """The kind a spec names (``ours`` of ``ours:0.5``), in lower case."""
    return text.strip().partition(":")[0].strip().lower()


def parse_spec(spec: str, *, seconds: float | None = None, python: str | None = None,
               sandbox: Sandbox = Sandbox.AVAILABLE) -> Spec:
    """Check a spec: its kind's parser reads its options (``seconds``: the default time of
    ``ours`` and of the outside agents; ``python``: the default interpreter of a ``connectx:``
    file, a front end's ``--python``; ``sandbox``: how strictly an outside agent is confined,
    a front end's ``--sandbox``).  Raises ``UsageError`` naming the bad spec, or the extra to
    install for a bot whose package is missing."""
    kind = spec_kind(spec)
    parse = SPEC_KINDS.get(kind)
    if parse is None:
        raise UsageError(f"unknown player {spec!r}: expected {SPEC_HELP}")
    _, colon, rest = spec.strip().partition(":")
    if colon and not rest.strip():
        raise UsageError(f"player {spec!r}: nothing follows the ':' (expected {kind}:OPTION, or"
                         f" {kind} alone)")
    from settings import SpecDefaults

    return parse(spec, rest, SpecDefaults(seconds, python, sandbox))


def build_player(spec: Spec, *, rng: random.Random | None = None,
                 agent: AgentSettings | None = None,
                 solver: SolverSettings | None = None) -> Player:
    """The player a checked spec names, called by the spec's label; ``rng`` drives its random
    choices, ``agent`` and ``solver`` configure our engine (``build_engine_player``)."""
    rng = rng or random.Random()
    if isinstance(spec, PlayerSpec):
        from engine.players import build_engine_player  # the compiled engine, when it plays

        return build_engine_player(spec, rng=rng, agent=agent, solver=solver)
    if isinstance(spec, OutsideSpec):
        from ecosystems.connectx import observation_of
        from outside import build_outside

        return build_outside(spec, observe=lambda board, overage: observation_of(
            board, overage=overage))
    return build_foreign(spec, rng)


def parse_player(spec: str, *, seconds: float | None = None, rng: random.Random | None = None,
                 agent: AgentSettings | None = None,
                 solver: SolverSettings | None = None) -> Player:
    """The player a spec names (``parse_spec``, then ``build_player``)."""
    return build_player(parse_spec(spec, seconds=seconds), rng=rng, agent=agent, solver=solver)


def split_specs(text: str) -> list[str]:
    """A comma-separated list of specs, split at the commas outside quotes
    (``ours:0.5,program:"./engine --a,b"`` is two specs)."""
    specs: list[str] = []
    current: list[str] = []
    quote = ""
    for char in text:
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == ",":
            specs.append("".join(current))
            current = []
            continue
        current.append(char)
    specs.append("".join(current))
    return [spec.strip() for spec in specs if spec.strip()]


def is_ours(spec: Spec) -> TypeGuard[PlayerSpec]:
    """True for a spec of our engine (``ours...``)."""
    return isinstance(spec, PlayerSpec) and spec.kind == "ours"


def is_outside(spec: Spec) -> TypeGuard[OutsideSpec]:
    """True for a spec of an agent from outside (``connectx:``, ``program:``)."""
    return isinstance(spec, OutsideSpec)


def sandbox_layers(specs: Iterable[Spec]) -> outside.Layers | None:
    """The layers outside agents among ``specs`` run under (None when there is none): what a
    front end says once before it runs them, and keeps in its results."""
    return outside.system_layers() if any(is_outside(spec) for spec in specs) else None


def announce_sandbox(texts: Iterable[str], sandbox: Sandbox) -> outside.Layers | None:
    """For a front end whose specs are parsed later (in its workers): when any of ``texts`` is
    an outside agent's, refuse a ``strict`` sandbox this system cannot give (``UsageError``)
    and say once, on the error output, the layers the agents will run under."""
    if not any(spec_kind(text) in outside_specs.SPEC_KINDS for text in texts):
        return None
    outside.check_strictness(sandbox)
    layers = outside.system_layers()
    print(layers.line(), file=sys.stderr)
    return layers


__all__ = ["SPEC_HELP", "SPEC_KINDS", "ForeignSpec", "Spec", "announce_sandbox", "build_player",
           "is_ours", "is_outside", "parse_player", "parse_spec", "sandbox_layers", "spec_kind",
           "split_specs"]
