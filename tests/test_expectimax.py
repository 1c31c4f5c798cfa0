"""Expectimax against a uniformly random opponent (``search.expectimax``): the compiled value
against a plain reference, the driver, the engine, the spec and the command-line options."""

from __future__ import annotations

import random

import pytest

import agent
import search.iterative as iterative_module
from board import Board, bits
from ecosystems.players import parse_spec
from engine import Engine
from heuristics import evaluate
from search import WIN, TranspositionTable, deepest, iterative_deepening
from search.expectimax import (
    ExpectimaxTable,
    expectimax,
    expectimax_deepening,
    new_best,
    root_values,
)
from settings import AgentSettings, UsageError
from tests.helpers import engine_spec
from timecontrol import Limit
from timecontrol.counters import new_counters
from vocabulary import Mode


def reference(board: Board, depth: int, ours: bool) -> float:
    """The module's contract written plainly: expectimax from the maximiser's view."""
    n = board.moves
    legal = board.legal_moves()
    if ours and any(board.is_winning_move(c) for c in legal):
        return WIN - (n + 1)
    if depth == 0:
        h = evaluate(board)
        return h if ours else -h
    values: list[float] = []
    for col in legal:
        if not ours and board.is_winning_move(col):
            values.append(-(WIN - (n + 1)))
        elif n + 1 == bits.CELLS:
            values.append(0)
        else:
            values.append(reference(board.play(col), depth - 1, not ours))
    return max(values) if ours else sum(values) / len(values)


def compiled(board: Board, depth: int, ours: bool = True) -> float:
    table = ExpectimaxTable(bits=12)
    return float(expectimax(board.position, board.mask, board.moves, depth, ours, 0,
                            evaluate_weights(), table.keys, table.values, table.depths,
                            new_best(), new_counters()))


def evaluate_weights():  # the weights of windows5000 (it has none)
    from heuristics import heuristic_weights

    return heuristic_weights("windows5000")


