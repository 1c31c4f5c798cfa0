"""The arena's game loop: records that replay to the end they claim, and forfeits instead of crashes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.match import GameAbandoned, play_game
from board import Board
from ecosystems.players import parse_player
from engine.games import PlayedGame
from engine.players import RandomPlayer
from vocabulary import Ending


class Fixed:
    """Answers the same thing every time (a column, or something that is not one)."""

    def __init__(self, answer: object, name: str = "fixed") -> None:
        self.answer = answer
        self.name = name

    def new_game(self) -> None:
        pass

    def choose(self, board: Board) -> int:
        return self.answer  # type: ignore[return-value]


class Broken:
    name = "broken"

    def new_game(self) -> None:
        pass

    def choose(self, board: Board) -> int:
        raise RuntimeError("lost its marbles")


class Quitter:
    name = "quitter"

    def new_game(self) -> None:
        pass

    def choose(self, board: Board) -> int:
        raise GameAbandoned("bye")


def test_random_games_replay_to_the_recorded_end() -> None:
    ends = set()
    for seed in range(60):
        record = play_game(RandomPlayer(random.Random(seed)), RandomPlayer(random.Random(-seed)))
        assert [m.ply for m in record.moves] == list(range(1, len(record.moves) + 1))
        assert [m.side for m in record.moves] == [i % 2 for i in range(len(record.moves))]
        board = Board.from_moves(record.columns, one_based=False)  # raises on an impossible move
        assert board.is_over()
        if record.ending is Ending.FOUR:
            assert board.last_mover_won()
            assert record.winner == record.moves[-1].side
        else:
            assert record.ending is Ending.FULL
            assert record.winner is None and board.is_full() and not board.last_mover_won()
        ends.add(record.ending)
        assert all(m.depth is None and m.source is None for m in record.moves)
        assert all(m.seconds is not None and m.seconds >= 0 and m.cpu_seconds is not None
                   and m.cpu_seconds >= 0 for m in record.moves)
    assert Ending.FOUR in ends


def test_a_full_column_forfeits_the_game() -> None:
    # Both play column 0: six discs fill it without four in a row, the seventh is impossible.
    record = play_game(Fixed(0, "a"), Fixed(0, "b"))
    assert record.ending is Ending.ILLEGAL
    assert record.winner == 1
    assert len(record.moves) == 6
    assert "column 0 is full" in record.detail
    assert record.forfeit_seconds is not None


@pytest.mark.parametrize("answer", [7, -1, None, "3", 2.0, True])
def test_answers_that_are_not_columns_forfeit(answer: object) -> None:
    record = play_game(RandomPlayer(random.Random(1)), Fixed(answer))
    assert record.ending is Ending.ILLEGAL
    assert record.winner == 0
    assert len(record.moves) == 1


def test_numpy_integers_are_columns() -> None:
    record = play_game(Fixed(np.int64(3)), RandomPlayer(random.Random(2)))
    assert record.moves[0].column == 3
    assert type(record.moves[0].column) is int


def test_a_crashing_player_loses_instead_of_stopping_the_arena() -> None:
    record = play_game(RandomPlayer(random.Random(3)), Broken())
    assert record.ending is Ending.ERROR
    assert record.winner == 0
    assert "RuntimeError: lost its marbles" in record.detail


def test_quitting_ends_the_game_without_a_result() -> None:
    with pytest.raises(GameAbandoned):
        play_game(RandomPlayer(random.Random(3)), Quitter())


def test_observer_sees_every_move_and_names_are_kept() -> None:
    seen = []
    record = play_game(RandomPlayer(random.Random(4)), RandomPlayer(random.Random(5)),
                       names=("x", "y"), on_move=lambda board, move: seen.append((board, move)))
    assert [move for _, move in seen] == list(record.moves)
    assert all(board.moves == move.ply for board, move in seen)
    assert (record.first, record.second) == ("x", "y")


def test_a_game_can_start_after_an_opening() -> None:
    # After "4455" the side to move plays column 2 (0-based) four times: four in a column.
    record = play_game(Fixed(2), Fixed(6), opening=(3, 3, 4, 4))
    assert record.moves[0].ply == 5
    assert record.opening == (3, 3, 4, 4)
    assert record.columns == (3, 3, 4, 4, 2, 6, 2, 6, 2, 6, 2)
    assert record.move_string == "44553737373"
    assert (record.winner, record.ending) == (0, Ending.FOUR)
    with pytest.raises(ValueError, match="even number"):
        play_game(Fixed(2), Fixed(6), opening=(3,))


def test_record_round_trips_through_a_dict() -> None:
    record = play_game(RandomPlayer(random.Random(6)), Fixed(0))
    again = PlayedGame.from_dict(record.to_dict())
    assert again == record


def test_our_engine_explains_its_moves() -> None:
    ours = parse_player("ours:0.05")
    ours.new_game()
    record = play_game(ours, RandomPlayer(random.Random(7)))
    mine = [m for m in record.moves if m.side == 0]
    theirs = [m for m in record.moves if m.side == 1]
    assert mine and all(m.depth is not None and m.depth >= 1 for m in mine)
    assert all(m.source for m in mine) and all(m.nodes is not None for m in mine)
    assert all(m.depth is None for m in theirs)
    assert record.winner == 0  # our engine does not lose to random play
