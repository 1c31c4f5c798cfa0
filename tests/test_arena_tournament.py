"""Tournament planning and bookkeeping: balanced colours, totals that add up, seeds that repeat."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from arena import tournament
from arena.match import play_game
from arena.results import summarize
from arena.tournament import (
    GameTask,
    TournamentGame,
    derive_seed,
    make_plan,
    plan_tasks,
    run_tournament,
    starts,
    uneven_starts_warning,
    worker_count,
)
from batch import open_executor
from board import Board
from ecosystems.players import build_player, parse_player, parse_spec
from engine.games import PlayedGame, PlayedMove
from engine.players import (
    BotPlayer,
    OursPlayer,
    RandomPlayer,
    SeedPlayer,
)
from engine.specs import SEED_DEPTH
from search.bot import move_values
from settings import AgentSettings, SolverSettings, UsageError
from solver.book import BookError
from tests import reference
from tests.helpers import engine_spec, grid_of
from vocabulary import Ending, Mode


def specs(*names: str) -> list:
    return [parse_spec(name) for name in names]


def test_plan_balances_starters_and_names_repeated_players() -> None:
    plan = make_plan(specs("random", "bot", "random"), games=6, seed=1)
    assert plan.labels == ("random#1", "bot:3", "random#2")
    assert plan.pairings == [(0, 1), (0, 2), (1, 2)]
    tasks = plan_tasks(plan)
    assert len(tasks) == 18
    assert [t.index for t in tasks] == list(range(18))
    for number, (a, b) in enumerate(plan.pairings):
        mine = [t for t in tasks if t.pairing == number]
        assert len(mine) == 6
        assert sum(t.first == a for t in mine) == sum(t.first == b for t in mine) == 3
        assert {t.second for t in mine} == {a, b}
    # every player of every game draws from its own seed
    seeds = [seed for t in tasks for seed in t.seeds]
    assert len(set(seeds)) == len(seeds)


def test_seeds_depend_only_on_the_tournament_seed_and_the_game() -> None:
    assert derive_seed(5, 0, 1, 2) == derive_seed(5, 0, 1, 2)
    assert derive_seed(5, 0, 1, 2) != derive_seed(6, 0, 1, 2)
    first = plan_tasks(make_plan(specs("random", "seed"), 4, seed=9))
    again = plan_tasks(make_plan(specs("random", "seed"), 4, seed=9))
    other = plan_tasks(make_plan(specs("random", "seed"), 4, seed=10))
    assert first == again
    assert [t.seeds for t in first] != [t.seeds for t in other]


def test_random_vs_random_totals_add_up() -> None:
    plan = make_plan(specs("random", "random"), games=10, seed=3)
    outcomes = run_tournament(plan)
    summary = summarize(plan, outcomes, workers=1, elapsed=0.0)
    a, b = summary.overall
    assert a.total.games == b.total.games == 10
    assert a.as_first.games == a.as_second.games == 5
    assert b.as_first.games == b.as_second.games == 5
    assert a.total.wins == b.total.losses and a.total.losses == b.total.wins
    assert a.total.draws == b.total.draws
    assert a.as_first.wins == b.as_second.losses
    assert a.total.score_rate + b.total.score_rate == pytest.approx(1.0)
    pairing = summary.pairings[0]
    assert pairing.a.to_dict() == a.to_dict() and pairing.b.to_dict() == b.to_dict()
    # move statistics count every move of every game once
    moves = sum(len(o.record.moves) for o in outcomes)
    assert sum(len(m.seconds) for m in summary.moves) == moves
    assert all(m.mean_search_depth is None for m in summary.moves)  # no engine, no depth


@pytest.mark.slow
def test_same_seed_same_games_whatever_the_number_of_workers() -> None:
    plan = make_plan(specs("random", "bot:2"), games=6, seed=2024)
    one = run_tournament(plan)
    again = run_tournament(plan)
    with open_executor(2) as pool:
        two = run_tournament(plan, pool)
    columns = [o.record.columns for o in one]
    assert [o.record.columns for o in again] == columns
    assert [o.record.columns for o in two] == columns
    assert [o.task for o in two] == [o.task for o in one]
    other = run_tournament(make_plan(specs("random", "bot:2"), games=6, seed=2025))
    assert [o.record.columns for o in other] != columns


def test_the_course_bot_beats_random_play() -> None:
    plan = make_plan(specs("bot:1", "random"), games=4, seed=0)
    summary = summarize(plan, run_tournament(plan), workers=1, elapsed=0.0)
    bot = summary.overall[0]
    assert bot.total.games == 4
    assert bot.total.score_rate >= 0.75


def test_forfeits_are_counted_against_the_player_who_made_them() -> None:
    plan = make_plan(specs("random", "random"), games=2, seed=1)
    tasks = plan_tasks(plan)

    class Full:
        name = "full"

        def new_game(self) -> None:
            pass

        def choose(self, board: object) -> int:
            return 9

    outcomes = []
    for task in tasks:
        first_is_a = task.first == task.a
        first = Full() if first_is_a else RandomPlayer(random.Random(1))
        second = RandomPlayer(random.Random(2)) if first_is_a else Full()
        outcomes.append(TournamentGame(task, play_game(first, second)))
    assert all(o.record.ending == Ending.ILLEGAL for o in outcomes)
    summary = summarize(plan, outcomes, workers=1, elapsed=0.0)
    a, b = summary.overall
    assert (a.forfeits, a.total.losses, b.forfeits, b.total.wins) == (2, 2, 0, 2)


@pytest.mark.parametrize(
    ("names", "games", "message"),
    [
        (["random"], 2, "at least two players"),
        (["random", "seed"], 0, "--games"),
        (["human", "seed"], 2, "agent.py play"),
    ],
)
def test_impossible_tournaments_are_refused(names: list[str], games: int, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        make_plan(specs(*names), games)


def test_bad_worker_count_is_refused() -> None:
    with pytest.raises(UsageError, match="--workers must be at least 1, not 0"), \
            open_executor(0):
        pass


@pytest.mark.parametrize("spec", [
    "bot:0", "bot:x", "bot:\u00b2", "bot:" + "9" * 5000, "bot:43", "bot:3:4", "bot:",
    "ours:-1", "ours:fast", "ours:nan", "ours:inf", "ours:" + "9" * 5000, "ours:",
    "ours:0.5:0.7", "ours:threats:windows5000", "ours:search:search", "ours:d0", "ours:d43",
    "ours:d\u00b2", "ours:d8:d9", "random:3", "alphazero", "",
])
def test_bad_specs_name_the_spec(spec: str) -> None:
    with pytest.raises(UsageError, match="player") as caught:
        parse_spec(spec)
    # one readable line, not a traceback's (an unknown kind's lists the kinds there are)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 300 + len(spec)


def test_spec_labels() -> None:
    assert parse_spec("bot").label == "bot:3"
    assert parse_spec(" BOT:5 ").label == "bot:5"
    assert parse_spec("ours", seconds=0.5).label == "ours:0.5"
    assert parse_spec("ours:2", seconds=0.5).label == "ours:2"
    assert parse_spec("ours").label == "ours"
    # options in any order, the label in one order: time, heuristic, mode or depth
    assert parse_spec("ours:search:THREATS:0.5").label == "ours:0.5:threats:course"
    assert parse_spec("ours:strongest:0.5").label == "ours:0.5:strongest"
    assert parse_spec("ours:d8:1").label == "ours:1:d8"
    assert parse_spec("ours:threats", seconds=0.2).label == "ours:0.2:threats"


def test_ours_options_map_onto_the_agent_settings() -> None:
    configured = AgentSettings(mode=Mode.STRONGEST, seconds_per_move=2.0, heuristic="windows5000",
                               min_depth=4)
    spec = engine_spec("ours:0.5:threats:course")
    assert (spec.seconds, spec.heuristic, spec.mode, spec.max_depth) == (
        0.5, "threats", "course", None)
    settings = spec.agent_settings(configured)
    assert (settings.heuristic, settings.mode, settings.min_depth) == ("threats", "course", 4)
    # the time is the player's, never written into the engine's settings
    assert settings.seconds_per_move == configured.seconds_per_move
    # without options the configured settings are kept
    assert engine_spec("ours").agent_settings(configured) == configured
    assert parse_spec("ours:search") == parse_spec("ours:course")  # the old name of course mode
    assert engine_spec("ours:strongest").agent_settings(AgentSettings()).mode == "strongest"
    deep = engine_spec("ours:d6")
    assert deep.max_depth == 6 and deep.mode == "course"
    assert deep.agent_settings(configured).mode == "course"


def test_a_depth_cap_contradicting_strongest_mode_is_refused() -> None:
    with pytest.raises(UsageError, match=r"player 'ours:strongest:d8': a search depth \(d8\) is"
                                         r" for course mode"):
        parse_spec("ours:strongest:d8")


def test_ours_carries_its_time_and_never_reads_it_from_the_settings() -> None:
    # a configured time that would be far too slow if it were read back
    slow = AgentSettings(seconds_per_move=60.0, table_bits=16, min_depth=1)
    player = build_player(parse_spec("ours:course", seconds=0.05), agent=slow)
    assert isinstance(player, OursPlayer)
    assert player.seconds == 0.05 and player.name == "ours:0.05:course"
    start = time.perf_counter()
    player.choose(Board())
    assert time.perf_counter() - start < 5.0
    # the spec's own time wins over the front end's default
    assert engine_spec("ours:0.2", seconds=0.05).move_seconds() == 0.2
    # an ``ours`` with no time is refused before any engine is built, and before a tournament
    with pytest.raises(ValueError, match="'ours' has no time per move"):
        build_player(parse_spec("ours"), agent=slow)
    with pytest.raises(ValueError, match="'ours:course' has no time per move"):
        make_plan([parse_spec("ours:course"), parse_spec("random")], 2, seed=1, agent=slow)


def test_players_are_called_by_their_spec_label() -> None:
    for text in ("bot:2", "random", "seed"):
        spec = parse_spec(text)
        assert build_player(spec).name == spec.label
    assert BotPlayer(4).name == "bot:4"


def test_ours_search_only_plays_by_search_with_its_heuristic_and_depth() -> None:
    player = parse_player("ours:0.05:threats:d3", agent=AgentSettings(min_depth=2))
    assert isinstance(player, OursPlayer)
    assert player.name == "ours:0.05:threats:d3"
    engine = player.engine
    assert engine.settings.heuristic == "threats"
    assert engine.book is None and engine.solver is None  # search only: no 64 MiB table
    record = play_game(player, RandomPlayer(random.Random(3)))
    mine = [m for m in record.moves if m.side == 0]
    assert mine and all(m.source == "search" and m.depth is not None and m.depth <= 3
                        for m in mine)


def test_ours_is_built_with_the_solver_settings() -> None:
    solver = SolverSettings(share=0.25)
    player = build_player(parse_spec("ours:0.05:strongest"), solver=solver)
    assert isinstance(player, OursPlayer)
    assert player.engine.solver_settings == solver
    assert player.engine.solver is not None and player.engine.book is not None


def test_task_second_is_the_other_player() -> None:
    task = GameTask(0, 0, a=1, b=3, game=1, first=3, seeds=(1, 2))
    assert task.second == 1


def _record(first: str, second: str, winner: int | None) -> PlayedGame:
    """A hand-made finished game: the winner's four in column 0, or a draw."""
    moves = tuple(PlayedMove(ply, column=0 if (ply - 1) % 2 == 0 else 1, seconds=0.01)
                  for ply in range(1, 8))
    return PlayedGame(first, second, moves, winner, Ending.FOUR if winner is not None else Ending.FULL)


