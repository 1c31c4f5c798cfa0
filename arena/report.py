"""Tournament results as tables in the terminal, a markdown summary, PNG plots and raw records.

``print_report`` prints the tables with rich: styled on a terminal, plain text into a file or
a pipe; ``text_report`` is that plain text.  Rows are never wrapped or cut to a width (a log
keeps one line per player, as grep and a reader want).

``write_report(summary, out_dir)`` writes what a student puts in the course report:

- ``timing.png``: seconds per move by move number for our agent, with its budget;
- ``depth.png``: the search depth reached by move number (the moves the search decided);
- ``results.png``: wins, draws and losses per pairing and starter;
- ``summary.md``: the tables in markdown, linking the figures;
- ``results.json``: the same object ``--json`` prints; ``games.jsonl``: every game, move by move.

The figures are drawn by ``arena.figures``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from rich import box
from rich.console import Console, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from arena.figures import (
    Series,
    plot_depth_per_move,
    plot_tallies,
    plot_time_per_move,
)
from arena.results import OVERRUN_TOLERANCE, MoveStats, Standing, Summary
from arena.tournament import starts
from arena.work import game_line
from ecosystems.players import is_ours
from engine.games import PlayedMove
from terminal import console

# Wider than any table: rows are laid out at their natural width, never wrapped or cut (rich
# would squeeze them into 80 columns in a pipe, or drop columns on a narrow terminal).
UNLIMITED_WIDTH = 10_000

# --- tables -------------------------------------------------------------------------------------

def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> Table:
    """Rows under headers, the player's name on the left and the figures right-aligned."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for i, header in enumerate(headers):
        table.add_column(Text(header), justify="right" if i else "left", no_wrap=True)
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))  # Text: a label is never read as markup
    return table


def _markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows under headers as a markdown table, the figures right-aligned."""
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if i else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


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


def _indented(table: Table) -> Padding:
    return Padding(table, (0, 0, 0, 2), expand=False)


def _report_parts(summary: Summary) -> list[RenderableType]:
    """The tables ``agent.py tournament`` prints, under their headings, with blank lines."""
    plan = summary.plan
    parts: list[RenderableType] = [
        Text(f"{len(summary.outcomes)} games, {plan.games} per pairing, seed {plan.seed}, "
             f"{summary.workers} worker(s), {summary.elapsed:.1f} s"), ""]
    for pairing in summary.pairings:
        parts += [Text(f"{pairing.a.player} vs {pairing.b.player}: {pairing.games} games",
                       style="bold"),
                  _indented(_table(STANDING_HEADERS,
                                   _standing_rows([pairing.a, pairing.b], forfeits=False))), ""]
    parts += [Text("Overall", style="bold"),
              _indented(_table([*STANDING_HEADERS, "forfeits"],
                               _standing_rows(summary.overall, forfeits=True))), "",
              Text("Moves (seconds measured by the arena around each move)", style="bold"),
              _indented(_table(MOVE_HEADERS, _move_rows(summary.moves)))]
    faults = summary.faults
    if faults:
        parts += ["", Text(f"Games lost by a fault: {len(faults)}", style="bold"),
                  _indented(_fault_table(faults[:FAULTS_SHOWN]))]
        if len(faults) > FAULTS_SHOWN:
            parts.append(Text(f"  ... and {len(faults) - FAULTS_SHOWN} more (all of them in the"
                              " JSON and in report.md)"))
    stopped = summary.stopped
    if stopped:
        parts += ["", Text(f"Games stopped from outside (no result, counted for no one):"
                           f" {len(stopped)}", style="bold")]
        parts += [Text(f"  game {game}: {detail}") for game, detail in stopped[:FAULTS_SHOWN]]
    if summary.sandbox is not None:
        parts += ["", Text(summary.sandbox.line())]
    return parts


FAULT_HEADERS = ["game", "lost by", "fault", "what it did"]
FAULTS_SHOWN = 20  # in the terminal


def _fault_rows(faults: Sequence[tuple[int, str, str, str]]) -> list[list[str]]:
    return [[str(game), player, ending, detail] for game, player, ending, detail in faults]


def _fault_table(faults: Sequence[tuple[int, str, str, str]]) -> Table:
    """The games lost by a fault: the game's number right-aligned, the words on the left."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for i, header in enumerate(FAULT_HEADERS):
        table.add_column(Text(header), justify="left" if i else "right", no_wrap=i < 3)
    for row in _fault_rows(faults):
        table.add_row(*(Text(cell) for cell in row))
    return table


