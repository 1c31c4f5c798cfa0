"""The engine's modes, the stages that decide a move, the opponent models, the outcomes and
how strictly an outside agent is confined."""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Mode(StrEnum):
    """How the agent chooses its moves."""

    COURSE = "course"
    """The assignment's algorithm: iterative-deepening alpha-beta with the 5000/500 windows."""
    STRONGEST = "strongest"
    """The opening book and the exact solver in front of that search."""


class Source(StrEnum):
    """The stage that decided a move (or proved a column)."""

    BOOK = "book"
    SOLVER = "solver"
    SEARCH = "search"


class OpponentModel(StrEnum):
    """What the search assumes of the opponent."""

    MINIMAX = "minimax"
    """A best-replying opponent: alpha-beta."""
    RANDOM = "random"
    """A uniformly random mover: expectimax (course mode)."""


class Sandbox(StrEnum):
    """How an outside agent's sandbox (``outside.sandbox``) treats a layer the system lacks."""

    AVAILABLE = "available"
    """Confine it with the layers this system has, and say which are missing."""
    STRICT = "strict"
    """Refuse to start it unless every layer is there."""


class Outcome(IntEnum):
    """A game's result for one side (the side to move, unless said otherwise)."""

    LOSS = -1
    DRAW = 0
    WIN = 1

    @classmethod
    def of(cls, score: int) -> Outcome:
        """The outcome of a score whose sign is the result (Pons' scale, a search's win/loss)."""
        return cls((score > 0) - (score < 0))

    @property
    def word(self) -> str:
        """``"win"``, ``"draw"`` or ``"loss"``."""
        return self.name.lower()

    def __neg__(self) -> Outcome:
        """The same result seen from the other side."""
        return Outcome(-self.value)


MODE_DESCRIPTIONS = {
    Mode.COURSE: "the heuristic search alone (the assignment's algorithm)",
    Mode.STRONGEST: "opening book, exact solver, then the search",
}
OPPONENT_MODEL_DESCRIPTIONS = {
    OpponentModel.MINIMAX: "alpha-beta, a best-replying opponent",
    OpponentModel.RANDOM: "expectimax, the best expected result against a uniformly random mover"
                          " (course mode)",
}
SANDBOX_DESCRIPTIONS = {
    Sandbox.AVAILABLE: "confine outside agents with the layers this system has, and say which"
                       " are missing",
    Sandbox.STRICT: "refuse to start an outside agent when a layer is missing",
}
