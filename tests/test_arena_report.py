"""Move statistics, tables and the progress bar, from hand-made games with known figures."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from arena.figures import search_depth_by_ply
from arena.report import game_lengths, print_report, text_report
from arena.results import OVERRUN_TOLERANCE, Summary, summarize
from arena.tournament import TournamentGame, make_plan, plan_tasks
from ecosystems.players import parse_spec
from engine import ProvenScore, SearchScore
from engine.games import PlayedGame, PlayedMove
from terminal import progress
from vocabulary import Ending


def _ours_game(first: str, second: str, ours_first: bool = True) -> PlayedGame:
    """Seven moves, ours (first) wins in column 0: a book move, three search moves, a solver
    move; the opponent's moves carry no decision."""
    ours = [  # (ply, source, depth, seconds, cpu seconds)
        (1, "book", 41, 0.001, 0.001),
        (3, "search", 8, 0.5, 0.5),
        (5, "search", 10, 0.5 + OVERRUN_TOLERANCE + 0.1, 0.2),  # waited for a core
        (7, "solver", 36, 0.3, 0.3),
    ]
    shift = 0 if ours_first else 1  # ours on the even discs when it plays second
    moves = [PlayedMove(ply + shift, 0, seconds, cpu, depth, source, 100,
                        SearchScore(5) if source == "search" else ProvenScore(1))
             for ply, source, depth, seconds, cpu in ours]
    moves += [PlayedMove(ply, 1, 0.01, 0.01) for ply in ((2, 4, 6) if ours_first else (1, 3, 5, 7))]
    moves.sort(key=lambda m: m.ply)
    return PlayedGame(first, second, tuple(moves), 0 if ours_first else 1, Ending.FOUR)


def _summary() -> tuple[Summary, list[TournamentGame]]:
    """Two games of ``ours:0.5`` against random, ours winning both (``_ours_game``)."""
    plan = make_plan([parse_spec("ours:0.5"), parse_spec("random")], games=2, seed=1)
    outcomes = []
    for task in plan_tasks(plan):
        names = (plan.labels[task.first], plan.labels[task.second])
        record = _ours_game(*names, ours_first=task.first == 0)
        outcomes.append(TournamentGame(task, record))
    return summarize(plan, outcomes, workers=1, elapsed=0.0), outcomes


def test_search_depth_leaves_out_book_and_solver_moves() -> None:
    summary, outcomes = _summary()
    ours, other = summary.moves
    assert ours.search_depths == [8, 10, 8, 10]
    assert ours.mean_search_depth == 9.0  # not (41 + 8 + 10 + 36) / 4
    assert dict(ours.sources) == {"book": 2, "search": 4, "solver": 2}
    assert ours.budget == 0.5
    assert (ours.over_budget, ours.over_budget_cpu) == (2, 0)
    assert other.mean_search_depth is None and other.over_budget is None
    data = ours.to_dict()
    assert (data["mean_search_depth"], data["search_moves"]) == (9.0, 4)
    assert "mean_depth" not in data
    table = text_report(summary)
    assert "mean search depth" in table
    moves_table = table.split("\nMoves")[1]
    row = next(line for line in moves_table.splitlines() if line.strip().startswith("ours:0.5"))
    assert " 9.0 " in row and "book 2, search 4, solver 2" in row
    by_ply = search_depth_by_ply([m for o in outcomes for m in o.record.moves
                                  if m.source is not None])
    assert by_ply == {3: [8], 5: [10], 4: [8], 6: [10]}  # ours second: on the even discs


def _row(text: str, section: str, player: str) -> list[str]:
    """The cells (split on blanks) of ``player``'s row in the table under ``section``."""
    table = text.split(f"\n{section}")[1]
    return next(line for line in table.splitlines() if line.strip().startswith(player)).split()


