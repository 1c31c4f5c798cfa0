"""Tournament bookkeeping: wins, draws and losses per pairing and overall, and move statistics.

Everything here is computed from the list of game records alone, so the tables, the JSON and
the plots of one tournament always agree with each other.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.tournament import TournamentGame, TournamentPlan
from ecosystems.players import is_ours, is_outside
from engine.games import PlayedMove, Tally
from outside import Layers
from vocabulary import Ending, Source

# A move slower than its budget by more than this misses the project's timing target.
OVERRUN_TOLERANCE = 0.05

# Decision.source of a move the heuristic search decided (the others: book, solver).
SEARCH = Source.SEARCH


@dataclass
class Standing:
    """One player's results (in one pairing, or overall), split by who started."""

    player: str
    as_first: Tally = field(default_factory=Tally)
    as_second: Tally = field(default_factory=Tally)
    forfeits: int = 0  # games this player lost by an illegal move, a crash, a late move...
    faults: Counter[str] = field(default_factory=Counter)  # those games by ending

    @property
    def total(self) -> Tally:
        return self.as_first + self.as_second

    def add(self, started: bool, points: float, fault: Ending | None) -> None:
        """One game: ``fault`` is the ending of a game this player forfeited, else None."""
        (self.as_first if started else self.as_second).add(points)
        if fault is not None:
            self.forfeits += 1
            self.faults[fault.value] += 1

    def to_dict(self) -> dict[str, Any]:
        total = self.total
        return {
            "player": self.player,
            "games": total.games,
            **total.to_dict(),
            "as_first": self.as_first.to_dict(),
            "as_second": self.as_second.to_dict(),
            "score_rate": round(total.score_rate, 4),
            "forfeits": self.forfeits,
            "faults": dict(sorted(self.faults.items())),
        }


@dataclass
class MoveStats:
    """How one player moved: time per move (measured by the arena), and our engine's depth.

    ``search_depths`` holds the depth of the moves the heuristic search decided, in plies;
    the depth of a book or solver decision (discs to the end of the game) is not a search
    depth and is left out (``sources`` counts those moves).
    """

    player: str
    budget: float | None = None  # seconds per move, for ``ours``
    seconds: list[float] = field(default_factory=list)
    cpu_seconds: list[float] = field(default_factory=list)
    search_depths: list[int] = field(default_factory=list)
    sources: Counter[str] = field(default_factory=Counter)
    slowest: tuple[float, int, int] = (0.0, -1, 0)  # seconds, game index, ply
    slowest_cpu: float | None = None  # processor seconds of the slowest move

    @property
    def mean_seconds(self) -> float | None:
        return statistics.fmean(self.seconds) if self.seconds else None

    @property
    def max_seconds(self) -> float | None:
        return max(self.seconds) if self.seconds else None

    @property
    def mean_search_depth(self) -> float | None:
        return statistics.fmean(self.search_depths) if self.search_depths else None

    def _over(self, times: list[float]) -> int | None:
        if self.budget is None:
            return None
        return sum(1 for s in times if s > self.budget + OVERRUN_TOLERANCE)

    @property
    def over_budget(self) -> int | None:
        """Moves slower than the budget plus ``OVERRUN_TOLERANCE`` (None: no budget)."""
        return self._over(self.seconds)

    @property
    def over_budget_cpu(self) -> int | None:
        """Moves that used more processor time than the budget plus ``OVERRUN_TOLERANCE``.

        On a busy machine a move can wait for a core: more wall-clock than processor time.
        """
        return self._over(self.cpu_seconds)

    def add(self, move: PlayedMove, game: int) -> None:
        if move.seconds is None:  # the arena times every move: a game read from elsewhere
            return
        self.seconds.append(move.seconds)
        if move.cpu_seconds is not None:
            self.cpu_seconds.append(move.cpu_seconds)
        if move.seconds > self.slowest[0]:
            self.slowest = (move.seconds, game, move.ply)
            self.slowest_cpu = move.cpu_seconds
        if move.source is not None:
            self.sources[move.source] += 1
            if move.source == SEARCH and move.depth is not None:
                self.search_depths.append(move.depth)

    def to_dict(self) -> dict[str, Any]:
        def rounded(value: float | None, digits: int = 4) -> float | None:
            return None if value is None else round(value, digits)

        seconds, game, ply = self.slowest
        return {
            "player": self.player,
            "moves": len(self.seconds),
            "mean_seconds": rounded(self.mean_seconds),
            "max_seconds": rounded(self.max_seconds),
            "slowest_move": {"game": game, "ply": ply, "seconds": round(seconds, 4),
                             "cpu_seconds": rounded(self.slowest_cpu)}
            if self.seconds else None,
            "mean_search_depth": rounded(self.mean_search_depth, 2),
            "search_moves": len(self.search_depths),
            "sources": dict(sorted(self.sources.items())),
            "budget_seconds": self.budget,
            "moves_over_budget": self.over_budget,
            "moves_over_budget_cpu": self.over_budget_cpu,
        }


