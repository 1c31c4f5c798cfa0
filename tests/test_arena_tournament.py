"""Tournament planning and bookkeeping: balanced colours, totals that add up, seeds that repeat."""

from __future__ import annotations

import random

import pytest

from arena.match import ILLEGAL, play_game
from arena.players import PlayerSpecError, RandomPlayer, parse_spec
from arena.results import summarize
from arena.tournament import (
    ArenaError,
    GameOutcome,
    GameTask,
    derive_seed,
    make_plan,
    plan_tasks,
    run_tournament,
)


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
    outcomes = run_tournament(plan, workers=1)
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
    assert all(m.mean_depth is None for m in summary.moves)  # no engine, no depth


def test_same_seed_same_games_whatever_the_number_of_workers() -> None:
    plan = make_plan(specs("random", "bot:2"), games=6, seed=2024)
    one = run_tournament(plan, workers=1)
    again = run_tournament(plan, workers=1)
    two = run_tournament(plan, workers=2)
    columns = [o.record.columns for o in one]
    assert [o.record.columns for o in again] == columns
    assert [o.record.columns for o in two] == columns
    assert [o.task for o in two] == [o.task for o in one]
    other = run_tournament(make_plan(specs("random", "bot:2"), games=6, seed=2025), workers=1)
    assert [o.record.columns for o in other] != columns


def test_the_course_bot_beats_random_play() -> None:
    plan = make_plan(specs("bot:1", "random"), games=4, seed=0)
    summary = summarize(plan, run_tournament(plan, workers=1), workers=1, elapsed=0.0)
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
        outcomes.append(GameOutcome(task, play_game(first, second)))
    assert all(o.record.reason == ILLEGAL for o in outcomes)
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
    with pytest.raises(ArenaError, match=message):
        make_plan(specs(*names), games)


def test_bad_worker_count_is_refused() -> None:
    plan = make_plan(specs("random", "seed"), 2, seed=1)
    with pytest.raises(ArenaError, match="--workers"):
        run_tournament(plan, workers=0)


@pytest.mark.parametrize("spec", ["bot:0", "bot:x", "ours:-1", "ours:fast", "ours:nan",
                                  "random:3", "alphazero", ""])
def test_bad_specs_name_the_spec(spec: str) -> None:
    with pytest.raises(PlayerSpecError, match="player"):
        parse_spec(spec)


def test_spec_labels() -> None:
    assert parse_spec("bot").label == "bot:3"
    assert parse_spec(" BOT:5 ").label == "bot:5"
    assert parse_spec("ours", seconds=0.5).label == "ours:0.5"
    assert parse_spec("ours:2", seconds=0.5).label == "ours:2"
    assert parse_spec("ours").label == "ours"


def test_task_second_is_the_other_player() -> None:
    task = GameTask(0, 0, a=1, b=3, game=1, first=3, seeds=(1, 2))
    assert task.second == 1
