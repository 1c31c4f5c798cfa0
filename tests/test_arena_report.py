"""Move statistics, tables and the progress bar, from hand-made games with known figures."""

from __future__ import annotations

import io

from arena.figures import search_depth_by_ply
from arena.match import FOUR, PlayedGame
from arena.report import text_report
from arena.results import OVERRUN_TOLERANCE, summarize
from arena.tournament import TournamentGame, make_plan, plan_tasks
from engine import ProvenScore, SearchScore
from engine.games import PlayedMove
from engine.players import parse_spec
from terminal import progress


def _ours_game(first: str, second: str, ours_first: bool = True) -> PlayedGame:
    """Seven moves, ours (first) wins in column 0: a book move, three search moves, a solver
    move; the opponent's moves carry no decision."""
    ours = [  # (ply, source, depth, seconds, cpu seconds)
        (1, "book", 41, 0.001, 0.001),
        (3, "search", 8, 0.5, 0.5),
        (5, "search", 10, 0.5 + OVERRUN_TOLERANCE + 0.1, 0.2),  # waited for a core
        (7, "solver", 36, 0.3, 0.3),
    ]
    shift = 0 if ours_first else 1  # ours on the even discs when it plays second
    moves = [PlayedMove(ply + shift, 0, seconds, cpu, depth, source, 100,
                        SearchScore(5) if source == "search" else ProvenScore(1))
             for ply, source, depth, seconds, cpu in ours]
    moves += [PlayedMove(ply, 1, 0.01, 0.01) for ply in ((2, 4, 6) if ours_first else (1, 3, 5, 7))]
    moves.sort(key=lambda m: m.ply)
    return PlayedGame(first, second, tuple(moves), 0 if ours_first else 1, FOUR)


def test_search_depth_leaves_out_book_and_solver_moves() -> None:
    plan = make_plan([parse_spec("ours:0.5"), parse_spec("random")], games=2, seed=1)
    outcomes = []
    for task in plan_tasks(plan):
        names = (plan.labels[task.first], plan.labels[task.second])
        record = _ours_game(*names, ours_first=task.first == 0)
        outcomes.append(TournamentGame(task, record))
    summary = summarize(plan, outcomes, workers=1, elapsed=0.0)
    ours, other = summary.moves
    assert ours.search_depths == [8, 10, 8, 10]
    assert ours.mean_search_depth == 9.0  # not (41 + 8 + 10 + 36) / 4
    assert dict(ours.sources) == {"book": 2, "search": 4, "solver": 2}
    assert ours.budget == 0.5
    assert (ours.over_budget, ours.over_budget_cpu) == (2, 0)
    assert other.mean_search_depth is None and other.over_budget is None
    data = ours.to_dict()
    assert (data["mean_search_depth"], data["search_moves"]) == (9.0, 4)
    assert "mean_depth" not in data
    table = text_report(summary)
    assert "mean search depth" in table
    moves_table = table.split("\nMoves")[1]
    row = next(line for line in moves_table.splitlines() if line.strip().startswith("ours:0.5"))
    assert " 9.0 " in row and "book 2, search 4, solver 2" in row
    by_ply = search_depth_by_ply([m for o in outcomes for m in o.record.moves
                                  if m.source is not None])
    assert by_ply == {3: [8], 5: [10], 4: [8], 6: [10]}  # ours second: on the even discs


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_in_a_log_writes_a_line_per_tenth() -> None:
    log = io.StringIO()
    with progress(20, "games", stream=log) as advance:
        for _ in range(20):
            advance(1)
    lines = log.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("games: 2/20 (10%), 0:00")
    assert lines[-1].startswith("games: 20/20 (100%)")
    assert "left" in lines[0] and "left" not in lines[-1]
    assert "\r" not in log.getvalue()


def test_progress_on_a_terminal_draws_a_bar_to_the_end() -> None:
    screen = Tty()
    with progress(3, "games vs seed", stream=screen) as advance:
        for _ in range(3):
            advance(1)
    text = screen.getvalue()
    assert "games vs seed" in text and "3/3" in text


def test_progress_disabled_writes_nothing() -> None:
    out = Tty()
    with progress(5, "games", stream=out, enabled=False) as advance:
        for _ in range(5):
            advance(1)
    assert out.getvalue() == ""
