"""``agent.py report``: its measurements on small inputs, and the whole report end to end."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import agent
from batch import open_executor
from board import Board
from reporting.cli import ReportOptions, plan_for
from reporting.document import _plot_budgets, correctness_text, plot_correctness
from reporting.measure import BudgetPoint, Check, judge, our_moves, play_opponents
from settings import AgentSettings, SolverSettings
from solver import Solver
from solver.book import Book, build_book, load_book

PNG = b"\x89PNG\r\n\x1a\n"


def outcome_only(book: Book) -> Book:
    """``book`` with only the outcome of each position, as the complete layers store it."""
    scores = np.sign(book.scores).astype(np.int8)
    return Book.of(book.keys, scores, book.columns, (scores == 0).astype(np.uint8), -1)


def weak_score(solver: Solver, board: Board) -> int:
    solution = solver.solve(board, weak=True)
    assert solution is not None  # no deadline
    return solution.score


def test_judge_says_whether_a_move_keeps_the_outcome() -> None:
    # Pons' Middle-Easy position "5554224333234511764415115" is won for the side to move, by
    # one column only at most: the solver says which columns keep the win.
    moves = "5554224333234511764415115"
    board = Board.from_moves(moves)
    solver = Solver()
    keeping = [c for c in board.legal_moves()
               if board.is_winning_move(c) or weak_score(solver, board.play(c)) == -1]
    losing = [c for c in board.legal_moves() if c not in keeping]
    assert keeping and losing
    assert judge(moves, keeping[0], 26, 5.0, 24) == Check(26, True, True)
    assert judge(moves, losing[0], 26, 5.0, 24) == Check(26, True, False)


def test_a_position_without_a_choice_that_matters_is_not_critical() -> None:
    # After these moves every one of the seven columns keeps the win for the side to move
    # (found with the solver): no move can change the outcome.
    moves = "5777131474464721"
    board = Board.from_moves(moves)
    solver = Solver()
    assert all(board.is_winning_move(c) or weak_score(solver, board.play(c)) == -1
               for c in board.legal_moves())
    for column in board.legal_moves():
        assert judge(moves, column, 17, 5.0, 24) == Check(17, False, True)


def test_an_unprovable_position_is_counted_as_unproven() -> None:
    # Minutes of proof needed, and no book to take the outcomes from.
    assert judge("4", 3, 2, 0.001, 24, book=build_book({})) == Check(2, None, None)


def test_the_book_settles_what_the_solver_cannot_in_time() -> None:
    # The positions after every first move are in the book: the empty board is judged in a
    # millisecond (only the centre wins), where the solver would need minutes.
    for column in range(7):
        check = judge("", column, 1, 0.001, 24)
        assert check == Check(1, True, column == 3) and check.booked == 7


@pytest.mark.slow
def test_an_outcome_only_entry_is_enough_to_judge() -> None:
    # After "4" every reply keeps the loss for the side to move (the centre opening wins).
    book = outcome_only(load_book())
    assert not book.exact.all()
    for column in range(7):
        check = judge("4", column, 2, 0.001, 24, book=book)
        assert check == Check(2, False, True) and check.booked == 7


def test_the_correctness_text_accounts_for_every_move() -> None:
    checks = [Check(9, True, True, 7), Check(9, True, False), Check(11, None, None),
              Check(12, False, True), Check(14, False, True)]
    text = correctness_text(checks, 0.6)
    assert "Our 5 moves" in text
    assert "2 in positions where some legal move changes the exact outcome" in text
    assert "**1 of them (50.0%) kept it** and 1 did not" in text
    assert "1 in positions the referee could not settle within its budget of 0.6 s" in text
    assert "2 in positions where every legal move leads to the same outcome" in text
    assert "(2 + 1 + 2 = 5)" in text
    assert "The other moves" not in text


def _overlaps_an_axes(fig: Any) -> bool:
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    assert legends
    return any(legend.get_window_extent().overlaps(ax.get_window_extent())
               for legend in legends for ax in fig.axes)


def test_the_correctness_figure_counts_every_kind_on_whole_ticks(
        tmp_path: Path, saved_figures: list[Any]) -> None:
    checks = [Check(3, None, None), Check(5, True, True), Check(5, False, True),
              Check(7, True, False)]
    plot_correctness(checks, 0.6, tmp_path / "c.png")
    (fig,) = saved_figures
    (ax,) = fig.axes
    title = ax.get_title()
    assert "Our 4 moves" in title and "1 of the 2 in positions where a move changes" in title
    assert "1 unproven" in title and "1 where every move leads to the same outcome" in title
    ticks = [t for t in ax.get_yticks() if ax.get_ylim()[0] <= t <= ax.get_ylim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert len(labels) == 4 and any("unproven" in label for label in labels)
    assert not _overlaps_an_axes(fig)


def test_the_depth_figure_gives_each_series_its_own_colour(
        tmp_path: Path, saved_figures: list[Any]) -> None:
    from matplotlib.colors import to_hex

    points = [BudgetPoint(s, 8, 10 + s, 9, 4e6) for s in (0.1, 0.3, 1.0, 3.0)]
    _plot_budgets(points, tmp_path / "d.png")
    (fig,) = saved_figures
    colours = [to_hex(line.get_color()) for ax in fig.axes for line in ax.get_lines()]
    assert len(colours) == 3 and len(set(colours)) == 3
    left = fig.axes[0]
    assert all(float(t).is_integer() for t in left.get_yticks())


def test_quick_and_full_reports_measure_depth_from_a_tenth_to_three_seconds() -> None:
    for quick in (True, False):
        plan = plan_for(ReportOptions(out="r", quick=quick), 1.0)
        assert plan.budgets[0] == 0.1 and plan.budgets[-1] == 3.0


def test_the_evaluations_are_tested_at_a_short_time_per_move() -> None:
    quick, full = (plan_for(ReportOptions(out="r", quick=q), 3.0) for q in (True, False))
    assert quick.sprt_seconds == full.sprt_seconds == 0.1
    assert quick.sprt_pairs < full.sprt_pairs
    assert plan_for(ReportOptions(out="r", time=0.05), 3.0).sprt_seconds == 0.05


@pytest.mark.slow
def test_our_moves_are_found_in_the_games_with_the_moves_before_them() -> None:
    with open_executor(1) as here:
        summaries = play_opponents(AgentSettings(table_bits=16, min_depth=3), SolverSettings(),
                                   0.02, 2, 7, here, lambda n: None)
    assert set(summaries) == {"bot:3", "seed", "random"}
    for summary in summaries.values():
        assert len(summary.outcomes) == 2 and summary.overall[0].player == "ours:0.02:course"
        for moves, column, ply in our_moves(summary.outcomes, 0):
            board = Board.from_moves(moves)
            assert board.moves == ply - 1 and board.can_play(column)


@pytest.mark.slow
def test_report_writes_its_figures_and_a_report_that_links_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("reporting.cli.BUDGETS", (0.1, 0.3))  # 3 s would add 24 s to the test
    monkeypatch.setattr("reporting.cli.QUICK_SPRT_PAIRS", 3)  # a test's pairs, not its verdict
    out = tmp_path / "report"
    code = agent.main(["report", "--out", str(out), "--quick", "--games", "2", "--time", "0.05",
                       "--seed", "3"])
    assert code == 0, capsys.readouterr().err
    text = (out / "report.md").read_text()
    figures = re.findall(r"!\[[^]]*\]\(([^)]+)\)", text)
    assert sorted(figures) == ["correctness.png", "depth_per_move.png", "depth_vs_budget.png",
                               "evaluations.png", "results.png", "time_per_move.png"]
    for name in figures:
        assert (out / name).read_bytes().startswith(PNG)
    assert "python agent.py report --out" in text and "--seed 3" in text
    assert "Python 3." in text and "numba" in text  # the machine and the libraries
    assert "| `bot:3` | 2 |" in text and "| `random` | 2 |" in text
    assert re.search(r"\*\*\d+ of them \([\d.]+%\) kept it\*\*", text)
    assert "unproven" in text
    # Depth against the budget: repeated in one process, at 0.1 s ... 3 s, not by `move`,
    # whose budget pays for loading.
    assert "| 0.3 |" in text and "python bench/search_bench.py --budgets" in text
    assert 'move "" --mode course --time' not in text
    # The one column convention and the one scale of results, said once; why won endgames
    # stop at the minimum depth, said under the depth figure.
    assert "Columns are numbered 1-7 as in move strings; X is the player who moved first." in text
    assert "'win in 3 moves': its 3rd move from now wins" in text
    assert "the deepening stops once the result is proven" in text
    assert "every game by the discs played when it ended" in text
    # The evaluations: a sequential test of each other one against the configured one.
    evaluations = text.split("## Evaluations compared")[1]
    for name in ("threats", "windows_tuned", "learned"):
        assert re.search(rf"\| `{name}` \| [^|]+ \| 3 \|", evaluations), evaluations
    assert "python agent.py sprt ours:0.05:windows5000:course ours:0.05:learned:course" \
        " --max-pairs 3 --seed 3" in evaluations
    assert evaluations.count("- No verdict on whether ours:0.05:") + \
        evaluations.count("- H") == 3
