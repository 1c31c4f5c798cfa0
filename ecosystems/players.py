"""The other arenas' bots as players of ours, and the spec parser that knows them.

Specs (beside ``engine.players``'s ``ours``, ``bot``, ``seed``, ``random``, ``human``):

- ``kaggle:negamax``, ``kaggle:random``: kaggle-environments' built-in ConnectX agents, called
  with the ConnectX observation of our board (``ecosystems.connectx.observation_of``);
- ``openspiel:mcts[:N]``: OpenSpiel's ``MCTSBot`` with N simulations (default 1,000) and a
  random-rollout evaluator, uct_c 2, ``solve=True`` (as OpenSpiel's own example), from a state
  of our board (``ecosystems.openspiel.state_from_board``);
- ``connectx:PATH[:SECONDS][:python=PATH]`` and ``program:"COMMAND ARGS"[:SECONDS]``: agents
  from outside, each in a process of its own (``outside``; ``docs/outside-agents.md``); a
  ConnectX file is given the observation ``ecosystems.connectx.observation_of`` makes.

Their random choices are drawn from the player's ``rng``, so a tournament's seed repeats them.
A spec whose package is missing is refused when it is parsed, in one line naming the extra
to install (``ecosystems.extras``).  The front ends (the arena, ``local``, ``report``) parse
and build every player here: what is not a foreign bot goes on to ``engine.players``.
"""

from __future__ import annotations

import contextlib
import io
import random
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeGuard

from board import Board
from ecosystems.extras import require
from engine.players import KINDS as ENGINE_KINDS
from engine.players import SPEC_HELP as ENGINE_SPEC_HELP
from engine.players import Player, PlayerSpec
from engine.players import build_player as build_engine_player
from engine.players import parse_spec as parse_engine_spec
from outside import KINDS as OUTSIDE_KINDS
from outside import SPEC_HELP as OUTSIDE_SPEC_HELP
from outside import (
    Layers,
    OutsideSpec,
    build_outside,
    check_strictness,
    parse_outside_spec,
    system_layers,
)
from outside import split_specs as split_specs  # the front ends split their lists with it
from settings import AgentSettings, SolverSettings, UsageError
from vocabulary import Sandbox

KAGGLE_BOTS = ("negamax", "random")
DEFAULT_SIMULATIONS = 1000
MAX_SIMULATIONS = 1_000_000
UCT_C = 2.0
SPEC_HELP = (f"{ENGINE_SPEC_HELP}; kaggle:negamax, kaggle:random or openspiel:mcts[:N];"
             f" {OUTSIDE_SPEC_HELP}")
# the module each foreign kind needs (``ecosystems.extras``)
MODULES = {"kaggle": "kaggle_environments", "openspiel": "pyspiel"}


@dataclass(frozen=True)
class ForeignSpec:
    """A checked spec of another arena's bot: ``kind`` ``kaggle`` (``bot`` ``negamax`` or
    ``random``) or ``openspiel`` (``bot`` ``mcts``, ``simulations`` per move)."""

    kind: str
    bot: str
    simulations: int = 0

    @property
    def label(self) -> str:
        """The player's name in tables: its spec, ``kaggle:negamax``, ``openspiel:mcts:1000``."""
        if self.kind == "openspiel":
            return f"openspiel:{self.bot}:{self.simulations}"
        return f"{self.kind}:{self.bot}"


Spec = PlayerSpec | ForeignSpec | OutsideSpec


def is_ours(spec: Spec) -> TypeGuard[PlayerSpec]:
    """True for a spec of our engine (``ours...``)."""
    return isinstance(spec, PlayerSpec) and spec.kind == "ours"


def is_outside(spec: Spec) -> TypeGuard[OutsideSpec]:
    """True for a spec of an agent from outside (``connectx:``, ``program:``)."""
    return isinstance(spec, OutsideSpec)


def sandbox_layers(specs: Iterable[Spec]) -> Layers | None:
    """The layers outside agents among ``specs`` run under (None when there is none): what a
    front end says once before it runs them, and keeps in its results."""
    return system_layers() if any(is_outside(spec) for spec in specs) else None


def announce_sandbox(texts: Iterable[str], sandbox: Sandbox) -> Layers | None:
    """For a front end whose specs are parsed later (in its workers): when any of ``texts`` is
    an outside agent's, refuse a ``strict`` sandbox this system cannot give (``UsageError``)
    and say once, on the error output, the layers the agents will run under."""
    outside = [text for text in texts if text.strip().split(":")[0].strip().lower()
               in OUTSIDE_KINDS]
    if not outside:
        return None
    check_strictness(sandbox)
    layers = system_layers()
    print(layers.line(), file=sys.stderr)
    return layers


def _parse_foreign(spec: str, kind: str, params: list[str]) -> ForeignSpec:
    options = [param.strip().lower() for param in params]
    if kind == "kaggle":
        if len(options) != 1 or options[0] not in KAGGLE_BOTS:
            raise UsageError(f"player {spec!r}: expected kaggle:negamax or kaggle:random")
        return ForeignSpec("kaggle", options[0])
    if not options or options[0] != "mcts" or len(options) > 2:
        raise UsageError(f"player {spec!r}: expected openspiel:mcts or openspiel:mcts:N"
                         " (N simulations)")
    simulations = DEFAULT_SIMULATIONS
    if len(options) == 2:
        text = options[1].replace("_", "")
        if not (text.isascii() and text.isdigit() and len(text) <= 7
                and 1 <= int(text) <= MAX_SIMULATIONS):
            raise UsageError(f"player {spec!r}: the simulations must be a whole number"
                             f" 1-{MAX_SIMULATIONS:,}")
        simulations = int(text)
    return ForeignSpec("openspiel", "mcts", simulations)