def test_tables_are_plain_rows_off_a_terminal_and_styled_on_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    summary, _ = _summary()
    monkeypatch.setenv("FORCE_COLOR", "1")  # text_report stays plain even so
    text = text_report(summary)
    assert "\x1b[" not in text
    assert text.splitlines()[0] == "2 games, 2 per pairing, seed 1, 1 worker(s), 0.0 s"
    # one line per player, however wide (never wrapped at 80 columns in a log)
    assert _row(text, "Overall", "ours:0.5") == ["ours:0.5", "2", "2", "0", "0", "1-0-0",
                                                 "1-0-0", "100.0%", "0"]
    assert _row(text, "ours:0.5 vs random", "random")[1:5] == ["2", "0", "0", "2"]
    assert _row(text, "Moves", "ours:0.5")[-3:] == ["(budget", "0.5", "s)"]
    assert max(len(line) for line in text.splitlines()) > 80
    monkeypatch.delenv("FORCE_COLOR")
    piped = io.StringIO()
    print_report(summary, piped)
    assert piped.getvalue().rstrip("\n") == text
    screen = Tty()
    print_report(summary, screen)
    assert "\x1b[1m" in screen.getvalue()  # bold headings and headers on a terminal
    assert "book 2, search 4, solver 2" in screen.getvalue()


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_in_a_log_writes_a_line_per_tenth() -> None:
    log = io.StringIO()
    with progress(20, "games", stream=log) as advance:
        for _ in range(20):
            advance(1)
    lines = log.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("games: 2/20 (10%), 0:00")
    assert lines[-1].startswith("games: 20/20 (100%)")
    assert "left" in lines[0] and "left" not in lines[-1]
    assert "\r" not in log.getvalue()


def test_progress_on_a_terminal_draws_a_bar_to_the_end() -> None:
    screen = Tty()
    with progress(3, "games vs seed", stream=screen) as advance:
        for _ in range(3):
            advance(1)
    text = screen.getvalue()
    assert "games vs seed" in text and "3/3" in text


def test_progress_disabled_writes_nothing() -> None:
    out = Tty()
    with progress(5, "games", stream=out, enabled=False) as advance:
        for _ in range(5):
            advance(1)
    assert out.getvalue() == ""


def _dense_moves() -> list[PlayedMove]:
    """Moves at every move number, from 0.00003 s to the budget and depth 5 to 20: a dot in
    every corner of the figures."""
    return [PlayedMove(ply, 0, 0.3 * 10 ** -(k % 5), 0.1, 5 + (ply + k) % 16, "search", 100,
                       SearchScore(0))
            for ply in range(1, 43) for k in range(6)]


@pytest.mark.slow
def test_legends_cover_no_data_and_depths_tick_on_whole_plies(
        tmp_path: Path, saved_figures: list[Any]) -> None:
    from arena.figures import Series, plot_depth_per_move, plot_time_per_move

    saved = saved_figures
    series = [Series("ours, course mode (windows5000)", 0.3, _dense_moves(), 6),
              Series("ours:1", 1.0, _dense_moves(), 6)]
    assert plot_time_per_move(series, tmp_path / "t.png")
    assert plot_depth_per_move(series, tmp_path / "d.png", floor=5)
    for fig in saved:
        (ax,) = fig.axes
        legends = list(fig.legends)
        if ax.get_legend() is not None:
            legends.append(ax.get_legend())
        (legend,) = legends
        box = legend.get_window_extent()
        assert not box.overlaps(ax.get_window_extent())  # outside the axes: covers no dot
        assert fig.bbox.contains(*box.min) and fig.bbox.contains(*box.max)
        # one entry per series and one per reference line (two budgets, or one floor)
        assert len(legend.get_texts()) in (3, 4)
    depth_axes = saved[1].axes[0]
    assert all(float(t).is_integer() for t in depth_axes.get_yticks())


def test_game_lengths_split_by_starter_from_the_first_named_players_side() -> None:
    summary, _ = _summary()
    started, answered = game_lengths(summary, 0)
    # Ours won both: seven discs when it started, eight when random did.
    assert started == [(7, 1.0)] and answered == [(8, 1.0)]
    by_proven = search_depth_by_ply([m for o in summary.outcomes for m in o.record.moves],
                                    proven=False)
    assert by_proven == {3: [8], 5: [10], 4: [8], 6: [10]}  # estimates: no proven search move
    assert search_depth_by_ply([m for o in summary.outcomes for m in o.record.moves],
                               proven=True) == {}
