"""``report.md`` and its figures, from the measurements of ``reporting.measure``.

Every figure has a caption saying what was measured, and the report says the exact command
that repeats it and the machine it ran on.
"""

from __future__ import annotations

import math
import os
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from arena.figures import (
    Series,
    integer_ticks,
    legend_below,
    plot_depth_per_move,
    plot_llr,
    plot_tallies,
    plot_time_per_move,
)
from arena.report import game_lengths, ours_series
from arena.results import OVERRUN_TOLERANCE, Summary
from arena.sprt import BASE, CANDIDATE, SprtRun
from commandline import repeat_command
from engine.games import PlayedMove, Tally
from engine.specs import PlayerSpec
from rating.sprt import Estimate, Model, Verdict, verdict_short
from reporting.measure import BudgetPoint, Check, default_player

if TYPE_CHECKING:
    from matplotlib.axes import Axes

LIBRARIES = ("numpy", "numba", "matplotlib", "pydantic", "requests", "rich")
# The depth-and-speed figure's series, each its own colour (the nodes/s too: it is another panel,
# but one figure).
MEAN_DEPTH_COLOUR, LEAST_DEPTH_COLOUR, SPEED_COLOUR = "#1565c0", "#00897b", "#ef6c00"
# Our moves where no move changes the outcome: pale, behind the three kinds that matter.
SAME_OUTCOME_COLOUR = "#cfd8dc"


@dataclass(frozen=True)
class Measured:
    """Everything a report shows."""

    command: str
    seconds: float
    games: int
    seed: int
    workers: int
    min_depth: int
    heuristic: str
    opponents: dict[str, Summary]
    budgets: list[BudgetPoint] | None  # None: not available for the player (not our search)
    checks: list[Check]
    correctness_seconds: float
    evaluations: list[SprtRun] | None  # each other evaluation against the configured one
    elapsed: float
    # The player measured, when ``--player`` named one (its label); None: ours in course mode.
    player: str | None = None


def machine() -> str:
    """The CPU, the cores this process may use, Python and the libraries' versions."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    versions = []
    for name in LIBRARIES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return (f"{cpu}, {cores} core(s) available; {platform.system()} {platform.release()}; "
            f"Python {sys.version.split()[0]}; {', '.join(versions)}")


# The opponents a report may name, in words (any other is named by its spec).
OPPONENT_WORDS = {
    "bot:3": "the course server's bot (`bot:3`: alpha-beta cut at depth 3, random among equal moves)",
    "seed": "the seed assignment's player (`seed`: alpha-beta at depth 5)",
    "random": "a uniformly random player",
    "kaggle:negamax": "Kaggle ConnectX's built-in negamax (`kaggle:negamax`: depth 4)",
    "kaggle:random": "Kaggle ConnectX's random agent (`kaggle:random`)",
}


def describe_opponent(spec: str) -> str:
    """An opponent of the report in words, for the results' caption."""
    if spec in OPPONENT_WORDS:
        return OPPONENT_WORDS[spec]
    if spec.startswith("openspiel:mcts:"):
        return (f"OpenSpiel's MCTS (`{spec}`: {int(spec.rsplit(':', 1)[1]):,} simulations a move,"
                " random rollouts)")
    return f"`{spec}`"


NOT_AVAILABLE = "Not available for this player"


def player_moves(measured: Measured) -> list[PlayedMove]:
    """The measured player's moves (the first of each tournament's players) in every game."""
    moves = []
    for summary in measured.opponents.values():
        for outcome in summary.outcomes:
            sides = (outcome.task.first, outcome.task.second)
            moves += [m for m in outcome.record.moves if sides[m.side] == 0]
    return moves


def over_budget(moves: Sequence[PlayedMove], budget: float) -> int:
    """The moves slower than ``budget`` by more than the arena's tolerance
    (``arena.results.OVERRUN_TOLERANCE``, the project's timing target)."""
    return sum(1 for m in moves if (m.seconds or 0.0) > budget + OVERRUN_TOLERANCE)


