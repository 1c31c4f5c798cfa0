"""Shared helpers for the tests: random positions on both the bitboard and the naive grid."""

from __future__ import annotations

import random

from board import Board
from tests import reference


def random_position(rng: random.Random, min_plies: int, max_plies: int) -> tuple[Board, list[int]]:
    """A random position that is not over, after ``min_plies``..``max_plies`` random moves."""
    while True:
        target = rng.randint(min_plies, max_plies)
        board = Board()
        played: list[int] = []
        while len(played) < target and not board.is_over():
            col = rng.choice(board.legal_moves())
            board = board.play(col)
            played.append(col)
        if not board.is_over():
            return board, played


def grid_of(played: list[int]) -> tuple[reference.Grid, int]:
    """The naive grid after ``played`` (0-based columns) and the player to move (1 or -1)."""
    grid = reference.empty_grid()
    player = 1
    for col in played:
        grid = reference.drop(grid, col, player)
        player = -player
    return grid, player
