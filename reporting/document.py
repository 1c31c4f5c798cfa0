"""``report.md`` and its figures, from the measurements of ``reporting.measure``.

Every figure has a caption saying what was measured, and the report says the exact command
that repeats it and the machine it ran on.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from arena.figures import Series, plot_depth_per_move, plot_matrix, plot_tallies, plot_time_per_move
from arena.report import ours_series
from arena.results import Summary
from engine.games import Tally
from reporting.measure import BudgetPoint, Check

LIBRARIES = ("numpy", "numba", "matplotlib", "pydantic", "requests", "rich")


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
    budgets: list[BudgetPoint]
    checks: list[Check]
    correctness_seconds: float
    heuristics: Summary | None
    elapsed: float


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


def _plot_budgets(points: Sequence[BudgetPoint], path: Path) -> None:
    from arena.figures import pyplot

    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
    x = [p.seconds for p in points]
    ticks = [f"{s:g}" for s in x]
    left.plot(x, [p.mean_depth for p in points], marker="o", label="mean depth reached")
    left.plot(x, [p.min_depth for p in points], marker="v", linestyle=":",
              label="least depth reached")
    left.set_xscale("log")
    left.set_xticks(x, ticks)
    left.minorticks_off()
    left.set_xlabel("time budget per move (s, log scale)")
    left.set_ylabel("depth reached (plies)")
    left.set_ylim(bottom=0)
    left.grid(alpha=0.3, which="both")
    left.legend(fontsize="small")
    left.set_title(f"Depth against time ({points[0].positions} positions)", fontsize="medium")
    right.plot(x, [p.nodes_per_second / 1e6 for p in points], marker="o", color="#ef6c00")
    right.set_xscale("log")
    right.set_xticks(x, ticks)
    right.minorticks_off()
    right.set_xlabel("time budget per move (s, log scale)")
    right.set_ylabel("million nodes per second")
    right.set_ylim(bottom=0)
    right.grid(alpha=0.3, which="both")
    right.set_title("Search speed", fontsize="medium")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_correctness(checks: Sequence[Check], path: Path) -> None:
    from arena.figures import DRAW_COLOUR, LOSS_COLOUR, WIN_COLOUR, pyplot

    plt = pyplot()
    plies = sorted({c.ply for c in checks})
    kept = [sum(1 for c in checks if c.ply == p and c.critical and c.kept) for p in plies]
    lost = [sum(1 for c in checks if c.ply == p and c.critical and not c.kept) for p in plies]
    unproven = [sum(1 for c in checks if c.ply == p and c.critical is None) for p in plies]
    fig, ax = plt.subplots(figsize=(9, 4.2))
    ax.bar(plies, kept, color=WIN_COLOUR, label="kept the outcome")
    ax.bar(plies, lost, bottom=kept, color=LOSS_COLOUR, label="changed the outcome")
    ax.bar(plies, unproven, bottom=[k + lo for k, lo in zip(kept, lost, strict=True)],
           color=DRAW_COLOUR, label="unproven in the time given")
    critical = sum(kept) + sum(lost)
    ax.set_title(f"Our moves in positions where a move can change the outcome: {sum(kept)} of"
                 f" {critical} kept it; {sum(unproven)} unproven", fontsize="medium")
    ax.set_xlabel("move number (disc 1-42)")
    ax.set_ylabel("moves")
    ax.set_xlim(0, 43)
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _score_matrix(summary: Summary) -> tuple[list[str], list[list[float | None]]]:
    """The players' scores against each other; the players named by their evaluation."""
    labels = list(summary.plan.labels)
    scores: list[list[float | None]] = [[None] * len(labels) for _ in labels]
    index = {label: i for i, label in enumerate(labels)}
    for pairing in summary.pairings:
        a, b = index[pairing.a.player], index[pairing.b.player]
        scores[a][b] = pairing.a.total.score_rate
        scores[b][a] = pairing.b.total.score_rate
    return labels, scores


def _tally_line(tally: Tally) -> str:
    return f"{tally.wins}-{tally.draws}-{tally.losses}"