def plot_times(moves: Sequence[PlayedMove], budget: float | None, path: Path, who: str) -> bool:
    """Seconds per move of ``who`` (any player) by move number, log scale, the budget drawn;
    False (no file) without moves."""
    from arena.figures import pyplot

    if not moves:
        return False
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.6), layout="constrained")
    seconds = [max(m.seconds or 0.0, 1e-5) for m in moves]
    ax.scatter([m.ply for m in moves], seconds, s=10, alpha=0.35, color=MEAN_DEPTH_COLOUR,
               linewidths=0, label=f"a move of {who} ({len(moves)})")
    by_ply: dict[int, list[float]] = {}
    for move, value in zip(moves, seconds, strict=True):
        by_ply.setdefault(move.ply, []).append(value)
    plies = sorted(by_ply)
    ax.plot(plies, [sum(by_ply[p]) / len(by_ply[p]) for p in plies], color=MEAN_DEPTH_COLOUR,
            label="mean at each move number")
    title = f"Time per move of {who}: {len(moves)} moves, slowest {max(seconds):.3f} s"
    if budget is not None:
        over = over_budget(moves, budget)
        ax.axhline(budget, color="black", linestyle="--", linewidth=1,
                   label=f"budget: {budget:g} s per move")
        title += f", {over} over the budget (+{OVERRUN_TOLERANCE:g} s)"
    ax.set_yscale("log")
    ax.set_xlim(0, 43)
    ax.set_xlabel("move number (disc 1-42)")
    ax.set_ylabel("seconds for the move (log scale)")
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3, which="both")
    legend_below(fig, ax)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def _series(measured: Measured) -> list[Series]:
    """Our moves against every opponent, as one series."""
    moves = []
    games = 0
    budget = None
    for summary in measured.opponents.values():
        for one in ours_series(summary):
            moves += list(one.moves)
            games += one.games
            budget = one.budget
    return [Series(f"ours, course mode ({measured.heuristic})", budget, moves, games)]


def _budget_axis(ax: Axes, budgets: Sequence[float]) -> None:
    """The x axis of a measurement against the time budget: log scale, a tick per budget."""
    ax.set_xscale("log")
    ax.set_xticks(budgets, [f"{b:g}" for b in budgets])
    ax.minorticks_off()
    ax.set_xlabel("time budget per move (s, log scale)")
    ax.set_ylim(bottom=0)


def _plot_budgets(points: Sequence[BudgetPoint], path: Path) -> None:
    from arena.figures import pyplot

    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    x = [p.seconds for p in points]
    left.plot(x, [p.mean_depth for p in points], marker="o", color=MEAN_DEPTH_COLOUR,
              label="mean depth reached")
    left.plot(x, [p.min_depth for p in points], marker="v", linestyle=":",
              color=LEAST_DEPTH_COLOUR, label="least depth reached")
    _budget_axis(left, x)
    left.set_ylabel("depth reached (plies)")
    integer_ticks(left.yaxis)
    left.grid(alpha=0.3, which="both")
    left.legend(fontsize="small", loc="lower right")  # the lines rise to the upper right
    left.set_title(f"Depth against the time budget ({_positions(points)})", fontsize="medium")
    right.plot(x, [p.nodes_per_second / 1e6 for p in points], marker="o", color=SPEED_COLOUR)
    _budget_axis(right, x)
    right.set_ylabel("million nodes per second")
    right.grid(alpha=0.3, which="both")
    right.set_title(f"Search speed ({_positions(points)})", fontsize="medium")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _positions(points: Sequence[BudgetPoint]) -> str:
    counts = sorted({p.positions for p in points})
    if len(counts) == 1:
        return f"{counts[0]} positions"
    return ", ".join(f"{p.positions} positions at {p.seconds:g} s" for p in points)


def _kind(check: Check) -> str:
    """Which of the four kinds of ``Accounting`` a judged move is."""
    if check.critical is None:
        return "unproven"
    if not check.critical:
        return "same"
    return "kept" if check.kept else "lost"


