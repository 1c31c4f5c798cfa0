"""Figures of games for a report: time and depth by move number, results, a win-rate matrix,
the path of a sequential test.

Each function takes plain data (our players' moves, tallies) and writes one PNG with
matplotlib's Agg backend (files only, no display needed), loaded on first use.  The same care
in all of them: one legend entry per series, a title that counts what the figure shows, axes
that show the data (the time per move on a log scale, so a 0.3 s budget and a 0.001 s book move
both show), a reference line drawn once (the budget, the depth-5 floor), and legends outside
the axes, where they cover no data however dense.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.games import PlayedMove, Tally
from rating.sprt import Verdict, verdict_short
from vocabulary import Source

# One colour per outcome and per decision stage, the same in every figure.
WIN_COLOUR, DRAW_COLOUR, LOSS_COLOUR = "#2e7d32", "#9e9e9e", "#c62828"
SOURCE_COLOURS = {Source.BOOK: "#6a1b9a", Source.SOLVER: "#1565c0", Source.SEARCH: "#ef6c00"}
DPI = 120


@dataclass(frozen=True)
class Series:
    """One of our players in a figure: its name, its time per move, its moves, in ``games``."""

    label: str
    budget: float | None
    moves: Sequence[PlayedMove]
    games: int


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> None:
    if fig.get_layout_engine() is None:  # a constrained figure has laid itself out
        fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    pyplot().close(fig)


def legend_below(fig: Any, ax: Any) -> Any:
    """The axes' legend under them, outside, as many entries to a row as fit; the figure must
    be made with ``layout="constrained"``, which makes room for it."""
    handles, labels = ax.get_legend_handles_labels()
    # About 100 characters of the small font fit across a 9-inch figure, handles included.
    per_row = max(1, min(len(labels), 100 // (max(len(label) for label in labels) + 8)))
    return fig.legend(handles, labels, loc="outside lower center", ncols=per_row,
                      fontsize="small", frameon=False)


def integer_ticks(axis: Any) -> None:
    """Ticks on whole numbers only (plies, moves): a count has no half."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _by_ply(moves: Sequence[PlayedMove], value: Any) -> dict[int, list[float]]:
    grouped: dict[int, list[float]] = {}
    for move in moves:
        got = value(move)
        if got is not None:
            grouped.setdefault(move.ply, []).append(got)
    return dict(sorted(grouped.items()))


def search_depth_by_ply(moves: Sequence[PlayedMove], *,
                        proven: bool | None = None) -> dict[int, list[int]]:
    """Depths of the moves the search decided, by move number (book and solver moves left
    out: their depth counts discs to the end of the game, not plies searched); with ``proven``
    True or False only the moves whose score was (or was not) a proven result."""
    by_ply: dict[int, list[int]] = {}
    for m in moves:
        if m.source == Source.SEARCH and m.depth is not None and (
                proven is None or bool(m.proven) == proven):
            by_ply.setdefault(m.ply, []).append(m.depth)
    return dict(sorted(by_ply.items()))


def plot_time_per_move(series: Sequence[Series], path: Path) -> bool:
    """Seconds per move by move number, log scale: a dot per move, the mean per move number,
    the budget once.  False (no file) when no player made a move."""
    series = [s for s in series if s.moves]
    if not series:
        return False
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.8), layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, one in enumerate(series):
        colour = colours[i % len(colours)]
        ax.scatter([m.ply for m in one.moves], [max(m.seconds or 0.0, 1e-5) for m in one.moves], s=10,
                   alpha=0.3, color=colour, linewidths=0)
        means = _by_ply(one.moves, lambda m: max(m.seconds or 0.0, 1e-5))
        ax.plot(list(means), [sum(v) / len(v) for v in means.values()], color=colour,
                label=f"{one.label}: mean of {len(one.moves)} moves in {one.games} games")
    for budget in sorted({s.budget for s in series if s.budget is not None}):
        ax.axhline(budget, color="black", linestyle="--", linewidth=1,
                   label=f"budget: {budget:g} s per move")
    ax.set_yscale("log")
    ax.set_xlabel("move number (disc 1-42; a dot is one move)")
    ax.set_ylabel("seconds for the move (log scale)")
    moves = sum(len(s.moves) for s in series)
    ax.set_title(f"Time per move: {moves} moves of ours")
    ax.set_xlim(0, 43)
    ax.grid(alpha=0.3, which="both")
    legend_below(fig, ax)
    _save(fig, path)
    return True