def write(measured: Measured, out: Path) -> list[Path]:
    """Write the figures and ``report.md`` into ``out``; return what was written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    lines = ["# Our Connect Four agent: measurements for the report", "",
             f"Made by `{measured.command}` in {measured.elapsed / 60:.1f} minutes on: "
             f"{machine()}.", "",
             f"The agent plays in **course mode**: iterative-deepening alpha-beta (negamax) with"
             f" the `{measured.heuristic}` evaluation, {measured.seconds:g} s per move, at"
             f" least {measured.min_depth} plies deep (a forced move, the only one that does"
             " not lose at once, is not counted as a ply).  Columns are numbered 0-6 as the"
             " course server counts them.  Each figure below is repeated by the command above; where"
             " a shorter command makes the same measurement, it is given too.", ""]

    lines += ["## Results", ""]
    rows = []
    table = ["| opponent | games | ours starts (W-D-L) | opponent starts (W-D-L) | score |",
             "|---|---:|---:|---:|---:|"]
    for opponent, summary in measured.opponents.items():
        ours = summary.overall[0]
        rows.append((f"against {opponent}, we start", ours.as_first))
        rows.append((f"against {opponent}, {opponent} starts", ours.as_second))
        table.append(f"| `{opponent}` | {ours.total.games} | {_tally_line(ours.as_first)} |"
                     f" {_tally_line(ours.as_second)} | {ours.total.score_rate:.0%} |")
    plot_tallies(rows, out / "results.png",
                 f"Results of ours (course mode, {measured.seconds:g} s per move):"
                 f" {sum(t.games for _, t in rows)} games")
    written.append(out / "results.png")
    lines += [*table, "", "![results](results.png)", "",
                      f"*Wins, draws and losses of our agent against the course server's bot"
                      f" (`bot:3`: alpha-beta cut at depth 3, random among equal moves), the"
                      f" seed assignment's player (`seed`: alpha-beta at depth 5) and a uniformly"
                      f" random player, {measured.games} games each, each side starting half."
                      f" Repeat one row with: `python agent.py tournament --players"
                      f" ours:{measured.seconds:g}:course,bot:3 --games {measured.games}"
                      f" --seed {measured.seed}`.*", ""]

    series = _series(measured)
    lines += ["## Time per move", ""]
    if plot_time_per_move(series, out / "time_per_move.png"):
        written.append(out / "time_per_move.png")
        moves = series[0].moves
        slowest = max(m.seconds for m in moves)
        lines += ["![time per move](time_per_move.png)", "",
                  f"*The wall-clock seconds each of our {len(moves)} moves in those games took,"
                  f" measured around the engine's call, by move number (log scale); the line is"
                  f" the mean at each move number, the dashed line the budget. The slowest move"
                  f" took {slowest:.3f} s of its {measured.seconds:g} s; the server allows 5 s."
                  f" Moves far below the budget are positions where the search proved the"
                  f" result and stopped early.*", ""]

    lines += ["## Depth per move", ""]
    if plot_depth_per_move(series, out / "depth_per_move.png", floor=measured.min_depth):
        written.append(out / "depth_per_move.png")
        lines += ["![depth per move](depth_per_move.png)", "",
                  f"*The depth (plies) of the deepest iteration the search completed for each"
                  f" of our moves in those games, by move number; the dashed line is the"
                  f" minimum depth, {measured.min_depth}, which is always completed (fewer plies"
                  f" only when fewer moves are left in the game).*", ""]

    lines += ["## Depth and speed against the time budget", ""]
    _plot_budgets(measured.budgets, out / "depth_vs_budget.png")
    written.append(out / "depth_vs_budget.png")
    lines += ["| budget (s) | mean depth | least depth | million nodes/s |",
              "|---:|---:|---:|---:|"]
    lines += [f"| {p.seconds:g} | {p.mean_depth:.1f} | {p.min_depth} |"
              f" {p.nodes_per_second / 1e6:.2f} |" for p in measured.budgets]
    lines += ["", "![depth against the time budget](depth_vs_budget.png)", "",
              f"*Course mode on {measured.budgets[0].positions} positions (the empty board and"
              " positions of Pascal Pons' Begin and Middle test sets), the transposition table"
              " cleared before each: the depth of the deepest completed iteration, and the"
              " nodes searched per second, at each time budget. Repeat one point with:"
              " `python agent.py move \"\" --mode course --time 1 --json`.*", ""]

    checks = measured.checks
    critical = [c for c in checks if c.critical]
    unproven = [c for c in checks if c.critical is None]
    kept = sum(1 for c in critical if c.kept)
    lines += ["## Correctness: does our move keep the game-theoretic outcome?", ""]
    _plot_correctness(checks, out / "correctness.png")
    written.append(out / "correctness.png")
    share = f"{kept / len(critical):.1%}" if critical else "n/a"
    lines += [f"Of our {len(checks)} moves in the games above, {len(critical)} were in a"
              f" position where some legal move changes the exact outcome (win, draw or loss);"
              f" **{kept} of them ({share}) kept it**. {len(unproven)} positions could not be"
              f" proven within {measured.correctness_seconds:g} s and are counted as unproven,"
              " not dropped. The other moves were in positions where every move leads to the"
              " same outcome.", "",
              "![correctness](correctness.png)", "",
              "*Each of our moves judged by our exact solver (and the opening book's complete"
              " layers, for positions with few discs): the outcome after every legal move is"
              " proven, and our move kept the outcome if no other move was better. A second"
              " opinion on any position: `python agent.py analyze MOVES`.*", ""]

    if measured.heuristics is not None:
        labels, scores = _score_matrix(measured.heuristics)
        names = [spec.heuristic or measured.heuristic for spec in measured.heuristics.plan.specs]
        games = measured.heuristics.plan.games
        plot_matrix(names, scores, games, out / "heuristics.png",
                    "Evaluations compared, course mode")
        written.append(out / "heuristics.png")
        players = ",".join(labels)
        lines += ["## Evaluations compared", "",
                  "| evaluation | " + " | ".join(names) + " |",
                  "|---|" + "---:|" * len(names)]
        for name, row in zip(names, scores, strict=True):
            lines.append(f"| {name} | " + " | ".join("-" if v is None else f"{v:.0%}"
                                                     for v in row) + " |")
        lines += ["", "![evaluations compared](heuristics.png)", "",
                  f"*Score (wins + draws / 2, per game) of the row's evaluation against the"
                  f" column's, both in course mode at {measured.seconds:g} s per move, {games}"
                  f" games per pairing from random two-move openings, each opening played once"
                  f" with each colour. Repeat with: `python agent.py tournament --players"
                  f" {players} --games {games} --opening-plies 2 --seed {measured.seed}`.*", ""]
    (out / "report.md").write_text("\n".join(lines))
    written.append(out / "report.md")
    return written