def _print_parts(summary: Summary, out: Console) -> None:
    out.width = UNLIMITED_WIDTH
    for part in _report_parts(summary):
        out.print(part)


def print_report(summary: Summary, stream: TextIO | None = None) -> None:
    """Print the tables of ``agent.py tournament`` (per pairing, overall, per-move figures) on
    ``stream`` (default stdout): styled on a terminal, plain text elsewhere."""
    _print_parts(summary, console(stream))


def text_report(summary: Summary) -> str:
    """The tables of ``print_report`` as plain text (no styles, whatever the environment)."""
    buffer = io.StringIO()
    _print_parts(summary, console(buffer, colour=False))
    return buffer.getvalue().rstrip("\n")


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
    lines += _markdown_table([*STANDING_HEADERS, "forfeits"],
                             _standing_rows(summary.overall, forfeits=True))
    lines += ["", "W-D-L are wins, draws and losses; score = (wins + draws / 2) / games; a forfeit "
              "is a game lost by a fault: an illegal move, a crash, a late move...", "", "## Pairings", ""]
    for pairing in summary.pairings:
        lines += [f"### {pairing.a.player} vs {pairing.b.player}", ""]
        lines += _markdown_table(STANDING_HEADERS,
                                 _standing_rows([pairing.a, pairing.b], forfeits=False))
        lines.append("")
    lines += ["## Moves", ""]
    lines += _markdown_table(MOVE_HEADERS, _move_rows(summary.moves))
    faults = summary.faults
    if faults:
        lines += ["", "## Faults", "", "Games lost by a fault (game number as in `games.jsonl`;"
                  " the kinds are in docs/outside-agents.md):", ""]
        lines += ["| " + " | ".join(FAULT_HEADERS) + " |", "|---:|---|---|---|"]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
                  for row in _fault_rows(faults)]
    stopped = summary.stopped
    if stopped:
        lines += ["", "## Stopped", "", "Games stopped from outside a player's sandbox: no result,"
                  " counted for no one:", ""]
        lines += [f"- game {game}: {detail}" for game, detail in stopped]
    if summary.sandbox is not None:
        lines += ["", "## Sandbox", "", f"The outside agents ran confined: {summary.sandbox.line()}"
                  " ([docs/outside-agents.md](docs/outside-agents.md) says what each layer"
                  " stops)."]
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
        if not is_ours(spec):
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


def game_lengths(summary: Summary, pairing: int) -> list[list[tuple[int, float]]]:
    """The games of ``pairing`` as (discs at the end, points of its first-named player), in
    two rows: the games that player started, then the games the other started."""
    rows: list[list[tuple[int, float]]] = [[], []]
    for outcome in summary.outcomes:
        task, record = outcome.task, outcome.record
        if task.pairing != pairing:
            continue
        side = 0 if task.first == task.a else 1  # the first-named player's colour
        points = record.points(side)
        if points is not None:
            rows[side].append((len(record.columns), points))
    return rows


def plot_results(summary: Summary, path: Path) -> None:
    """Wins, draws and losses of each pairing, one bar per starter, from the first-named side,
    and every game by its length beside them."""
    rows = []
    lengths: list[list[tuple[int, float]]] = []
    for index, pairing in enumerate(summary.pairings):
        a, b = pairing.a, pairing.b
        rows.append((f"{a.player} vs {b.player}\n{a.player} starts", a.as_first))
        rows.append((f"{a.player} vs {b.player}\n{b.player} starts", a.as_second))
        lengths += game_lengths(summary, index)
    plot_tallies(rows, path, f"Results of {len(summary.outcomes)} games"
                             f" ({summary.plan.games} per pairing), for the first-named player",
                 lengths)


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
            handle.write(json.dumps(game_line(outcome)) + "\n")
    (out_dir / "summary.md").write_text(markdown_report(summary, command, figures))
    written += [out_dir / "summary.md", out_dir / "results.json", out_dir / "games.jsonl"]
    return written


__all__ = ["game_lengths", "markdown_report", "ours_series", "plot_results", "print_report", "text_report",
           "write_report"]
