"""Round-robin tournaments: every pairing plays N games, run by the ``batch`` executor (this
process, local worker processes, or a Dask cluster's workers).

The plan is fixed before any game runs: for each pairing and game number, who starts, the
seed of each player's random choices and (optionally) a random opening, all derived from the
tournament seed by hashing.  A worker reseeds its players from the task it is given, so the
games (and the tables) do not depend on how many workers there are or which worker plays
which game, as long as no player is ``ours``.  Our engine's choices also depend on:

- the clock: how deep it gets in its time;
- the worker's history: each worker keeps one engine per ``ours`` player for all the games it
  plays, and the exact solver's table (true bounds, kept between games) holds what earlier
  games taught it, so the same position can be solved in time in one worker and not in
  another.  (The search's table is emptied at each new game.)

So games involving ``ours`` repeat only as far as its timing and the order of games do.

A worker builds a player when it first plays a game with it (our engine loads its compiled
code, cached on disk, reads the book, allocates its tables (about 128 MiB with the default
``[solver] table_bits``) and warms up), then keeps it for the plan's later games
(``batch.worker_state``).  Each task carries the plan, so any worker can play any game, and a
worker that joins or restarts late builds what it needs.  Each finished game comes back to the
parent as soon as it is played (``run_tournament``'s ``record``: ``arena.work`` keeps them in
a work file, so a stopped run resumes).
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.match import play_game
from batch import BatchExecutor, default_workers, open_executor, worker_state
from board import Board, moves_to_string
from ecosystems.players import Spec, build_player, is_ours, is_outside
from engine.games import PlayedGame
from engine.players import Player
from outside import end_game
from search.bot import random_move
from settings import AgentSettings, SolverSettings, UsageError

# Random opening moves are at most this many plies: enough to vary the games, far too few to
# decide one (and an even number, so the first player of the game keeps the first colour).
MAX_OPENING_PLIES = 10
# Every opening of K plies is 7^K pairs of games: 49 or 2,401.
MAX_EVERY_OPENING_PLIES = 4


@dataclass(frozen=True)
class TournamentPlan:
    """What to play: the players (checked specs and their table names), N games per pairing.

    Every ``ours`` spec carries its time per move (the workers build the players from the
    specs alone); ``agent`` and ``solver`` are the configured settings our engine starts from;
    ``opening_plies`` random moves open each pair of games (the same opening with each
    starter), 0 for games from the empty board; with ``every_opening`` the pairs play every
    opening of that many plies in turn instead (``all_openings``), so ``games`` is twice their
    number.  ``openings`` (0-based columns, each an even number of them) is a suite instead:
    the k-th pair of games opens with its k-th opening, from the first again after the last
    (``agent.py sprt``'s, ``arena.openings``).
    """

    specs: tuple[Spec, ...]
    labels: tuple[str, ...]
    games: int
    seed: int
    agent: AgentSettings = field(default_factory=AgentSettings)
    solver: SolverSettings = field(default_factory=SolverSettings)
    opening_plies: int = 0
    every_opening: bool = False
    openings: tuple[tuple[int, ...], ...] = ()

    @property
    def pairings(self) -> list[tuple[int, int]]:
        n = len(self.specs)
        return [(a, b) for a in range(n) for b in range(a + 1, n)]

    @property
    def total_games(self) -> int:
        return self.games * len(self.pairings)


@dataclass(frozen=True)
class GameTask:
    """One game of the plan: players ``a`` < ``b`` (indices), who starts, the players' seeds.

    ``opening`` holds the 0-based columns played before the players take over (the first
    player of the game then moves, with the first colour).
    """

    index: int
    pairing: int
    a: int
    b: int
    game: int
    first: int
    seeds: tuple[int, int]  # of the first and the second player
    opening: tuple[int, ...] = ()

    @property
    def second(self) -> int:
        return self.b if self.first == self.a else self.a


@dataclass(frozen=True)
class TournamentGame:
    """A game of the plan as it was played: its task, and the game (opening included)."""

    task: GameTask
    record: PlayedGame


def make_plan(
    specs: Sequence[Spec],
    games: int,
    seed: int | None = None,
    agent: AgentSettings | None = None,
    solver: SolverSettings | None = None,
    *,
    opening_plies: int = 0,
    every_opening: bool = False,
    openings: Sequence[tuple[int, ...]] = (),
) -> TournamentPlan:
    """Check the request and name the players (a repeated spec gets ``#2``, ``#3``...).

    An ``ours`` spec must carry its time (the front end parses it with its default:
    ``parse_spec(..., seconds=...)``), so that tables name it and the workers need no
    settings to time it.
    """
    if len(specs) < 2:
        raise UsageError(f"a tournament needs at least two players, got {len(specs)}")
    if any(spec.kind == "human" for spec in specs):
        raise UsageError("player 'human' cannot play in a tournament: use `agent.py play`")
    if games < 1:
        raise UsageError(f"--games must be at least 1, not {games}")
    if opening_plies % 2 or not 0 <= opening_plies <= MAX_OPENING_PLIES:
        raise UsageError(f"opening plies must be an even number 0-{MAX_OPENING_PLIES}, "
                         f"not {opening_plies}")
    if every_opening:
        if not 0 < opening_plies <= MAX_EVERY_OPENING_PLIES:
            raise UsageError("every opening needs --opening-plies 2 or 4 (there are 7^K "
                             f"openings of K plies), not {opening_plies}")
        needed = 2 * 7**opening_plies
        if games != needed:
            raise UsageError(f"every opening of {opening_plies} plies, once with each starter, "
                             f"is {needed} games per pairing, not {games}")
    if openings and (opening_plies or every_opening):
        raise UsageError("a suite of openings replaces random ones: not both")
    for opening in openings:
        if len(opening) % 2:
            raise UsageError(f"the opening {moves_to_string(opening)} has an odd number of"
                             " moves: the first player of a game moves first from it")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    for spec in specs:
        if is_ours(spec) or is_outside(spec):
            spec.move_seconds()  # refused here, not in a worker after the pool has started
    totals = Counter(spec.label for spec in specs)
    seen: Counter[str] = Counter()
    labels: list[str] = []
    for spec in specs:
        seen[spec.label] += 1
        repeated = totals[spec.label] > 1
        labels.append(f"{spec.label}#{seen[spec.label]}" if repeated else spec.label)
    return TournamentPlan(tuple(specs), tuple(labels), games, seed, agent or AgentSettings(),
                          solver or SolverSettings(), opening_plies, every_opening,
                          tuple(tuple(opening) for opening in openings))


def starts(games: int) -> tuple[int, int]:
    """How many of a pairing's ``games`` the earlier- and the later-listed player start."""
    return (games + 1) // 2, games // 2


def uneven_starts_warning(games: int) -> str | None:
    """A warning for an odd number of games per pairing (the starts cannot be split evenly)."""
    if games % 2 == 0:
        return None
    first, second = starts(games)
    return (f"warning: --games {games} is odd: in each pairing the earlier-listed player starts "
            f"{first} games, the other {second}; use an even number for a fair split")


def derive_seed(seed: int, *parts: int) -> int:
    """A seed for one player in one game, a pure function of the tournament seed and the parts."""
    text = "/".join(str(p) for p in (seed, *parts)).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


# derive_seed part marking a game pair's opening (player indices are never negative)
_OPENING = -1


def all_openings(plies: int) -> list[tuple[int, ...]]:
    """Every sequence of ``plies`` columns from the empty board (0-based), in order.  Up to 6
    plies every sequence is legal and none ends the game (a column holds 6, a four needs 7
    discs)."""
    return list(itertools.product(range(7), repeat=plies))


def random_opening(rng: random.Random, plies: int) -> tuple[int, ...]:
    """``plies`` uniformly random legal columns from the empty board (0-based)."""
    board = Board()
    columns = []
    for _ in range(plies):
        column = random_move(board, rng)
        columns.append(column)
        board = board.play_unchecked(column)
    return tuple(columns)


def plan_tasks(plan: TournamentPlan) -> list[GameTask]:
    """Every game of the plan, interleaved across pairings so partial progress covers them all.

    Within a pairing the starter alternates, the earlier-listed player starting the even
    games, so an even N gives each side N/2 starts.  With ``opening_plies``, games 2k and
    2k + 1 of a pairing share one random opening, each player starting from it once; with
    ``every_opening``, games 2k and 2k + 1 share the k-th of ``all_openings``; with a suite
    of ``openings``, its k-th (``game_task``).
    """
    tasks: list[GameTask] = []
    every = all_openings(plan.opening_plies) if plan.every_opening else []
    for game in range(plan.games):
        for number in range(len(plan.pairings)):
            tasks.append(game_task(plan, len(tasks), number, game, every))
    return tasks


def game_task(plan: TournamentPlan, index: int, number: int, game: int,
              every: Sequence[tuple[int, ...]] = ()) -> GameTask:
    """Game ``game`` of pairing ``number``, task ``index`` of the plan (``every``: the plan's
    ``all_openings`` when it plays every opening)."""
    a, b = plan.pairings[number]
    first, second = (a, b) if game % 2 == 0 else (b, a)
    seeds = (derive_seed(plan.seed, number, game, first),
             derive_seed(plan.seed, number, game, second))
    opening: tuple[int, ...] = ()
    if every:
        opening = tuple(every[game // 2])
    elif plan.openings:
        opening = plan.openings[game // 2 % len(plan.openings)]
    elif plan.opening_plies:
        rng = random.Random(derive_seed(plan.seed, number, game // 2, _OPENING))
        opening = random_opening(rng, plan.opening_plies)
    return GameTask(index, number, a, b, game, first, seeds, opening)


# --- the worker side --------------------------------------------------------------------------

@dataclass
class _Roster:
    """Per worker: the tournament's specs, and each player once it has been built."""

    plan: TournamentPlan
    built: dict[int, tuple[Player, random.Random]] = field(default_factory=dict)

    def player(self, index: int) -> tuple[Player, random.Random]:
        """Player ``index`` with the generator it draws from, built on first use.

        Built lazily, so a worker holds only the players of the games it has played (an
        ``ours`` is about 128 MiB).  The build happens before the game's clock starts.
        """
        if index not in self.built:
            spec = self.plan.specs[index]
            rng = random.Random()
            player = build_player(spec, rng=rng, agent=self.plan.agent, solver=self.plan.solver)
            if spec.kind != "ours" and not is_outside(spec):  # ours warms up when built
                # The first call loads the compiled search from the disk cache (a few tenths
                # of a second): done here, so that it does not count as the time of a move.
                # (An outside agent's first move is its own: a ConnectX file loads in it.)
                player.choose(Board.from_moves("44"))
            self.built[index] = (player, rng)
        return self.built[index]


def worker_roster(plan: TournamentPlan) -> _Roster:
    """This worker's players for ``plan`` (a new plan drops the last one's)."""
    return worker_state("tournament", plan, lambda: _Roster(plan))


def play_task(plan: TournamentPlan, task: GameTask) -> TournamentGame:
    """Play one game of the plan (in a worker)."""
    roster = worker_roster(plan)
    first, first_rng = roster.player(task.first)
    second, second_rng = roster.player(task.second)
    first_rng.seed(task.seeds[0])
    second_rng.seed(task.seeds[1])
    first.new_game()
    second.new_game()
    try:
        record = play_game(first, second, opening=task.opening,
                           names=(plan.labels[task.first], plan.labels[task.second]))
    finally:  # an outside agent's process does not wait for the next game
        end_game(first)
        end_game(second)
    return TournamentGame(task, record)


# --- the parent side --------------------------------------------------------------------------

Progress = Callable[[int, int, TournamentGame], None]


def worker_count(plan: TournamentPlan, workers: int | None = None) -> int:
    """The number of local workers a run of ``plan`` uses for a requested ``workers``.

    None means the number of cores; never more than the number of games.  Raises
    ``UsageError`` for a count below 1.
    """
    if workers is None:
        workers = default_workers()
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, not {workers}")
    return min(workers, plan.total_games)


def run_tournament(
    plan: TournamentPlan,
    executor: BatchExecutor | None = None,
    progress: Progress | None = None,
    *,
    done: Mapping[int, TournamentGame] | None = None,
    record: Callable[[TournamentGame], None] | None = None,
    on_stopping: Callable[[int], None] | None = None,
) -> list[TournamentGame]:
    """Play the plan's games not in ``done`` (by task index: those of an earlier run); the
    outcomes, ``done``'s included, come back in plan order.

    ``executor`` (default: this process) plays the games.  As each game comes back,
    ``record(game)`` keeps it and ``progress(finished, total, game)`` is told.  At a Ctrl-C
    the games running are finished and recorded (``on_stopping(n)`` is told how many) before
    ``KeyboardInterrupt`` goes on (``BatchExecutor.run``).
    """
    tasks = plan_tasks(plan)
    outcomes: dict[int, TournamentGame] = dict(done or {})

    def finished(_args: tuple[object, ...], outcome: TournamentGame) -> None:
        outcomes[outcome.task.index] = outcome
        if record is not None:
            record(outcome)
        if progress is not None:
            progress(len(outcomes), len(tasks), outcome)

    todo = [(plan, task) for task in tasks if task.index not in outcomes]
    if executor is None:
        with open_executor(1) as here:
            here.run(play_task, todo, finished)
    else:
        executor.run(play_task, todo, finished, on_stopping=on_stopping)
    return [outcomes[task.index] for task in tasks]


__all__ = [
    "MAX_OPENING_PLIES",
    "GameTask",
    "TournamentGame",
    "TournamentPlan",
    "all_openings",
    "derive_seed",
    "game_task",
    "make_plan",
    "plan_tasks",
    "play_task",
    "random_opening",
    "run_tournament",
    "starts",
    "uneven_starts_warning",
    "worker_count",
]
