"""``agent.py report``: its measurements on small inputs, and the whole report end to end."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import agent
from board import Board
from reporting.measure import Check, judge, our_moves, play_opponents
from settings import AgentSettings, SolverSettings
from solver import Solver

PNG = b"\x89PNG\r\n\x1a\n"


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
    assert judge("4", 3, 2, 0.001, 24) == Check(2, None, None)  # minutes of proof needed


def test_our_moves_are_found_in_the_games_with_the_moves_before_them() -> None:
    summaries = play_opponents(AgentSettings(table_bits=16, min_depth=3), SolverSettings(), 0.02,
                               2, 7, 1, lambda n: None)
    assert set(summaries) == {"bot:3", "seed", "random"}
    for summary in summaries.values():
        assert len(summary.outcomes) == 2 and summary.overall[0].player == "ours:0.02:course"
        for moves, column, ply in our_moves(summary.outcomes, 0):
            board = Board.from_moves(moves)
            assert board.moves == ply - 1 and board.can_play(column)


def test_report_writes_its_figures_and_a_report_that_links_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "report"
    code = agent.main(["report", "--out", str(out), "--quick", "--games", "2", "--time", "0.05",
                       "--seed", "3"])
    assert code == 0, capsys.readouterr().err
    text = (out / "report.md").read_text()
    figures = re.findall(r"!\[[^]]*\]\(([^)]+)\)", text)
    assert sorted(figures) == ["correctness.png", "depth_per_move.png", "depth_vs_budget.png",
                               "heuristics.png", "results.png", "time_per_move.png"]
    for name in figures:
        assert (out / name).read_bytes().startswith(PNG)
    assert "python agent.py report --out" in text and "--seed 3" in text
    assert "Python 3." in text and "numba" in text  # the machine and the libraries
    assert "| `bot:3` | 2 |" in text and "| `random` | 2 |" in text
    assert re.search(r"\*\*\d+ of them \([\d.]+%\) kept it\*\*|kept it", text)
    assert "unproven" in text
