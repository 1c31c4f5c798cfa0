"""PettingZoo's ``connect_four_v3``: observations read right (planes, row order, whose turn), and
whole games in the real environment through its AEC loop against a random legal policy."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from board import Board, InvalidGrid
from ecosystems.pettingzoo import Policy, board_from_observation, board_from_planes

with warnings.catch_warnings():  # the module API is deprecated for a registry in 1.27
    warnings.simplefilter("ignore", DeprecationWarning)
    connect_four_v3 = pytest.importorskip("pettingzoo.classic.connect_four_v3")


def planes(own: list[tuple[int, int]], theirs: list[tuple[int, int]]) -> np.ndarray:
    """Observation planes (6, 7, 2) with discs at (row, column), row 0 on top."""
    array = np.zeros((6, 7, 2), dtype=np.int8)
    for row, col in own:
        array[row, col, 0] = 1
    for row, col in theirs:
        array[row, col, 1] = 1
    return array


def test_plane_0_is_the_observer_to_move_and_row_0_the_top() -> None:
    # The opponent opened in column 3 (bottom row, 5): we are the second player, to move.
    board = board_from_planes(planes([], [(5, 3)]))
    assert board == Board.from_moves([3], one_based=False) and not board.first_player_to_move
    # We answered on top of it, they played column 4: our disc at row 4.
    board = board_from_planes(planes([(4, 3)], [(5, 3), (5, 4)]))
    assert board == Board.from_moves([3, 3, 4], one_based=False)


@pytest.mark.parametrize(("array", "message"), [
    (planes([(0, 3)], []), "floating disc"),
    (planes([(5, 3)], []), "side to move"),  # we have one disc more than they: not our turn
    (planes([(5, 3)], [(5, 3)]), "both observation planes"),
    (np.zeros((7, 6, 2)), "shape"),
])
def test_impossible_planes_are_refused(array: np.ndarray, message: str) -> None:
    with pytest.raises(InvalidGrid, match=message):
        board_from_planes(array)


def test_the_mask_says_whose_turn_it_is_and_must_match_the_planes() -> None:
    with pytest.raises(InvalidGrid, match="not this agent's turn"):
        board_from_observation({"observation": planes([], []), "action_mask": np.zeros(7)})
    full = planes([(row, 0) for row in (1, 3, 5)], [(row, 0) for row in (0, 2, 4)])
    with pytest.raises(InvalidGrid, match="does not match"):
        board_from_observation({"observation": full, "action_mask": np.ones(7, dtype=np.int8)})
    mask = np.array([0, 1, 1, 1, 1, 1, 1], dtype=np.int8)
    assert board_from_observation({"observation": full, "action_mask": mask}).moves == 6


def test_every_observation_of_a_real_game_reads_as_the_moves_played() -> None:
    env = connect_four_v3.env()
    rng = random.Random(4)
    for seed in range(3):
        env.reset(seed=seed)
        moves: list[int] = []
        for name in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            assert board_from_observation(observation) == Board.from_moves(moves, one_based=False)
            assert name == ("player_0" if len(moves) % 2 == 0 else "player_1")
            column = rng.choice([c for c in range(7) if observation["action_mask"][c]])
            moves.append(column)
            env.step(column)
        assert len(moves) >= 7


@pytest.mark.slow
@pytest.mark.parametrize("ours", ["player_0", "player_1"])
def test_whole_games_against_a_random_legal_policy_are_won(ours: str) -> None:
    policy = Policy("course", seconds=0.1)
    env = connect_four_v3.env()
    rng = np.random.default_rng(7)
    for seed in range(2):
        env.reset(seed=seed)
        rewards = {"player_0": 0.0, "player_1": 0.0}
        for name in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            rewards[name] += reward
            if termination or truncation:
                action = None
            elif name == ours:
                action = policy(observation, name)
                assert type(action) is int and observation["action_mask"][action] == 1
            else:
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
        assert rewards[ours] == 1, rewards
