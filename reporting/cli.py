"""``agent.py report --out DIR [--games N] [--time S] [--quick] [--seed X] [--opponents A,B]``.

Runs the measurements a course report needs (``reporting.measure``) and writes ``DIR/report.md``
with its figures (``reporting.document``).  The time per move is ``agent.seconds_per_move`` of
the config unless ``--time`` says otherwise; ``--quick`` (0.3 s per move, fewer games and
positions) finishes within a few minutes on a two-core machine (2.6 min measured), the full
report within about fifteen (15.5 min measured).
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from commandline import (
    Command,
    Context,
    flag,
    option,
    positional,
    repeat_command,
    sandbox_option,
    scheduler_option,
    time_option,
    whole,
    workers_option,
    writable_folder,
)
from ecosystems.players import parse_spec, split_specs
from heuristics import HEURISTICS
from reporting.plan import (
    BUDGETS,
    FULL_SPRT_PAIRS,
    OPPONENTS,
    POSITIONS,
    QUICK_SECONDS,
    QUICK_SPRT_PAIRS,
    SPRT_SECONDS,
    Plan,
)
from settings import UsageError
from vocabulary import Sandbox

RATE_DESCRIPTION = """``agent.py rate PLAYER``: plays the player against rungs of the calibrated ladder
chosen near its strength and writes its rating with a 95 % interval, its results per rung, its
accuracy (judged by the referee), its worst moves (links into the board's review), its time per
move and its faults (``reporting.rate``).  ``rate --db FILE --student ID`` does the same from
a local server's games."""


QUICK_GAMES, FULL_GAMES = 6, 10


@dataclass(frozen=True)
class ReportOptions:
    """``agent.py report``'s options."""

    out: str = option("--out", required=True, metavar="DIR",
                      help="write report.md and its figures here")
    games: int | None = option("--games", type=whole(1), metavar="N",
                               help=f"games against each opponent (default {FULL_GAMES};"
                                    f" {QUICK_GAMES} with --quick)")
    time: float | None = time_option(f"agent.seconds_per_move; {QUICK_SECONDS:g} with --quick")
    quick: bool = flag("--quick", help=f"a smaller report at {QUICK_SECONDS:g} s per move, in a"
                                       " few minutes")
    seed: int | None = option("--seed", type=int, metavar="X",
                              help="seed of every random choice (default: a random one, printed)")
    opponents: str | None = option("--opponents", metavar="A,B[,C...]",
                                   help=f"the opponents' player specs (default"
                                        f" {','.join(OPPONENTS)})")
    player: str | None = option("--player", metavar="SPEC",
                                help="measure this player instead of ours in course mode (any"
                                     " player spec; what only our engine reports is said to be"
                                     " not available)")


def plan_for(options: ReportOptions, configured_seconds: float) -> Plan:
    """What the report measures with these options (``--quick``, ``--time``, ``--games``)."""
    # Both plans measure depth at the budgets the assignment asks about, 0.1 s ... 3 s; quick
    # on fewer positions (8 at 3 s: 24 s at most, a fraction of its five minutes).
    if options.quick:
        seconds = options.time or QUICK_SECONDS
        return Plan(seconds, options.games or QUICK_GAMES, BUDGETS, POSITIONS[:8], 0.6,
                    min(seconds, SPRT_SECONDS), QUICK_SPRT_PAIRS)
    seconds = options.time or configured_seconds
    return Plan(seconds, options.games or FULL_GAMES, BUDGETS, POSITIONS, 2.0,
                min(seconds, SPRT_SECONDS), FULL_SPRT_PAIRS)


def _command(options: ReportOptions, seed: int, config: str | None) -> str:
    return repeat_command("report", out=options.out, seed=seed, quick=options.quick,
                          games=options.games or None, time=options.time or None,
                          opponents=options.opponents or None, player=options.player or None,
                          config=config or None)


def opponents_of(text: str | None) -> tuple[str, ...]:
    """The opponents of ``--opponents`` (player specs, by comma; default ``OPPONENTS``), each
    checked now, before any game is played; ``ours`` and ``human`` refused."""
    if text is None:
        return OPPONENTS
    opponents = tuple(split_specs(text))  # a program's quoted command may hold commas
    if not opponents:
        raise UsageError("--opponents: name at least one player spec")
    for opponent in opponents:
        if parse_spec(opponent).kind in ("ours", "human"):
            raise UsageError(f"--opponents {opponent}: the report measures our agent against"
                             " other players; compare ours with ours in `agent.py tournament`")
    return opponents


def report_command(options: ReportOptions, context: Context) -> int:
    settings = context.settings
    from batch import default_workers, open_executor
    from ecosystems.players import announce_sandbox
    from reporting.document import Measured, write
    from reporting.measure import (
        compare_evaluations,
        correctness,
        depth_and_speed,
        measuring,
        our_moves,
        play_opponents,
    )
    from terminal import progress

    plan = plan_for(options, settings.agent.seconds_per_move)
    opponents = opponents_of(options.opponents)
    seed = options.seed if options.seed is not None else random.SystemRandom().randrange(2**31)
    workers = default_workers()
    agent, solver = settings.agent, settings.solver
    measured_player = measuring(options.player, plan.seconds, agent)
    announce_sandbox([*opponents, *([options.player] if options.player else [])],
                     settings.outside.sandbox)
    out = writable_folder(options.out)  # made once everything asked was checked
    print(f"report: {measured_player.label or 'course mode'}, {plan.seconds:g} s per move,"
          f" {plan.games} games per opponent,"
          f" seed {seed}, {workers} worker(s), into {out}", file=sys.stderr)
    start = time.monotonic()
    with open_executor(workers) as executor:
        with progress(plan.games * len(opponents), f"games against {', '.join(opponents)}"
                      ) as advance:
            played = play_opponents(agent, solver, plan.seconds, plan.games, seed, executor,
                                    advance, opponents, measured_player.spec)
        budgets = None  # not available for a player that is not our engine in course mode
        if measured_player.course is not None:
            with progress(len(plan.budgets) * len(plan.positions), "depth and speed") as advance:
                budgets = depth_and_speed(measured_player.course, solver, plan.positions,
                                          plan.budgets, advance)
        moves = [m for summary in played.values() for m in our_moves(summary.outcomes, 0)]
        with progress(len(moves), "moves checked by the solver") as advance:
            checks = correctness(moves, plan.correctness_seconds, solver.table_bits, executor,
                                 advance)
        evaluations = None
        others = [name for name in HEURISTICS if name != agent.heuristic]
        if others and measured_player.course is not None:
            with progress(plan.sprt_pairs * len(others), "evaluations compared (pairs)"
                          ) as advance:
                evaluations = compare_evaluations(agent, solver, agent.heuristic, others,
                                                  plan.sprt_seconds, plan.sprt_pairs, seed,
                                                  executor, advance)
    measured = Measured(_command(options, seed, context.config), plan.seconds, plan.games, seed, workers,
                        agent.min_depth, agent.heuristic, played, budgets, checks,
                        plan.correctness_seconds, evaluations, time.monotonic() - start,
                        measured_player.label)
    written = write(measured, out)
    print(f"wrote {', '.join(str(p) for p in written)} in {measured.elapsed / 60:.1f} min",
          file=sys.stderr)
    return 0


# --- rate -----------------------------------------------------------------------------------------

DEFAULT_RATE_GAMES, DEFAULT_WIDTH = 400, 100.0  # as reporting.rate's (not imported: parsing only)


@dataclass(frozen=True)
class RateOptions:
    """``agent.py rate``'s options (docs/rate.md)."""

    player: str | None = positional(
        nargs="?", metavar="PLAYER",
        help="the player to rate (any player spec); or --db and --student instead")
    out: str | None = option("--out", metavar="DIR",
                             help="write rate.md, rate.json, the figures and the games here; a"
                                  " rerun goes on (default: rated/ and the player's name)")
    games: int = option("--games", type=whole(1), default=DEFAULT_RATE_GAMES, metavar="N",
                        help=f"games at most (default {DEFAULT_RATE_GAMES})")
    width: float = option("--width", type=float, default=DEFAULT_WIDTH, metavar="POINTS",
                          help="stop sooner once the 95 %% interval is at most this wide"
                               f" (default {DEFAULT_WIDTH:g}; 0: play all the games)")
    time: float | None = time_option(what="the rated player's time per move")
    workers: int | None = workers_option()
    scheduler: str | None = scheduler_option()
    seed: int | None = option("--seed", type=int, metavar="X",
                              help="seed of every random choice (default: a random one, printed)")
    ladder: str | None = option("--ladder", metavar="PATH",
                                help="the ladder file (default: the shipped one)")
    db: str | None = option("--db", metavar="PATH",
                            help="rate a student from a local server's games (with --student)")
    student: str | None = option("--student", metavar="ID",
                                 help="the student (STIL id) whose games in --db are rated")
    sandbox: Sandbox | None = sandbox_option()


def rate_command(options: RateOptions, context: Context) -> int:
    """``agent.py rate``: PLAYER, or ``--db`` with ``--student``; each combination checked."""
    from reporting.rate import RateRequest, default_out, rate

    ladder = Path(options.ladder) if options.ladder is not None else None
    out, player, student = options.out, options.player, options.student
    if options.width < 0 or options.width != options.width:
        raise UsageError(f"--width must be 0 or more points, not {options.width:g}")
    if options.db is not None:
        if player is not None:
            raise UsageError("give a PLAYER to rate, or --db and --student, not both")
        if student is None or not student.strip():
            raise UsageError("--db needs --student ID: whose games on the local server to rate")
        from reporting.rate_db import rate_db

        return rate_db(Path(options.db), student.strip(), Path(out or "rated/student"),
                       ladder=ladder, workers=options.workers, scheduler=options.scheduler,
                       settings=context.settings, config=context.config)
    if student is not None:
        raise UsageError("--student goes with --db (a local server's database)")
    if player is None or not player.strip():
        raise UsageError("name the PLAYER to rate (a player spec such as bot:2 or"
                         " connectx:main.py), or give --db FILE --student ID")
    where = Path(out) if out is not None else default_out(player.strip())
    return rate(RateRequest(player.strip(), where, options.games, options.time, options.width,
                            options.workers, options.scheduler, options.seed, ladder,
                            context.config, options.sandbox or context.settings.outside.sandbox),
                context.settings)


COMMANDS = [
    Command("report", "the measurements and figures for the course report", ReportOptions,
            report_command, compiles=True, description=__doc__),
    Command("rate", "a player's rating on the calibrated ladder, its accuracy, time and faults",
            RateOptions, rate_command, compiles=True, description=RATE_DESCRIPTION),
]
