"""Players the arena, the local games and the local server can pit against each other.

A player is anything with a ``name``, ``new_game()`` and ``choose(board) -> column``.  Specs
name them on the command line:

- ``ours[:SECONDS]``: our engine (book, solver, search) with that time per move;
- ``bot[:DEPTH]``: the course server's bot, alpha-beta cut at DEPTH plies (default 3), random ties;
- ``random``: a uniformly random legal move;
- ``seed``: the seed assignment's player: alpha-beta at a fixed depth of 5 with ``windows5000``,
  no iterative deepening, the first best column in left-to-right order;
- ``human``: a person at the terminal (``arena.human``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from board import Board
from search.bot import DEFAULT_BOT_DEPTH, bot_move, move_values, random_move
from settings import AgentSettings

if TYPE_CHECKING:
    from engine import Decision

SEED_DEPTH = 5


class PlayerSpecError(ValueError):
    """A player spec that does not name a known player or has a bad parameter."""


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
    depth: int = DEFAULT_BOT_DEPTH
    rng: random.Random = field(default_factory=random.Random)

    @property
    def name(self) -> str:
        return f"bot:{self.depth}"

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


class OursPlayer:
    """Our engine; ``last`` keeps the decision of the latest move (for timing and depth figures)."""

    def __init__(self, settings: AgentSettings) -> None:
        from engine import Engine  # loads the compiled search only when this player is used

        self.settings = settings
        self.engine = Engine(settings)
        self.engine.warm_up()
        self.last: Decision | None = None
        self.name = f"ours:{settings.seconds_per_move:g}"

    def new_game(self) -> None:
        self.engine.new_game()

    def choose(self, board: Board) -> int:
        self.last = self.engine.choose(board)
        return self.last.column


@dataclass(frozen=True)
class PlayerSpec:
    """A checked player spec: what to build, without building it yet.

    ``kind`` is ``ours``, ``bot``, ``random``, ``seed`` or ``human``; ``depth`` is the bot's
    depth, ``seconds`` the time per move of ``ours`` (None: the configured one).  Building an
    ``ours`` player loads and warms up the engine, so the arena checks specs in the parent
    process and builds the players in its workers.
    """

    kind: str
    depth: int = DEFAULT_BOT_DEPTH
    seconds: float | None = None

    @property
    def label(self) -> str:
        """The player's name in tables: ``bot:3``, ``ours:0.5``, ``random``..."""
        if self.kind == "bot":
            return f"bot:{self.depth}"
        if self.kind == "ours" and self.seconds is not None:
            return f"ours:{self.seconds:g}"
        return self.kind


SPEC_HELP = "ours[:SECONDS], bot[:DEPTH], random, seed or human"


def parse_spec(spec: str, *, seconds: float | None = None) -> PlayerSpec:
    """Check a spec; ``seconds`` is the default time of ``ours``.

    Raises ``PlayerSpecError`` naming the bad spec.
    """
    name, _, param = spec.strip().partition(":")
    name = name.lower()
    if name in ("random", "seed", "human"):
        if param:
            raise PlayerSpecError(f"player {spec!r}: {name} takes no parameter")
        return PlayerSpec(name)
    if name == "bot":
        depth = DEFAULT_BOT_DEPTH
        if param:
            if not param.isdigit() or not 1 <= int(param) <= 42:
                raise PlayerSpecError(f"player {spec!r}: bot depth must be an integer 1-42")
            depth = int(param)
        return PlayerSpec("bot", depth=depth)
    if name == "ours":
        if param:
            try:
                seconds = float(param)
            except ValueError:
                raise PlayerSpecError(f"player {spec!r}: seconds must be a number") from None
        if seconds is not None and not 0 < seconds <= 60:  # also rejects nan
            raise PlayerSpecError(f"player {spec!r}: seconds must be in (0, 60]")
        return PlayerSpec("ours", seconds=seconds)
    raise PlayerSpecError(f"unknown player {spec!r}: expected {SPEC_HELP}")


def build_player(
    spec: PlayerSpec,
    *,
    rng: random.Random | None = None,
    agent: AgentSettings | None = None,
) -> Player:
    """The player a checked spec names; ``rng`` drives the random choices of bot and random."""
    rng = rng or random.Random()
    if spec.kind == "random":
        return RandomPlayer(rng)
    if spec.kind == "seed":
        return SeedPlayer()
    if spec.kind == "bot":
        return BotPlayer(spec.depth, rng)
    if spec.kind == "human":
        from arena.human import HumanPlayer  # the terminal player lives with its rendering

        return HumanPlayer()
    settings = agent or AgentSettings()
    if spec.seconds is not None:
        settings = replace(settings, seconds_per_move=spec.seconds)
    return OursPlayer(settings)


def parse_player(
    spec: str,
    *,
    seconds: float | None = None,
    rng: random.Random | None = None,
    agent: AgentSettings | None = None,
) -> Player:
    """The player a spec names; ``seconds`` is the default time of ``ours``.

    Raises ``PlayerSpecError`` naming the bad spec.
    """
    return build_player(parse_spec(spec, seconds=seconds), rng=rng, agent=agent)
