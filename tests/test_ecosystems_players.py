"""The other arenas' bots as players of ours (``kaggle:negamax``, ``kaggle:random``,
``openspiel:mcts:N``): their specs, their moves, and their games in ``tournament``, ``local`` and
``report``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import agent
from board import Board
from ecosystems.extras import require
from ecosystems.players import ForeignSpec, build_player, parse_spec
from engine.specs import PlayerSpec
from settings import UsageError

pytest.importorskip("kaggle_environments")
pytest.importorskip("pyspiel")


def test_foreign_specs_are_parsed_and_named() -> None:
    assert parse_spec("kaggle:negamax") == ForeignSpec("kaggle", "negamax")
    assert parse_spec(" Kaggle:Random ").label == "kaggle:random"
    assert parse_spec("openspiel:mcts").label == "openspiel:mcts:1000"
    assert parse_spec("openspiel:mcts:10_000") == ForeignSpec("openspiel", "mcts", 10_000)
    # The rest goes on to the engine's parser.
    assert parse_spec("bot:2") == PlayerSpec("bot", depth=2)
    assert parse_spec("ours", seconds=0.5).label == "ours:0.5"


@pytest.mark.parametrize(("spec", "message"), [
    ("kaggle", "expected kaggle:negamax or kaggle:random"),
    ("kaggle:minimax", "expected kaggle:negamax or kaggle:random"),
    ("openspiel:alphazero", "expected openspiel:mcts or openspiel:mcts:N"),
    ("openspiel:mcts:0", "whole number 1-1,000,000"),
    ("openspiel:mcts:many", "whole number 1-1,000,000"),
    ("openspiel:mcts:1:2", "expected openspiel:mcts or openspiel:mcts:N"),
    ("alphago", "unknown player 'alphago': expected ours"),
])
def test_a_bad_spec_is_one_line_naming_it(spec: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as raised:
        parse_spec(spec)
    assert "\n" not in str(raised.value) and spec.split(":")[0] in str(raised.value)
    if spec == "alphago":
        assert "kaggle:negamax, kaggle:random or openspiel:mcts[:N]" in str(raised.value)


def test_a_missing_package_names_the_extra_to_install() -> None:
    with pytest.raises(UsageError) as raised:
        require("no_such_package_of_an_arena", "player 'kaggle:negamax'")
    assert str(raised.value) == (
        "player 'kaggle:negamax' needs no_such_package_of_an_arena, which is not installed:"
        ' install the arenas extra (pip install -e ".[arenas]")')
    require("pyspiel", "player 'openspiel:mcts:1000'")  # installed: nothing to say


@pytest.mark.parametrize("spec", ["kaggle:negamax", "openspiel:mcts:200"])
def test_the_bots_win_at_once_and_block_a_win(spec: str) -> None:
    player = build_player(parse_spec(spec), rng=random.Random(1))
    assert player.name == parse_spec(spec).label
    # x (to move) has three on the bottom row, columns 1-3; o has three in column 6.
    win = Board.from_moves([1, 6, 2, 6, 3, 6], one_based=False)
    assert player.choose(win) in (0, 4)
    block = Board.from_moves([1, 6, 2, 6, 5, 6, 0], one_based=False)  # o to move must block 6
    assert player.choose(block) == 6


def test_the_kaggle_bots_follow_their_rng_and_leave_the_random_module_alone() -> None:
    board = Board.from_moves("44")
    player = build_player(parse_spec("kaggle:random"), rng=random.Random(5))
    first = [player.choose(board) for _ in range(20)]
    again = build_player(parse_spec("kaggle:random"), rng=random.Random(5))
    random.seed(9)
    state = random.getstate()
    assert [again.choose(board) for _ in range(20)] == first
    assert random.getstate() == state
    assert len(set(first)) > 1 and all(board.can_play(column) for column in first)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = agent.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
def test_a_tournament_against_the_other_arenas_bots(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "tournament", "--players",
                         "ours:0.1:course,kaggle:negamax,openspiel:mcts:100", "--games", "2",
                         "--seed", "1", "--workers", "1", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["players"] == ["ours:0.1:course", "kaggle:negamax", "openspiel:mcts:100"]
    ours = next(row for row in data["overall"] if row["player"] == "ours:0.1:course")
    assert ours["losses"] == 0 and ours["games"] == 4
    assert sum(row["wins"] for row in data["overall"]) == sum(row["losses"] for row in data["overall"])


def test_local_plays_a_kaggle_bot_in_the_course_environment(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[agent]\ntable_bits = 16\n[record]\npath = "games.sqlite3"\n')
    code, out, err = run(capsys, "local", "--config", str(config), "--opponent", "kaggle:random",
                         "--time", "0.05", "--games", "2")
    assert code == 0, err
    assert "summary: 2 games against kaggle:random: 2 won" in out


def test_report_opponents_are_checked_before_any_game(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for opponents, message in [("kaggle:minimax", "expected kaggle:negamax or kaggle:random"),
                               ("bot:3,ours:1", "--opponents ours:1: the report measures our agent"),
                               (" , ", "--opponents: name at least one player spec")]:
        code, _, err = run(capsys, "report", "--out", str(tmp_path / "r"), "--opponents", opponents)
        assert code == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "r").exists()


def test_the_report_describes_the_other_arenas_bots_in_words() -> None:
    from reporting.document import describe_opponent

    assert describe_opponent("kaggle:negamax").startswith("Kaggle ConnectX's built-in negamax")
    assert describe_opponent("openspiel:mcts:10000") == (
        "OpenSpiel's MCTS (`openspiel:mcts:10000`: 10,000 simulations a move, random rollouts)")
    assert describe_opponent("bot:5") == "`bot:5`"
