"""The compiled search against plain minimax, the solver's exact values and an injected clock."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time

import pytest

from board import Board, bits
from board.tactics import non_losing_moves
from heuristics import heuristic_id, heuristic_weights
from search import WIN, SearchResult, TranspositionTable, deepest, is_win_score, iterative_deepening
from search import iterative as iterative_module
from search.bot import bot_move, move_values
from search.negamax import INF, negamax, new_scratch
from tests import reference
from tests.helpers import grid_of, random_position
from timecontrol.counters import new_counters

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def search(board: Board, seconds: float) -> SearchResult:
    """The deepest iteration completed within ``seconds`` from now."""
    return deepest(iterative_deepening(board, time.perf_counter() + seconds))


def non_losing(board: Board) -> list[int]:
    """The columns the tactics leave to search (moves that do not hand the opponent a win)."""
    safe = non_losing_moves(board.position, board.mask)
    return [col for col in board.legal_moves() if safe & bits.column_mask(col)]


def fixed_depth_value(board: Board, depth: int, tactics: bool, table_bits: int = 16) -> int:
    table = TranspositionTable(table_bits)
    return int(
        negamax(
            board.position, board.mask, board.moves, depth, -INF, INF, heuristic_id("windows5000"),
            heuristic_weights("windows5000"), tactics, table.keys, table.data, new_scratch(),
            new_counters(1 << 62),
        )
    )


@pytest.mark.slow
def test_alpha_beta_with_table_equals_plain_minimax_at_small_depths() -> None:
    rng = random.Random(21)
    for i in range(40):
        board, played = random_position(rng, 2, 34)
        grid, player = grid_of(played)
        depth = 1 + i % 4 if i % 8 else 5 - (board.moves < 20)
        assert fixed_depth_value(board, depth, False) == reference.minimax(
            grid, player, board.moves, depth
        ), (played, depth)


@pytest.mark.slow
def test_with_tactics_alpha_beta_equals_minimax_that_prunes_and_extends_forced_moves() -> None:
    rng = random.Random(24)
    forced = 0
    for i in range(40):
        board, played = random_position(rng, 6, 34)
        grid, player = grid_of(played)
        depth = 1 + i % 3
        assert fixed_depth_value(board, depth, True) == reference.minimax_with_tactics(
            grid, player, board.moves, depth
        ), (played, depth)
        forced += len(non_losing(board)) == 1
    assert forced >= 3  # some roots are forced: the extension is exercised from the root too


def test_a_forced_move_is_searched_past_the_horizon() -> None:
    # O to move must block X's three in column 0 (0-based); at depth 0 the search still sees
    # the position after the block, as the extension does not count the forced move.
    board = Board.from_moves("12121")
    assert non_losing(board) == [0]
    assert fixed_depth_value(board, 0, True) == fixed_depth_value(board.play(0), 0, True) * -1


def test_iterative_deepening_value_equals_plain_minimax_per_depth() -> None:
    rng = random.Random(22)
    for _ in range(6):
        board, played = random_position(rng, 4, 30)
        grid, player = grid_of(played)
        results = list(
            iterative_deepening(board, float("inf"), max_depth=4, tactics=False, min_depth=1)
        )
        assert [r.depth for r in results][-1] == 4 or results[-1].proven
        for r in results:
            assert r.score == reference.minimax(grid, player, board.moves, r.depth), played


def test_tactics_keep_exact_values_when_the_whole_game_is_searched() -> None:
    rng = random.Random(23)
    proven = 0
    for _ in range(25):
        board, _ = random_position(rng, 30, 36)
        depth = 42 - board.moves
        exact = fixed_depth_value(board, depth, False, 18)
        assert fixed_depth_value(board, depth, True, 18) == exact
        proven += exact != 0
    assert proven > 5


def test_an_immediate_win_is_taken_and_a_single_threat_blocked() -> None:
    # X to move with three in the bottom row: column 3 (0-based) wins at once.
    win = search(Board.from_moves("112233"), 0.5)
    assert win.column == 3 and win.score == WIN - 7 and win.proven
    # O to move, X threatens the bottom row at column 3: O must block there.
    block = search(Board.from_moves("11223"), 0.5)
    assert block.column == 3
    # Two threats (open three on the bottom row): the side to move loses.
    lost = search(Board.from_moves("4455"), 0.5)
    assert is_win_score(lost.score)  # X to move wins by completing the open three
    lost_other = search(Board.from_moves("44553"), 0.5)
    assert lost_other.score == -(WIN - 7)


def test_faster_wins_score_higher_and_slower_losses_less_badly() -> None:
    board = Board.from_moves("4455")  # X to move makes an open three and wins with its 4th disc
    values = move_values(board, 3)
    assert values[2] == values[5] == WIN - 7  # the 4th X disc is the 7th disc played
    assert all(v < WIN - 7 for c, v in values.items() if c not in (2, 5))


class StepClock:
    """A clock that moves on by ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def test_deadline_is_honoured_with_an_injected_clock() -> None:
    clock = StepClock(0.001)
    budget = 0.05
    results = list(iterative_deepening(Board(), budget, clock=clock, min_depth=1))
    assert results, "depth 1 always completes"
    # Every clock read is 1 ms; the driver stops at the first read past the deadline and
    # never yields a deeper result after it.
    assert clock.now <= budget + 0.005
    assert all(r.seconds <= budget + 0.002 for r in results)
    depths = [r.depth for r in results]
    assert depths == list(range(1, len(depths) + 1))


