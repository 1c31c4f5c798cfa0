"""Options as dataclass fields, and the options several commands share.

A command's options are a frozen dataclass; each field says how it is given on the command
line: ``positional(...)``, ``option("--flag", ...)`` or ``flag("--flag", ...)`` (a switch),
with argparse's keywords.  The shared ones (``--time``, ``--mode``, ``--opponent-model``,
``--workers``/``--scheduler``, a move string, ``--json``) are made by the functions below, whose
help texts are written from the same constants that parse them and from the settings'
defaults.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

from settings import shipped
from timecontrol import seconds_problem
from vocabulary import (
    MODE_DESCRIPTIONS,
    OPPONENT_MODEL_DESCRIPTIONS,
    SANDBOX_DESCRIPTIONS,
    Mode,
    OpponentModel,
    Sandbox,
)

MAX_DEPTH = 42  # plies: no search needs to look further than the board holds


@dataclass(frozen=True)
class Arg:
    """How a field is given on the command line: its flags (none: positional), argparse's
    keywords, and the mutually exclusive group it belongs to, if any."""

    flags: tuple[str, ...]
    keywords: dict[str, Any]
    group: str | None = None


def option(*flags: str, default: Any = None, group: str | None = None, **keywords: Any) -> Any:
    """A field given as ``--flag VALUE`` (``default`` when absent)."""
    return field(default=default, metadata={"arg": Arg(flags, {"default": default, **keywords},
                                                       group)})


def flag(*flags: str, **keywords: Any) -> Any:
    """A switch: False unless given."""
    return field(default=False, metadata={"arg": Arg(flags, {"action": "store_true",
                                                             **keywords})})


def positional(**keywords: Any) -> Any:
    """A positional argument (a field without a default: it comes first in the dataclass)."""
    return field(metadata={"arg": Arg((), keywords)})


def seconds(text: str) -> float:
    """A time per move, by the one rule for it (``timecontrol.seconds_problem``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    problem = seconds_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def whole(low: int, high: int | None = None) -> Any:
    """An argparse type: a whole number from ``low`` (to ``high``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            bound = f"{low}-{high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, not {value}")
        return value

    parse.__name__ = "whole number"
    return parse


def time_option(default: str | None = None, *, what: str = "thinking time per move") -> Any:
    """``--time SECONDS``; ``default`` says what is used without it (None: the configured time
    per move, with its shipped value)."""
    if default is None:
        default = f"agent.seconds_per_move in the config, {shipped.SECONDS_PER_MOVE:g} as shipped"
    return option("--time", type=seconds, metavar="SECONDS",
                  help=f"{what}, counted from when the search starts (default: {default})")


def mode_option() -> Any:
    """``--mode course|strongest``."""
    described = "; ".join(f"{mode}: {text}" for mode, text in MODE_DESCRIPTIONS.items())
    return option("--mode", type=Mode, choices=list(Mode),
                  help=f"{described} (default: agent.mode in the config, {shipped.MODE} as"
                       " shipped)")


def opponent_model_option() -> Any:
    """``--opponent-model minimax|random``."""
    described = "; ".join(f"{model}: {text}" for model, text in
                          OPPONENT_MODEL_DESCRIPTIONS.items())
    return option("--opponent-model", type=OpponentModel, choices=list(OpponentModel),
                  help=f"{described} (default: {OpponentModel.MINIMAX})")


MOVES_HELP = ('the moves played so far as a move string: the columns 1-7 in order ("4453";'
              ' "" is the empty board)')


def moves_argument() -> Any:
    """The position, as a move string."""
    return positional(metavar="MOVES", help=MOVES_HELP)


def json_flag() -> Any:
    """``--json``: one JSON object instead of text."""
    return flag("--json", help="print one JSON object")


def _worker_count(text: str) -> int:
    return int(whole(1)(text))


def sandbox_option() -> Any:
    """``--sandbox available|strict``: how outside agents are confined."""
    described = "; ".join(f"{value}: {text}" for value, text in SANDBOX_DESCRIPTIONS.items())
    return option("--sandbox", type=Sandbox, choices=list(Sandbox),
                  help=f"{described} (default: outside.sandbox in the config,"
                       f" {Sandbox.AVAILABLE} as shipped)")


def workers_option() -> Any:
    """``--workers K`` (exclusive with ``--scheduler``)."""
    return option("--workers", type=_worker_count, metavar="K", group="where",
                  help="local worker processes (default: one per core this process may use;"
                       " 1: in this process)")


def scheduler_option() -> Any:
    """``--scheduler ADDRESS`` (exclusive with ``--workers``)."""
    return option("--scheduler", metavar="ADDRESS", group="where",
                  help="run on a Dask cluster instead, e.g. tcp://10.0.0.5:8786"
                       " (needs the 'cluster' extra)")