def plot_depth_per_move(series: Sequence[Series], path: Path, *, floor: int | None = None) -> bool:
    """The depth the search reached by move number (moves the book or the solver decided are
    left out and counted in the title); ``floor`` (the minimum depth) drawn once.  False (no
    file) when the search decided no move."""
    series = [s for s in series if search_depth_by_ply(s.moves)]
    if not series:
        return False
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.8), layout="constrained")
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    searched = 0
    others = 0
    proven_marked = False
    for i, one in enumerate(series):
        colour = colours[i % len(colours)]
        by_ply = search_depth_by_ply(one.moves)
        count = sum(len(d) for d in by_ply.values())
        searched += count
        others += len(one.moves) - count
        estimated = search_depth_by_ply(one.moves, proven=False)
        ax.scatter([p for p, depths in estimated.items() for _ in depths],
                   [d for depths in estimated.values() for d in depths], s=12, alpha=0.35,
                   linewidths=0, color=colour)
        # A proven win or loss ends the deepening (no deeper search can change it): those
        # moves stop at the minimum depth or the first depth that proves them, and are marked.
        proven = search_depth_by_ply(one.moves, proven=True)
        if proven:
            ax.scatter([p for p, depths in proven.items() for _ in depths],
                       [d for depths in proven.values() for d in depths], s=22, marker="x",
                       alpha=0.6, linewidths=1, color=colour,
                       label=None if proven_marked else
                       "x: the result was proven (win, loss or draw): the search stops there,"
                       " no deeper depth can change it")
            proven_marked = True
        ax.plot(list(by_ply), [sum(d) / len(d) for d in by_ply.values()], color=colour,
                label=f"{one.label}: mean of {count} search moves")
    if floor is not None:
        ax.axhline(floor, color="black", linestyle="--", linewidth=1,
                   label=f"minimum depth: {floor} plies (fewer only when fewer moves remain)")
    ax.set_xlabel("move number (disc 1-42; a dot is one move)")
    ax.set_ylabel("depth reached (plies)")
    title = f"Search depth per move: {searched} moves decided by the search"
    if others:
        title += f" ({others} by the book or the solver, not shown)"
    ax.set_title(title, fontsize="medium")
    ax.set_xlim(0, 43)
    ax.set_ylim(bottom=0)
    integer_ticks(ax.yaxis)
    ax.grid(alpha=0.3)
    legend_below(fig, ax)
    _save(fig, path)
    return True


