"""The other arenas' bots as players of ours: Kaggle's built-in ConnectX agents and OpenSpiel's
MCTS, their specs and the parsers of those the one parser of every spec calls
(``ecosystems.players``).

- ``kaggle:negamax``, ``kaggle:random``: kaggle-environments' built-in ConnectX agents, called
  with the ConnectX observation of our board (``ecosystems.connectx.observation_of``);
- ``openspiel:mcts[:N]``: OpenSpiel's ``MCTSBot`` with N simulations (default 1,000) and a
  random-rollout evaluator, uct_c 2, ``solve=True`` (as OpenSpiel's own example), from a state
  of our board (``ecosystems.openspiel.state_from_board``).

Their random choices are drawn from the player's ``rng``, so a tournament's seed repeats them.
A spec whose package is missing is refused when it is parsed, in one line naming the extra
to install (``ecosystems.extras``).
"""

from __future__ import annotations

import contextlib
import io
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ecosystems.extras import require
from settings import UsageError

if TYPE_CHECKING:
    from board import Board
    from settings import SpecDefaults

KAGGLE_BOTS = ("negamax", "random")
DEFAULT_SIMULATIONS = 1000
MAX_SIMULATIONS = 1_000_000
UCT_C = 2.0
KINDS_HELP = "kaggle:negamax, kaggle:random or openspiel:mcts[:N]"
# the module each kind needs (``ecosystems.extras``)
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


def _parse_kaggle(spec: str, rest: str, defaults: SpecDefaults) -> ForeignSpec:
    options = [param.strip().lower() for param in rest.split(":")] if rest else []
    if len(options) != 1 or options[0] not in KAGGLE_BOTS:
        raise UsageError(f"player {spec!r}: expected kaggle:negamax or kaggle:random")
    return _required(ForeignSpec("kaggle", options[0]))


def _parse_openspiel(spec: str, rest: str, defaults: SpecDefaults) -> ForeignSpec:
    options = [param.strip().lower() for param in rest.split(":")] if rest else []
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
    return _required(ForeignSpec("openspiel", "mcts", simulations))


def _required(spec: ForeignSpec) -> ForeignSpec:
    """``spec``, once its package is known to be there (``UsageError`` naming the extra)."""
    require(MODULES[spec.kind], f"player {spec.label!r}")
    return spec


SPEC_KINDS: dict[str, Callable[[str, str, SpecDefaults], ForeignSpec]] = {
    "kaggle": _parse_kaggle,
    "openspiel": _parse_openspiel,
}
"""The other arenas' kinds, each with the parser of its options (``parse(spec, rest,
defaults)``: ``engine.players.SPEC_KINDS``'s contract)."""


def build_foreign(spec: ForeignSpec, rng: random.Random) -> KagglePlayer | MCTSPlayer:
    """The player of a checked spec, called by its label; ``rng`` drives its random choices."""
    if spec.kind == "kaggle":
        return KagglePlayer(spec.bot, rng)
    return MCTSPlayer(spec.simulations, rng)


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
