"""Players our engine meets, and our engine as a player: for the arena, the local games and the
benchmarks.

A player is anything with a ``name``, ``new_game()`` and ``choose(board) -> column``.  Specs
name them on the command line; the one parser of every spec is ``ecosystems.players``, to which
this module contributes its kinds (``SPEC_KINDS``, their options' parsers) and builds their
players (``build_engine_player``):

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

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from board import Board
from heuristics import HEURISTICS
from search.bot import DEFAULT_BOT_DEPTH, bot_move, move_values, random_move
from settings import AgentSettings, SolverSettings, SpecDefaults, UsageError, revised
from timecontrol import Clock, Limit, seconds_problem
from vocabulary import Mode, OpponentModel

if TYPE_CHECKING:
    from engine import Decision, Engine

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


class Player(Protocol):
    @property
    def name(self) -> str: ...

    def new_game(self) -> None: ...

    def choose(self, board: Board) -> int: ...


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
    depth: int = DEFAULT_BOT_DEPTH
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
        return revised(agent, {
            "heuristic": self.heuristic or agent.heuristic,
            "mode": self.mode or agent.mode,
        })


@dataclass
class RandomPlayer:
    rng: random.Random = field(default_factory=random.Random)
    name: str = "random"

    def new_game(self) -> None:
        pass

    def choose(self, board: Board) -> int:
        return random_move(board, self.rng)


@dataclass
class BotPlayer:
    depth: int = DEFAULT_BOT_DEPTH
    rng: random.Random = field(default_factory=random.Random)

    @property
    def name(self) -> str:
        return PlayerSpec("bot", depth=self.depth).label

    def new_game(self) -> None:
        pass

    def choose(self, board: Board) -> int:
        return bot_move(board, self.depth, self.rng)


@dataclass
class SeedPlayer:
    name: str = "seed"

    def new_game(self) -> None:
        pass

    def choose(self, board: Board) -> int:
        values = move_values(board, SEED_DEPTH)
        best = max(values.values())
        return min(col for col, value in values.items() if value == best)


def build_engine(agent: AgentSettings, solver: SolverSettings, *,
                 opponent_model: str = OpponentModel.MINIMAX,
                 clock: Clock | None = None) -> Engine:
    """The shipped engine for the ``[agent]`` and ``[solver]`` settings, warmed up.

    Both are required, so no caller can build an engine without the solver's settings (the
    opening book's path, the solver's table and share of the budget).  ``opponent_model``:
    ``minimax`` (alpha-beta) or ``random`` (expectimax; course mode).
    """
    from engine import Engine  # loads the compiled search only when an engine is built

    if clock is None:
        engine = Engine(agent, solver=solver, opponent_model=opponent_model)
    else:
        engine = Engine(agent, solver=solver, opponent_model=opponent_model, clock=clock)
    engine.warm_up()
    return engine


class OursPlayer:
    """Our engine; ``last`` keeps the decision of the latest move (for timing and depth figures).

    ``seconds`` is the time of every move, given by whoever builds the player (a spec's time,
    a command's ``--time``, else the configured one, read by the front end): ``agent``
    configures the engine only.  ``max_depth`` cuts the search at that depth (the engine then
    skips book and solver).  ``opponent_model`` is the engine's (``Engine``: ``minimax`` or
    ``random``); ``clock`` the engine's clock (default: the wall clock; ``time.process_time``
    for a time of CPU seconds).
    """

    def __init__(self, agent: AgentSettings, solver: SolverSettings | None = None, *,
                 seconds: float, max_depth: int | None = None, name: str | None = None,
                 opponent_model: str = OpponentModel.MINIMAX,
                 clock: Clock | None = None) -> None:
        self.seconds = seconds
        self.max_depth = max_depth
        self.engine = build_engine(agent, solver or SolverSettings(),
                                   opponent_model=opponent_model, clock=clock)
        self.last: Decision | None = None
        self.name = name or PlayerSpec("ours", seconds=seconds).label

    def new_game(self) -> None:
        self.engine.new_game()

    def choose(self, board: Board) -> int:
        limit = Limit.seconds(self.seconds, clock=self.engine.clock, depth=self.max_depth)
        self.last = self.engine.decide(board, limit)
        return self.last.column


class NoisyPlayer:
    """A player with a share ``noise`` of its moves replaced by uniformly random legal ones.

    The draw (and the random move) come from ``rng``, which a tournament reseeds for each game,
    so the noise repeats with the seed; the inner player is not asked for a move it would not
    play (its time is not spent).  ``last`` is the inner player's decision for its own moves,
    None for a random one.
    """

    def __init__(self, inner: Player, noise: float, rng: random.Random, name: str) -> None:
        self.inner = inner
        self.noise = noise
        self.rng = rng
        self.name = name
        self.last: Decision | None = None

    def new_game(self) -> None:
        self.inner.new_game()

    def choose(self, board: Board) -> int:
        if self.rng.random() < self.noise:
            self.last = None
            return random_move(board, self.rng)
        column = self.inner.choose(board)
        self.last = getattr(self.inner, "last", None)
        return column


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
    depth = DEFAULT_BOT_DEPTH
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


def build_engine_player(
    spec: PlayerSpec,
    *,
    rng: random.Random | None = None,
    agent: AgentSettings | None = None,
    solver: SolverSettings | None = None,
) -> Player:
    """The player a checked spec of ours names, called by the spec's label.

    ``rng`` drives the random choices of bot and random; ``agent`` and ``solver`` are the
    configured ``[agent]`` and ``[solver]`` settings our engine starts from (default: the
    built-in defaults), the spec's options applied on top.  An ``ours`` spec must carry its
    time (``SpecDefaults.seconds`` when it is parsed): the settings give none.
    """
    rng = rng or random.Random()
    if spec.kind == "random":
        return RandomPlayer(rng)
    if spec.kind == "seed":
        return SeedPlayer()
    if spec.kind == "bot":
        return BotPlayer(spec.depth, rng)
    if spec.kind == "human":
        raise UsageError("player 'human' plays only in `agent.py play`")
    ours = OursPlayer(spec.agent_settings(agent or AgentSettings()), solver,
                      seconds=spec.move_seconds(), max_depth=spec.max_depth, name=spec.label,
                      opponent_model=spec.opponent_model or OpponentModel.MINIMAX,
                      clock=time.process_time if spec.cpu_clock else None)
    if spec.noise is not None:
        return NoisyPlayer(ours, spec.noise, rng, spec.label)
    return ours
