"""OpenSpiel's ``connect_four``: its actions, observations and states mapped to our boards (crafted
positions, random games), and our bot against OpenSpiel's own ``MCTSBot`` with random rollouts
(1,000 simulations), each colour once, in OpenSpiel's game loop."""

from __future__ import annotations

import random

import numpy as np
import pytest

from board import Board, InvalidGrid

pyspiel = pytest.importorskip("pyspiel")

from ecosystems.openspiel import (  # noqa: E402  (after the skip: it imports pyspiel)
    OurBot,
    board_from_observation,
    board_from_state,
    check_game,
    state_from_board,
)
from settings import AgentSettings, SolverSettings  # noqa: E402
from vocabulary import Mode  # noqa: E402


@pytest.fixture(scope="module")
def game() -> object:
    return pyspiel.load_game("connect_four")


def test_an_action_is_a_column_and_row_0_of_the_tensor_the_bottom(game: object) -> None:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    for action in (3, 3, 4):
        state.apply_action(action)
    tensor = np.asarray(state.observation_tensor(0)).reshape(3, 6, 7)
    assert tensor[0, 0, 3] == tensor[0, 0, 4] == 1  # x: both at the bottom
    assert tensor[1, 1, 3] == 1  # o: on top of x in column 3
    assert board_from_state(state) == Board.from_moves("445")  # Pons' 1-based columns
    assert board_from_observation(state.observation_tensor(1)) == Board.from_moves("445")
    # str(state) prints the top row first, as our board does.
    ours = [row.replace(" ", "").lower() for row in str(Board.from_moves("445")).splitlines()]
    assert str(state).splitlines() == ours[:6]


def test_random_games_read_the_same_from_every_view(game: object) -> None:
    egocentric = pyspiel.load_game("connect_four", {"egocentric_obs_tensor": True})
    rng = random.Random(2)
    for _ in range(40):
        state, mirror = game.new_initial_state(), egocentric.new_initial_state()  # type: ignore[attr-defined]
        moves: list[int] = []
        while not state.is_terminal():
            board = Board.from_moves(moves, one_based=False)
            assert board_from_state(state) == board_from_state(mirror) == board
            made = state_from_board(game, board)
            assert str(made) == str(state) and made.current_player() == state.current_player()
            assert made.legal_actions() == state.legal_actions() == board.legal_moves()
            action = rng.choice(state.legal_actions())
            moves.append(action)
            state.apply_action(action)
            mirror.apply_action(action)


def test_a_state_made_from_our_board_plays_on_to_the_same_end(game: object) -> None:
    board = Board.from_moves([1, 1, 2, 2, 3, 3], one_based=False)  # x to move, three in a row
    state = state_from_board(game, board)
    state.apply_action(4)
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert board.play(4).last_mover_won()
    state = state_from_board(game, board)
    for column in (6, 6):  # x plays elsewhere, o answers on top: nothing decided yet
        state.apply_action(column)
        board = board.play(column)
    assert not state.is_terminal() and board_from_state(state) == board


def test_bad_observations_and_other_games_are_refused() -> None:
    with pytest.raises(InvalidGrid, match="126 numbers"):
        board_from_observation([0.0] * 42)
    with pytest.raises(InvalidGrid, match="exactly one plane"):
        board_from_observation([0.0] * 126)
    with pytest.raises(ValueError, match="connect_four"):
        check_game(pyspiel.load_game("tic_tac_toe"))
    with pytest.raises(ValueError, match="'rows': 5"):
        check_game(pyspiel.load_game("connect_four", {"rows": 5}))


@pytest.mark.slow
@pytest.mark.parametrize("ours", [0, 1])
def test_no_loss_against_mcts_with_1000_simulations(game: object, ours: int) -> None:
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    rng = np.random.RandomState(ours)
    theirs = mcts.MCTSBot(game, 2, 1000, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                          solve=True, random_state=rng)
    bot = OurBot(game, AgentSettings(mode=Mode.COURSE), SolverSettings(), seconds=0.2)
    bots = [bot, theirs] if ours == 0 else [theirs, bot]
    returns = evaluate_bots(game.new_initial_state(), bots, rng)  # type: ignore[attr-defined]
    assert returns[ours] >= 0, returns
