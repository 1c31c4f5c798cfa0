"""Tournament results as text tables, a markdown summary, PNG plots and raw game records.

``write_report(summary, out_dir)`` writes what a student puts in the course report:

- ``timing.png``: seconds per move by move number for our agent, with its budget;
- ``depth.png``: the search depth reached by move number, and which stage (book, solver,
  search) decided the moves;
- ``results.png``: wins, draws and losses per pairing and starter;
- ``summary.md``: the tables in markdown, linking the figures;
- ``results.json``: the same object ``--json`` prints; ``games.jsonl``: every game, move by move.

Plots use matplotlib's Agg backend (files only, no display needed), loaded on first use.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.match import MoveRecord
from arena.results import OVERRUN_TOLERANCE, SEARCH, MoveStats, Standing, Summary
from arena.tournament import starts

# One colour per outcome and per decision stage, the same in every figure.
WIN_COLOUR, DRAW_COLOUR, LOSS_COLOUR = "#2e7d32", "#9e9e9e", "#c62828"
SOURCE_COLOURS = {"book": "#6a1b9a", "solver": "#1565c0", "search": "#ef6c00"}


# --- text tables --------------------------------------------------------------------------------

def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, markdown: bool) -> list[str]:
    """Rows under headers; numbers right-aligned (a cell starting with a digit or a minus)."""
    if markdown:
        lines = ["| " + " | ".join(headers) + " |",
                 "|" + "|".join("---:" if i else "---" for i in range(len(headers))) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return lines
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def fmt(cells: Sequence[str]) -> str:
        out = []
        for i, cell in enumerate(cells):
            out.append(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]))
        return "  ".join(out).rstrip()

    return [fmt(headers), *(fmt(r) for r in rows)]


def _standing_rows(standings: Sequence[Standing], *, forfeits: bool) -> list[list[str]]:
    rows = []
    for s in standings:
        total = s.total
        row = [s.player, str(total.games), str(total.wins), str(total.draws), str(total.losses),
               s.as_first.wdl(), s.as_second.wdl(), f"{100 * total.score_rate:.1f}%"]
        if forfeits:
            row.append(str(s.forfeits))
        rows.append(row)
    return rows


STANDING_HEADERS = ["player", "games", "W", "D", "L", "as 1st W-D-L", "as 2nd W-D-L", "score"]


def _fmt(value: float | None, pattern: str) -> str:
    return "-" if value is None else format(value, pattern)


def _move_rows(moves: Sequence[MoveStats]) -> list[list[str]]:
    rows = []
    for m in moves:
        sources = ", ".join(f"{k} {v}" for k, v in sorted(m.sources.items())) or "-"
        over = m.over_budget
        rows.append([
            m.player, str(len(m.seconds)), _fmt(m.mean_seconds, ".4f"), _fmt(m.max_seconds, ".4f"),
            _fmt(m.mean_search_depth, ".1f"), sources,
            "-" if over is None else f"{over} (budget {m.budget:g} s)",
        ])
    return rows


MOVE_HEADERS = ["player", "moves", "mean s/move", "max s/move", "mean search depth", "decided by",
                f"over budget+{1000 * OVERRUN_TOLERANCE:.0f}ms"]


def text_report(summary: Summary) -> str:
    """The tables ``agent.py tournament`` prints: per pairing, overall, and per-move figures."""
    plan = summary.plan
    lines = [f"{len(summary.outcomes)} games, {plan.games} per pairing, seed {plan.seed}, "
             f"{summary.workers} worker(s), {summary.elapsed:.1f} s", ""]
    for pairing in summary.pairings:
        lines.append(f"{pairing.a.player} vs {pairing.b.player}: {pairing.games} games")
        lines += ["  " + row for row in _table(
            STANDING_HEADERS, _standing_rows([pairing.a, pairing.b], forfeits=False),
            markdown=False)]
        lines.append("")
    lines.append("Overall")
    lines += ["  " + row for row in _table(
        [*STANDING_HEADERS, "forfeits"], _standing_rows(summary.overall, forfeits=True),
        markdown=False)]
    lines.append("")
    lines.append("Moves (seconds measured by the arena around each move)")
    lines += ["  " + row for row in _table(MOVE_HEADERS, _move_rows(summary.moves),
                                          markdown=False)]
    return "\n".join(lines)


def _starts_text(games: int) -> str:
    first, second = starts(games)
    if first == second:
        return "each side starting half of them"
    return (f"the starter alternating: the earlier-listed player of a pairing starts {first}, "
            f"the other {second}")


def _opening_text(plies: int) -> str:
    if not plies:
        return ""
    return (f", each pair of games from the same {plies} random opening moves, "
            "once with each starter")


def markdown_report(summary: Summary, command: str | None, figures: Sequence[str]) -> str:
    plan = summary.plan
    lines = ["# Tournament results", ""]
    lines.append(f"Players: {', '.join(f'`{label}`' for label in plan.labels)}. "
                 f"{plan.games} games per pairing, {_starts_text(plan.games)} "
                 f"({len(summary.outcomes)} games in all){_opening_text(plan.opening_plies)}; "
                 f"seed {plan.seed}; {summary.workers} worker process(es); "
                 f"{summary.elapsed:.1f} s of wall-clock time.")
    if command:
        lines += ["", "Produced by:", "", "```bash", command, "```"]
    lines += ["", "## Overall", ""]
    lines += _table([*STANDING_HEADERS, "forfeits"], _standing_rows(summary.overall, forfeits=True),
                    markdown=True)
    lines += ["", "W-D-L are wins, draws and losses; score = (wins + draws / 2) / games; a forfeit "
              "is a game lost by an illegal move or a crash.", "", "## Pairings", ""]
    for pairing in summary.pairings:
        lines += [f"### {pairing.a.player} vs {pairing.b.player}", ""]
        lines += _table(STANDING_HEADERS, _standing_rows([pairing.a, pairing.b], forfeits=False),
                        markdown=True)
        lines.append("")
    lines += ["## Moves", ""]
    lines += _table(MOVE_HEADERS, _move_rows(summary.moves), markdown=True)
    slow = [m for m in summary.moves if m.seconds]
    if slow:
        lines += ["", "Slowest move of each player (game number as in `games.jsonl`, move = disc "
                  "number 1-42):", ""]
        for m in slow:
            seconds, game, ply = m.slowest
            cpu = "" if m.slowest_cpu is None else f", {m.slowest_cpu:.4f} s of it on a core"
            lines.append(f"- `{m.player}`: {seconds:.4f} s (game {game}, move {ply}{cpu})")
    if figures:
        lines += ["", "## Figures", ""]
        for name in figures:
            lines += [f"![{name}]({name})", ""]
    return "\n".join(lines).rstrip() + "\n"


# --- plots ----------------------------------------------------------------------------------------

def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _ours_moves(summary: Summary) -> list[tuple[str, float | None, list[MoveRecord]]]:
    """(label, budget, [moves]) for each of our players, in the order given."""
    result = []
    for index, (spec, label) in enumerate(zip(summary.plan.specs, summary.plan.labels,
                                              strict=True)):
        if spec.kind != "ours":
            continue
        moves = []
        for outcome in summary.outcomes:
            task = outcome.task
            sides = (task.first, task.second)
            moves += [m for m in outcome.record.moves if sides[m.side] == index]
        result.append((label, summary.moves[index].budget, moves))
    return result


def plot_timing(summary: Summary, path: Path) -> bool:
    """Seconds per move by move number for each of our players; False if there is none."""
    ours = _ours_moves(summary)
    if not ours:
        return False
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.8))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (label, budget, moves) in enumerate(ours):
        colour = colours[i % len(colours)]
        ax.scatter([m.ply for m in moves], [m.seconds for m in moves], s=10, alpha=0.35,
                   color=colour, linewidths=0)
        by_ply: dict[int, list[float]] = {}
        for m in moves:
            by_ply.setdefault(m.ply, []).append(m.seconds)
        plies = sorted(by_ply)
        ax.plot(plies, [sum(by_ply[p]) / len(by_ply[p]) for p in plies], color=colour,
                label=f"{label}: mean")
        ax.plot(plies, [max(by_ply[p]) for p in plies], color=colour, linestyle=":",
                label=f"{label}: max")
        if budget is not None:
            ax.axhline(budget, color=colour, linestyle="--", linewidth=1,
                       label=f"{label}: budget {budget:g} s")
            ax.axhline(budget + OVERRUN_TOLERANCE, color=LOSS_COLOUR, linestyle="--",
                       linewidth=0.8, label=f"{label}: target, budget + "
                       f"{1000 * OVERRUN_TOLERANCE:.0f} ms")
    ax.set_xlabel("move number (disc 1-42; each dot is one move)")
    ax.set_ylabel("seconds for the move")
    ax.set_title(f"Time per move ({len(summary.outcomes)} games)")
    ax.set_xlim(0, 43)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def search_depth_by_ply(moves: Sequence[MoveRecord]) -> dict[int, list[int]]:
    """Depths of the moves the search decided, by move number (book and solver moves left
    out: their depth counts discs to the end of the game, not plies searched)."""
    by_ply: dict[int, list[int]] = {}
    for m in moves:
        if m.source == SEARCH and m.depth is not None:
            by_ply.setdefault(m.ply, []).append(m.depth)
    return dict(sorted(by_ply.items()))


def plot_depth(summary: Summary, path: Path) -> bool:
    """Search depth and deciding stage by move number for each of our players.

    Top: the depth each search move reached (dots) and its mean; bottom: the share of moves
    decided by book, solver and search, so the moves missing from the top are accounted for.
    """
    ours = _ours_moves(summary)
    if not ours:
        return False
    plt = _pyplot()
    fig, axes = plt.subplots(2, len(ours), figsize=(9 if len(ours) == 1 else 5 * len(ours), 7),
                             squeeze=False, sharex=True,
                             gridspec_kw={"height_ratios": [3, 1.4]})
    for col, (label, _budget, moves) in enumerate(ours):
        top, bottom = axes[0][col], axes[1][col]
        sources = sorted({m.source or "?" for m in moves},
                         key=lambda s: list(SOURCE_COLOURS).index(s) if s in SOURCE_COLOURS else 9)
        by_ply = search_depth_by_ply(moves)
        top.scatter([p for p, depths in by_ply.items() for _ in depths],
                    [d for depths in by_ply.values() for d in depths], s=12, alpha=0.4,
                    linewidths=0, color=SOURCE_COLOURS[SEARCH], label="one search move")
        if by_ply:
            top.plot(list(by_ply), [sum(d) / len(d) for d in by_ply.values()], color="black",
                     label="mean search depth")
        top.set_ylabel("search depth reached (plies)")
        top.set_title(f"{label}: search depth by move number")
        top.set_ylim(bottom=0)
        top.grid(alpha=0.3)
        top.legend(fontsize="small", loc="upper left", markerscale=2)

        counts: dict[str, dict[int, int]] = {s: {} for s in sources}
        totals: dict[int, int] = {}
        for m in moves:
            source = m.source or "?"
            counts[source][m.ply] = counts[source].get(m.ply, 0) + 1
            totals[m.ply] = totals.get(m.ply, 0) + 1
        all_plies = sorted(totals)
        base = [0.0] * len(all_plies)
        for source in sources:
            share = [counts[source].get(p, 0) / totals[p] for p in all_plies]
            bottom.bar(all_plies, share, bottom=base, width=0.9,
                       color=SOURCE_COLOURS.get(source, "black"), label=source)
            base = [b + s for b, s in zip(base, share, strict=True)]
        bottom.set_ylim(0, 1)
        bottom.set_ylabel("share of moves decided by")
        bottom.legend(fontsize="small", loc="lower right")
        bottom.set_xlabel("move number (disc 1-42)")
        bottom.set_xlim(0, 43)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def plot_results(summary: Summary, path: Path) -> bool:
    """Wins, draws and losses of each pairing, one bar per starter, from the first-named side."""
    plt = _pyplot()
    bars: list[tuple[str, Any]] = []
    for pairing in summary.pairings:
        a, b = pairing.a, pairing.b
        bars.append((f"{a.player} vs {b.player}\n{a.player} starts", a.as_first))
        bars.append((f"{a.player} vs {b.player}\n{b.player} starts", a.as_second))
    fig, ax = plt.subplots(figsize=(9, 0.75 * len(bars) + 1.6))
    for row, (_label, tally) in enumerate(bars):
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
    ax.set_yticks(range(len(bars)), [label for label, _ in bars], fontsize="small")
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of games, from the view of the first-named player")
    ax.set_title(f"Results ({summary.plan.games} games per pairing)", pad=24)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in (WIN_COLOUR, DRAW_COLOUR, LOSS_COLOUR)]
    ax.legend(handles, ["win", "draw", "loss"], loc="lower center", ncol=3, fontsize="small",
              bbox_to_anchor=(0.5, 1.0), frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# --- all of it -----------------------------------------------------------------------------------

def write_report(summary: Summary, out_dir: Path, command: str | None = None) -> list[Path]:
    """Write the figures, the markdown summary and the raw records into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = []
    for name, plot in (("timing.png", plot_timing), ("depth.png", plot_depth),
                       ("results.png", plot_results)):
        if plot(summary, out_dir / name):
            figures.append(name)
    written = [out_dir / name for name in figures]
    (out_dir / "results.json").write_text(json.dumps(summary.to_dict(), indent=2) + "\n")
    with (out_dir / "games.jsonl").open("w") as handle:
        for outcome in summary.outcomes:
            task = outcome.task
            line = {"game": task.index, "pairing": task.pairing, "game_in_pairing": task.game,
                    "seeds": list(task.seeds), "opening": list(task.opening),
                    **outcome.record.to_dict()}
            handle.write(json.dumps(line) + "\n")
    (out_dir / "summary.md").write_text(markdown_report(summary, command, figures))
    written += [out_dir / "summary.md", out_dir / "results.json", out_dir / "games.jsonl"]
    return written


__all__ = [
    "markdown_report",
    "plot_depth",
    "plot_results",
    "plot_timing",
    "search_depth_by_ply",
    "text_report",
    "write_report",
]