def test_results_are_credited_to_the_right_player_and_starter() -> None:
    # b wins every game it starts; a draws the games it starts.  Any swap of first and
    # second, or of a and b, changes the tables below.
    plan = make_plan(specs("random", "bot:1"), games=4, seed=1)
    outcomes = []
    for task in plan_tasks(plan):
        names = (plan.labels[task.first], plan.labels[task.second])
        winner = 0 if task.first == task.b else None
        outcomes.append(TournamentGame(task, _record(*names, winner)))
    summary = summarize(plan, outcomes, workers=1, elapsed=0.0)
    a, b = summary.overall
    assert (a.as_first.wdl(), a.as_second.wdl()) == ("0-2-0", "0-0-2")
    assert (b.as_first.wdl(), b.as_second.wdl()) == ("2-0-0", "0-2-0")
    pairing = summary.pairings[0]
    assert (pairing.a.player, pairing.b.player) == ("random", "bot:1")
    assert pairing.a.to_dict() == a.to_dict() and pairing.b.to_dict() == b.to_dict()
    assert a.total.score_rate == pytest.approx(0.25)


def test_worker_count() -> None:
    plan = make_plan(specs("random", "seed", "bot"), games=2, seed=1)  # 6 games
    assert worker_count(plan, 4) == 4
    assert worker_count(plan, 50) == 6  # never more workers than games
    assert 1 <= worker_count(plan) <= 6
    with pytest.raises(UsageError, match="--workers must be at least 1, not 0"):
        worker_count(plan, 0)


