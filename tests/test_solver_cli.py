"""``agent.py solve`` and ``agent.py analyze``: outputs and error paths, through ``agent.main``."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import agent
from board import Board
from solver import Solver
from tests.helpers import assert_option_refused

ROOT = Path(__file__).resolve().parent.parent
Cap = pytest.CaptureFixture[str]


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: str,
        *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = agent.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_solve_writes_pons_benchmark_lines(capsys: Cap, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(capsys, monkeypatch, "2252576253462244111563365343671351441 -1\n"
                         "4455\n\n# a comment\n5554224333234511764415115 4\n", "solve")
    assert code == 0, err
    lines = [line.split() for line in out.splitlines()]
    assert [line[:2] for line in lines] == [
        ["2252576253462244111563365343671351441", "-1"], ["4455", "18"],
        ["5554224333234511764415115", "4"]]
    assert all(len(line) == 4 and int(line[2]) >= 0 and int(line[3]) >= 0 for line in lines)


def test_solve_with_the_book_answers_the_opening_at_once(
        capsys: Cap, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the book the first line alone takes hundreds of millions of nodes.
    code, out, err = run(capsys, monkeypatch, "4 -1\n1 2\n44\n", "solve", "--book")
    assert code == 0, err
    lines = [line.split() for line in out.splitlines()]
    assert [line[:2] for line in lines] == [["4", "-1"], ["1", "2"], ["44", "1"]]
    assert all(int(line[2]) < 10_000 for line in lines)


def test_solve_reports_bad_lines_and_goes_on(capsys: Cap, monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = ("4455\n44x5\n4455 many fields here\n4455 abc\n1212121\n"
             "7422341735647741166133573473242566\n")
    code, out, err = run(capsys, monkeypatch, stdin, "solve")
    assert code == 2
    lines = out.splitlines()
    assert lines[0].startswith("4455 18 ")
    assert lines[1].startswith("error: line 2: move 3 is 'x'")
    assert lines[2].startswith("error: line 3: expected 'moves' or 'moves expected'")
    assert lines[3].startswith("error: line 4: expected score 'abc' is not an integer")
    assert lines[4].startswith("error: line 5:") and "over" in lines[4]
    assert lines[5].split()[:2] == ["7422341735647741166133573473242566", "1"]
    assert len(lines) == 6
    assert err.count("error: line") == 4 and "Traceback" not in err


@pytest.mark.slow
def test_a_bad_line_shows_once_on_a_terminal() -> None:
    """On one terminal the error line would show twice: stdout's (in the line's place) stays."""
    import os
    import pty

    from solver.cli import solve_stream

    solver = Solver(24)
    leader, follower = pty.openpty()
    with open(follower, "w", closefd=True) as tty, open(os.dup(follower), "w") as tty_err:
        stdin = io.StringIO("4453\n44x\n")
        out, err = io.StringIO(), io.StringIO()
        assert solve_stream(stdin, out, err, solver) == 2  # not a terminal: both get it
        assert out.getvalue().count("error: line 2") == 1 and err.getvalue().count("error:") == 1
        stdin.seek(0)
        assert solve_stream(stdin, tty, tty_err, solver) == 2
    # Every end of the follower is closed: the leader reads what was written, then EIO.
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    shown = b"".join(chunks).decode()
    assert shown.count("error: line 2: ") == 1 and shown.startswith("4453 ")


def test_solve_flags_a_wrong_expected_score(capsys: Cap, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(capsys, monkeypatch, "4455 17\n", "solve")
    assert code == 1
    assert out.split()[1] == "18"
    assert "line 1: 4455: score 18, expected 17" in err


def test_solve_weak_and_reset(capsys: Cap, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(capsys, monkeypatch, "4455 18\n2252576253462244111563365343671351441 -1\n"
                       "23163416124767223154467471272416755633 0\n", "solve", "--weak", "--reset")
    assert code == 0
    assert [line.split()[1] for line in out.splitlines()] == ["1", "-1", "0"]


def test_solve_rejects_bad_table_bits(capsys: Cap, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(capsys, monkeypatch, "4455\n", "solve", "--table-bits", "40")
    assert code == 2 and err.startswith("error: --table-bits") and out == ""


def test_analyze_json_gives_every_columns_exact_score(capsys: Cap, monkeypatch: pytest.MonkeyPatch) -> None:
    moves = "5554224333234511764415115"
    code, out, err = run(capsys, monkeypatch, "", "analyze", moves, "--json", "--no-book")
    assert code == 0, err
    reply = json.loads(out)
    board = Board.from_moves(moves)
    expected = Solver().column_scores(board)
    columns = {c["column"]: c for c in reply["columns"]}
    assert sorted(columns) == list(range(7))  # 0-6, as the server counts
    for col in range(7):
        if board.can_play(col):
            assert columns[col]["proven"] == expected[col] and columns[col]["estimate"] is None
        else:
            assert not columns[col]["playable"] and columns[col]["proven"] is None
    assert reply["all_proven"] and reply["best"] == {"column": reply["best"]["column"],
                                                      "proven": True, "outcome": 1, "score": 4}
    assert expected[reply["best"]["column"]] == 4


def test_analyze_marks_unproven_columns_as_estimates(capsys: Cap, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(capsys, monkeypatch, "", "analyze", "4", "--json", "--no-book",
                       "--time", "0.3")
    assert code == 0
    reply = json.loads(out)
    assert not reply["all_proven"]
    estimates = [c for c in reply["columns"] if c["proven"] is None]
    assert estimates and all(c["source"] == "search" and c["estimate"] is not None
                             for c in estimates)
    assert not reply["best"]["proven"]


def test_analyze_text_shows_board_scores_and_best_move(capsys: Cap, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(capsys, monkeypatch, "", "analyze", "2252576253462244111563365343671351441",
                       "--no-book")
    assert code == 0
    assert "1 2 3 4 5 6 7" in out
    assert "O (second) to move; columns 1-7 as in move strings; results for O:" in out
    assert "'loss in 3 moves': X wins answering O's 3rd" in out
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("column"))
    assert "proven result" in header and "heuristic estimate (unproven)" in header
    assert "     4  full" in lines
    # Pons' -1 and -2 of the 0-based columns 5 and 6, in the one renderer's words.
    assert any(line.startswith("     6  loss in 2 moves") and line.endswith("<- best")
               and " solver " in line for line in lines)
    assert any(line.startswith("     7  loss in 1 move ") and line.endswith("solver")
               for line in lines)
    assert lines[-1].startswith("best move: column 6, proven by the solver: loss in 2 moves")


@pytest.mark.parametrize(("moves", "message"), [
    ("44x", "error: move 3 is 'x'"),
    ("1212121", "error: the game is over"),
    ("11111111", "error: move 7: column 1 is full"),
])
def test_analyze_errors_are_one_line(capsys: Cap, monkeypatch: pytest.MonkeyPatch, moves: str,
                                     message: str) -> None:
    code, out, err = run(capsys, monkeypatch, "", "analyze", moves)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_analyze_rejects_a_bad_time(capsys: Cap, monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run(capsys, monkeypatch, "", "analyze", "44", "--time", "-1")
    assert code == 2
    assert_option_refused(err, "analyze", "--time", "must be a number of seconds")


@pytest.mark.slow
def test_solve_as_a_subprocess_pipes_like_pons_solver() -> None:
    data = "\n".join(line for line in (ROOT / "tests/data/pons/Test_L3_R1").read_text().split("\n")[:20])
    result = subprocess.run([sys.executable, str(ROOT / "agent.py"), "solve"], input=data,
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 20


def test_analyze_takes_the_books_scores_and_its_best_column(capsys: Cap,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # "44444": the book knows the position (lost, -1) and every reply to it exactly.
    code, out, _ = run(capsys, monkeypatch, "", "analyze", "44444", "--json", "--time", "0.2")
    assert code == 0
    reply = json.loads(out)
    from solver.book import load_book

    entry = load_book().lookup(Board.from_moves("44444"))
    assert entry is not None and entry.exact
    book = [c for c in reply["columns"] if c["source"] == "book"]
    assert book and all(c["proven"] is not None for c in book)
    assert max(c["proven"] for c in book) == entry.score
    best = reply["best"]
    assert best["score"] == entry.score and best["proven"]
    assert reply["columns"][best["column"]]["proven"] == entry.score