@dataclass
class PairingResult:
    a: Standing
    b: Standing

    @property
    def games(self) -> int:
        return self.a.total.games

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": [self.a.player, self.b.player],
            "games": self.games,
            "results": [self.a.to_dict(), self.b.to_dict()],
        }


@dataclass
class Summary:
    """Everything a tournament produced, ready for the tables, the JSON and the plots."""

    plan: TournamentPlan
    outcomes: list[TournamentGame]
    pairings: list[PairingResult]
    overall: list[Standing]
    moves: list[MoveStats]
    workers: int
    elapsed: float
    sandbox: Layers | None = None  # the layers its outside agents ran under (None: none played)

    @property
    def stopped(self) -> list[tuple[int, str]]:
        """The games stopped from outside (no result, no points), in plan order: (game,
        what happened)."""
        return [(outcome.task.index, outcome.record.detail) for outcome in self.outcomes
                if outcome.record.stopped]

    @property
    def faults(self) -> list[tuple[int, str, str, str]]:
        """The games lost by a fault, in plan order: (game, player, ending, detail)."""
        found = []
        for outcome in self.outcomes:
            record = outcome.record
            for side in (0, 1):
                fault = record.forfeited_by(side)
                if fault is not None:
                    found.append((outcome.task.index, record.name(side), fault.value,
                                  record.detail))
        return found

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``agent.py tournament --json``."""
        plan = self.plan
        return {
            "seed": plan.seed,
            "games_per_pairing": plan.games,
            "opening_plies": plan.opening_plies,
            "every_opening": plan.every_opening,
            "games": len(self.outcomes),
            "workers": self.workers,
            "elapsed_seconds": round(self.elapsed, 2),
            "players": list(plan.labels),
            "pairings": [p.to_dict() for p in self.pairings],
            "overall": [s.to_dict() for s in self.overall],
            "moves": [m.to_dict() for m in self.moves],
            "faults": [{"game": game, "player": player, "ending": ending, "detail": detail}
                       for game, player, ending, detail in self.faults],
            "stopped": [{"game": game, "detail": detail} for game, detail in self.stopped],
            "sandbox": self.sandbox.to_dict() if self.sandbox is not None else None,
        }


def summarize(plan: TournamentPlan, outcomes: list[TournamentGame], *, workers: int,
              elapsed: float, sandbox: Layers | None = None) -> Summary:
    labels = plan.labels
    pairings = [PairingResult(Standing(labels[a]), Standing(labels[b])) for a, b in plan.pairings]
    overall = [Standing(label) for label in labels]
    # the players' budget: make_plan refuses an ``ours`` or outside spec without its time
    moves = [MoveStats(label, spec.seconds if is_ours(spec) or is_outside(spec) else None)
             for spec, label in zip(plan.specs, labels, strict=True)]

    for outcome in outcomes:
        task, record = outcome.task, outcome.record
        sides = (task.first, task.second)
        pairing = pairings[task.pairing]
        for side, player in enumerate(sides):
            points = record.points(side)
            if points is None:  # stopped from outside: no result, listed apart
                continue
            fault = record.forfeited_by(side)
            standing = pairing.a if player == task.a else pairing.b
            standing.add(side == 0, points, fault)
            overall[player].add(side == 0, points, fault)
        for move in record.moves:
            moves[sides[move.side]].add(move, task.index)
    return Summary(plan, outcomes, pairings, overall, moves, workers, elapsed, sandbox)


__all__ = ["OVERRUN_TOLERANCE", "SEARCH", "MoveStats", "PairingResult", "Standing", "Summary",
           "summarize"]