def test_odd_games_are_flagged() -> None:
    assert starts(5) == (3, 2) and starts(6) == (3, 3)
    assert uneven_starts_warning(6) is None
    warning = uneven_starts_warning(5)
    assert warning is not None and "starts 3 games, the other 2" in warning


def test_random_openings_are_shared_by_a_pair_of_games_with_swapped_starters() -> None:
    plan = make_plan(specs("random", "random"), games=8, seed=4, opening_plies=2)
    tasks = plan_tasks(plan)
    for even, odd in zip(tasks[::2], tasks[1::2], strict=True):
        assert len(even.opening) == 2 and even.opening == odd.opening
        assert even.first == odd.second and even.second == odd.first
    assert len({t.opening for t in tasks}) > 1
    assert plan_tasks(plan) == tasks  # a function of the seed
    outcomes = run_tournament(plan)
    for outcome in outcomes:
        record, opening = outcome.record, outcome.task.opening
        assert record.moves[0].ply == 3 and record.moves[0].side == 0
        assert record.opening == opening
        assert Board.from_moves(record.columns, one_based=False).is_over()
    assert make_plan(specs("random", "random"), 2, seed=1).opening_plies == 0


def test_every_opening_is_played_once_with_each_starter() -> None:
    plan = make_plan(specs("random", "bot:1"), games=98, seed=2, opening_plies=2,
                     every_opening=True)
    tasks = plan_tasks(plan)
    assert len(tasks) == 98
    assert sorted({t.opening for t in tasks}) == [(a, b) for a in range(7) for b in range(7)]
    for even, odd in zip(tasks[::2], tasks[1::2], strict=True):
        assert even.opening == odd.opening and even.first == odd.second


