"""Tournament results as text tables, a markdown summary, PNG plots and raw game records.

``write_report(summary, out_dir)`` writes what a student puts in the course report:

- ``timing.png``: seconds per move by move number for our agent, with its budget;
- ``depth.png``: the search depth reached by move number (the moves the search decided);
- ``results.png``: wins, draws and losses per pairing and starter;
- ``summary.md``: the tables in markdown, linking the figures;
- ``results.json``: the same object ``--json`` prints; ``games.jsonl``: every game, move by move.

The figures are drawn by ``arena.figures``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from arena.figures import (
    Series,
    plot_depth_per_move,
    plot_tallies,
    plot_time_per_move,
)
from arena.results import OVERRUN_TOLERANCE, MoveStats, Standing, Summary
from arena.tournament import starts
from engine.games import PlayedMove

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


# --- figures ------------------------------------------------------------------------------------

def ours_series(summary: Summary) -> list[Series]:
    """Our players' moves in the tournament, one series each, in the order given."""
    result = []
    for index, (spec, label) in enumerate(zip(summary.plan.specs, summary.plan.labels,
                                              strict=True)):
        if spec.kind != "ours":
            continue
        moves: list[PlayedMove] = []
        games = 0
        for outcome in summary.outcomes:
            task = outcome.task
            sides = (task.first, task.second)
            if index in sides:
                games += 1
                moves += [m for m in outcome.record.moves if sides[m.side] == index]
        result.append(Series(label, summary.moves[index].budget, moves, games))
    return result


def plot_results(summary: Summary, path: Path) -> None:
    """Wins, draws and losses of each pairing, one bar per starter, from the first-named side."""
    rows = []
    for pairing in summary.pairings:
        a, b = pairing.a, pairing.b
        rows.append((f"{a.player} vs {b.player}\n{a.player} starts", a.as_first))
        rows.append((f"{a.player} vs {b.player}\n{b.player} starts", a.as_second))
    plot_tallies(rows, path, f"Results of {len(summary.outcomes)} games"
                             f" ({summary.plan.games} per pairing), for the first-named player")


# --- all of it -----------------------------------------------------------------------------------

def write_report(summary: Summary, out_dir: Path, command: str | None = None) -> list[Path]:
    """Write the figures, the markdown summary and the raw records into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    figures = []
    series = ours_series(summary)
    if plot_time_per_move(series, out_dir / "timing.png"):
        figures.append("timing.png")
    floor = summary.plan.agent.min_depth if series else None
    if plot_depth_per_move(series, out_dir / "depth.png", floor=floor):
        figures.append("depth.png")
    plot_results(summary, out_dir / "results.png")
    figures.append("results.png")
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


__all__ = ["markdown_report", "ours_series", "plot_results", "text_report", "write_report"]
