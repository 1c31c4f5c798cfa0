"""The compiled heuristics against the naive grid implementations of their stated rules."""

from __future__ import annotations

import random

import pytest

from board import Board
from heuristics import HEURISTICS, UnknownHeuristic, evaluate
from heuristics.windows import window_masks
from tests import reference
from tests.helpers import grid_of, random_position


def test_there_are_69_distinct_windows_of_four_cells() -> None:
    masks = window_masks().tolist()
    assert len(masks) == 69 == len(set(masks)) == len(reference.WINDOWS)
    assert all(bin(m).count("1") == 4 for m in masks)


@pytest.mark.slow
def test_windows5000_equals_the_grid_reference_on_random_positions() -> None:
    rng = random.Random(11)
    nonzero = 0
    for _ in range(3000):
        board, played = random_position(rng, 0, 41)
        grid, player = grid_of(played)
        expected = reference.windows5000(grid, player)
        assert evaluate(board, "windows5000") == expected, played
        nonzero += expected != 0
    assert nonzero > 2000


def test_windows5000_counts_finished_fours_and_the_asymmetric_weights() -> None:
    # X has just completed four in the bottom row; O is to move.
    board = Board.from_moves("1122334")
    grid, player = grid_of([0, 0, 1, 1, 2, 2, 3])
    assert player == -1
    assert evaluate(board) == reference.windows5000(grid, -1)
    assert evaluate(board) < -5_000_000


@pytest.mark.slow
def test_threats_equals_the_grid_reference_on_random_positions() -> None:
    rng = random.Random(12)
    for _ in range(1500):
        board, played = random_position(rng, 0, 41)
        grid, player = grid_of(played)
        assert evaluate(board, "threats") == reference.threats(
            grid, player, board.first_player_to_move
        ), played


def test_unknown_heuristic_is_a_clear_error() -> None:
    with pytest.raises(UnknownHeuristic, match="windows5000"):
        evaluate(Board(), "nope")
    assert "windows5000" in HEURISTICS