@pytest.mark.parametrize(("plies", "games", "message"), [
    (2, 10, "is 98 games per pairing, not 10"),
    (0, 2, "needs --opening-plies 2 or 4"),
    (6, 2 * 7**6, "needs --opening-plies 2 or 4"),
])
def test_every_opening_refuses_a_plan_that_cannot_play_them_all(plies: int, games: int,
                                                                 message: str) -> None:
    with pytest.raises(UsageError, match=message):
        make_plan(specs("random", "random"), games, seed=1, opening_plies=plies,
                  every_opening=True)


@pytest.mark.parametrize("plies", [1, -2, 12])
def test_bad_opening_lengths_are_refused(plies: int) -> None:
    with pytest.raises(UsageError, match="opening plies"):
        make_plan(specs("random", "random"), 2, seed=1, opening_plies=plies)


def test_a_worker_builds_only_the_players_it_plays() -> None:
    plan = make_plan(specs("random", "bot:1", "seed"), games=1, seed=3)
    first_game = plan_tasks(plan)[0]  # random vs bot:1
    with open_executor(1):  # this process, which forgets the players when it closes
        tournament.play_task(plan, first_game)
        assert set(tournament.worker_roster(plan).built) == {0, 1}


@pytest.mark.slow
def test_ours_in_worker_processes() -> None:
    # The real thing: spawned workers build the shipped engine (book, solver, search) and
    # play; the games come back complete, in plan order.
    plan = make_plan(specs("ours:0.02", "random"), games=2, seed=5)
    with open_executor(2) as pool:
        outcomes = run_tournament(plan, pool)
    assert [o.task.index for o in outcomes] == [0, 1]
    summary = summarize(plan, outcomes, workers=2, elapsed=0.0)
    assert summary.overall[0].total.wins == 2
    stats = summary.moves[0]
    assert sum(stats.sources.values()) == len(stats.seconds) > 0
    assert set(stats.sources) <= {"book", "solver", "search"}


@pytest.mark.slow
def test_worker_processes_get_the_solver_settings(tmp_path: Path) -> None:
    # A book that is not there: the workers' engines fail to build, and the parent gets the
    # error itself (a one-line user error for agent.py), not a broken pool.
    missing = tmp_path / "no-book.bin"
    plan = make_plan(specs("ours:0.02:strongest", "random"), games=2, seed=5,
                     solver=SolverSettings(book=str(missing)))
    with pytest.raises(BookError, match=r"no-book\.bin: cannot read"), open_executor(2) as pool:
        run_tournament(plan, pool)


@pytest.mark.slow
def test_seed_player_searches_depth_5_and_takes_the_leftmost_best_column() -> None:
    # After 2676 the depth-5 values tie between two columns; depths 4 and 6 prefer others,
    # so a player searching another depth, or breaking ties otherwise, plays differently.
    played = [int(c) - 1 for c in "2676"]
    board = Board.from_moves(played, one_based=False)
    grid, player = grid_of(played)
    values = {}
    for col in reference.legal(grid):
        child = reference.drop(grid, col, player)
        values[col] = (reference.WIN - 5 if reference.has_four(child, player)
                       else -reference.minimax(child, -player, 5, SEED_DEPTH - 1))
    best = [col for col, value in sorted(values.items()) if value == max(values.values())]
    assert len(best) > 1

    def leftmost_best(depth: int) -> int:
        found = move_values(board, depth)
        return min(c for c, v in found.items() if v == max(found.values()))

    assert leftmost_best(4) != best[0] and leftmost_best(6) != best[0]
    assert SeedPlayer().choose(board) == best[0]
