"""The engine's book and solver stages: proven-optimal moves, fallbacks and the budget."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from board import Board
from engine import Engine, ProvenScore
from settings import AgentSettings, SolverSettings
from solver import Solver
from solver.book import BookError
from timecontrol import Limit
from vocabulary import Mode, Source

PONS = Path(__file__).resolve().parent / "data" / "pons"


def without_book(engine: Engine) -> Engine:
    """A strongest-mode engine whose book is left out, and with it the bounds the book gives
    its solver: the solver decides what it can prove on its own."""
    assert engine.solver is not None
    engine.book = None
    engine.solver = Solver(engine.solver.table.bits, clock=engine.clock)
    return engine


def settings(**changes: object) -> AgentSettings:
    """Small tables for tests; no time per move: the engine takes its time from each Limit."""
    base: dict[str, object] = {"table_bits": 16, "min_depth": 3}
    base.update(changes)
    return AgentSettings(**base)  # type: ignore[arg-type]


def within(engine: Engine, seconds: float, depth: int | None = None) -> Limit:
    """A limit ``seconds`` from now on the engine's clock."""
    return Limit.seconds(seconds, clock=engine.clock, depth=depth)


def pons(name: str, count: int, sign: int) -> list[tuple[str, int]]:
    lines = [line.split() for line in (PONS / name).read_text().split("\n") if line.strip()]
    chosen = [(m, int(s)) for m, s in lines if (int(s) > 0) - (int(s) < 0) == sign]
    return chosen[:: max(1, len(chosen) // count)][:count]


@pytest.fixture(scope="module")
def oracle() -> Solver:
    return Solver()


@pytest.fixture(scope="module")
def solving_engine() -> Engine:
    engine = without_book(Engine(settings(mode="strongest")))
    engine.warm_up()  # as the front ends do: no compiling inside a timed move
    return engine


def keeps(oracle: Solver, board: Board, col: int, score: int) -> bool:
    """True if playing ``col`` leaves the opponent exactly ``-score``."""
    if board.is_winning_move(col):
        return score == (43 - board.moves) // 2
    child = board.play(col)
    if child.is_full():
        return score == 0
    solution = oracle.solve(child)
    return solution is not None and solution.score == -score


@pytest.mark.parametrize("sign", [1, 0, -1])
def test_solver_decisions_keep_the_exact_score(solving_engine: Engine, oracle: Solver,
                                               sign: int) -> None:
    for moves, expected in pons("Test_L2_R1", 6, sign):
        board = Board.from_moves(moves)
        decision = solving_engine.decide(board, within(solving_engine, 2.0))
        assert decision.source == "solver" and decision.proven, moves
        assert decision.score == ProvenScore(expected)
        assert keeps(oracle, board, decision.column, expected), moves


def test_the_engine_keeps_a_won_game_won_to_the_end(solving_engine: Engine) -> None:
    rng = random.Random(5)
    for moves, _ in pons("Test_L2_R1", 4, 1):
        board = Board.from_moves(moves)
        ours = board.moves % 2
        while not board.is_over():
            if board.moves % 2 == ours:
                board = board.play(solving_engine.decide(board, within(solving_engine, 1.0)).column)
            else:
                board = board.play(rng.choice(board.legal_moves()))
        assert board.last_mover_won() and (board.moves - 1) % 2 == ours, moves


def test_book_decides_the_opening() -> None:
    engine = Engine(settings(mode="strongest"))
    engine.solver = None
    engine.warm_up()
    decision = engine.decide(Board(), within(engine, 2.0))
    assert decision.source == "book" and decision.proven
    assert (decision.column, decision.score) == (3, ProvenScore(1))  # the centre, a win with the last disc
    assert decision.depth == 41 and decision.nodes == 0


def test_search_takes_over_when_nothing_is_proven_in_time() -> None:
    engine = without_book(Engine(settings(mode="strongest")))
    engine.warm_up()
    decision = engine.decide(Board.from_moves("4"), within(engine, 0.05))
    assert decision.source == "search" and decision.depth >= 3


def test_max_depth_asks_for_the_search_alone(solving_engine: Engine) -> None:
    decision = solving_engine.decide(Board.from_moves("5554224333234511764415115"),
                                     within(solving_engine, 2.0, depth=4))
    assert decision.source == "search" and decision.depth == 4


def test_an_outcome_proven_without_the_exact_score_keeps_the_win() -> None:
    """Pons' "7265453" (+6): its outcome takes ~100 times fewer nodes than its exact score.
    On a clock driven by the solver's work, the engine's solver share is 100,000 nodes: the
    outcome is proven, the exact score is not, and the move keeps the win."""
    board = Board.from_moves("7265453")
    engine = without_book(Engine(settings(mode="strongest"),
                                 clock=lambda: engine.solver.nodes * 1e-7))  # type: ignore[union-attr]
    decision = engine.decide(board, within(engine, 0.02))
    assert decision.source == "solver"
    assert decision.score == ProvenScore(1, exact=False)  # the win, its exact score unknown
    oracle = Solver()
    assert oracle.is_at_most(board.play(decision.column), -1)
    solution = oracle.solve(board)
    assert solution is not None and solution.score == 6


def test_the_solver_stops_at_its_deadline_on_a_clock_driven_by_its_work() -> None:
    """Virtual time runs at 10 million nodes a second of the solver's own work: a deadline
    stops it within one slice, and slices are sized to at most half the time left."""
    solver = Solver(clock=lambda: solver.nodes * 1e-7)
    board = Board.from_moves("4")  # minutes of work
    for budget in (0.001, 0.01, 0.1):
        start = solver.clock()
        assert solver.solve(board, deadline=start + budget) is None
        assert budget <= solver.clock() - start <= budget * 1.5 + 0.002


@pytest.mark.slow
def test_choose_keeps_to_its_budget_on_an_injected_clock() -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 0.0005  # every reading of the clock costs half a millisecond of "time"
        return now[0]

    # Half the budget for the solver: the search after it reads this slow clock a few times.
    engine = without_book(Engine(settings(mode="strongest", min_depth=1),
                                 solver=SolverSettings(share=0.5), clock=clock))
    for moves in ("4", "4453", "5554224333234511764415115"):
        start = now[0]
        decision = engine.decide(Board.from_moves(moves), within(engine, 0.01))
        assert now[0] - start <= 0.01 + 0.003, moves
        assert Board.from_moves(moves).can_play(decision.column)


def test_a_damaged_book_stops_the_engine_before_the_game(tmp_path: Path) -> None:
    bad = tmp_path / "book.bin"
    bad.write_bytes(b"C4BOOK01" + bytes(40))
    with pytest.raises(BookError, match="book"):
        Engine(settings(mode="strongest"), solver=SolverSettings(book=str(bad)))


@pytest.mark.slow
def test_at_the_edge_of_the_book_the_solver_warms_up_on_the_next_position() -> None:
    engine = Engine(settings(mode="strongest"))
    assert engine.book is not None and engine.solver is not None
    inside = engine.decide(Board(), within(engine, 2.0))
    assert inside.source == "book" and inside.nodes == 0  # replies lead back into the book

    def at_edge(board: Board, col: int) -> bool:
        after = board.play(col)
        return not after.is_over() and all(
            after.play(r).is_over() or engine.book.lookup(after.play(r)) is None  # type: ignore[union-attr]
            for r in after.legal_moves())

    edge = next(board for board, entry in engine.book.entries(min_discs=14)
                if at_edge(board, entry.column))
    decision = engine.decide(edge, within(engine, 2.0))
    assert decision.source == "book" and decision.nodes > 0
    # The position the opponent now faces is proven: the table answers it at once.
    after = edge.play(decision.column)
    nodes = engine.solver.nodes
    assert engine.solver.solve(after) is not None and engine.solver.nodes - nodes < 1000


@pytest.mark.parametrize("opponent_seed", [1, 2, 3])
def test_as_first_player_the_shipped_engine_proves_and_keeps_the_win(opponent_seed: int) -> None:
    """From the empty board every move of ours comes from the book or the solver with a
    proven win, and the game is won.  The budget is generous so that no proof is cut short
    by the speed of the machine; the engine stops as soon as it has a proof."""
    from search.bot import bot_move

    engine = Engine(settings(mode="strongest"))
    rng = random.Random(opponent_seed)
    board = Board()
    while not board.is_over():
        if board.first_player_to_move:
            decision = engine.decide(board, within(engine, 120.0))
            assert decision.source in ("book", "solver") and decision.score.value > 0, (board, decision)
            board = board.play(decision.column)
        else:
            board = board.play(bot_move(board, 3, rng) if opponent_seed % 2 else
                               rng.choice(board.legal_moves()))
    assert board.last_mover_won() and board.moves % 2 == 1  # the first player's disc


def test_a_proven_win_gets_the_whole_budget_to_find_a_keeping_move(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the outcome is proven, the search must not get the move: the solver's search for a
    column that keeps the win may use the whole budget, not only the solver's share."""
    clock_now = [100.0]
    engine = without_book(Engine(settings(mode="strongest"), clock=lambda: clock_now[0]))
    assert engine.solver is not None
    deadlines: list[tuple[float | None, bool]] = []
    real_best_move = engine.solver.best_move

    def recording_best_move(board: Board, deadline: float | None = None, *, weak: bool = False):
        deadlines.append((deadline, weak))
        return real_best_move(board, None, weak=weak)

    monkeypatch.setattr(engine.solver, "best_move", recording_best_move)
    moves, score = pons("Test_L2_R1", 1, 1)[0]
    decision = engine.decide(Board.from_moves(moves), within(engine, 2.0))
    assert decision.source == "solver" and decision.score == ProvenScore(score)
    assert deadlines[0] == (102.0, True)  # the whole budget for the weak move


def test_the_solvers_first_slice_fits_the_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    """A solver whose slices grew in a long call must not start a big slice when little time
    is left: the first slice of a call is sized from the time left."""
    solver = Solver(24)
    # A few thousand nodes with a deadline: slices are measured and grow.
    for moves, _ in pons("Test_L2_R2", 3, 1):
        solver.solve(Board.from_moves(moves), weak=True, deadline=solver.clock() + 0.5)
    limits: list[int] = []
    real_next = solver.slices.next

    def recording(time_left: float) -> int:
        limits.append(real_next(time_left))
        return limits[-1]

    monkeypatch.setattr(solver.slices, "next", recording)
    left = 0.001
    rate = solver.slices.rate  # the slices' measure when the call starts (it learns during it)
    solver.solve(Board.from_moves("4444442"), weak=True, deadline=solver.clock() + left)
    assert limits, "one slice at least"
    assert limits[0] <= max(1_000, rate * left)  # MIN_SLICE_NODES or the time left


def test_past_the_complete_layers_the_solver_warms_up_on_our_next_positions() -> None:
    """Our book move leaves complete_discs discs: the book proves that position itself, so the
    positions after each reply (one of them our next) are proven while the book answers."""
    engine = Engine(settings(mode="strongest"))
    assert engine.book is not None and engine.solver is not None
    rng = random.Random(11)
    while True:
        board = Board()
        while board.moves < engine.book.complete_discs - 1 and not board.is_over():
            board = board.play(rng.choice(board.legal_moves()))
        found = engine.book.lookup(board)
        if board.is_over() or found is None or found.outcome < 0:
            continue
        after = board.play(found.column)
        replies = [after.play(r) for r in after.legal_moves() if not after.play(r).is_over()]
        if replies and all(engine.book.lookup(b) is None for b in replies):
            break
    decision = engine.decide(board, within(engine, 4.0))
    assert decision.source == "book" and decision.nodes > 0
    for following in replies:  # each proven in the book's time: the table answers at once
        nodes = engine.solver.nodes
        assert engine.solver.solve(following, weak=True) is not None
        assert engine.solver.nodes - nodes < 200, following


def test_a_stopped_clock_ends_the_solver_and_the_search_at_once() -> None:
    """Stopping the clock from another thread cancels work in flight: every deadline passes,
    whether it was made before the stop or after it, and no arithmetic on it gives nan."""
    import threading
    import time

    from search import deepest, iterative_deepening
    from timecontrol import StoppableClock

    clock = StoppableClock()
    solver = Solver(clock=clock)
    threading.Timer(0.3, clock.stop).start()
    start = time.monotonic()
    assert solver.solve(Board.from_moves("4"), deadline=clock() + 60) is None  # minutes of work
    assert time.monotonic() - start < 30
    stopped = clock()
    assert stopped + 3600 == stopped and stopped - clock() == 0
    assert solver.solve(Board.from_moves("44"), deadline=clock() + 60) is None
    result = deepest(iterative_deepening(Board.from_moves("44"), clock() + 60, clock=clock,
                                         min_depth=3))
    assert result.depth == 3  # the depths always completed, and not one more
    clock.restart()
    assert clock() < stopped
    assert solver.solve(Board.from_moves("5554224333234511764415115"), deadline=clock() + 30)


def test_the_search_does_not_play_a_column_the_solver_proved_losing() -> None:
    """When the solver runs out of time, what it proved still counts: a column it proved
    losing is replaced by one it did not, centre first."""
    from engine import Decision, SearchScore

    engine = without_book(Engine(settings(mode="strongest")))
    assert engine.solver is not None
    rng = random.Random(4)
    while True:  # a position where some columns lose and others do not
        board = Board()
        for _ in range(rng.randint(14, 24)):
            if board.is_over():
                break
            board = board.play(rng.choice(board.legal_moves()))
        if board.is_over() or any(board.is_winning_move(c) for c in board.legal_moves()):
            continue
        outcomes = {c: engine.solver.column_score(board, c, weak=True) for c in board.legal_moves()}
        losing = sorted(c for c, o in outcomes.items() if o == -1)
        if losing and len(losing) < len(outcomes):
            break
    searched = Decision(losing[0], SearchScore(0), 3, 0, 0.0, (losing[0],), Source.SEARCH,
                        Mode.STRONGEST)
    decision = engine._avoid_proven_loss(board, searched)
    assert decision.column not in losing and outcomes[decision.column] is not None
    assert decision.pv == (decision.column,) and decision.source == "search"
    fine = Decision(decision.column, SearchScore(0), 3, 0, 0.0, (decision.column,), Source.SEARCH,
                    Mode.STRONGEST)
    assert engine._avoid_proven_loss(board, fine) is fine
