"""Players our engine meets, and our engine as a player: for the arena, the local games and the
benchmarks.

A player is anything with a ``name``, ``new_game()`` and ``choose(board) -> column``.  Specs
name them on the command line (``engine.specs``: the kinds ``ours``, ``bot``, ``random``,
``seed``, ``human`` and their options, checked without building anything); this module builds
their players (``build_engine_player``): ``ours`` is our engine (``build_engine``), ``bot`` the
course server's bot (alpha-beta cut at its depth, random ties), ``random`` a uniformly random
legal move, ``seed`` the seed assignment's player (alpha-beta at a fixed depth of 5 with
``windows5000``, the first best column in left-to-right order); ``human`` is a person at the
terminal (``arena.human``; only ``agent.py play`` builds one).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from board import Board
from engine.specs import SEED_DEPTH, PlayerSpec
from search.bot import bot_move, move_values, random_move
from settings import AgentSettings, SolverSettings, UsageError
from settings.shipped import BOT_DEPTH
from timecontrol import Clock, Limit
from vocabulary import OpponentModel

if TYPE_CHECKING:
    from engine import Decision, Engine

class Player(Protocol):
    @property
    def name(self) -> str: ...

    def new_game(self) -> None: ...

    def choose(self, board: Board) -> int: ...


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
    depth: int = BOT_DEPTH
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
