"""The one way a proven result is written (``vocabulary.Proven``), the column convention, and
that every scale (Pons' of the book and the solver, the heuristic search's) reaches the same
words for the same position."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from board import Board
from engine.decision import ProvenScore, SearchScore
from engine.games import PlayedMove
from search import deepest, iterative_deepening
from solver import Solver, result
from vocabulary import (
    Mode,
    Outcome,
    Proven,
    Source,
    column_label,
    columns_text,
    scale_note,
    side_words,
    symbol,
)

PONS = Path(__file__).parent / "data" / "pons" / "Test_L3_R1"


@pytest.mark.parametrize(("proven", "words", "short"), [
    (Proven(Outcome.WIN, 1), "win in 1 move", "+1"),
    (Proven(Outcome.WIN, 5), "win in 3 moves", "+3"),
    (Proven(Outcome.WIN, 41), "win in 21 moves", "+21"),
    (Proven(Outcome.LOSS, 2), "loss in 1 move", "\u22121"),
    (Proven(Outcome.LOSS, 6), "loss in 3 moves", "\u22123"),
    # A draw: the side to move's moves until the board is full, odd or even cells left.
    (Proven(Outcome.DRAW, 1), "draw (the board fills up in 1 move)", "="),
    (Proven(Outcome.DRAW, 5), "draw (the board fills up in 3 moves)", "="),
    (Proven(Outcome.DRAW, 6), "draw (the board fills up in 3 moves)", "="),
    (Proven(Outcome.WIN), "win (distance not proven)", "win"),
    (Proven(Outcome.LOSS), "loss (distance not proven)", "loss"),
    # Only the draw held, "is it won?" not settled: a bound, not an outcome.
    (Proven(Outcome.DRAW, at_least=True), "draw or better (a win not ruled out)", "\u2265="),
])
def test_the_renderer_table(proven: Proven, words: str, short: str) -> None:
    assert proven.words() == words
    assert str(proven) == words
    assert proven.short() == short


@pytest.mark.parametrize(("outcome", "discs"), [
    (Outcome.WIN, 2), (Outcome.WIN, 0), (Outcome.LOSS, 1), (Outcome.LOSS, 3),
    (Outcome.DRAW, 0)])
def test_a_distance_the_outcome_cannot_have_is_refused(outcome: Outcome, discs: int) -> None:
    # A win ends on one of the mover's discs (odd distances), a loss on the opponent's (even).
    with pytest.raises(ValueError):
        Proven(outcome, discs)


def test_only_a_draw_without_a_distance_is_a_lower_bound() -> None:
    with pytest.raises(ValueError):
        Proven(Outcome.WIN, at_least=True)
    with pytest.raises(ValueError):
        Proven(Outcome.DRAW, 4, at_least=True)


def test_the_engines_held_draw_is_said_as_a_bound_and_kept_in_the_record() -> None:
    held = ProvenScore(0, exact=False, held=True)
    assert held.words(20) == "draw or better (a win not ruled out)"
    # Without ``held`` an outcome-only 0 is an exact draw (the weak solve's sign is exact).
    assert ProvenScore(0, exact=False).words(20) == "draw (the board fills up in 11 moves)"
    move = PlayedMove(21, 3, 0.5, score=held)
    assert PlayedMove.from_dict(move.to_dict()).score == held
    assert PlayedMove.from_dict(PlayedMove(21, 3, 0.5, score=ProvenScore(1, False)).to_dict()
                                ).score == ProvenScore(1, False)


@pytest.mark.parametrize(("score", "moves", "words"), [
    # First player to move (even discs on the board).
    (1, 0, "win in 21 moves"),                 # the empty board: X's 21st disc, the 41st
    (18, 4, "win in 2 moves"),                 # "4455": X completes four with its 2nd move
    (21, 0, "win in 1 move"),                  # Pons' largest win: at once
    (-3, 2, "loss in 18 moves"),               # O (k = 19) wins on the 38th disc
    # Second player to move (odd discs).
    (-1, 1, "loss in 20 moves"),               # after "4": X wins on the 41st disc
    (-15, 11, "loss in 1 move"),               # X (k = 7) wins on the 13th disc
    (2, 1, "win in 20 moves"),                 # O (k = 20) wins on the 40th disc
    (0, 1, "draw (the board fills up in 21 moves)"),
    (0, 40, "draw (the board fills up in 1 move)"),
])
def test_pons_score_converts_for_either_player(score: int, moves: int, words: str) -> None:
    assert result(score, moves).words() == words
    assert ProvenScore(score).words(moves) == words


def test_an_outcome_alone_has_no_distance_but_a_draw_fills_the_board() -> None:
    assert result(5, 10, exact=False) == Proven(Outcome.WIN)
    assert result(-1, 11, exact=False).words() == "loss (distance not proven)"
    assert result(0, 30, exact=False) == Proven(Outcome.DRAW, 12)


def test_search_and_solver_give_the_same_words_for_the_same_position() -> None:
    """Positions of Pons' End-Easy set: wherever the heuristic search proves the result, its
    words are the solver's (Pons' score from the set)."""
    proven: list[tuple[int, Outcome]] = []
    for line in PONS.read_text().splitlines()[:40]:
        moves, score = line.split()
        board = Board.from_moves(moves)
        found = deepest(iterative_deepening(board, time.perf_counter() + 0.3))
        searched = SearchScore(found.score, found.proven)
        if not searched.proven:
            continue
        solved = ProvenScore(int(score))
        assert searched.result(board.moves) == solved.result(board.moves), moves
        assert searched.words(board.moves) == solved.words(board.moves)
        proven.append((board.moves % 2, solved.outcome))
    # Both players to move, wins and losses, were among them.
    assert {parity for parity, _ in proven} == {0, 1}
    assert {Outcome.WIN, Outcome.LOSS} <= {outcome for _, outcome in proven}


def test_an_estimate_is_not_worded_as_a_result() -> None:
    assert SearchScore(-37).result(10) is None
    assert SearchScore(-37).words(10) == "-37 (heuristic)"
    # Seen to the end without a win: a draw, the board filled.
    assert SearchScore(0, True).words(41) == "draw (the board fills up in 1 move)"


def test_columns_for_people_are_1_to_7_and_x_moved_first() -> None:
    assert [column_label(c) for c in range(7)] == list("1234567")
    assert columns_text([3, 3, 4, 2]) == "4 4 5 3"
    assert symbol(True) == "X" and symbol(False) == "O"
    assert side_words(True) == "X (first)" and side_words(False) == "O (second)"
    assert scale_note("X", "O").startswith("'win in 3 moves': X's 3rd move from now wins")


def test_the_names_compare_equal_to_their_strings() -> None:
    # The JSON and the record keep the strings they had.
    assert Mode.STRONGEST == "strongest" and Source.BOOK == "book"
    assert Outcome.of(-7) is Outcome.LOSS and -Outcome.WIN is Outcome.LOSS


def test_every_front_end_says_the_same_result_in_the_same_words(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """One position, past the book: X wins in 2 moves with column 4.  `move` in both modes
    (the solver's proof and the search's), `analyze`, the board's verdicts and the picture's
    row all say it with the one renderer, counting columns 1-7."""
    import agent
    from analysisboard.verdicts import column_entry
    from engine.analyze import ColumnView

    moves = "36762377233722"
    said = []
    for mode in ("strongest", "course"):
        assert agent.main(["move", moves, "--mode", mode, "--time", "2"]) == 0
        out = capsys.readouterr().out
        assert "move: column 4 (1-7, as in move strings; 3 in JSON" in out
        said.append(out)
    assert "proven by the solver: win in 2 moves for X (first)" in said[0]
    assert "score: win in 2 moves for X (first) (proven by the heuristic search" in said[1]
    assert agent.main(["analyze", moves, "--time", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("     4  win in 2 moves ") and line.endswith("<- best")
               for line in lines)
    assert lines[-1].startswith("best move: column 4, proven by the solver: win in 2 moves")
    # The board's API entry of that column, from the solver's Pons score (+13: X's 9th disc).
    board = Board.from_moves(moves)
    score = Solver(24).column_score(board, 3)
    assert score == 13
    entry = column_entry(ColumnView(3, True, score, "exact", Source.SOLVER), board.moves, 1.0)
    assert entry["words"] == "win in 2 moves" and entry["short"] == "+2"
    # The picture's row under column 4.
    picture = tmp_path / "p.svg"
    assert agent.main(["board-image", moves, "--out", str(picture), "--verdicts",
                       "--time", "2"]) == 0
    text = picture.read_text()
    assert "<!-- +2 -->" in text and "X (first player, cross) to move" in text
