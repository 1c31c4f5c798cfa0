"""Played games as every game loop reports them: the moves (``PlayedMove``) and the tally of
results (``Tally``).

The online loop (``client.game``), the local games in the course environment
(``client.localgame``) and the arena (``arena.match``) all describe a move the same way: its
disc number, its column, the wall-clock seconds the player took, and for our engine's moves
what its decision said.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.decision import Decision, ProvenScore, Score, SearchScore


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """One move of a game.

    ``ply`` is the disc number (1-42; odd plies are the first player's), ``seconds`` the
    wall-clock time the player took, as the game loop measured it; ``cpu_seconds`` the
    processor time this process spent meanwhile (much less than ``seconds``: the machine was
    busy and the player waited for a core).  ``depth``, ``source``, ``nodes``, ``score``,
    ``think`` (the engine's own seconds) and ``mode`` come from our engine's decision, None for
    other players.
    """

    ply: int
    column: int
    seconds: float
    cpu_seconds: float | None = None
    depth: int | None = None
    source: str | None = None
    nodes: int | None = None
    score: Score | None = None
    think: float | None = None
    mode: str | None = None

    @classmethod
    def of(cls, ply: int, column: int, seconds: float, decision: Decision | None = None, *,
           cpu_seconds: float | None = None) -> PlayedMove:
        """A move, with our engine's ``decision`` if it made it."""
        if decision is None:
            return cls(ply, column, seconds, cpu_seconds)
        return cls(ply, column, seconds, cpu_seconds, decision.depth, decision.source,
                   decision.nodes, decision.score, decision.seconds, decision.mode)

    @property
    def side(self) -> int:
        """0 for the game's first player, 1 for the second."""
        return (self.ply - 1) % 2

    @property
    def proven(self) -> bool | None:
        return None if self.score is None else self.score.proven

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ply": self.ply, "side": self.side, "column": self.column,
                                "seconds": self.seconds, "cpu_seconds": self.cpu_seconds,
                                "depth": self.depth, "source": self.source,
                                "nodes": self.nodes, "proven": self.proven, "think": self.think,
                                "mode": self.mode}
        if isinstance(self.score, SearchScore):
            data["score"] = {"scale": "search", "value": self.score.value,
                             "proven": self.score.proven}
        elif isinstance(self.score, ProvenScore):
            data["score"] = {"scale": "pons", "value": self.score.value,
                             "exact": self.score.exact,
                             **({"held": True} if self.score.held else {})}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayedMove:
        score: Score | None = None
        raw = data.get("score")
        if isinstance(raw, dict):
            score = (SearchScore(raw["value"], raw["proven"]) if raw["scale"] == "search"
                     else ProvenScore(raw["value"], raw["exact"], bool(raw.get("held", False))))
        return cls(data["ply"], data["column"], data["seconds"], data.get("cpu_seconds"),
                   data.get("depth"), data.get("source"), data.get("nodes"), score,
                   data.get("think"), data.get("mode"))


def slowest(moves: Iterable[PlayedMove]) -> PlayedMove | None:
    """The move that took the longest, or None for no move."""
    return max(moves, key=lambda move: move.seconds, default=None)


@dataclass
class Tally:
    """Games won, drawn and lost."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @classmethod
    def of_points(cls, points: Iterable[float]) -> Tally:
        """A tally of results as points: 1 a win, 0.5 a draw, anything else (0, or a course
        server's -1 and -10) a loss."""
        tally = cls()
        for value in points:
            tally.add(value)
        return tally

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score_rate(self) -> float:
        """(wins + draws / 2) / games; 0 without games."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    def add(self, points: float) -> None:
        if points == 1:
            self.wins += 1
        elif points == 0.5:
            self.draws += 1
        else:
            self.losses += 1

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def wdl(self) -> str:
        return f"{self.wins}-{self.draws}-{self.losses}"

    def to_dict(self) -> dict[str, int]:
        return {"wins": self.wins, "draws": self.draws, "losses": self.losses}
