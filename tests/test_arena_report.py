"""Move statistics, tables and the progress bar, from hand-made games with known figures."""

from __future__ import annotations

import io

from arena.match import FOUR, GameRecord, MoveRecord
from arena.players import parse_spec
from arena.progress import ProgressBar
from arena.report import search_depth_by_ply, text_report
from arena.results import OVERRUN_TOLERANCE, summarize
from arena.tournament import GameOutcome, make_plan, plan_tasks


def _ours_game(first: str, second: str) -> GameRecord:
    """Seven moves, ours (first) wins in column 0: a book move, three search moves, a solver
    move; the opponent's moves carry no decision."""
    ours = [  # (ply, source, depth, seconds, cpu seconds)
        (1, "book", 41, 0.001, 0.001),
        (3, "search", 8, 0.5, 0.5),
        (5, "search", 10, 0.5 + OVERRUN_TOLERANCE + 0.1, 0.2),  # waited for a core
        (7, "solver", 36, 0.3, 0.3),
    ]
    moves = [MoveRecord(ply, 0, 0, seconds, cpu, depth, source, 100, source != "search")
             for ply, source, depth, seconds, cpu in ours]
    moves += [MoveRecord(ply, 1, 1, 0.01, 0.01) for ply in (2, 4, 6)]
    moves.sort(key=lambda m: m.ply)
    return GameRecord(first, second, tuple(moves), 0, FOUR)


def test_search_depth_leaves_out_book_and_solver_moves() -> None:
    plan = make_plan([parse_spec("ours:0.5"), parse_spec("random")], games=2, seed=1)
    outcomes = []
    for task in plan_tasks(plan):
        names = (plan.labels[task.first], plan.labels[task.second])
        record = _ours_game(*names)
        if task.first != 0:  # ours plays second here: the same moves, sides swapped
            record = GameRecord(names[0], names[1], tuple(
                MoveRecord(m.ply, 1 - m.side, m.column, m.seconds, m.cpu_seconds, m.depth,
                           m.source, m.nodes, m.proven) for m in record.moves), 1, FOUR)
        outcomes.append(GameOutcome(task, record))
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
    assert by_ply == {3: [8, 8], 5: [10, 10]}


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_in_a_log_writes_a_line_per_tenth() -> None:
    log = io.StringIO()
    bar = ProgressBar(20, log)
    for done in range(21):
        bar.update(done)
    lines = log.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("[###---------------------------] 2/20 games (10%)")
    assert lines[-1].startswith("[" + "#" * 30 + "] 20/20 games (100%)")
    assert "left" in lines[0] and "left" not in lines[-1]
    assert "\r" not in log.getvalue()


def test_progress_bar_on_a_terminal_redraws_one_line() -> None:
    screen = Tty()
    bar = ProgressBar(3, screen, label="games vs seed", width=3)
    for done in range(4):
        bar.update(done)
    text = screen.getvalue()
    assert text.count("\r") == 4 and text.endswith("\n") and text.count("\n") == 1
    assert "\r[#--] 1/3 games vs seed (33%)" in text


def test_progress_bar_disabled_writes_nothing() -> None:
    out = Tty()
    bar = ProgressBar(5, out, enabled=False)
    for done in range(6):
        bar.update(done)
    assert out.getvalue() == ""