def parse_spec(spec: str, *, seconds: float | None = None, python: str | None = None,
               sandbox: Sandbox = Sandbox.AVAILABLE) -> Spec:
    """Check a spec: another arena's bot here, an outside agent by ``outside``, anything else
    by ``engine.players.parse_spec`` (``seconds``: the default time of ``ours`` and of the
    outside agents; ``python``: the default interpreter of a ``connectx:`` file, a front end's
    ``--python``; ``sandbox``: how strictly an outside agent is confined, a front end's
    ``--sandbox``).  Raises ``UsageError`` naming the bad spec, or the extra to install for a
    bot whose package is missing."""
    name, *params = spec.strip().split(":")
    kind = name.strip().lower()
    if kind in OUTSIDE_KINDS:
        return parse_outside_spec(spec, seconds=seconds, python=python, sandbox=sandbox)
    if kind in ENGINE_KINDS:
        return parse_engine_spec(spec, seconds=seconds)
    if kind not in MODULES:
        raise UsageError(f"unknown player {spec!r}: expected {SPEC_HELP}")
    checked = _parse_foreign(spec, kind, params)
    require(MODULES[kind], f"player {checked.label!r}")
    return checked


def build_player(spec: Spec, *, rng: random.Random | None = None,
                 agent: AgentSettings | None = None,
                 solver: SolverSettings | None = None) -> Player:
    """The player a checked spec names (``engine.players.build_player`` for ours and the
    course's players), called by the spec's label; ``rng`` drives its random choices."""
    rng = rng or random.Random()
    if isinstance(spec, PlayerSpec):
        return build_engine_player(spec, rng=rng, agent=agent, solver=solver)
    if isinstance(spec, OutsideSpec):
        from ecosystems.connectx import observation_of

        return build_outside(spec, observe=lambda board, overage: observation_of(
            board, overage=overage))
    if spec.kind == "kaggle":
        return KagglePlayer(spec.bot, rng)
    return MCTSPlayer(spec.simulations, rng)


def parse_player(spec: str, *, seconds: float | None = None, rng: random.Random | None = None,
                 agent: AgentSettings | None = None,
                 solver: SolverSettings | None = None) -> Player:
    """The player a spec names (``parse_spec``, then ``build_player``)."""
    return build_player(parse_spec(spec, seconds=seconds), rng=rng, agent=agent, solver=solver)


def _kaggle_connectx() -> tuple[Any, Callable[[Any], Any]]:
    """kaggle-environments' ConnectX module (its ``agents``) and the package's ``structify``
    (the dict with attribute access its agents are given).

    Importing the package loads every environment it ships; the one kaggle-environments 1.12
    cannot load (it needs a package of its own) prints a line, kept off our output."""
    with contextlib.redirect_stdout(io.StringIO()):
        from kaggle_environments.envs.connectx import connectx
        from kaggle_environments.utils import structify
    return connectx, structify


class KagglePlayer:
    """A built-in ConnectX agent of kaggle-environments (``negamax`` or ``random``).

    They draw from the ``random`` module: each move seeds it from ``rng`` and puts its state
    back after, so the games follow ``rng`` and nothing else in the process is disturbed.
    """

    def __init__(self, bot: str, rng: random.Random) -> None:
        connectx, structify = _kaggle_connectx()
        self.name = ForeignSpec("kaggle", bot).label
        self.rng = rng
        self._agent: Callable[[Any, Any], Any] = connectx.agents[bot]
        self._structify = structify
        self._configuration = structify({"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2,
                                         "episodeSteps": 1000, "runTimeout": 1200})

    def new_game(self) -> None:
        pass

    def choose(self, board: Board) -> int:
        from ecosystems.connectx import observation_of

        observation = self._structify(observation_of(board))
        saved = random.getstate()
        random.seed(self.rng.getrandbits(64))
        try:
            return int(self._agent(observation, self._configuration))
        finally:
            random.setstate(saved)


class MCTSPlayer:
    """OpenSpiel's ``MCTSBot`` with ``simulations`` per move and one random rollout a leaf."""

    def __init__(self, simulations: int, rng: random.Random) -> None:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import mcts

        self.name = ForeignSpec("openspiel", "mcts", simulations).label
        self.rng = rng
        self._random = np.random.RandomState()
        self._game = pyspiel.load_game("connect_four")
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=self._random)
        self._bot = mcts.MCTSBot(self._game, UCT_C, simulations, evaluator, solve=True,
                                 random_state=self._random)

    def new_game(self) -> None:
        pass

    def choose(self, board: Board) -> int:
        from ecosystems.openspiel import state_from_board

        self._random.seed(self.rng.getrandbits(32))
        return int(self._bot.step(state_from_board(self._game, board)))
