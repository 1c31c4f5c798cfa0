"""The rate report: ``rate.md`` with its figures, ``rate.json``, and the summary in the terminal.

Made from a ``Rated`` (the games of a ``rate`` run or of a local server's database, the
referee's verdicts on the rated player's moves, the ladder): the rating with its 95 % interval
and its place on the ladder (a figure), the results per rung beside what the fit expected,
the accuracy (the referee's accounting, ``reporting.document``), the worst moves each with a
link that opens the game at that move in the board's review, the time per move against the
budget, and every fault by kind.  Each figure has a caption and the command that repeats it.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.figures import plot_tallies, pyplot
from arena.results import OVERRUN_TOLERANCE
from engine.games import PlayedMove, Tally
from outside import Layers
from rating.ladder import Ladder
from reporting.document import (
    Accounting,
    correctness_text,
    machine,
    over_budget,
    plot_correctness,
    plot_times,
)
from reporting.measure import Check
from reporting.rated import LEVEL, PLAYER, Estimate, RatedGame, estimate
from vocabulary import Outcome, column_label

WORST_MOVES = 10
PLAYER_COLOUR, RUNG_COLOUR, PLAYED_COLOUR = "#c62828", "#607d8b", "#1565c0"


@dataclass(frozen=True)
class Opponent:
    """The rated player's results against one rung, and the score the fit expected."""

    rung: str
    rating: float
    as_first: Tally
    as_second: Tally
    expected: float | None

    @property
    def total(self) -> Tally:
        return self.as_first + self.as_second


@dataclass(frozen=True)
class WorstMove:
    """A move of the rated player that lost the outcome: ``best`` the position's outcome,
    ``outcome`` the move's (1 win, 0 draw, -1 loss for the player); ``link`` opens the game
    at that move in the board's review."""

    game: int
    ply: int
    column: int
    rung: str
    best: int
    outcome: int
    link: str

    @property
    def cost(self) -> int:
        return self.best - self.outcome


@dataclass(frozen=True)
class Rated:
    """Everything the rate report shows (``Rated.of`` computes it from the games)."""

    name: str
    label: str
    games: list[RatedGame]
    checks: Mapping[tuple[int, int], Check]
    ladder: Ladder
    estimate: Estimate
    opponents: list[Opponent]
    worst: list[WorstMove]
    command: str
    budget: float | None  # seconds per move; None: not known (a server's games)
    seed: int | None
    workers: int
    referee_seconds: float
    elapsed: float
    review_command: str
    source_words: str = "games played by `agent.py rate`"
    timed: bool = True  # whether the games carry the time of each move
    notes: list[str] = field(default_factory=list)
    sandbox: Layers | None = None  # the layers an outside player ran under (None: not one)

    @classmethod
    def of(cls, name: str, label: str, games: Sequence[RatedGame],
           checks: Mapping[tuple[int, int], Check], ladder: Ladder, *, command: str,
           budget: float | None, seed: int | None, workers: int, referee_seconds: float,
           elapsed: float, review: str, review_command: str, review_source: str,
           source_words: str = "games played by `agent.py rate`", timed: bool = True,
           notes: Sequence[str] = (), sandbox: Layers | None = None) -> Rated:
        counted = [g for g in games if not g.record.stopped]  # a stopped game has no result
        current = estimate(counted, ladder)
        ratings = {rung.name: rung.rating for rung in ladder.rungs}
        opponents = []
        for rung in sorted({g.rung for g in counted}, key=lambda r: ratings.get(r, 0.0)):
            mine = [g for g in counted if g.rung == rung]
            expected = None
            if current.fit is not None and current.fitted:  # a bound predicts nothing
                try:
                    expected = float(current.fit.expected(PLAYER, rung))
                except (KeyError, ValueError, ArithmeticError):
                    expected = None
            opponents.append(Opponent(
                rung, ratings.get(rung, math.nan),
                Tally.of_points(g.score for g in mine if g.player_first),
                Tally.of_points(g.score for g in mine if not g.player_first),
                expected))
        return cls(name, label, list(games), checks, ladder, current, opponents,
                   worst_moves(games, checks, review, review_source), command, budget, seed,
                   workers, referee_seconds, elapsed, review_command, source_words, timed,
                   list(notes), sandbox)

    @property
    def moves(self) -> list[PlayedMove]:
        """The rated player's moves, in every game."""
        return [m for g in self.games for m in g.record.moves if m.side == g.player_side]

    @property
    def faults(self) -> Counter[str]:
        return Counter(g.fault for g in self.games if g.fault is not None)


