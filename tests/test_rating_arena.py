"""The ladder's players and games (engine.players' noise option, arena.calibration): the noisy
perfect player, the plan of the ladder's games, a real run on a work file that resumes, the
fit written as a ladder, and a player placed on it."""

from __future__ import annotations

import random
import time
from collections import Counter
from pathlib import Path

import pytest

from arena.calibration import (
    LadderWork,
    fit_ladder,
    ladder_game,
    ladder_tasks,
    main,
    make_ladder_plan,
    neighbour_pairings,
    place,
    read_games_file,
    write_games_file,
)
from board import Board
from ecosystems.players import build_player, parse_spec
from engine.players import NoisyPlayer, OursPlayer, SeedPlayer
from rating.ladder import load_ladder, save_ladder
from settings import UsageError
from tests.helpers import engine_spec
from vocabulary import Ending

# random is beaten by every bot in a handful of games: a noisy depth-1 search links it to them
SMALL = (("random", "random"), ("noisy", "ours:0.02:course:d1:noise=0.85"), ("bot:1", "bot:1"),
         ("bot:2", "bot:2"))


def test_the_noise_option_of_ours() -> None:
    spec = engine_spec("ours:0.05:strongest:noise=0.3")
    assert (spec.kind, spec.seconds, spec.mode, spec.noise) == ("ours", 0.05, "strongest", 0.3)
    assert spec.label == "ours:0.05:strongest:noise=0.3"
    assert engine_spec("ours:1:noise=0").noise == 0.0
    assert engine_spec("ours:1").noise is None
    for bad in ("noise=1.5", "noise=-0.1", "noise=", "noise=x", "noise=1e-3", "noise=."):
        with pytest.raises(UsageError, match="noise must be a share 0-1"):
            parse_spec(f"ours:1:{bad}")
    with pytest.raises(UsageError, match="second time"):
        parse_spec("ours:1:noise=0.1:noise=0.2")


def test_the_cpu_option_of_ours_times_moves_by_cpu_time() -> None:
    spec = engine_spec("ours:0.05:cpu:strongest:noise=0.1")
    assert spec.cpu_clock and spec.label == "ours:0.05:strongest:cpu:noise=0.1"
    assert not engine_spec("ours:0.05").cpu_clock
    with pytest.raises(UsageError, match="second time"):
        parse_spec("ours:1:cpu:cpu")
    player = build_player(parse_spec("ours:0.02:course:cpu"))
    assert isinstance(player, OursPlayer)
    assert player.engine.clock is time.process_time
    assert player.choose(Board.from_moves("4444")) in range(7)
    wall = build_player(parse_spec("ours:0.02:course"))
    assert isinstance(wall, OursPlayer) and wall.engine.clock is not time.process_time


def _moves(player: NoisyPlayer | SeedPlayer, plies: int = 12) -> list[int]:
    """The player's answers along a game it plays against itself."""
    board, columns = Board(), []
    for _ in range(plies):
        column = player.choose(board)
        columns.append(column)
        board = board.play_unchecked(column)
        if board.is_over():
            break
    return columns


def test_no_noise_plays_the_inner_player_and_all_noise_never_asks_it() -> None:
    assert _moves(NoisyPlayer(SeedPlayer(), 0.0, random.Random(1), "quiet")) == _moves(SeedPlayer())

    class Refusing(SeedPlayer):
        def choose(self, board: Board) -> int:
            raise AssertionError("asked for a move")

    loud = NoisyPlayer(Refusing(), 1.0, random.Random(1), "loud")
    assert len(_moves(loud)) >= 7
    assert loud.last is None


def test_the_share_of_random_moves_and_its_seed() -> None:
    class Counting(SeedPlayer):
        asked = 0

        def choose(self, board: Board) -> int:
            Counting.asked += 1
            return super().choose(board)

    player = NoisyPlayer(Counting(), 0.3, random.Random(5), "noisy")
    for _ in range(400):
        player.choose(Board.from_moves("4453"))
    assert 230 <= Counting.asked <= 330  # 70 % of 400 asked of the inner player (sd 9)
    twin = NoisyPlayer(SeedPlayer(), 0.3, random.Random(9), "a")
    again = NoisyPlayer(SeedPlayer(), 0.3, random.Random(9), "b")
    assert _moves(twin, 20) == _moves(again, 20)


