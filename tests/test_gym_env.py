"""The course environment (``gym_connect_four``) against the board model, and its API promises."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from board import Board
from gym_connect_four import ENV_ID, ConnectFourEnv, InvalidAction, gym
from gym_connect_four.envs import InvalidBoard

# 0-based columns of a game whose 42nd disc fills the board *and* connects four (found by a
# seeded random search); no earlier disc connects four.
FULL_BOARD_WIN = "260563425632113553241354600512006036244411"


def play_through_env(env: ConnectFourEnv, columns: list[int]) -> list[tuple[float, bool]]:
    """Play ``columns`` alternately for +1 and -1, the skeleton's way; (reward, done) per move."""
    outcomes = []
    for index, col in enumerate(columns):
        if index % 2:
            env.change_player()
        _, reward, done, _ = env.step(col)
        if index % 2:
            env.change_player()
        outcomes.append((reward, done))
    return outcomes


@pytest.mark.slow
@pytest.mark.parametrize("make", [ConnectFourEnv, lambda: gym.make(ENV_ID)], ids=["direct", "gym.make"])
def test_random_games_agree_with_the_board_model(make):
    env = make()
    rng = random.Random(2024)
    for _ in range(150):
        env.reset(board=None)
        board = Board()
        while True:
            moves = board.legal_moves()
            assert env.available_moves() == frozenset(moves)
            col = rng.choice(moves)
            mover = 1 if board.moves % 2 == 0 else -1
            if mover == -1:
                env.change_player()
            state, reward, done, info = env.step(col)
            if mover == -1:
                env.change_player()
            board = board.play(col)
            # The first player's discs are +1: the grid seen with the first player to move.
            first_view = board.to_grid(1 if board.moves % 2 == 0 else -1)
            assert np.array_equal(state, first_view)
            assert info == {}
            assert done == board.is_over()
            expected = 0.5 if board.is_full() else (1.0 if board.last_mover_won() else 0.0)
            assert reward == expected
            assert env.is_win_state() == board.last_mover_won()
            if done:
                break


def test_a_full_board_that_connects_four_is_a_draw():
    env = ConnectFourEnv()
    env.reset()
    outcomes = play_through_env(env, [int(c) for c in FULL_BOARD_WIN])
    assert all(not done for _, done in outcomes[:-1])
    assert outcomes[-1] == (0.5, True)
    assert env.is_win_state()
    assert Board.from_moves([int(c) for c in FULL_BOARD_WIN], one_based=False).last_mover_won()


def test_step_does_not_switch_players_and_change_player_does():
    env = ConnectFourEnv()
    env.reset()
    env.step(0)
    board, _, _, _ = env.step(0)
    assert board[5, 0] == 1 and board[4, 0] == 1
    env.change_player()
    assert env.current_player == -1
    board, _, _, _ = env.step(0)
    assert board[3, 0] == -1


def test_four_in_a_row_wins_for_either_player():
    env = ConnectFourEnv()
    env.reset()
    env.change_player()
    rewards = [env.step(2)[1] for _ in range(4)]
    assert rewards == [0.0, 0.0, 0.0, 1.0]
    assert env.is_win_state()


def test_reset_copies_the_callers_board_and_board_returns_copies():
    grid = np.zeros((6, 7), dtype=int)
    grid[5, 3] = -1
    env = ConnectFourEnv()
    returned = env.reset(board=grid)
    grid[5, 0] = 1  # the caller changes its own array afterwards
    returned[5, 1] = 1
    env.board[5, 2] = 1
    expected = np.zeros((6, 7), dtype=int)
    expected[5, 3] = -1
    assert np.array_equal(env.board, expected)
    assert env.current_player == 1


def test_reset_rejects_a_board_of_the_wrong_shape_or_values():
    env = ConnectFourEnv()
    with pytest.raises(InvalidBoard, match="shape"):
        env.reset(board=np.zeros((7, 6)))
    with pytest.raises(InvalidBoard, match="-1, 0 or 1"):
        env.reset(board=np.full((6, 7), 2))


def test_a_full_column_or_a_column_off_the_board_raises():
    env = ConnectFourEnv()
    env.reset()
    for _ in range(6):
        env.step(4)
        env.change_player()
    assert not env.is_valid_action(4)
    assert 4 not in env.available_moves()
    with pytest.raises(InvalidAction, match="full"):
        env.step(4)
    bad: Any
    for bad in (-1, 7, 2.0, True):
        assert not env.is_valid_action(bad)
        with pytest.raises(InvalidAction, match="0-6"):
            env.step(bad)
    # Code written against the original catches a plain Exception.
    assert issubclass(InvalidAction, Exception)


def test_gym_make_works_with_numpy_2_and_forwards_the_course_methods():
    env: Any = gym.make(ENV_ID)  # gym's wrapper forwards the course methods dynamically
    state = env.reset(board=None)
    assert state.shape == (6, 7)
    state, reward, done, info = env.step(3)  # the env checker would crash here on np.bool8
    assert state[5, 3] == 1 and reward == 0.0 and not done and info == {}
    env.change_player()
    assert env.available_moves() == frozenset(range(7))
    assert env.is_valid_action(3)
    assert env.observation_space.shape == (6, 7)
    assert env.action_space.n == 7


def test_render_needs_no_display(capsys):
    env = ConnectFourEnv()
    env.reset()
    env.step(3)
    env.change_player()
    env.step(3)
    env.render()
    env.render(mode="human")
    printed = capsys.readouterr().out
    assert "| A |" in printed and "| B |" in printed
    assert "\u25cf" in printed and "\u25cb" in printed
    text = env.render(mode="ansi")
    assert text is not None and text.count("\n") == 8
    with pytest.raises(ValueError, match="render mode"):
        env.render(mode="rgb_array")
