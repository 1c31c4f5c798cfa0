"""Round-robin tournaments: every pairing plays N games, run in worker processes.

The plan is fixed before any game runs: for each pairing and game number, who starts and the
seed of each player's random choices, all derived from the tournament seed by hashing.  A
worker reseeds its players from the task it is given, so the games (and the tables) do not
depend on how many workers there are or which worker plays which game.  Our engine's choices
also depend on the clock (how deep it gets in its time), so games involving ``ours`` repeat
only as far as its timing does.

Each worker builds every player once (our engine loads its compiled code, cached on disk, and
warms up), then plays the games it is handed.  Workers are started with ``spawn`` on every
platform, so the behaviour on Linux is the behaviour students on macOS and Windows get.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, replace

from arena.match import GameRecord, play_game
from arena.players import Player, PlayerSpec, build_player
from board import Board
from settings import AgentSettings


class ArenaError(ValueError):
    """A tournament asked for something impossible (too few players, no games, ...)."""


@dataclass(frozen=True)
class TournamentPlan:
    """What to play: the players (checked specs and their table names), N games per pairing."""

    specs: tuple[PlayerSpec, ...]
    labels: tuple[str, ...]
    games: int
    seed: int
    agent: AgentSettings

    @property
    def pairings(self) -> list[tuple[int, int]]:
        n = len(self.specs)
        return [(a, b) for a in range(n) for b in range(a + 1, n)]


@dataclass(frozen=True)
class GameTask:
    """One game of the plan: players ``a`` < ``b`` (indices), who starts, the players' seeds."""

    index: int
    pairing: int
    a: int
    b: int
    game: int
    first: int
    seeds: tuple[int, int]  # of the first and the second player

    @property
    def second(self) -> int:
        return self.b if self.first == self.a else self.a


@dataclass(frozen=True)
class GameOutcome:
    task: GameTask
    record: GameRecord


def make_plan(
    specs: Sequence[PlayerSpec],
    games: int,
    seed: int | None = None,
    agent: AgentSettings | None = None,
) -> TournamentPlan:
    """Check the request and name the players (a repeated spec gets ``#2``, ``#3``...)."""
    if len(specs) < 2:
        raise ArenaError(f"a tournament needs at least two players, got {len(specs)}")
    if any(spec.kind == "human" for spec in specs):
        raise ArenaError("player 'human' cannot play in a tournament: use `agent.py play`")
    if games < 1:
        raise ArenaError(f"--games must be at least 1, not {games}")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    agent = agent or AgentSettings()
    # ``ours`` without a time plays the configured one; name it, so tables say which it was
    specs = [replace(s, seconds=agent.seconds_per_move) if s.kind == "ours" and s.seconds is None
             else s for s in specs]
    totals = Counter(spec.label for spec in specs)
    seen: Counter[str] = Counter()
    labels: list[str] = []
    for spec in specs:
        seen[spec.label] += 1
        repeated = totals[spec.label] > 1
        labels.append(f"{spec.label}#{seen[spec.label]}" if repeated else spec.label)
    return TournamentPlan(tuple(specs), tuple(labels), games, seed, agent)


def derive_seed(seed: int, *parts: int) -> int:
    """A seed for one player in one game, a pure function of the tournament seed and the parts."""
    text = "/".join(str(p) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


def plan_tasks(plan: TournamentPlan) -> list[GameTask]:
    """Every game of the plan, interleaved across pairings so partial progress covers them all.

    Within a pairing the starter alternates, the earlier-listed player starting the even
    games, so an even N gives each side N/2 starts.
    """
    tasks: list[GameTask] = []
    for game in range(plan.games):
        for number, (a, b) in enumerate(plan.pairings):
            first, second = (a, b) if game % 2 == 0 else (b, a)
            seeds = (derive_seed(plan.seed, number, game, first),
                     derive_seed(plan.seed, number, game, second))
            tasks.append(GameTask(len(tasks), number, a, b, game, first, seeds))
    return tasks


# --- the worker side --------------------------------------------------------------------------

# Per worker process: every player of the tournament, with the random generator it draws from.
_players: list[tuple[Player, random.Random]] = []
_labels: tuple[str, ...] = ()


def _init_worker(specs: tuple[PlayerSpec, ...], labels: tuple[str, ...],
                 agent: AgentSettings) -> None:
    global _labels
    _players.clear()
    for spec in specs:
        rng = random.Random()
        player = build_player(spec, rng=rng, agent=agent)
        if spec.kind != "ours":  # ours warms up when it is built
            # The first call loads the compiled search from the disk cache (a few tenths of a
            # second): done here, so that it does not count as the time of a move.
            player.choose(Board.from_moves("44"))
        _players.append((player, rng))
    _labels = labels


def _play_task(task: GameTask) -> GameOutcome:
    (first, first_rng), (second, second_rng) = _players[task.first], _players[task.second]
    first_rng.seed(task.seeds[0])
    second_rng.seed(task.seeds[1])
    first.new_game()
    second.new_game()
    record = play_game(first, second, names=(_labels[task.first], _labels[task.second]))
    return GameOutcome(task, record)


# --- the parent side --------------------------------------------------------------------------

Progress = Callable[[int, int, GameOutcome], None]


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)


def run_tournament(
    plan: TournamentPlan,
    workers: int | None = None,
    progress: Progress | None = None,
) -> list[GameOutcome]:
    """Play the whole plan; the outcomes come back in plan order.

    ``workers`` (default: the number of cores, at most the number of games) processes play
    the games; with one worker they are played in this process, without a pool.
    ``progress(done, total, outcome)`` is called after each game.
    """
    tasks = plan_tasks(plan)
    if workers is None:
        workers = default_workers()
    if workers < 1:
        raise ArenaError(f"--workers must be at least 1, not {workers}")
    workers = min(workers, len(tasks))
    outcomes: list[GameOutcome | None] = [None] * len(tasks)
    for done, outcome in enumerate(_outcomes(plan, tasks, workers), start=1):
        outcomes[outcome.task.index] = outcome
        if progress is not None:
            progress(done, len(tasks), outcome)
    assert all(o is not None for o in outcomes)
    return [o for o in outcomes if o is not None]


def _outcomes(plan: TournamentPlan, tasks: list[GameTask], workers: int) -> Iterator[GameOutcome]:
    if workers == 1:
        _init_worker(plan.specs, plan.labels, plan.agent)
        for task in tasks:
            yield _play_task(task)
        return
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(plan.specs, plan.labels, plan.agent),
    )
    try:
        # Keep only a few games queued per worker, so that Ctrl-C does not leave hundreds of
        # submitted games to cancel and the pool's memory stays small.
        pending: set[Future[GameOutcome]] = set()
        queue = iter(tasks)
        for task in queue:
            pending.add(pool.submit(_play_task, task))
            if len(pending) >= 2 * workers:
                break
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
                nxt = next(queue, None)
                if nxt is not None:
                    pending.add(pool.submit(_play_task, nxt))
    finally:
        # On an error or Ctrl-C, do not wait for the queued games.
        pool.shutdown(wait=True, cancel_futures=True)


__all__ = [
    "ArenaError",
    "GameOutcome",
    "GameTask",
    "TournamentPlan",
    "default_workers",
    "derive_seed",
    "make_plan",
    "plan_tasks",
    "run_tournament",
]