def test_the_plan_plays_both_colours_from_shared_openings() -> None:
    plan = make_ladder_plan(SMALL, neighbour_pairings(len(SMALL), 2), 6, 3, 2)
    assert plan.pairings == ((0, 1), (0, 2), (1, 2), (1, 3), (2, 3))
    tasks = ladder_tasks(plan)
    assert len(tasks) == 30 and [t.index for t in tasks] == list(range(30))
    firsts = Counter((t.pairing, t.first) for t in tasks)
    assert all(count == 3 for count in firsts.values()) and len(firsts) == 10
    by_pair: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    for t in tasks:
        by_pair.setdefault((t.pairing, t.game // 2), []).append(t.opening)
    for openings in by_pair.values():
        assert len(openings) == 2 and openings[0] == openings[1] and len(openings[0]) == 2
    # more games keep the earlier ones: the same tasks first
    more = ladder_tasks(make_ladder_plan(SMALL, plan.pairings, 10, 3, 2))
    assert more[:30] == tasks


def test_bad_requests_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["play", "--games", "3", "--work", str(tmp_path / "w.jsonl")]) == 2
    assert capsys.readouterr().err.startswith("error: --games must be an even number")
    assert main(["play", "--distance", "0", "--work", str(tmp_path / "w.jsonl")]) == 2
    assert capsys.readouterr().err == "error: --distance must be at least 1, not 0\n"
    assert main(["place", "nobody", "--work", str(tmp_path / "p.jsonl")]) == 2
    assert capsys.readouterr().err.startswith("error: unknown player 'nobody'")


def test_a_small_ladder_is_played_resumed_fitted_and_a_player_placed(tmp_path: Path) -> None:
    work = LadderWork(tmp_path / "ladder-work.jsonl")
    plan = make_ladder_plan(SMALL, neighbour_pairings(len(SMALL), 2), 8, 4, 2)
    from arena.calibration import play

    tasks = ladder_tasks(plan)
    assert play(plan, work, "test", 1, None, tasks=tasks[:12]) == 12  # stopped early
    assert play(plan, work, "test", 1, None) == len(tasks) - 12     # resumed: the rest only
    assert play(plan, work, "test", 1, None) == 0
    lines = work.lines()
    assert sorted(line["game"] for line in lines) == list(range(len(tasks)))
    for line in lines:
        game = ladder_game(line)
        assert game.points(0) in (0.0, 0.5, 1.0) and len(game.opening) == 2
        assert game.move_string == line["move_string"] and game.ending in (Ending.FOUR, Ending.FULL)
        assert {line["first"], line["second"]} <= {name for name, _ in SMALL}

    other = make_ladder_plan(SMALL[:3], neighbour_pairings(3, 1), 8, 4, 2)
    with pytest.raises(UsageError, match="another ladder plan"):
        work.resume(other, "other")

    games_file = tmp_path / "games.jsonl.gz"
    write_games_file(lines, games_file)
    assert read_games_file(games_file) == lines
    ladder, _result, games = fit_ladder(lines, SMALL)
    assert len(games) == len(lines) == ladder.games
    assert ladder.rungs[0].name == "random" and ladder.rung("random").rating == 0.0
    assert ladder.rung("bot:2").rating > 0  # a depth-2 search beats random moves
    assert {r.spec for r in ladder.rungs} == {spec for _, spec in SMALL}
    path = save_ladder(ladder, tmp_path / "ladder.json")
    assert load_ladder(path) == ladder

    placed = LadderWork(tmp_path / "place.jsonl")
    lines = place(ladder, ["seed"], placed, games=4, per_round=2, seed=1, command="t",
                  workers=1, scheduler=None)
    assert len(lines) == 4 and {line["round"] for line in lines} == {0, 1}
    assert all("seed" in (line["first"], line["second"]) for line in lines)
    # the first round is against the middle rung
    first_round = [line for line in lines if line["round"] == 0]
    assert {line["first"] for line in first_round} | {line["second"] for line in first_round} \
        == {"seed", ladder.middle().name}
    again = place(ladder, ["seed"], placed, games=4, per_round=2, seed=1, command="t",
                  workers=1, scheduler=None)
    assert sorted(line["game"] for line in again) == sorted(line["game"] for line in lines)
    with pytest.raises(UsageError, match="is a rung"):
        place(ladder, ["bot:2"], LadderWork(tmp_path / "x.jsonl"), games=2, per_round=2,
              seed=1, command="t", workers=1, scheduler=None)


def test_results_against_the_openings_exact_value() -> None:
    from arena.calibration import against_openings, openings_table
    from solver.book import load_book

    value = load_book().lookup(Board.from_moves("44"))
    assert value is not None
    exact = 1.0 if value.score > 0 else 0.5 if value.score == 0 else 0.0
    lines = [{"first": "a", "second": "b", "score": exact, "opening": "44"},
             {"first": "b", "second": "a", "score": exact, "opening": "44"}]
    if exact < 1.0:  # the first player can do better than the value: "above"
        lines.append({"first": "a", "second": "b", "score": 1.0, "opening": "44"})
    if exact > 0.0:  # or worse: "below"
        lines.append({"first": "b", "second": "a", "score": 0.0, "opening": "44"})
    counts = against_openings(lines)
    games = len(lines)
    assert counts["a"]["games"] == counts["b"]["games"] == games
    # each game off the value is below it for one player and above it for the other
    assert counts["b"]["below"] == counts["a"]["above"] == games - 2
    assert counts["a"]["below"] == 0 and counts["b"]["above"] == 0
    assert f"| a | {games} |" in openings_table(lines)