def review_link(review: str, source: str, game: int, ply: int) -> str:
    """The board's address that opens ``game`` of ``source`` in the review, on the position
    before move ``ply`` (its verdict shown as the next move's)."""
    return f"{review}?review={source}:{game}&ply={ply - 1}"


def worst_moves(games: Sequence[RatedGame], checks: Mapping[tuple[int, int], Check],
                review: str, source: str, count: int = WORST_MOVES) -> list[WorstMove]:
    """The rated player's moves that lost the outcome, the costliest first (a win thrown to a
    loss before a win to a draw), then in the order played."""
    rungs = {g.number: g for g in games}
    found = []
    for (number, ply), check in checks.items():
        if check.kept is False and check.best is not None and check.outcome is not None:
            game = rungs[number]
            column = next(m.column for m in game.record.moves if m.ply == ply)
            found.append(WorstMove(number, ply, column, game.rung, check.best, check.outcome,
                                   review_link(review, source, number, ply)))
    found.sort(key=lambda w: (-w.cost, w.game, w.ply))
    return found[:count]


# --- figures ------------------------------------------------------------------------------------

SHORT = 32  # characters of a player's name in a figure: a path would squeeze the axes


def short(label: str) -> str:
    """A player's name for a figure: its end when it is long (a file's name is there)."""
    return label if len(label) <= SHORT else "..." + label[-(SHORT - 3):]


def plot_ladder(rated: Rated, path: Path) -> None:
    """The ladder's rungs with their intervals, bottom to top, and the rated player among them."""
    plt = pyplot()
    played = {o.rung for o in rated.opponents}
    rows: list[tuple[str, float, float, float, str]] = [
        (rung.name, rung.rating, rung.low, rung.high,
         PLAYED_COLOUR if rung.name in played else RUNG_COLOUR) for rung in rated.ladder.rungs]
    e = rated.estimate
    rows.append((f"{short(rated.label)} (rated)", e.rating, e.low, e.high, PLAYER_COLOUR))
    rows.sort(key=lambda row: row[1])
    fig, ax = plt.subplots(figsize=(9, 0.42 * len(rows) + 1.8), layout="constrained")
    finite = [v for row in rows for v in row[1:4] if math.isfinite(v)]
    span = (max(finite) - min(finite)) or 100.0
    left, right = min(finite) - 0.08 * span, max(finite) + 0.08 * span
    for y, (_name, rating, low, high, colour) in enumerate(rows):
        lo = low if math.isfinite(low) else left
        hi = high if math.isfinite(high) else right
        ax.plot([lo, hi], [y, y], color=colour, linewidth=2.5 if colour == PLAYER_COLOUR else 1.5)
        ax.plot([rating], [y], marker="o", color=colour, markersize=7)
        if not math.isfinite(high):
            ax.annotate("", xy=(right, y), xytext=(hi - 0.01 * span, y),
                        arrowprops={"arrowstyle": "->", "color": colour})
        if not math.isfinite(low):
            ax.annotate("", xy=(left, y), xytext=(lo + 0.01 * span, y),
                        arrowprops={"arrowstyle": "->", "color": colour})
    ax.set_yticks(range(len(rows)), [f"{row[0]}  {row[1]:.0f}" for row in rows],
                  fontsize="small")
    for tick, row in zip(ax.get_yticklabels(), rows, strict=True):
        tick.set_color(row[4])
        if row[4] == PLAYER_COLOUR:
            tick.set_fontweight("bold")
    ax.set_xlim(left, right)
    ax.set_xlabel("rating (Elo-like points, random = 0); a line is a 95 % interval")
    ax.grid(alpha=0.3, axis="x")
    ax.set_title(f"{short(rated.label)}: {e.rating:.0f} ({_interval(e)}) on the ladder,"
                 f" {len(rated.games)} games", fontsize="medium", wrap=True)
    handles = [plt.Line2D([], [], color=c, marker="o") for c in
               (PLAYER_COLOUR, PLAYED_COLOUR, RUNG_COLOUR)]
    fig.legend(handles, ["the rated player", "rungs it played", "other rungs"],
               loc="outside lower center", ncols=3, fontsize="small", frameon=False)
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- words ----------------------------------------------------------------------------------

