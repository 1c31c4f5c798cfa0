"""Is the candidate stronger than the base?  Pairs of games from a suite of openings, the
candidate once with each colour, until a sequential probability ratio test decides
(``agent.py sprt``; the statistics are ``rating.sprt``'s).

A test is a tournament of two players (``arena.tournament``): the base is the plan's player 0
and the candidate its player 1, game 2k and game 2k + 1 open with the suite's k-th opening
(``arena.openings``), the base moving first in the first and the candidate in the second.  The
plan holds ``2 x max_pairs`` games; pairs are sent to the ``batch`` executor's workers one a
worker (``play_pair`` plays both games of a pair in one task), in order, while the test is
open.  Each pair is counted as it comes back, in the order pairs finish: its points for the
candidate (0, 1/2, 1, 3/2 or 2) go into the pentanomial, the LLR is computed again, and the
test stops at the first pair that takes it across a bound.  Pairs already being played then
are finished and kept, but the test decided without them (``Tracker.after``).

With ``--out DIR`` the games are kept as they finish in the tournament's work file
(``DIR/games-work.jsonl``: a first line with the plan and the test, then each pair's two games
written together), so a Ctrl-C, a crash or a kill loses no finished pair, and the same command
goes on where it stopped, counting the kept pairs in the order they were written: the same
verdict as an uninterrupted run that had finished its pairs in that order.  Unlike a
tournament's, the file stays when the test ends, so that a rerun says the verdict again
instead of playing a new test.  A larger (or smaller) ``--max-pairs`` goes on with the same
pairs; another test (bounds, error rates, model), other players or another suite is refused.
``DIR/results.json`` holds the test, its counts and verdict and every game; ``DIR/llr.png``
the LLR's path between its bounds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.figures import plot_llr
from arena.tournament import (
    TournamentGame,
    TournamentPlan,
    game_task,
    make_plan,
    play_task,
)
from arena.work import GAMES_WORK, TournamentWork, game_line
from batch import BatchExecutor, open_executor
from ecosystems.players import Spec
from outside import Layers
from rating.sprt import (
    PAIR_POINTS,
    Model,
    Sprt,
    Tracker,
    Verdict,
    fixed_games,
    moments,
    verdict_short,
    verdict_words,
)
from settings import AgentSettings, SolverSettings, UsageError

RESULTS = "results.json"
LLR_FIGURE = "llr.png"
BASE, CANDIDATE = 0, 1  # the players' places in the plan


@dataclass(frozen=True)
class SprtPlan:
    """A test to run: the tournament of base and candidate (``2 x max_pairs`` games from the
    suite), and the test."""

    tournament: TournamentPlan
    sprt: Sprt
    max_pairs: int

    @property
    def base(self) -> str:
        return self.tournament.labels[BASE]

    @property
    def candidate(self) -> str:
        return self.tournament.labels[CANDIDATE]


def make_sprt_plan(base: Spec, candidate: Spec, sprt: Sprt, max_pairs: int,
                   openings: Sequence[tuple[int, ...]], seed: int | None = None,
                   agent: AgentSettings | None = None,
                   solver: SolverSettings | None = None) -> SprtPlan:
    """Check the request (the specs as a tournament's, at least one pair, a suite)."""
    if max_pairs < 1:
        raise UsageError(f"--max-pairs must be at least 1, not {max_pairs}")
    if not openings:
        raise UsageError("a test needs a suite of openings")
    plan = make_plan([base, candidate], 2 * max_pairs, seed, agent, solver, openings=openings)
    return SprtPlan(plan, sprt, max_pairs)


def candidate_side(game: TournamentGame) -> int:
    """The candidate's side in ``game``: 0 when it moved first, else 1."""
    return 0 if game.task.first == CANDIDATE else 1


@dataclass(frozen=True)
class PlayedPair:
    """Pair ``pair``'s two games (the base first, then the candidate first)."""

    pair: int
    games: tuple[TournamentGame, TournamentGame]

    @property
    def stopped(self) -> bool:
        """Whether a game of the pair was stopped from outside a player's sandbox: the pair
        has no result and is not counted."""
        return any(game.record.stopped for game in self.games)

    @property
    def half_points(self) -> int:
        """The candidate's points in the pair, in halves (0-4)."""
        return round(2 * sum(game.record.points(candidate_side(game)) or 0.0
                             for game in self.games))


def play_pair(plan: TournamentPlan, pair: int) -> PlayedPair:
    """Play both games of ``pair`` (in a worker)."""
    first = play_task(plan, game_task(plan, 2 * pair, 0, 2 * pair))
    second = play_task(plan, game_task(plan, 2 * pair + 1, 0, 2 * pair + 1))
    return PlayedPair(pair, (first, second))


def pairs_in_order(games: Mapping[int, TournamentGame]) -> list[PlayedPair]:
    """The whole pairs among ``games`` (by task index, in the order they finished), in the
    order each pair's later game finished."""
    position = {index: n for n, index in enumerate(games)}
    complete = [index // 2 for index in games
                if index % 2 == 0 and index + 1 in games]
    complete.sort(key=lambda pair: max(position[2 * pair], position[2 * pair + 1]))
    return [PlayedPair(pair, (games[2 * pair], games[2 * pair + 1])) for pair in complete]


@dataclass
class SprtRun:
    """A test as far as it went: the pairs in the order counted (``resumed`` of them from an
    earlier run), the tracker (counts, LLR curve, verdict), this run's seconds."""

    plan: SprtPlan
    tracker: Tracker
    pairs: list[PlayedPair] = field(default_factory=list)
    resumed: int = 0
    elapsed: float = 0.0
    stopped: list[PlayedPair] = field(default_factory=list)  # not counted: no result
    sandbox: Layers | None = None  # the layers its outside players ran under

    def add(self, pair: PlayedPair) -> Verdict | None:
        if pair.stopped:
            self.stopped.append(pair)
            return self.tracker.verdict
        self.pairs.append(pair)
        verdict = self.tracker.add(pair.half_points)
        if verdict is None and len(self.pairs) >= self.plan.max_pairs:
            self.tracker.stop_at_maximum()
        return self.tracker.verdict

    @property
    def fixed_games(self) -> int | None:
        """The games a test of a fixed length with the same errors needs (``fixed_games``; in
        Elo, with the spread of this run's pairs: None before they differ)."""
        counts = self.tracker.counts
        if self.plan.sprt.model is Model.NORMALIZED:
            return fixed_games(self.plan.sprt)
        if sum(1 for count in counts if count) < 2:
            return None
        return fixed_games(self.plan.sprt, (2 * moments(counts)[1]) ** 0.5)

    @property
    def words(self) -> str:
        tracker = self.tracker
        return verdict_words(tracker.verdict, self.plan.base, self.plan.candidate,
                             self.plan.sprt, tracker.pairs, tracker.llr)

    def status(self) -> str:
        """The live line: pairs, the LLR between its bounds, the estimate, the counts."""
        tracker = self.tracker
        lower, upper = self.plan.sprt.bounds
        line = f"{tracker.pairs} pairs  LLR {tracker.llr:+.2f} [{lower:+.2f}, {upper:+.2f}]"
        found = tracker.estimate()
        if found is not None:
            line += f"  {found}"
        return line + f"  pairs 0-1/2-1-3/2-2: {' '.join(str(c) for c in tracker.counts)}"

    def to_dict(self, command: str | None = None) -> dict[str, Any]:
        """``results.json``."""
        plan, tracker, sprt = self.plan, self.tracker, self.plan.sprt
        counted = tracker.pairs
        trinomial = [0, 0, 0]  # the candidate's losses, draws, wins in the pairs counted
        games = []
        for n, pair in enumerate(self.pairs):
            for game in pair.games:
                outcome = game.record.outcome(candidate_side(game))
                if n < counted and outcome is not None:
                    trinomial[outcome + 1] += 1
                games.append({"pair": pair.pair, "counted": n < counted, **game_line(game)})
        return {
            "base": plan.base, "candidate": plan.candidate,
            **sprt.to_dict(),
            "verdict": None if tracker.verdict is None else str(tracker.verdict),
            "verdict_words": self.words,
            "llr": round(tracker.llr, 4),
            "pairs": counted, "max_pairs": plan.max_pairs,
            "pentanomial": list(tracker.counts),
            "pentanomial_points": list(PAIR_POINTS),
            "pentanomial_after_verdict": list(tracker.after),
            "trinomial": trinomial,
            "score": round(moments(tracker.counts)[0], 5) if counted else None,
            "elo": _estimate(tracker, Model.LOGISTIC),
            "nelo": _estimate(tracker, Model.NORMALIZED),
            "fixed_games": self.fixed_games,
            "llr_curve": [round(value, 4) for value in tracker.curve],
            "seed": plan.tournament.seed,
            "openings": len(plan.tournament.openings),
            "elapsed_seconds": round(self.elapsed, 1), "resumed_pairs": self.resumed,
            "command": command,
            "games": games,
            "stopped": [{"pair": pair.pair, **game_line(game)} for pair in self.stopped
                        for game in pair.games],
            "sandbox": self.sandbox.to_dict() if self.sandbox is not None else None,
        }


def _estimate(tracker: Tracker, model: Model) -> dict[str, Any] | None:
    found = tracker.estimate(model)
    return None if found is None else dict(found.to_dict())


OnPair = Callable[[SprtRun, PlayedPair], None]


def start_run(plan: SprtPlan, done: Sequence[PlayedPair] = ()) -> SprtRun:
    """A run of ``plan`` that has counted the pairs ``done`` (an earlier run's, in order)."""
    run = SprtRun(plan, Tracker(plan.sprt))
    for pair in done[:plan.max_pairs]:
        run.add(pair)
    run.resumed = len(run.pairs)
    return run


def play_on(run: SprtRun, executor: BatchExecutor | None = None, *,
            record: Callable[[PlayedPair], None] | None = None,
            on_pair: OnPair | None = None,
            on_stopping: Callable[[int], None] | None = None) -> SprtRun:
    """Play pairs until the test decides or ``max_pairs`` are counted; ``run`` goes on as
    they come (so a caller stopped by Ctrl-C still holds what was played).

    Each pair is handed to ``record`` (to keep it), counted, and shown to ``on_pair``.  At a
    Ctrl-C the pairs being played are finished and handed over (``on_stopping(n)`` is told how
    many), then ``KeyboardInterrupt`` goes on (``BatchExecutor.run``).
    """
    plan = run.plan
    played = {pair.pair for pair in run.pairs}
    started, before = time.monotonic(), run.elapsed

    def todo() -> Iterator[tuple[TournamentPlan, int]]:
        for pair in range(plan.max_pairs):
            if run.tracker.verdict is not None:
                return
            if pair not in played:
                yield (plan.tournament, pair)

    def finished(_args: tuple[object, ...], pair: PlayedPair) -> None:
        if record is not None:
            record(pair)
        run.add(pair)
        run.elapsed = before + time.monotonic() - started
        if on_pair is not None:
            on_pair(run, pair)

    if run.tracker.verdict is None:
        if executor is None:
            with open_executor(1) as here:
                here.run(play_pair, todo(), finished)
        else:
            # One pair a worker: a verdict wastes at most the pairs already being played.
            executor.run(play_pair, todo(), finished, in_flight=executor.slots,
                         on_stopping=on_stopping)
    run.elapsed = before + time.monotonic() - started
    return run


# --- the test's folder ---------------------------------------------------------------------------

class SprtFolder:
    """``--out DIR``: the games as they finish (the tournament's work file), the results and
    the LLR figure."""

    def __init__(self, out: Path, sprt: Sprt) -> None:
        self.out = out
        self.work = TournamentWork(out / GAMES_WORK, test=sprt.to_dict(), what="a test")

    def resume(self, plan: SprtPlan, *, seed_given: bool) -> tuple[SprtPlan, list[PlayedPair]]:
        """The plan (with the kept run's seed) and its pairs kept, in the order written."""
        tournament, games = self.work.resume(plan.tournament, seed_given=seed_given,
                                             games_given=False)
        return SprtPlan(tournament, plan.sprt, plan.max_pairs), pairs_in_order(games)

    def begin(self, plan: SprtPlan, command: str) -> None:
        self.work.begin(plan.tournament, command)

    def add(self, pair: PlayedPair) -> None:
        self.work.add(*pair.games)

    def write(self, run: SprtRun, command: str) -> list[Path]:
        """``results.json`` and ``llr.png`` of the run so far."""
        results = self.out / RESULTS
        partial = results.with_suffix(".json.part")
        partial.write_text(json.dumps(run.to_dict(command), indent=1) + "\n")
        partial.replace(results)  # never half a file, whenever the run is stopped
        figure = self.out / LLR_FIGURE
        plot_llr([(f"{run.plan.candidate} against {run.plan.base}", run.tracker.curve,
                   run.tracker.verdict)], run.plan.sprt.bounds, figure, llr_title(run))
        return [results, figure]


def llr_title(run: SprtRun) -> str:
    """The LLR figure's title: the test and how it ended."""
    sprt, tracker = run.plan.sprt, run.tracker
    return (f"SPRT, {sprt.describe()}: {verdict_short(tracker.verdict)} after"
            f" {tracker.pairs:,} pairs")


__all__ = [
    "LLR_FIGURE",
    "RESULTS",
    "PlayedPair",
    "SprtFolder",
    "SprtPlan",
    "SprtRun",
    "make_sprt_plan",
    "pairs_in_order",
    "play_on",
    "play_pair",
    "start_run",
]
