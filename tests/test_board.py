"""The board model against counts that must hold and against the naive grid implementation."""

from __future__ import annotations

import random

import numpy as np
import pytest

from board import Board, IllegalMove, InvalidGrid, InvalidMoveString
from board.keys import TableBits
from tests import reference
from tests.helpers import grid_of, random_position


def perft(board: Board, depth: int) -> int:
    """Number of move sequences of length ``depth`` (a finished game ends a sequence early)."""
    if depth == 0 or board.is_over():
        return 1
    return sum(perft(board.play_unchecked(c), depth - 1) for c in board.legal_moves())


def perft_grid(grid: reference.Grid, player: int, depth: int) -> int:
    if depth == 0 or reference.has_four(grid, -player) or not reference.legal(grid):
        return 1
    return sum(
        perft_grid(reference.drop(grid, c, player), -player, depth - 1)
        for c in reference.legal(grid)
    )


@pytest.mark.parametrize("depth", range(7))
def test_perft_from_empty_board_is_seven_to_the_n(depth: int) -> None:
    assert perft(Board(), depth) == 7**depth


def test_perft_matches_naive_grid_in_random_positions() -> None:
    rng = random.Random(7)
    differing = 0
    for _ in range(12):
        board, played = random_position(rng, 8, 36)
        grid, player = grid_of(played)
        depth = 4
        count = perft(board, depth)
        assert count == perft_grid(grid, player, depth), played
        differing += count != 7**depth
    assert differing > 0  # the sample reaches full columns and finished games


@pytest.mark.slow
def test_win_detection_matches_naive_grid_over_random_games() -> None:
    rng = random.Random(1)
    wins = draws = 0
    for _ in range(1500):
        board = Board()
        grid, player = reference.empty_grid(), 1
        while True:
            col = rng.choice(board.legal_moves())
            assert board.is_winning_move(col) == reference.has_four(
                reference.drop(grid, col, player), player
            )
            board = board.play(col)
            grid = reference.drop(grid, col, player)
            assert board.last_mover_won() == reference.has_four(grid, player)
            assert np.array_equal(board.to_grid(-player), np.array(grid))
            if board.last_mover_won():
                wins += 1
                break
            if board.is_full():
                draws += 1
                break
            player = -player
    assert wins > 1000 and wins + draws == 1500


def test_key_is_unique_over_many_positions() -> None:
    rng = random.Random(3)
    seen: dict[int, tuple[int, int]] = {}
    for _ in range(3000):
        board, _ = random_position(rng, 0, 30)
        identity = (board.position, board.mask)
        assert seen.setdefault(board.key, identity) == identity


def test_move_string_round_trip_and_notation() -> None:
    board = Board.from_moves("4453")
    assert board.moves == 4
    assert board == Board.from_moves([3, 3, 4, 2], one_based=False)
    assert board.to_grid(1)[5].tolist() == [0, 0, -1, 1, 1, 0, 0]
    assert board.to_grid(1)[4].tolist() == [0, 0, 0, -1, 0, 0, 0]
    assert Board.from_moves("") == Board()


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        ("448", "move 3 is '8'"),
        ("40", "move 2 is '0'"),
        ("4a", "move 2 is 'a'"),
        ("4\uff14", "move 2 is '\uff14'"),  # a fullwidth 4: a digit to str.isdigit(), not here
        ("\u0664", "move 1 is '\u0664'"),  # an Arabic-Indic 4
        ("1111111", "move 7: column 1 is full"),
        ("12121212", "move 8: the game was already over"),
    ],
)
def test_bad_move_strings_name_the_move(moves: str, message: str) -> None:
    with pytest.raises(InvalidMoveString, match=message):
        Board.from_moves(moves)


def test_play_rejects_illegal_moves() -> None:
    full = Board.from_moves("444444")
    with pytest.raises(IllegalMove, match="column 3 is full"):
        full.play(3)
    with pytest.raises(IllegalMove, match="out of range"):
        Board().play(7)
    with pytest.raises(IllegalMove, match="out of range"):
        Board().play(-1)
    with pytest.raises(IllegalMove, match="game is over"):
        Board.from_moves("1212121").play(4)
    with pytest.raises(IllegalMove, match="integer"):
        Board().play(True)