def _interval(e: Estimate) -> str:
    low = f"{e.low:.0f}" if math.isfinite(e.low) else "-inf"
    high = f"{e.high:.0f}" if math.isfinite(e.high) else "+inf"
    return f"95 % interval {low} to {high}"


def placement(rated: Rated) -> str:
    """Where the rating sits on the ladder, in words: between which rungs."""
    e = rated.estimate
    rungs = sorted(rated.ladder.rungs, key=lambda r: r.rating)
    if not e.fitted and math.isfinite(e.high):  # only bounded: below the rung it lost to
        return f"below `{min(rungs, key=lambda r: abs(r.rating - e.high)).name}` ({e.high:.0f})"
    if not e.fitted and math.isfinite(e.low):
        return f"above `{min(rungs, key=lambda r: abs(r.rating - e.low)).name}` ({e.low:.0f})"
    below = [r for r in rungs if r.rating <= e.rating]
    above = [r for r in rungs if r.rating > e.rating]
    if not below:
        return f"below the weakest rung, `{above[0].name}` ({above[0].rating:.0f})"
    if not above:
        return f"above the strongest rung, `{below[-1].name}` ({below[-1].rating:.0f})"
    return (f"between `{below[-1].name}` ({below[-1].rating:.0f}) and `{above[0].name}`"
            f" ({above[0].rating:.0f})")


def _rating_line(rated: Rated) -> str:
    e = rated.estimate
    if not e.fitted:
        side = "won" if math.isinf(e.high) else "lost"
        return (f"**No finite rating yet**: the player {side} every game that counts, so its"
                f" rating is only bounded ({_interval(e)}, {placement(rated)}): play more games"
                " (a larger `--games`) against stronger or weaker rungs.")
    return (f"**Rating {e.rating:.0f}** ({_interval(e)}, {e.width:.0f} points wide),"
            f" {placement(rated)}.")


def _fault_lines(rated: Rated) -> list[str]:
    faults = [g for g in rated.games if g.fault is not None]
    if not faults:
        return ["No fault: every game was decided on the board (four in a row or a full"
                " board)."]
    lines = [f"{len(faults)} game(s) lost by a fault, by kind: "
             + ", ".join(f"{kind} {count}" for kind, count in sorted(rated.faults.items())) + ".",
             ""]
    for game in faults:
        lines.append(f"- game {game.number} against `{game.rung}`: {game.fault}:"
                     f" {game.record.detail or '(no detail)'}")
    return lines


def to_json(rated: Rated) -> dict[str, Any]:
    """``rate.json``: the report's figures as data."""
    e = rated.estimate
    checks = list(rated.checks.values())
    n = Accounting.of(checks)
    moves = rated.moves

    def finite(value: float) -> float | None:
        return round(value, 1) if math.isfinite(value) else None

    return {
        "player": rated.label, "command": rated.command, "seed": rated.seed,
        "source": rated.source_words, "games": len(rated.games),
        "rating": {"rating": finite(e.rating), "low": finite(e.low), "high": finite(e.high),
                   "level": LEVEL, "fitted": e.fitted, "placement": placement(rated)},
        "opponents": [{"rung": o.rung, "rating": finite(o.rating), "games": o.total.games,
                       "as_first": o.as_first.to_dict(), "as_second": o.as_second.to_dict(),
                       "score": round(o.total.score_rate, 4),
                       "expected": None if o.expected is None else round(o.expected, 4)}
                      for o in rated.opponents],
        "accuracy": {"moves": n.total, "critical": n.critical, "kept": n.kept, "lost": n.lost,
                     "unproven": n.unproven, "same": n.same,
                     "share": round(n.kept / n.critical, 4) if n.critical else None,
                     "referee_seconds": rated.referee_seconds},
        "worst_moves": [{"game": w.game, "ply": w.ply, "column": w.column, "rung": w.rung,
                         "best": Outcome(w.best).word, "outcome": Outcome(w.outcome).word,
                         "link": w.link} for w in rated.worst],
        "time": None if not rated.timed or not moves else {
            "budget": rated.budget, "moves": len(moves),
            "mean": round(sum(m.seconds or 0.0 for m in moves) / len(moves), 4),
            "max": round(max(m.seconds or 0.0 for m in moves), 4),
            "over_budget": None if rated.budget is None else
            over_budget(moves, rated.budget)},
        "faults": [{"game": g.number, "rung": g.rung, "kind": g.fault, "detail": g.record.detail}
                   for g in rated.games if g.fault is not None],
        "stopped": [{"game": g.number, "rung": g.rung, "detail": g.record.detail}
                    for g in rated.games if g.record.stopped],
        "sandbox": rated.sandbox.to_dict() if rated.sandbox is not None else None,
        "elapsed": round(rated.elapsed, 1),
    }


