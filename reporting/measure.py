"""The measurements of ``agent.py report``: games, time and depth, speed, correctness, evaluations.

Each function runs one measurement of our agent in course mode (the assignment's algorithm)
and returns its data; ``reporting.document`` turns them into figures and the report.

- ``play_opponents``: games against the server's bot (``bot:3``), the seed player and a random
  player (or the opponents asked for: any player spec but ``ours``, ``ecosystems.players``),
  each starting half of them (``arena``, in worker processes);
- ``depth_and_speed``: the depth reached and the nodes per second at each time budget, on
  a fixed set of positions;
- ``correctness``: on the positions of those games where some legal move changes the
  game-theoretic outcome, whether our move kept it: the outcome after each legal move is
  taken from the opening book where it holds the position (any entry gives the outcome) and
  proven by our own exact solver otherwise; what cannot be proven within the time given to a
  position is counted as unproven;
- ``compare_evaluations``: each other evaluation against the configured one, by the
  sequential test of ``agent.py sprt`` (``arena.sprt``): pairs of games from the balanced
  openings, each side once with each colour, until the test decides.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from arena.openings import load_openings
from arena.results import Summary, summarize
from arena.sprt import SprtRun, make_sprt_plan, play_on, start_run
from arena.tournament import TournamentGame, make_plan, run_tournament
from batch import BatchExecutor
from board import Board
from ecosystems.players import is_ours, parse_spec
from engine.referee import judge_move
from rating.sprt import Sprt
from reporting.plan import OPPONENTS
from settings import AgentSettings, SolverSettings, UsageError, revised
from solver.book import Book, load_book
from solver.make_book.worker import worker_solver
from timecontrol import Limit
from vocabulary import Mode

Advance = Callable[[int], None]


@dataclass(frozen=True)
class BudgetPoint:
    """Course mode at one time budget over the positions: the depth reached (mean, least),
    and the nodes searched per second."""

    seconds: float
    positions: int
    mean_depth: float
    min_depth: int
    nodes_per_second: float


@dataclass(frozen=True)
class Check:
    """One of our moves in a game, judged by the solver: ``critical`` when some legal move
    changes the exact outcome of the position, ``kept`` when ours did not; both None when the
    outcome of some move could not be proven in time (unproven).  ``booked`` counts the legal
    moves whose outcome the opening book gave (the solver proved the others); ``best`` and
    ``outcome`` are the position's outcome and the move's (1 win, 0 draw, -1 loss for the
    mover), None when unproven: how much a lost outcome cost."""

    ply: int
    critical: bool | None
    kept: bool | None
    # Where the verdict came from, not part of it: checks with the same verdict are equal.
    booked: int = field(default=0, compare=False)
    best: int | None = field(default=None, compare=False)
    outcome: int | None = field(default=None, compare=False)


def course_agent(agent: AgentSettings, heuristic: str | None = None) -> AgentSettings:
    """The configured ``[agent]`` in course mode (the time per move is the caller's ``Limit``,
    never a setting)."""
    return revised(agent, {"mode": Mode.COURSE, "heuristic": heuristic or agent.heuristic})


def default_player(seconds: float) -> str:
    """The player a report measures unless told: ours in course mode at ``seconds``."""
    return f"ours:{seconds:g}:course"


@dataclass(frozen=True)
class Measuring:
    """Whom a report measures: ``spec`` (a player spec), called ``label`` (None: ours in course
    mode, the report's default); ``course`` the settings of our engine in course mode when the
    player is one (the depth, the speed and the evaluations are measured on it), else None:
    those are not available for the player."""

    spec: str
    label: str | None
    course: AgentSettings | None


def measuring(player: str | None, seconds: float, agent: AgentSettings) -> Measuring:
    """The player of ``--player`` (None: the default), checked now; ``seconds`` is the time of
    an ``ours`` given without one."""
    if player is None:
        return Measuring(default_player(seconds), None, agent)
    spec = parse_spec(player, seconds=seconds)
    if spec.kind == "human":
        raise UsageError("--player human: a report measures a program; `agent.py play` plays you")
    course = None
    if is_ours(spec) and spec.agent_settings(agent).mode == Mode.COURSE:
        course = spec.agent_settings(agent)
    return Measuring(player, spec.label, course)


def play_opponents(agent: AgentSettings, solver: SolverSettings, seconds: float, games: int,
                   seed: int, executor: BatchExecutor, advance: Advance,
                   opponents: Sequence[str] = OPPONENTS,
                   player: str | None = None) -> dict[str, Summary]:
    """``games`` games of ``player`` (a spec; default ours in course mode, ``seconds`` per
    move, also the time of an ``ours`` given without one) against each opponent (player specs,
    already checked)."""
    summaries = {}
    for opponent in opponents:
        specs = [parse_spec(player or default_player(seconds), seconds=seconds),
                 parse_spec(opponent, seconds=seconds)]
        plan = make_plan(specs, games, seed, agent, solver)
        start = time.monotonic()
        outcomes = run_tournament(plan, executor, lambda _d, _t, _g: advance(1))
        summaries[specs[1].label] = summarize(plan, outcomes, workers=executor.slots,
                                        elapsed=time.monotonic() - start)
    return summaries


def depth_and_speed(agent: AgentSettings, solver: SolverSettings, positions: Sequence[str],
                    budgets: Sequence[float], advance: Advance) -> list[BudgetPoint]:
    """Course mode from each position (a move string) at each budget, from a clear table."""
    from engine import Engine

    points = []
    for seconds in budgets:
        engine = Engine(course_agent(agent), solver=solver)
        engine.warm_up()
        depths, nodes, spent = [], 0, 0.0
        for moves in positions:
            engine.new_game()
            decision = engine.decide(Board.from_moves(moves), Limit.seconds(seconds,
                                                                            clock=engine.clock))
            depths.append(decision.depth)
            nodes += decision.nodes
            spent += decision.seconds
            advance(1)
        points.append(BudgetPoint(seconds, len(positions), statistics.fmean(depths), min(depths),
                                  nodes / spent if spent else 0.0))
    return points


def our_moves(outcomes: Sequence[TournamentGame], ours: int) -> list[tuple[str, int, int]]:
    """``(moves before, our column, ply)`` for every move of player ``ours`` in the games."""
    found = []
    for outcome in outcomes:
        sides = (outcome.task.first, outcome.task.second)
        found += [(before, move.column, move.ply) for before, move in outcome.record.each_move()
                  if sides[move.side] == ours]
    return found


def judge(moves: str, column: int, ply: int, seconds: float, table_bits: int,
          book: Book | None = None) -> Check:
    """Whether ``column`` keeps the outcome after ``moves``, by the referee
    (``engine.referee.judge_move``): each legal move's outcome from ``book`` (default: the
    shipped one) where it holds the position reached, else proven by the solver, within
    ``seconds`` for all of them."""
    board = Board.from_moves(moves)
    referee = worker_solver(table_bits)
    # The clock starts once the solver is loaded: the first position of a worker would
    # otherwise spend its time compiling.
    verdict = judge_move(board, column, ply, referee, book if book is not None else load_book(),
                         time.perf_counter() + seconds)
    return Check(ply, verdict.critical, verdict.kept, verdict.booked, verdict.best,
                 verdict.outcome)


def _judge_many(first: int, items: Sequence[tuple[str, int, int]], seconds: float,
                table_bits: int) -> tuple[int, list[Check]]:
    """``judge`` each item (in a worker); the checks come back with ``first``, the place of
    the first item among all."""
    return first, [judge(moves, column, ply, seconds, table_bits) for moves, column, ply in items]


def correctness(moves: Sequence[tuple[str, int, int]], seconds: float, table_bits: int,
                executor: BatchExecutor, advance: Advance, chunk: int = 8) -> list[Check]:
    """``judge`` every move, ``seconds`` at most for each, in the executor's workers."""
    found: dict[int, list[Check]] = {}

    def judged(_args: tuple[object, ...], result: tuple[int, list[Check]]) -> None:
        first, checks = result
        found[first] = checks
        advance(len(checks))

    executor.run(_judge_many, [(i, moves[i:i + chunk], seconds, table_bits)
                               for i in range(0, len(moves), chunk)], judged)
    return [check for first in sorted(found) for check in found[first]]


def compare_evaluations(agent: AgentSettings, solver: SolverSettings, baseline: str,
                        candidates: Sequence[str], seconds: float, max_pairs: int, seed: int,
                        executor: BatchExecutor, advance: Advance) -> list[SprtRun]:
    """Each evaluation of ``candidates`` against ``baseline``, both in course mode at
    ``seconds`` per move, by ``agent.py sprt``'s test (its default bounds and error rates, the
    shipped openings), to its verdict or ``max_pairs`` pairs; ``advance`` counts the pairs
    (the ones a test needed no more of too)."""
    openings = load_openings()
    base = parse_spec(f"ours:{seconds:g}:{baseline}:course")
    runs = []
    for name in candidates:
        plan = make_sprt_plan(base, parse_spec(f"ours:{seconds:g}:{name}:course"), Sprt(),
                              max_pairs, openings, seed, agent, solver)
        run = start_run(plan)
        play_on(run, executor, on_pair=lambda _run, _pair: advance(1))
        advance(max(0, max_pairs - len(run.pairs)))
        runs.append(run)
    return runs