def test_grid_round_trip_from_both_sides() -> None:
    rng = random.Random(5)
    for _ in range(300):
        board, _ = random_position(rng, 0, 41)
        for to_move in (1, -1):
            assert Board.from_grid(board.to_grid(to_move), to_move) == board


def test_the_grid_by_player_and_the_player_to_move_do_not_depend_on_who_moves() -> None:
    first = Board.from_moves("4453")
    second = first.play(2)
    assert (first.player_to_move, second.player_to_move) == (1, 2)
    assert first.grid_by_player()[5].tolist() == [0, 0, -1, 1, 1, 0, 0]
    assert second.grid_by_player()[5].tolist() == [0, 0, -1, 1, 1, 0, 0]
    assert second.grid_by_player()[4].tolist() == [0, 0, 1, -1, 0, 0, 0]


def test_four_cells_are_the_winning_line_and_moves_reaching_rebuilds_a_game() -> None:
    from board.board import moves_reaching

    won = Board.from_moves("4455667")
    assert won.four_cells() == [(5, 3), (5, 4), (5, 5), (5, 6)]
    assert Board.from_moves("445566").four_cells() == []
    rng = random.Random(8)
    for _ in range(200):
        board, _ = random_position(rng, 0, 41)
        again = Board.from_moves(moves_reaching(board))
        assert (again.position, again.mask) == (board.position, board.mask)
    with pytest.raises(InvalidGrid, match="the side to move has four"):
        moves_reaching(Board(won.opponent, won.mask, won.moves + 1))


def test_grid_does_not_keep_callers_array() -> None:
    grid = Board.from_moves("44").to_grid(1)
    board = Board.from_grid(grid, 1)
    grid[5][0] = 1
    assert board == Board.from_moves("44")


GRID_LITERAL = """
. . . . . . .
. . . . . . .
. . . . . . .
. . . x . . .
. . . o . . .
. . o x x . .
"""


def parse_literal(text: str) -> list[list[int]]:
    values = {"x": 1, "o": -1, ".": 0}
    return [[values[c] for c in line.split()] for line in text.strip().splitlines()]


def test_grid_literal_reads_as_expected() -> None:
    board = Board.from_grid(parse_literal(GRID_LITERAL), to_move=-1)
    assert board == Board.from_moves("44534")


@pytest.mark.parametrize(
    ("grid", "to_move", "message"),
    [
        ([[0] * 7] * 5, 1, "shape"),
        ([[0] * 6] * 6, 1, "shape"),
        ([[0] * 6 + [2]] + [[0] * 7] * 5, 1, "values must be -1, 0 or 1, found \\[2\\]"),
        ([["a"] * 7] * 6, 1, "numbers"),
        ([[1] + [0] * 6] + [[0] * 7] * 5, 1, "floating disc in column 0"),
        ([[0] * 7] * 5 + [[1, 1] + [0] * 5], -1, "side to move"),
        ([[0] * 7] * 5 + [[1] + [0] * 6], 1, "side to move"),
        ([[0] * 7] * 6, 0, "to_move"),
    ],
)
def test_bad_grids_are_rejected_with_reason(grid: list[list[object]], to_move: int, message: str) -> None:
    with pytest.raises(InvalidGrid, match=message):
        Board.from_grid(grid, to_move)


def test_table_bits_give_a_prime_size_in_range_and_say_what_is_wrong_outside() -> None:
    rule = TableBits(10, 12, "a table of 2**bits things")
    assert [rule.size(b) for b in (10, 11, 12)] == [1031, 2053, 4099]  # the primes just above
    assert rule.problem(10) is None and rule.problem(12) is None
    assert rule.problem(13) == "must be 10-12 (a table of 2**bits things), not 13"
    with pytest.raises(ValueError, match=r"^must be 10-12 \(a table of 2\*\*bits things\), not 9$"):
        rule.size(9)


def test_a_discs_option_names_a_range_of_positions_with_a_move_left() -> None:
    from board.board import disc_range, disc_range_problem
    assert disc_range("4-20") == range(4, 21) and disc_range("7") == range(7, 8)
    assert disc_range("41") == range(41, 42)
    for bad in ("0-5", "9-6", "6-42", "x", ""):
        assert disc_range(bad) is None, bad
    assert disc_range_problem("9-6") == "--discs must be A-B with 1 <= A <= B <= 41, not '9-6'"