def write_rated(rated: Rated, out: Path) -> list[Path]:
    """Write the figures, ``rate.md`` and ``rate.json`` into ``out``; return what was written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    e = rated.estimate
    lines = [f"# Rating of `{rated.label}` on the calibrated ladder", "",
             f"Made by `{rated.command}` from {len(rated.games)} {rated.source_words}, in"
             f" {rated.elapsed / 60:.1f} minutes on: {machine()}.", "",
             *(f"{note}\n" for note in rated.notes),
             "## Rating", "", _rating_line(rated), ""]
    plot_ladder(rated, out / "ladder.png")
    written.append(out / "ladder.png")
    lines += ["![the ladder](ladder.png)", "",
              f"*The ladder's rungs (their ratings fitted from the ladder's own games, random ="
              f" 0, each with its 95 % interval) and `{rated.label}` among them: its rating"
              " fitted by maximum likelihood from its games above, the rungs' ratings held fixed"
              f" (a Bradley-Terry model on the Elo scale with draws and a first-mover term,"
              f" `rating.fit`). Its interval takes the ladder as given: the rungs' own"
              f" intervals are not added to it. Repeat: `{rated.command}`.*", ""]

    lines += ["## Results per opponent", "",
              "| rung | rating | games | as X, first (W-D-L) | as O, second (W-D-L) | score |"
              " expected |", "|---|---:|---:|---:|---:|---:|---:|"]
    for o in rated.opponents:
        expected = "-" if o.expected is None else f"{o.expected:.0%}"
        lines.append(f"| `{o.rung}` | {o.rating:.0f} | {o.total.games} | {o.as_first.wdl()} |"
                     f" {o.as_second.wdl()} | {o.total.score_rate:.0%} | {expected} |")
    total = sum((o.total for o in rated.opponents), Tally())
    lines.append(f"| all | | {total.games} | | | {total.score_rate:.0%} | |")
    rows = [(f"against {o.rung} ({o.rating:.0f})", o.total) for o in rated.opponents]
    if rows:
        plot_tallies(rows, out / "results.png",
                     f"Results of {rated.label}: {total.games} games")
        written.append(out / "results.png")
        lines += ["", "![results](results.png)"]
    lines += ["", f"*Wins, draws and losses of `{rated.label}` against each rung it played;"
              " score = (wins + draws / 2) / games; expected = the score the fitted rating"
              " predicts against that rung, the colours taken as even.*", ""]

    checks = list(rated.checks.values())
    whose = "The player's"
    lines += ["## Accuracy: did its moves keep the game-theoretic outcome?", "",
              correctness_text(checks, rated.referee_seconds, whose), ""]
    if checks:
        plot_correctness(checks, rated.referee_seconds, out / "accuracy.png", whose)
        written.append(out / "accuracy.png")
        lines += ["![accuracy](accuracy.png)", "",
                  "*Each move of the rated player judged by the referee (`engine.referee`, as"
                  " `agent.py report` does): the outcome after every legal move, from the opening"
                  " book where it holds the position, else proven by our exact solver within"
                  f" {rated.referee_seconds:g} s; the move kept the outcome if no other move was"
                  " better. Accuracy is the share kept among the moves where some move changes"
                  " the outcome.*", ""]
    lines += ["### Worst moves", ""]
    if rated.worst:
        lines += [f"The moves that lost the outcome, the costliest first (a win thrown to a loss"
                  f" before a win to a draw); move = the disc's number, columns 1-7 as in move"
                  f" strings. Each link opens the game in the board's review at that move"
                  f" (start the analysis board first: `{rated.review_command}`).", "",
                  "| game | move | against | column | best outcome | after the move | review |",
                  "|---:|---:|---|---:|---|---|---|"]
        lines += [f"| {w.game} | {w.ply} | `{w.rung}` | {column_label(w.column)} |"
                  f" {Outcome(w.best).word} | {Outcome(w.outcome).word} | [open]({w.link}) |"
                  for w in rated.worst]
    else:
        lines.append("None: no move of the player that the referee settled lost the outcome.")
    lines.append("")

    lines += ["## Time per move", ""]
    moves = rated.moves
    if not rated.timed:
        lines += ["Not available: the local server records no time per move (its own time limit"
                  " decided which moves were too late: those are faults below).", ""]
    elif plot_times(moves, rated.budget, out / "time_per_move.png", rated.label):
        written.append(out / "time_per_move.png")
        over = "" if rated.budget is None else (
            f"; {over_budget(moves, rated.budget)} of them over the {rated.budget:g} s budget"
            f" by more than {OVERRUN_TOLERANCE:g} s, the project's tolerance")
        lines += ["![time per move](time_per_move.png)", "",
                  f"*The wall-clock seconds each of the rated player's {len(moves)} moves took,"
                  f" measured around its call by the game loop (`arena.match`), by move number"
                  f" (log scale); the dashed line is the budget given with `--time`{over}."
                  " A player that does not use its time (random, the course's bot) is far"
                  " below it.*", ""]
    lines += ["## Faults", "", *_fault_lines(rated), ""]
    stopped = [g for g in rated.games if g.record.stopped]
    if stopped:
        lines += [f"{len(stopped)} game(s) stopped from outside the player's sandbox: no result,"
                  " left out of the rating:", "",
                  *(f"- game {g.number} against `{g.rung}`: {g.record.detail}" for g in stopped),
                  ""]
    if rated.sandbox is not None:
        lines += [f"The player ran confined ({rated.sandbox.line()}): what each layer stops is in"
                  " docs/outside-agents.md.", ""]
    if e.fit is not None:
        lines += [f"The fit's first-mover advantage: {e.fit.first_move:.0f} points.", ""]
    (out / "rate.md").write_text("\n".join(lines))
    written.append(out / "rate.md")
    (out / "rate.json").write_text(json.dumps(to_json(rated), indent=1) + "\n")
    written.append(out / "rate.json")
    return written


def print_summary(rated: Rated) -> None:
    """The report's essentials in the terminal."""
    from terminal import console

    out = console()
    e = rated.estimate
    n = Accounting.of(list(rated.checks.values()))
    rating = (f"[bold]{e.rating:.0f}[/bold] ({_interval(e)})" if e.fitted
              else f"no finite rating yet ({_interval(e)})")
    out.print(f"{rated.label}: rating {rating}, {placement(rated)}; {len(rated.games)} games")
    for o in rated.opponents:
        expected = "" if o.expected is None else f", expected {o.expected:.0%}"
        out.print(f"  against {o.rung} ({o.rating:.0f}): {o.total.wdl()}, score"
                  f" {o.total.score_rate:.0%}{expected}", markup=False)
    share = f"{n.kept / n.critical:.1%}" if n.critical else "n/a"
    out.print(f"  accuracy: {n.kept} of {n.critical} moves kept the outcome ({share});"
              f" {n.unproven} unproven", markup=False)
    faults = rated.faults
    out.print("  faults: " + (", ".join(f"{k} {v}" for k, v in sorted(faults.items()))
                              if faults else "none"), markup=False)