def test_min_depth_completes_even_when_time_is_already_up() -> None:
    clock = StepClock(10.0)
    results = list(iterative_deepening(Board.from_moves("44"), 0.0, clock=clock, min_depth=5))
    assert [r.depth for r in results] == [1, 2, 3, 4, 5]


def test_search_in_small_slices_gives_the_same_result(monkeypatch: pytest.MonkeyPatch) -> None:
    board = Board.from_moves("4453")
    whole = list(iterative_deepening(board, float("inf"), max_depth=9))[-1]
    # A clock that advances 1 s per read makes the measured rate tiny, so every slice is
    # MIN_SLICE_NODES nodes and the iteration is restarted hundreds of times.
    monkeypatch.setattr(iterative_module, "MIN_SLICE_NODES", 50)
    monkeypatch.setattr(iterative_module, "FIRST_SLICE_NODES", 50)
    sliced = list(iterative_deepening(board, float("inf"), clock=StepClock(1.0), max_depth=9))[-1]
    assert (sliced.column, sliced.score, sliced.depth) == (whole.column, whole.score, whole.depth)
    assert sliced.nodes > whole.nodes  # the restarts cost something, but not the answer


def test_search_stops_when_proven_and_reports_the_principal_variation() -> None:
    result = search(Board.from_moves("4455"), 5.0)
    assert result.proven and result.depth == 1
    assert result.pv[0] in (2, 5)
    end = Board.from_moves("44444455555511111122222266666")
    exhaustive = search(end, 10.0)
    assert exhaustive.proven
    assert len(exhaustive.pv) >= 1 and end.can_play(exhaustive.pv[0])


def test_bot_picks_among_equal_moves_at_random() -> None:
    board = Board()
    picks = {bot_move(board, 1, random.Random(seed)) for seed in range(40)}
    values = move_values(board, 1)
    best = max(values.values())
    assert picks == {c for c, v in values.items() if v == best}
    assert len(picks) >= 1


def test_same_results_without_compilation() -> None:
    """NUMBA_DISABLE_JIT=1 runs the same functions as Python and must agree."""
    positions = ["", "4453", "3324556", "44444455555511"]
    code = (
        "import json\n"
        "from board import Board\n"
        "from heuristics import evaluate\n"
        "from tests.test_search import fixed_depth_value\n"
        f"ps = {positions!r}\n"
        "print(json.dumps([[evaluate(Board.from_moves(p)), evaluate(Board.from_moves(p), 'threats'),"
        " fixed_depth_value(Board.from_moves(p), 3, True), fixed_depth_value(Board.from_moves(p), 3, False)]"
        " for p in ps]))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, check=True
    )
    from heuristics import evaluate

    expected = [
        [
            evaluate(Board.from_moves(p)),
            evaluate(Board.from_moves(p), "threats"),
            fixed_depth_value(Board.from_moves(p), 3, True),
            fixed_depth_value(Board.from_moves(p), 3, False),
        ]
        for p in positions
    ]
    assert json.loads(out.stdout) == expected


def test_slices_fit_half_the_time_left_and_grow_at_most_twofold() -> None:
    from timecontrol import SliceSizer

    sizer = SliceSizer(first_nodes=1_000, min_nodes=100, max_seconds=0.02)
    assert sizer.next(10.0) == 1_000  # the first slice, before any measurement
    sizer.measured(1_000, 0.0001)  # 10 M nodes/s
    sizes = [sizer.next(10.0) for _ in range(10)]
    assert sizes[:4] == [2_000, 4_000, 8_000, 16_000]  # twofold at most
    assert max(sizes) == 200_000  # 20 ms at 10 M nodes/s
    assert sizer.next(0.004) == 20_000  # half of the 4 ms left
    assert sizer.next(-1.0) == 100  # past the deadline: the minimum
    sizer.measured(0, 0.0)  # nothing measured: the rate stays
    assert sizer.rate == 10_000_000