def plot_tallies(rows: Sequence[tuple[str, Tally]], path: Path, title: str,
                 lengths: Sequence[Sequence[tuple[int, float]]] | None = None) -> None:
    """Wins, draws and losses, one horizontal bar per row, as shares of its games; with
    ``lengths`` (per row, each game's discs at its end and its points for the row's player: 1,
    0.5, 0), a second panel shows every game by its length, coloured by its result, so that
    rows won alike still differ by how quickly they were won."""
    plt = pyplot()
    panels = 1 if lengths is None else 2
    fig, axes = plt.subplots(1, panels, figsize=(9 if panels == 1 else 12, 0.75 * len(rows) + 1.6),
                             sharey=True, squeeze=False,
                             gridspec_kw={"width_ratios": [1, 1.3][:panels]})
    ax = axes[0][0]
    for row, (_label, tally) in enumerate(rows):
        left = 0.0
        for count, colour in ((tally.wins, WIN_COLOUR), (tally.draws, DRAW_COLOUR),
                              (tally.losses, LOSS_COLOUR)):
            if not count:
                continue
            width = count / tally.games
            ax.barh(row, width, left=left, color=colour, height=0.7)
            if width > 0.04:
                ax.text(left + width / 2, row, str(count), ha="center", va="center",
                        color="white", fontsize="small", fontweight="bold")
            left += width
    ax.set_yticks(range(len(rows)), [label for label, _ in rows], fontsize="small")
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the row's games")
    if lengths is not None:
        side = axes[0][1]
        colour_of = {1.0: WIN_COLOUR, 0.5: DRAW_COLOUR, 0.0: LOSS_COLOUR}
        for row, games in enumerate(lengths):
            # spread the dots of a row a little, so games of the same length stay visible
            offsets = [((i * 7) % 11 - 5) / 16 for i in range(len(games))]
            side.scatter([discs for discs, _ in games], [row + o for o in offsets], s=14,
                         alpha=0.6, linewidths=0,
                         color=[colour_of.get(points, DRAW_COLOUR) for _, points in games])
            if games:
                mean = sum(discs for discs, _ in games) / len(games)
                side.plot([mean, mean], [row - 0.4, row + 0.4], color="black", linewidth=1.5)
        side.set_xlim(5, 43)
        side.set_xlabel("discs played when the game ended (7: the quickest win; 42: full)")
        side.set_title("each game's length: a dot per game, the bar their mean",
                       fontsize="small")
        side.grid(axis="x", alpha=0.3)
    fig.suptitle(title)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in (WIN_COLOUR, DRAW_COLOUR, LOSS_COLOUR)]
    fig.legend(handles, ["win", "draw", "loss"], loc="upper center", ncol=3, fontsize="small",
               bbox_to_anchor=(0.5, 0.94), frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.9))  # room above for the title and the legend
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def plot_matrix(labels: Sequence[str], scores: Sequence[Sequence[float | None]], games: int,
                path: Path, title: str, note: str | None = None) -> None:
    """A win-rate matrix: cell (row, column) is the row player's score against the column's
    ((wins + draws / 2) / games), green for more than half; ``note`` follows the count of
    games under the title (what so many games can show)."""
    plt = pyplot()
    n = len(labels)
    fig, ax = plt.subplots(figsize=(2.2 + 1.3 * n, 1.6 + 1.1 * n))
    data = [[float("nan") if v is None else v for v in row] for row in scores]
    image = ax.imshow(data, cmap="RdYlGn", vmin=0, vmax=1)
    for r in range(n):
        for c in range(n):
            value = scores[r][c]
            ax.text(c, r, "" if value is None else f"{value:.0%}", ha="center", va="center",
                    fontsize="medium")
    ax.set_xticks(range(n), labels, rotation=20, ha="right", fontsize="small")
    ax.set_yticks(range(n), labels, fontsize="small")
    ax.set_xlabel("opponent")
    ax.set_ylabel("player")
    count = f"{games} games per pairing" + (f": {note}" if note else "")
    ax.set_title(f"{title}\n({count})", fontsize="medium")
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="score of the row's player")
    _save(fig, path)


# One colour per test in an LLR figure (a report draws a few on one).
LLR_COLOURS = ("#1565c0", "#ef6c00", "#6a1b9a", "#00897b", "#5d4037")
H1_COLOUR, H0_COLOUR = WIN_COLOUR, LOSS_COLOUR


def plot_llr(curves: Sequence[tuple[str, Sequence[float], Verdict | None]],
             bounds: tuple[float, float], path: Path, title: str) -> None:
    """Sequential tests' log-likelihood ratios after each pair, between the bounds where H0
    (below) and H1 (above) are accepted: one line per test (its label, its LLR after each pair
    counted, its verdict: a dot where it was reached).  Tests of one figure share the bounds."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.8), layout="constrained")
    lower, upper = bounds
    longest = max((len(curve) for _, curve, _ in curves), default=0)
    ax.axhline(upper, color=H1_COLOUR, linestyle="--", linewidth=1.2,
               label=f"H1 accepted at {upper:+.2f}: stronger")
    ax.axhline(lower, color=H0_COLOUR, linestyle="--", linewidth=1.2,
               label=f"H0 accepted at {lower:+.2f}: not stronger")
    ax.axhline(0.0, color="black", linewidth=0.6, alpha=0.4)
    for n, (label, curve, verdict) in enumerate(curves):
        colour = LLR_COLOURS[n % len(LLR_COLOURS)]
        pairs = range(1, len(curve) + 1)
        ax.plot(pairs, curve, color=colour, linewidth=1.5,
                label=f"{label}: {verdict_short(verdict)} after {len(curve):,} pairs")
        if curve and verdict in (Verdict.H0, Verdict.H1):
            ax.plot([len(curve)], [curve[-1]], "o", color=colour, markersize=6)
    ax.set_xlim(0, max(longest, 1) * 1.02)
    values = [v for _, curve, _ in curves for v in curve]
    margin = 0.15 * (upper - lower)
    ax.set_ylim(min([lower, *values]) - margin, max([upper, *values]) + margin)
    ax.set_xlabel("pairs of games counted (the same opening, each player with each colour)")
    ax.set_ylabel("log-likelihood ratio (H1 against H0)")
    integer_ticks(ax.xaxis)
    ax.grid(alpha=0.3)
    ax.set_title(title, fontsize="medium")
    legend_below(fig, ax)
    _save(fig, path)
