"""The specs of outside players, checked: ``connectx:PATH`` and ``program:COMMAND``.

This module contributes these two kinds to the one parser of every spec (``ecosystems.players``):
``SPEC_KINDS``, each with the parser of its options.

- ``connectx:PATH[:SECONDS][:python=INTERPRETER]``: a Kaggle ConnectX agent file, or a
  submission archive (``submission.tar.gz``, ``main.py`` at its root) (``outside.connectx``);
  SECONDS is its ``actTimeout``; INTERPRETER the Python that runs it
  (default: the ``SpecDefaults`` python the parser is given, a front end's ``--python``, else
  ours), so that an agent's own packages need not be ours;
- ``program:COMMAND[:SECONDS]``: a program speaking the line protocol (``outside.program``);
  COMMAND is split as a shell splits it (without a shell).  Quote it when it holds a ``:`` or a
  ``,`` (``program:"./engine --depth=3"``, ``program:'java -cp a:b Engine':0.5``).

SECONDS (default: the front end's ``--time``, else the configured time per move: the
``SpecDefaults`` the parser is given) is the move's budget.  Every outside spec also carries how
strictly its agent is confined (``sandbox``, the front end's ``--sandbox`` or ``[outside]
sandbox``): not part of its label, but it travels with the spec to the worker processes that
build the player.  A PATH or COMMAND may hold ``:``;
only trailing parts that are options are taken as options.  The spec's label (its name in
tables) is the spec as written, normalised.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from settings import UsageError
from timecontrol import seconds_problem
from vocabulary import Sandbox

if TYPE_CHECKING:
    from settings import SpecDefaults

KINDS_HELP = "connectx:PATH[:SECONDS][:python=PATH] or program:\"COMMAND ARGS\"[:SECONDS]"
PYTHON_OPTION = "python="


@dataclass(frozen=True)
class OutsideSpec:
    """A checked outside player: ``kind`` ``connectx`` (``target`` the agent file) or
    ``program`` (``target`` the command line); ``seconds`` per move; ``python`` the
    interpreter of a ``connectx`` agent (None: ours); ``sandbox`` how strictly it is
    confined (``outside.sandbox``)."""

    kind: str
    target: str
    seconds: float | None = None
    python: str | None = None
    sandbox: Sandbox = field(default=Sandbox.AVAILABLE, compare=False)

    @property
    def label(self) -> str:
        target = self.target
        if self.kind == "program" and (":" in target or "," in target or " " in target):
            target = f'"{target}"' if '"' not in target else f"'{target}'"
        parts = [f"{self.kind}:{target}"]
        if self.seconds is not None:
            parts.append(f"{self.seconds:g}")
        if self.python is not None:
            parts.append(f"{PYTHON_OPTION}{self.python}")
        return ":".join(parts)

    def move_seconds(self) -> float:
        """The time per move (``ValueError`` when the spec was parsed without one)."""
        if self.seconds is None:
            raise ValueError(f"player {self.label!r} has no time per move: parse its spec with"
                             " the front end's default (parse_spec(..., seconds=...))")
        return self.seconds


def _seconds(text: str) -> float | None:
    """``text`` as a number of seconds, or None when it is no number."""
    if not text or not text.isascii() or any(c not in "0123456789." for c in text):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _quoted_head(rest: str, spec: str) -> tuple[str, str]:
    """A quoted target and what follows its closing quote."""
    quote = rest[0]
    end = rest.find(quote, 1)
    if end < 0:
        raise UsageError(f"player {spec!r}: the quote {quote} is not closed")
    return rest[1:end], rest[end + 1:]


def _parser(kind: str) -> Callable[[str, str, SpecDefaults], OutsideSpec]:
    """The parser of ``kind``'s spec (see the module's docstring)."""

    def parse(spec: str, rest: str, defaults: SpecDefaults) -> OutsideSpec:
        return _parse(kind, spec, rest, defaults)

    return parse


def _parse(kind: str, spec: str, rest: str, defaults: SpecDefaults) -> OutsideSpec:
    """Check a ``connectx:`` or ``program:`` spec whose options are ``rest``; the defaults'
    ``seconds`` and ``python`` fill what it leaves out, its ``sandbox`` is the front end's
    strictness (``strict`` on a system that lacks a layer is refused here).  Raises
    ``UsageError`` naming the spec."""
    seconds, python, sandbox = defaults.seconds, defaults.python, defaults.sandbox
    rest = rest.strip()
    if not rest:
        raise UsageError(f"player {spec!r}: expected {KINDS_HELP}")
    options: list[str]
    if rest[0] in "\"'":
        target, tail = _quoted_head(rest, spec)
        if tail and not tail.startswith(":"):
            raise UsageError(f"player {spec!r}: expected ':' after the quoted {kind}")
        options = tail[1:].split(":") if tail else []
    else:
        parts = rest.split(":")
        options = []
        while len(parts) > 1 and (_seconds(parts[-1].strip()) is not None
                                  or parts[-1].strip().startswith(PYTHON_OPTION)):
            options.insert(0, parts.pop())
        target = ":".join(parts)
    time: float | None = None
    interpreter: str | None = None
    for raw in options:
        option = raw.strip()
        value = _seconds(option)
        if value is not None:
            if time is not None:
                raise UsageError(f"player {spec!r}: {raw!r} gives the time a second time")
            problem = seconds_problem(value)
            if problem is not None:
                raise UsageError(f"player {spec!r}: the time {problem}")
            time = value
        elif option.startswith(PYTHON_OPTION) and kind == "connectx":
            if interpreter is not None:
                raise UsageError(f"player {spec!r}: {raw!r} gives the interpreter a second time")
            interpreter = option[len(PYTHON_OPTION):]
        else:
            allowed = "SECONDS or python=PATH" if kind == "connectx" else "SECONDS"
            raise UsageError(f"player {spec!r}: {raw!r} is not an option of {kind}; expected"
                             f" {allowed}")
    if time is None and seconds is not None:
        problem = seconds_problem(seconds)
        if problem is not None:
            raise UsageError(f"player {spec!r}: the time {problem}")
        time = seconds
    from outside.sandbox import check_strictness  # it loads the kernel's interfaces: when needed

    check_strictness(sandbox)
    if kind == "connectx":
        return OutsideSpec(kind, _check_file(target.strip(), spec), time,
                           _check_python(interpreter or python, spec), sandbox)
    return OutsideSpec(kind, _check_command(target.strip(), spec), time, sandbox=sandbox)


def _check_file(path: str, spec: str) -> str:
    if not path:
        raise UsageError(f"player {spec!r}: no agent file given")
    if not Path(path).is_file():
        raise UsageError(f"player {spec!r}: {path} is not a file")
    return path


def _check_python(python: str | None, spec: str) -> str | None:
    if python is None:
        return None
    from outside.program import command_problem

    problem = command_problem([python])
    if problem is not None:
        raise UsageError(f"player {spec!r}: the interpreter {problem}")
    return python


def _check_command(command: str, spec: str) -> str:
    from outside.program import command_problem

    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UsageError(f"player {spec!r}: the command cannot be split: {exc}") from None
    problem = command_problem(argv)
    if problem is not None:
        raise UsageError(f"player {spec!r}: {problem}")
    return command


SPEC_KINDS: dict[str, Callable[[str, str, SpecDefaults], OutsideSpec]] = {
    "connectx": _parser("connectx"),
    "program": _parser("program"),
}
"""The outside kinds, each with the parser of its options (``parse(spec, rest, defaults)``:
``engine.players.SPEC_KINDS``'s contract)."""

__all__ = ["KINDS_HELP", "SPEC_KINDS", "OutsideSpec"]