def random_positions(count: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        board = Board()
        for _ in range(rng.randrange(0, 36)):
            board = board.play(rng.choice(board.legal_moves()))
            if board.is_over():
                break
        if not board.is_over():
            boards.append(board)
    return boards


@pytest.mark.slow
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_the_compiled_value_is_the_reference_expectimax(depth: int) -> None:
    for board in random_positions(40, seed=depth):
        for ours in (True, False):
            assert compiled(board, depth, ours) == pytest.approx(reference(board, depth, ours),
                                                                 rel=1e-12, abs=1e-6)


def test_the_driver_gives_each_depth_its_value_with_one_table_and_in_small_slices(
        monkeypatch: pytest.MonkeyPatch) -> None:
    board = next(b for b in random_positions(40, seed=7)  # a position nothing ends early
                 if 8 < b.moves < 30 and abs(reference(b, 2, True)) < WIN - 100)
    whole = list(expectimax_deepening(board, float("inf"), max_depth=4))
    assert [r.depth for r in whole] == [1, 2, 3, 4]
    for result in whole:  # the table kept from depth to depth changes no value
        assert result.score == round(reference(board, result.depth, True))
        assert result.score == round(max(root_values(board, result.depth).values()))

    class StepClock:  # 1 s per read: every slice is the smallest, restarted again and again
        now = 0.0

        def __call__(self) -> float:
            self.now += 1.0
            return self.now

    # The slices are those of the deepening loop both searches share (search.iterative).
    monkeypatch.setattr(iterative_module, "MIN_SLICE_NODES", 20)
    monkeypatch.setattr(iterative_module, "FIRST_SLICE_NODES", 20)
    sliced = list(expectimax_deepening(board, float("inf"), clock=StepClock(), max_depth=4))
    assert [(r.column, r.score) for r in sliced] == [(r.column, r.score) for r in whole]
    assert sliced[-1].nodes > whole[-1].nodes  # it was restarted


def test_the_deadline_is_kept_past_the_minimum_depth() -> None:
    ticks = iter(range(10**6))
    results = list(expectimax_deepening(Board(), 3.0, clock=lambda: next(ticks) * 1.0,
                                        min_depth=2))
    assert [r.depth for r in results][:2] == [1, 2] and results[-1].depth < 10


def test_a_win_is_taken_at_once_and_a_sooner_win_is_preferred() -> None:
    board = Board.from_moves("112233")  # the first player completes four in column 3 (0-based)
    engine = Engine(opponent_model="random")
    decision = engine.decide(board, Limit(float("inf"), depth=6))
    assert decision.column == 3 and decision.score.value == WIN - 7 and decision.proven
    # A win now outscores a win later: the score of the win is its disc.
    assert max(root_values(board, 3).values()) == WIN - 7


def test_against_a_random_mover_every_win_is_taken_at_once() -> None:
    rng = random.Random(3)
    engine = Engine(opponent_model="random")
    chances = 0
    for game in range(6):
        engine.new_game()
        board = Board()
        ours = game % 2 == 0
        while not board.is_over():
            if ours:
                col = engine.decide(board, Limit(float("inf"), depth=3)).column
                if any(board.is_winning_move(c) for c in board.legal_moves()):
                    chances += 1
                    assert board.is_winning_move(col)
            else:
                col = rng.choice(board.legal_moves())
            board = board.play(col)
            ours = not ours
    assert chances >= 3


def _wins_left_after(board: Board, col: int) -> int:
    """Of the random mover's replies to ``col``, how many leave us a move that wins at once."""
    after = board.play(col)
    return sum(any(reply.is_winning_move(c) for c in reply.legal_moves())
               for reply in (after.play(r) for r in after.legal_moves()))


def test_expectimax_plays_for_the_random_movers_mistake_where_alpha_beta_does_not() -> None:
    # Bottom row after "4453": O at 2, X at 3 and 4; X to move.  Column 5 makes three in a row
    # with one open end (column 6): a best reply blocks it, so alpha-beta at depth 3 prefers
    # column 3; a random mover blocks it one time in seven, so expectimax plays 5.
    board = Board.from_moves("4453")
    alpha_beta = deepest(iterative_deepening(board, float("inf"), max_depth=3,
                                             table=TranspositionTable(bits=16)))
    expected = deepest(expectimax_deepening(board, float("inf"), max_depth=3))
    assert alpha_beta.column != expected.column
    values = root_values(board, 3)
    assert expected.column == max(values, key=values.__getitem__)
    assert values[expected.column] > values[alpha_beta.column] + 1e8
    # The point, counted exactly: after expectimax's move 6 of the 7 random replies leave us a
    # win at once, after alpha-beta's none does.
    assert _wins_left_after(board, expected.column) == 6
    assert _wins_left_after(board, alpha_beta.column) == 0


def test_the_default_engine_still_plays_alpha_beta() -> None:
    board = Board.from_moves("4453")
    default = Engine().decide(board, Limit(float("inf"), depth=3))
    assert default.column == deepest(iterative_deepening(
        board, float("inf"), max_depth=3, min_depth=5, table=TranspositionTable(bits=16))).column
    assert Engine().expectimax_table is None


def test_the_random_model_is_course_mode_only() -> None:
    with pytest.raises(UsageError, match="course mode"):
        Engine(AgentSettings(mode=Mode.STRONGEST), opponent_model="random")
    with pytest.raises(UsageError, match="course mode"):
        parse_spec("ours:strongest:random-model")
    with pytest.raises(UsageError, match="second time"):
        parse_spec("ours:random-model:random-model")


def test_the_spec_option_and_its_label() -> None:
    spec = engine_spec("ours:random-model", seconds=0.5)
    assert (spec.opponent_model, spec.mode, spec.label) == ("random", "course",
                                                            "ours:0.5:random-model")
    assert parse_spec("ours:course:random-model:1:d4").label == "ours:1:d4:random-model"
    assert parse_spec(spec.label) == spec
    assert engine_spec("ours:0.5").opponent_model is None


def test_the_command_line_refuses_the_random_model_in_strongest_mode(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = agent.main(["move", "4453", "--mode", "strongest", "--opponent-model", "random"])
    assert code == 2
    assert "--opponent-model random" in capsys.readouterr().err
