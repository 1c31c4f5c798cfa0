"""Player specs of our engine and of the course's players: what a spec says, checked, without
building anything (``engine.players`` builds them).  Light: no compiled code is loaded, so the
command line's help and the parsing of a spec in the parent process cost nothing.
``SPEC_KINDS`` maps each kind to the parser of its options; ``ecosystems.players.parse_spec``
dispatches to it.

- ``ours[:OPTION...]``: our engine (``build_engine``), in the configured mode unless told.
  Options, in any order, each at most once: SECONDS (a number: the time per move; default:
  the front end's ``--time``, else the configured one, handed to ``parse_spec``), a heuristic
  name (``windows5000``, ``threats``, ``windows_tuned``, ``learned``: the search's evaluation),
  a mode (``course``: the heuristic search alone, the assignment's algorithm; ``strongest``:
  book, solver, search; ``search`` is another name for ``course``), ``dN`` (the search cut at depth N, 1-42;
  course mode only) and ``random-model`` (expectimax against a uniformly random opponent
  instead of alpha-beta, ``search.expectimax``; course mode only), ``noise=P`` (a share P, 0-1,
  of its moves replaced by uniformly random ones, drawn from the player's ``rng``: the rungs of
  the rating ladder, ``arena.calibration``, are ``ours:0.05:strongest:cpu:noise=P``), ``cpu`` (the
  time per move is this process's CPU time, ``time.process_time``, not the wall clock: a
  machine busy with other work makes the move take longer, not the player weaker).
  ``ours:0.5:threats:course``, ``ours:1:d8``, ``ours:strongest``, ``ours:0.5:random-model``;
- ``bot[:DEPTH]``: the course server's bot, alpha-beta cut at DEPTH plies (default 3), random ties;
- ``random``: a uniformly random legal move;
- ``seed``: the seed assignment's player: alpha-beta at a fixed depth of 5 with ``windows5000``,
  no iterative deepening, the first best column in left-to-right order;
- ``human``: a person at the terminal (``arena.human``; only ``agent.py play`` builds one).

The options are separated by ``:``, never by ``,``, so a list of specs splits on commas.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from heuristics.names import HEURISTICS
from settings import UsageError
from settings.shipped import BOT_DEPTH
from timecontrol import seconds_problem
from vocabulary import Mode, OpponentModel

if TYPE_CHECKING:
    from settings import AgentSettings, SpecDefaults

SEED_DEPTH = 5
MAX_DEPTH = 42  # plies: a search or a bot never needs to look further than the board holds
# Names of the modes in a spec; "search" is the name course mode had before it had one.
MODE_NAMES: dict[str, Mode] = {**{mode.value: mode for mode in Mode}, "search": Mode.COURSE}
# The spec option that plays expectimax against a random mover (``--opponent-model random``).
RANDOM_MODEL = "random-model"
# The spec option that replaces a share of the moves by random ones: ``noise=0.3``.
NOISE = "noise="
# The spec option that times the moves by this process's CPU time.
CPU = "cpu"


def check_seconds(value: float, where: str) -> float:
    """``value`` if it is a time per move (``timecontrol.seconds_problem``); else
    ``UsageError`` naming ``where`` (a spec...)."""
    problem = seconds_problem(value)
    if problem is not None:
        raise UsageError(f"{where} {problem}")
    return value


def _share(text: str) -> float | None:
    """``text`` as a share 0-1 (a plain decimal of at most 12 characters), else None."""
    if not (0 < len(text) <= 12 and text.isascii()
            and all(c.isdigit() or c == "." for c in text) and text.count(".") <= 1
            and text != "."):
        return None
    value = float(text)
    return value if 0.0 <= value <= 1.0 else None


def _small_int(text: str) -> int | None:
    """``text`` as an integer if it is 1-2 ASCII digits, else None (``int('²')`` would raise,
    and ``int()`` of thousands of digits is refused by Python itself)."""
    if text.isascii() and text.isdigit() and len(text) <= 2:
        return int(text)
    return None


@dataclass(frozen=True)
class PlayerSpec:
    """A checked player spec: what to build, without building it yet.

    ``kind`` is ``ours``, ``bot``, ``random``, ``seed`` or ``human``; ``depth`` is the bot's
    depth.  For ``ours``: ``seconds`` the time per move (None: not given yet; the front end
    gives its default to the parser, and an ``ours`` is built only with a time),
    ``heuristic`` the search's evaluation (None: the configured one), ``mode`` the engine's
    mode (None: the configured one), ``max_depth`` the search's depth limit (None: as deep as
    time allows; course mode), ``opponent_model`` the engine's model of its opponent (None:
    ``minimax``, alpha-beta; ``random``: expectimax, course mode), ``noise`` the share of its
    moves replaced by random ones (None: none), ``cpu_clock`` whether its time is CPU time.
    Building an ``ours`` player loads and warms up the engine, so the arena checks specs in
    the parent process and builds the players in its workers.
    """

    kind: str
    depth: int = BOT_DEPTH
    seconds: float | None = None
    heuristic: str | None = None
    mode: Mode | None = None
    max_depth: int | None = None
    opponent_model: OpponentModel | None = None
    noise: float | None = None
    cpu_clock: bool = False

    @property
    def label(self) -> str:
        """The player's name in tables: ``bot:3``, ``ours:0.5:threats:course``, ``random``...

        The one place names are made: players built from a spec are called by its label.
        """
        if self.kind == "bot":
            return f"bot:{self.depth}"
        if self.kind != "ours":
            return self.kind
        parts = ["ours"]
        if self.seconds is not None:
            parts.append(f"{self.seconds:g}")
        if self.heuristic is not None:
            parts.append(self.heuristic)
        random_model = self.opponent_model == OpponentModel.RANDOM
        if self.max_depth is not None:
            parts.append(f"d{self.max_depth}")  # course mode, implied
        elif self.mode is not None and not (random_model and self.mode == Mode.COURSE):
            parts.append(self.mode)
        if random_model:
            parts.append(RANDOM_MODEL)  # course mode, implied
        if self.cpu_clock:
            parts.append(CPU)
        if self.noise is not None:
            parts.append(f"{NOISE}{self.noise:g}")
        return ":".join(parts)

    def move_seconds(self) -> float:
        """The time per move of this ``ours`` spec; ``ValueError`` when it was parsed without
        one (a front end gives the parser its default: the settings are not asked)."""
        if self.seconds is None:
            raise ValueError(f"player {self.label!r} has no time per move: parse its spec with"
                             " the front end's default (parse_spec(..., seconds=...))")
        return self.seconds

    def agent_settings(self, agent: AgentSettings) -> AgentSettings:
        """``agent`` (the configured settings) with this ``ours`` spec's heuristic and mode.

        The time is not among them: the player carries it (``OursPlayer.seconds``).
        """
        from settings import revised

        return revised(agent, {
            "heuristic": self.heuristic or agent.heuristic,
            "mode": self.mode or agent.mode,
        })


KINDS_HELP = ("ours[:SECONDS][:HEURISTIC][:course|:strongest][:dN][:random-model][:cpu]"
              "[:noise=P], bot[:DEPTH], random, seed or human")
OURS_OPTIONS = (f"SECONDS, {'/'.join(HEURISTICS)}, {'/'.join(Mode)}, dN (1-{MAX_DEPTH}),"
                f" {RANDOM_MODEL}, {CPU} or {NOISE}P (P 0-1)")


def _parse_ours(spec: str, rest: str, defaults: SpecDefaults) -> PlayerSpec:
    """``ours``'s options (``rest``: what follows ``ours:``); ``defaults.seconds`` is its time
    when it gives none."""
    given: set[str] = set()
    heuristic: str | None = None
    mode: Mode | None = None
    max_depth: int | None = None
    time: float | None = None
    opponent_model: OpponentModel | None = None
    noise: float | None = None
    cpu_clock = False

    def once(what: str, option: str) -> None:
        if what in given:
            raise UsageError(f"player {spec!r}: {option!r} gives the {what} a second time")
        given.add(what)

    for raw in rest.split(":") if rest else []:
        option = raw.strip().lower()
        if option in HEURISTICS:
            once("heuristic", raw)
            heuristic = option
        elif option in MODE_NAMES:
            once("mode", raw)
            mode = MODE_NAMES[option]
        elif option == RANDOM_MODEL:
            once("opponent model", raw)
            opponent_model = OpponentModel.RANDOM
        elif option == CPU:
            once("clock", raw)
            cpu_clock = True
        elif option.startswith(NOISE):
            once("noise", raw)
            noise = _share(option[len(NOISE):])
            if noise is None:
                raise UsageError(f"player {spec!r}: the noise must be a share 0-1, such as"
                                 f" {NOISE}0.3")
        elif option[:1] == "d" and option[1:].isascii() and option[1:].isdigit():
            once("depth", raw)
            max_depth = _small_int(option[1:])
            if max_depth is None or not 1 <= max_depth <= MAX_DEPTH:
                raise UsageError(f"player {spec!r}: the search depth must be 1-{MAX_DEPTH}")
        else:
            try:
                value = float(option)
            except ValueError:
                raise UsageError(f"player {spec!r}: {raw!r} is not an option of ours: "
                                 f"{OURS_OPTIONS}") from None
            once("time", raw)
            time = check_seconds(value, f"player {spec!r}: the time")
    if time is None and defaults.seconds is not None:
        time = check_seconds(defaults.seconds, f"player {spec!r}: the time")
    if max_depth is not None:
        if mode == Mode.STRONGEST:
            raise UsageError(f"player {spec!r}: a search depth (d{max_depth}) is for course mode;"
                             " strongest mode plays the book and the solver first")
        mode = Mode.COURSE
    if opponent_model is not None:
        if mode == Mode.STRONGEST:
            raise UsageError(f"player {spec!r}: {RANDOM_MODEL} (expectimax against a random"
                             " opponent) is for course mode; strongest mode plays the book and"
                             " the solver, which assume a best-replying opponent")
        mode = Mode.COURSE
    return PlayerSpec("ours", seconds=time, heuristic=heuristic, mode=mode, max_depth=max_depth,
                      opponent_model=opponent_model, noise=noise, cpu_clock=cpu_clock)


def _parse_bot(spec: str, rest: str, defaults: SpecDefaults) -> PlayerSpec:
    """``bot``'s one option, its depth."""
    params = rest.split(":") if rest else []
    if len(params) > 1:
        raise UsageError(f"player {spec!r}: bot takes one parameter, its depth")
    depth = BOT_DEPTH
    if params:
        value = _small_int(params[0].strip())
        if value is None or not 1 <= value <= MAX_DEPTH:
            raise UsageError(f"player {spec!r}: bot depth must be an integer 1-{MAX_DEPTH}")
        depth = value
    return PlayerSpec("bot", depth=depth)


def _without_options(kind: str) -> Callable[[str, str, SpecDefaults], PlayerSpec]:
    """The parser of a kind that takes no option (``random``, ``seed``, ``human``)."""

    def parse(spec: str, rest: str, defaults: SpecDefaults) -> PlayerSpec:
        if rest:
            raise UsageError(f"player {spec!r}: {kind} takes no parameter")
        return PlayerSpec(kind)

    return parse


SPEC_KINDS: dict[str, Callable[[str, str, SpecDefaults], PlayerSpec]] = {
    "ours": _parse_ours,
    "bot": _parse_bot,
    "random": _without_options("random"),
    "seed": _without_options("seed"),
    "human": _without_options("human"),
}
"""This module's kinds of spec, each with the parser of its options: ``parse(spec, rest,
defaults)``, ``rest`` the text after ``KIND:`` ("" when there is none); ``UsageError`` naming
the spec.  ``ecosystems.players.parse_spec`` dispatches to it."""


__all__ = ["CPU", "KINDS_HELP", "MAX_DEPTH", "MODE_NAMES", "NOISE", "RANDOM_MODEL", "SEED_DEPTH",
           "SPEC_KINDS", "PlayerSpec", "check_seconds"]