@dataclass(frozen=True)
class Accounting:
    """Our judged moves, each in exactly one of four kinds: ``kept`` + ``lost`` are the moves in
    positions where some move changes the outcome, ``unproven`` those the referee could not
    settle, ``same`` those where every move leads to the same outcome."""

    kept: int
    lost: int
    unproven: int
    same: int

    @classmethod
    def of(cls, checks: Sequence[Check]) -> Accounting:
        kinds = [_kind(c) for c in checks]
        return cls(*(kinds.count(kind) for kind in ("kept", "lost", "unproven", "same")))

    @property
    def critical(self) -> int:
        return self.kept + self.lost

    @property
    def total(self) -> int:
        return self.kept + self.lost + self.unproven + self.same


def correctness_text(checks: Sequence[Check], seconds: float, whose: str = "Our") -> str:
    """The accounting of the judged moves (``whose``: "Our", "The player's"), in words:
    every move in exactly one kind."""
    n = Accounting.of(checks)
    share = f"{n.kept / n.critical:.1%}" if n.critical else "n/a"
    return (f"{whose} {n.total} moves in the games above: {n.critical} in positions where some"
            f" legal move changes the exact outcome (win, draw or loss), **{n.kept} of them"
            f" ({share}) kept it** and {n.lost} did not; {n.unproven} in positions the referee"
            f" could not settle within its budget of {seconds:g} s per position (unproven:"
            f" counted, not dropped, and not known to be either kind); {n.same} in positions"
            f" where every legal move leads to the same outcome ({n.critical} + {n.unproven}"
            f" + {n.same} = {n.total}).")


def plot_correctness(checks: Sequence[Check], seconds: float, path: Path,
                     whose: str = "Our") -> None:
    """The judged moves (``whose``) by move number, each of the four kinds a colour."""
    from arena.figures import DRAW_COLOUR, LOSS_COLOUR, WIN_COLOUR, pyplot

    plt = pyplot()
    plies = sorted({c.ply for c in checks})
    kinds = [  # bottom to top: the moves that matter, then the unsettled, then the rest
        ("kept", "kept the outcome (a move could change it)", WIN_COLOUR),
        ("lost", "changed the outcome", LOSS_COLOUR),
        ("unproven", f"unproven: not settled within {seconds:g} s", DRAW_COLOUR),
        ("same", "every move leads to the same outcome", SAME_OUTCOME_COLOUR),
    ]
    fig, ax = plt.subplots(figsize=(9, 4.6), layout="constrained")
    bottom = [0] * len(plies)
    for kind, label, colour in kinds:
        heights = [sum(1 for c in checks if c.ply == p and _kind(c) == kind) for p in plies]
        ax.bar(plies, heights, bottom=bottom, color=colour, label=label)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    n = Accounting.of(checks)
    ax.set_title(f"{whose} {n.total} moves judged: {n.kept} of the {n.critical} in positions where a"
                 f" move changes the outcome kept it;\n{n.unproven} unproven, {n.same} where"
                 " every move leads to the same outcome", fontsize="medium")
    ax.set_xlabel("move number (disc 1-42)")
    ax.set_ylabel(f"{whose.lower()} moves (count)")
    ax.set_xlim(0, 43)
    integer_ticks(ax.yaxis)
    ax.grid(alpha=0.3, axis="y")
    legend_below(fig, ax)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _tally_line(tally: Tally) -> str:
    return f"{tally.wins}-{tally.draws}-{tally.losses}"


def write(measured: Measured, out: Path) -> list[Path]:
    """Write the figures and ``report.md`` into ``out``; return what was written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    player = measured.player
    lines = ["# Our Connect Four agent: measurements for the report" if player is None
             else f"# `{player}`: measurements for the report", "",
             f"Made by `{measured.command}` in {measured.elapsed / 60:.1f} minutes on: "
             f"{machine()}.", ""]
    if player is None:
        lines += [f"The agent plays in **course mode**: iterative-deepening alpha-beta (negamax)"
                  f" with the `{measured.heuristic}` evaluation, {measured.seconds:g} s per move,"
                  f" at least {measured.min_depth} plies deep (a forced move, the only one that"
                  " does not lose at once, is not counted as a ply).", ""]
    else:
        lines += [f"The player measured is `{player}` (`--player`), {measured.seconds:g} s per"
                  " move where it takes a time.  What only our engine reports (the depth"
                  " reached, the nodes searched, its evaluations) is not available for another"
                  " player and is said so below.", ""]
    lines += ["Columns are numbered 1-7 as in move strings; X is the player who moved first."
              "  A proven result is said in moves of the side to move ('win in 3 moves': its"
              " 3rd move from now wins).  Each figure below is"
              " repeated by the command above; where a shorter command makes the same"
              " measurement, it is given too.", ""]
    who = "ours" if player is None else player

    lines += ["## Results", ""]
    rows = []
    lengths: list[list[tuple[int, float]]] = []
    table = [f"| opponent | games | {'ours' if player is None else 'the player'} starts"
             " (W-D-L) | opponent starts (W-D-L) | score |",
             "|---|---:|---:|---:|---:|"]
    for opponent, summary in measured.opponents.items():
        ours = summary.overall[0]
        rows.append((f"against {opponent}, {'we start' if player is None else 'it starts'}",
                     ours.as_first))
        rows.append((f"against {opponent}, {opponent} starts", ours.as_second))
        lengths += game_lengths(summary, 0)  # one pairing: ours (or the player) first-named
        table.append(f"| `{opponent}` | {ours.total.games} | {_tally_line(ours.as_first)} |"
                     f" {_tally_line(ours.as_second)} | {ours.total.score_rate:.0%} |")
    plot_tallies(rows, out / "results.png",
                 f"Results of {who} ({'course mode, ' if player is None else ''}"
                 f"{measured.seconds:g} s per move):"
                 f" {sum(t.games for _, t in rows)} games", lengths)
    written.append(out / "results.png")
    names = [describe_opponent(opponent) for opponent in measured.opponents]
    against = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    lines += [*table, "", "![results](results.png)", "",
                      f"*Wins, draws and losses of {'our agent' if player is None else f'`{player}`'}"
                      f" against {against},"
                      f" {measured.games} games each, each side starting half; on the"
                      f" right every game by the discs played when it ended."
                      f" Repeat one row with: `python agent.py tournament --players"
                      f" {player or default_player(measured.seconds)},"
                      f"{next(iter(measured.opponents))}"
                      f" --games {measured.games} --seed {measured.seed}`.*", ""]

    series = _series(measured)
    lines += ["## Time per move", ""]
    if player is not None:
        moves = player_moves(measured)
        if plot_times(moves, measured.seconds, out / "time_per_move.png", player):
            written.append(out / "time_per_move.png")
            lines += ["![time per move](time_per_move.png)", "",
                      f"*The wall-clock seconds each of the player's {len(moves)} moves in those"
                      " games took, measured around its call by the game loop, by move number"
                      f" (log scale); the dashed line is {measured.seconds:g} s, the time per"
                      " move it was given (a player that takes no time ignores it).*", ""]
    elif plot_time_per_move(series, out / "time_per_move.png"):
        written.append(out / "time_per_move.png")
        slowest = max(m.seconds or 0.0 for m in series[0].moves)
        lines += ["![time per move](time_per_move.png)", "",
                  f"*The wall-clock seconds each of our {len(series[0].moves)} moves in those"
                  " games took,"
                  f" measured around the engine's call, by move number (log scale); the line is"
                  f" the mean at each move number, the dashed line the budget. The slowest move"
                  f" took {slowest:.3f} s of its {measured.seconds:g} s; the server allows 5 s."
                  f" Moves far below the budget are positions where the search proved the"
                  f" result and stopped early.*", ""]

    lines += ["## Depth per move", ""]
    if player is not None and not any(m.depth is not None for m in player_moves(measured)):
        lines += [NOT_AVAILABLE + ": the depth is what our engine's search reports of its"
                  " moves.", ""]
    elif plot_depth_per_move(series, out / "depth_per_move.png", floor=measured.min_depth):
        written.append(out / "depth_per_move.png")
        lines += ["![depth per move](depth_per_move.png)", "",
                  f"*The depth (plies) of the deepest iteration the search completed for each"
                  f" of our moves in those games, by move number; the dashed line is the"
                  f" minimum depth, {measured.min_depth}, which is always completed (fewer plies"
                  f" only when fewer moves are left in the game).  A move marked x had a"
                  f" proven result (a forced win or loss, or every line seen to the end): the"
                  f" deepening stops once the result is proven, since no deeper search can"
                  f" change it, so won endgames show depths at the minimum, not a slower"
                  f" search.*", ""]

    lines += ["## Depth and speed against the time budget", ""]
    if measured.budgets is None:
        lines += [NOT_AVAILABLE + ": depth and nodes per second are measured on our engine's"
                  " search in course mode.", ""]
    else:
        written += _budgets_part(measured.budgets, out, lines)
    return _write_rest(measured, out, lines, written)


def _budgets_part(budgets: Sequence[BudgetPoint], out: Path, lines: list[str]) -> list[Path]:
    """The depth-and-speed figure, its table and caption (appended to ``lines``)."""
    written = []
    _plot_budgets(budgets, out / "depth_vs_budget.png")
    written.append(out / "depth_vs_budget.png")
    lines += ["| budget (s) | mean depth | least depth | million nodes/s |",
              "|---:|---:|---:|---:|"]
    lines += [f"| {p.seconds:g} | {p.mean_depth:.1f} | {p.min_depth} |"
              f" {p.nodes_per_second / 1e6:.2f} |" for p in budgets]
    lines += ["", "![depth against the time budget](depth_vs_budget.png)", "",
              f"*Course mode on {budgets[0].positions} positions (the empty board and"
              " positions of Pascal Pons' Begin and Middle test sets), the transposition table"
              " cleared before each: the depth of the deepest completed iteration, and the"
              " nodes searched per second, at each time budget. The budget is the search's"
              " alone: the engine is loaded and compiled before the clock starts. Repeated by"
              " the report command above; `python bench/search_bench.py --budgets 0.1,0.3,1,3`"
              " measures depth and speed against the budget in the same way (in one process, a"
              " cleared table per position) on more of Pons' positions. (`python agent.py move"
              " ... --time S` thinks as long in a fresh process: its time counts from when the"
              " search starts, and the start-up before it is reported apart.)*", ""]
    return written


def _write_rest(measured: Measured, out: Path, lines: list[str], written: list[Path]
                ) -> list[Path]:
    """The report from its correctness section on; ``report.md`` written."""
    checks = measured.checks
    whose = "Our" if measured.player is None else "The player's"
    lines += ["## Correctness: does our move keep the game-theoretic outcome?"
              if measured.player is None else
              "## Correctness: do the player's moves keep the game-theoretic outcome?", ""]
    plot_correctness(checks, measured.correctness_seconds, out / "correctness.png", whose)
    written.append(out / "correctness.png")
    booked = sum(c.booked for c in checks)
    lines += [correctness_text(checks, measured.correctness_seconds, whose), "",
              "![correctness](correctness.png)", "",
              f"*Each of {whose.lower()} moves judged by a referee, which finds the outcome after every"
              " legal move: from the opening book where the book holds the position reached"
              " (each of its entries is a value proven by our own solver, exact or the outcome"
              f" only; here {booked} outcomes, in {sum(1 for c in checks if c.booked)} of the"
              f" {len(checks)} positions), otherwise proven by our exact solver (win, draw or"
              f" loss), with at most {measured.correctness_seconds:g} s of the solver's time"
              " per position. A move kept the outcome if no other move was better. A second"
              " opinion on any position: `python agent.py analyze MOVES`.*", ""]

    if measured.evaluations is None and measured.player is not None:
        lines += ["## Evaluations compared", "",
                  NOT_AVAILABLE + ": it compares our engine's evaluations with each other.", ""]
    if measured.evaluations:
        written += _evaluations_part(measured, measured.evaluations, out, lines)
    (out / "report.md").write_text("\n".join(lines))
    written.append(out / "report.md")
    return written


def _evaluations_part(measured: Measured, runs: Sequence[SprtRun], out: Path,
                      lines: list[str]) -> list[Path]:
    """The sequential tests of the evaluations: a table, the LLR figure, the verdicts in words
    (appended to ``lines``)."""
    first = runs[0].plan
    sprt = first.sprt
    base_spec = first.tournament.specs[BASE]
    assert isinstance(base_spec, PlayerSpec)  # ours, in course mode (reporting.measure)
    base, seconds = base_spec.heuristic or measured.heuristic, base_spec.seconds
    names = [_evaluation(run.plan.tournament.specs[CANDIDATE]) for run in runs]
    plot_llr([(f"{name} against {base}", run.tracker.curve, run.tracker.verdict)
              for name, run in zip(names, runs, strict=True)], sprt.bounds,
             out / "evaluations.png",
             f"Each evaluation against {base}: SPRT, {sprt.describe()}")
    lines += ["## Evaluations compared", "",
              f"| evaluation, against `{base}` | verdict | pairs | Elo (95 %) | nElo (95 %) |"
              " pairs scoring 0, 1/2, 1, 3/2, 2 |",
              "|---|---|---:|---:|---:|---:|"]
    for name, run in zip(names, runs, strict=True):
        tracker = run.tracker
        elo, nelo = (tracker.estimate(model) for model in (Model.LOGISTIC, Model.NORMALIZED))
        verdict = verdict_short(tracker.verdict)
        if tracker.verdict is Verdict.H1:
            verdict = f"**{verdict}**"
        lines.append(f"| `{name}` | {verdict} | {tracker.pairs} |"
                     f" {_interval(elo)} | {_interval(nelo)} |"
                     f" {' '.join(str(count) for count in tracker.counts)} |")
    lower, upper = sprt.bounds
    repeat = repeat_command("sprt", runs[-1].plan.tournament.specs[BASE].label,
                            runs[-1].plan.tournament.specs[CANDIDATE].label,
                            max_pairs=runs[-1].plan.max_pairs, seed=measured.seed)
    lines += ["", "![the sequential tests](evaluations.png)", "",
              f"*Each evaluation against the configured one, `{base}`, both in course mode at"
              f" {seconds:g} s per move, by a sequential probability ratio test as chess engines"
              " are tested (fishtest): pairs of games from the same opening, each evaluation"
              " once with each colour, the openings positions of 6 discs whose exact value is a"
              " draw; after each pair the log-likelihood ratio of H1 (the evaluation is"
              f" {sprt.elo1:g} nElo stronger) against H0 ({sprt.elo0:g} nElo) is computed from the"
              " pairs' points, and the test stops when it reaches"
              f" {upper:+.2f} (H1 accepted: stronger) or {lower:+.2f} (H0 accepted: not"
              f" stronger), chances of a wrong verdict {sprt.alpha:g} and {sprt.beta:g}, or"
              f" after {first.max_pairs} pairs (no verdict). The lines are each test's"
              " log-likelihood ratio after each pair. Elo and normalized Elo (nElo: the"
              " difference in standard deviations of a game's score) with 95 % intervals."
              f" Repeat a test (here the last; another with its evaluation's name in place of"
              f" `{names[-1]}`): `{repeat}` (docs/sprt.md).*", "", "The verdicts, in words:", ""]
    lines += [f"- {run.words}" for run in runs]
    lines.append("")
    return [out / "evaluations.png"]


def _evaluation(spec: object) -> str:
    assert isinstance(spec, PlayerSpec) and spec.heuristic is not None
    return spec.heuristic


def _interval(found: Estimate | None) -> str:
    if found is None:
        return "-"
    low, high = (f"{value:+.0f}" if math.isfinite(value) else ("-inf" if value < 0 else "+inf")
                 for value in (found.low, found.high))
    return f"{found.elo:+.0f} [{low}, {high}]"
