"""``agent.py rate``: a cheap player rated against a tiny ladder written here (not the shipped
one): the files written, a rating inside the ladder's span, results per opponent that add up,
accuracy judged by the referee, the adaptive choice of rungs, and a rerun that plays no finished
game again."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from engine.games import PlayedGame, PlayedMove
from rating.ladder import Ladder, Rung, save_ladder
from reporting.rate import (
    GAMES,
    PLAYER_MOVES,
    RateRequest,
    expected_minutes,
    plan_lines,
    player_moves,
    rate,
)
from reporting.rated import (
    GAMES_FOR_100_POINTS,
    MIN_GAMES,
    STEP,
    Estimate,
    RatedGame,
    batch_size,
    done,
    estimate,
    expected_games,
    next_rungs,
)
from settings import Settings, UsageError
from tests.helpers import ctrl_c_once_written
from vocabulary import Ending

ROOT = Path(__file__).resolve().parent.parent

# Four cheap rungs, spaced as the course's bots and random roughly are.
RUNGS = (("random", "random", 0.0), ("bot:1", "bot:1", 300.0), ("bot:2", "bot:2", 550.0),
         ("bot:4", "bot:4", 800.0))


def tiny_ladder(path: Path) -> Path:
    rungs = tuple(Rung(name, spec, rating, rating - 40, rating + 40, 20.0, 100)
                  for name, spec, rating in RUNGS)
    return save_ladder(Ladder(rungs, first_move=30.0, draw=0.1), path)


def request(out: Path, ladder: Path, games: int, player: str = "bot:1",
            **more: Any) -> RateRequest:
    return RateRequest(player=player, out=out, games=games, seconds=0.2, workers=1, seed=5,
                       ladder=ladder, **more)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("rate")
    ladder = tiny_ladder(folder / "ladder.json")
    out = folder / "run"
    assert rate(request(out, ladder, 8), Settings()) == 0
    return {"out": out, "ladder": ladder, "folder": folder,
            "games": lines(out / GAMES), "json": json.loads((out / "rate.json").read_text())}


@pytest.mark.slow
def test_the_run_writes_the_report_its_figures_and_its_games(run: dict[str, Any]) -> None:
    out = run["out"]
    for name in ("rate.md", "rate.json", "ladder.png", "results.png", "accuracy.png",
                 "time_per_move.png", GAMES, "checks.jsonl"):
        assert (out / name).stat().st_size > 0, name
    text = (out / "rate.md").read_text()
    for heading in ("## Rating", "## Results per opponent", "## Accuracy", "### Worst moves",
                    "## Time per move", "## Faults"):
        assert heading in text
    header, *games = run["games"]
    assert header["rate"]["seed"] == 5 and "agent.py rate bot:1" in header["command"]
    assert [g["game"] for g in games] == list(range(1, 9))


def test_the_rating_lies_within_the_ladder_and_the_results_add_up(run: dict[str, Any]) -> None:
    found = run["json"]
    rating = found["rating"]
    low, high = min(r[2] for r in RUNGS), max(r[2] for r in RUNGS)
    assert found["games"] == 8
    assert rating["fitted"], rating
    assert low - STEP <= rating["rating"] <= high + STEP
    assert rating["low"] < rating["rating"] < rating["high"]
    opponents = found["opponents"]
    assert sum(o["games"] for o in opponents) == 8
    for o in opponents:
        tallies = [o["as_first"], o["as_second"]]
        assert sum(t["wins"] + t["draws"] + t["losses"] for t in tallies) == o["games"]
        assert 0.0 <= o["expected"] <= 1.0
    # Both colours against each rung played in a batch (a batch is whole here: 8 = 2 x 4).
    for o in opponents:
        first = sum(o["as_first"].values())
        assert first == o["games"] - first


def test_accuracy_counts_every_move_of_the_player_judged_by_the_referee(
        run: dict[str, Any]) -> None:
    games = [RatedGame.from_line(line) for line in run["games"][1:]]
    moves = player_moves(games)
    accuracy = run["json"]["accuracy"]
    assert accuracy["moves"] == len(moves) > 0
    assert accuracy["critical"] + accuracy["unproven"] + accuracy["same"] == len(moves)
    assert accuracy["kept"] + accuracy["lost"] == accuracy["critical"]
    checks = lines(run["out"] / "checks.jsonl")
    assert {(c["game"], c["ply"]) for c in checks} == {(m[0], m[3]) for m in moves}
    # bot:1 throws games away: the referee finds lost outcomes, each linked to the board.
    assert accuracy["lost"] > 0
    worst = run["json"]["worst_moves"]
    assert worst and all(w["link"].endswith(f"?review=rated:{w['game']}&ply={w['ply'] - 1}")
                         for w in worst)
    costs = [{"win": 1, "draw": 0, "loss": -1}[w["best"]]
             - {"win": 1, "draw": 0, "loss": -1}[w["outcome"]] for w in worst]
    assert costs == sorted(costs, reverse=True) and min(costs) > 0


@pytest.mark.slow
def test_a_rerun_plays_no_finished_game_again_and_goes_on(run: dict[str, Any],
                                                          tmp_path: Path) -> None:
    out = tmp_path / "again"
    shutil.copytree(run["out"], out)
    before = (out / GAMES).read_text()
    # The same command: every game is played, nothing more is.
    assert rate(request(out, run["ladder"], 8), Settings()) == 0
    assert (out / GAMES).read_text() == before
    # A run stopped after 5 games (the sixth line cut short): the same command plays 3 more.
    kept = before.splitlines(keepends=True)[:6]
    (out / GAMES).write_text("".join(kept) + '{"game": 6, "bat')
    assert rate(request(out, run["ladder"], 8), Settings()) == 0
    after = lines(out / GAMES)
    assert after[:6] == [json.loads(line) for line in kept]
    assert [g["game"] for g in after[1:]] == list(range(1, 9))
    # A larger --games goes on from the finished run; no game is played twice.
    assert rate(request(out, run["ladder"], 12), Settings()) == 0
    more = lines(out / GAMES)
    assert more[:9] == after
    assert [g["game"] for g in more[1:]] == list(range(1, 13))


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "killpg"), reason="sends Ctrl-C to a process group")
def test_ctrl_c_keeps_every_finished_game_and_the_same_command_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agent import main

    ladder = tiny_ladder(tmp_path / "ladder.json")
    out = tmp_path / "run"
    command = ["rate", "seed", "--games", "60", "--workers", "2", "--seed", "4", "--time", "0.2",
               "--ladder", str(ladder), "--out", str(out)]
    games = out / GAMES
    code, err = ctrl_c_once_written(command, games, 4)  # the run's line and 3 games
    assert code == 130, err
    # What it will play and for how long, before the first game.
    assert err.startswith("rate: seed at 0.2 s a move (--time), at most 60 games (--games),"
                          " stopping once the 95 % interval is 100 points wide (--width; about"
                          " 60 games); 2 worker(s), seed 4"), err
    assert err.splitlines()[1].startswith("expect about "), err
    assert "Traceback" not in err and err.splitlines()[-1] == "interrupted", err
    kept = lines(games)  # every line whole
    numbers = [g["game"] for g in kept[1:]]
    assert f"{len(numbers)} game(s) kept in {games}" in err
    # Numbered as handed out: a game sent but not yet started when Ctrl-C came is not played.
    assert 3 <= len(numbers) < 60 and len(set(numbers)) == len(numbers)
    # The same command, asked for 4 games more, keeps those and plays 4.
    more = [*command[:command.index("--games") + 1], str(len(numbers) + 4),
            *command[command.index("--games") + 2:]]
    more[more.index("--workers") + 1] = "1"
    assert main(more) == 0
    assert f"resuming: {len(numbers)} game(s) already played" in capsys.readouterr().err
    after = lines(games)
    assert after[:len(kept)] == kept
    again = [g["game"] for g in after[1:]]
    assert len(again) == len(set(again)) == len(numbers) + 4 and min(again[-4:]) > max(numbers)


def test_an_outside_agent_that_raises_loses_by_faults_counted_by_kind(tmp_path: Path) -> None:
    agent = ROOT / "tests" / "data" / "outside" / "connectx" / "raises.py"
    out = tmp_path / "run"
    children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    before = set(children.read_text().split()) if children.exists() else set()
    assert rate(request(out, tiny_ladder(tmp_path / "ladder.json"), 4,
                        player=f"connectx:{agent}"), Settings()) == 0
    found = json.loads((out / "rate.json").read_text())
    assert [f["kind"] for f in found["faults"]] == ["error"] * 4
    assert all("ZeroDivisionError" in f["detail"] for f in found["faults"])
    assert not found["rating"]["fitted"] and found["rating"]["low"] is None  # lost every game
    text = (out / "rate.md").read_text()
    assert "4 game(s) lost by a fault, by kind: error 4." in text
    assert "No finite rating yet" in text and "below `" in text
    if children.exists():  # the agent's processes ended with their games
        assert set(children.read_text().split()) <= before


def test_another_player_in_the_same_folder_is_refused(run: dict[str, Any],
                                                      tmp_path: Path) -> None:
    out = tmp_path / "other"
    shutil.copytree(run["out"], out)
    with pytest.raises(UsageError, match="another rate run"):
        rate(request(out, run["ladder"], 8, player="bot:2"), Settings())


def test_a_missing_ladder_and_a_bad_rung_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--ladder"):
        rate(request(tmp_path / "a", tmp_path / "none.json", 4), Settings())
    bad = save_ladder(Ladder((Rung("x", "nobody:3", 0.0, -1.0, 1.0),), 0.0, 0.1),
                      tmp_path / "bad.json")
    with pytest.raises(UsageError, match="rung 'x'"):
        rate(request(tmp_path / "b", bad, 4), Settings())


# --- the adaptive rule ---------------------------------------------------------------------------

def game(number: int, rung: str, score: float, player_first: bool = True) -> RatedGame:
    side = 0 if player_first else 1
    winner = None if score == 0.5 else side if score == 1 else 1 - side
    record = PlayedGame("p" if player_first else rung, rung if player_first else "p",
                        (PlayedMove(1, 3, 0.01),), winner,
                        Ending.FOUR if winner is not None else Ending.FULL)
    return RatedGame(number, 1, rung, player_first, record)


def ladder_of() -> Ladder:
    return Ladder(tuple(Rung(n, s, r, r - 40, r + 40) for n, s, r in RUNGS), 30.0, 0.1)


def test_the_first_batch_aims_at_the_middle_and_a_clean_sweep_moves_up() -> None:
    ladder = ladder_of()
    first = estimate([], ladder)
    assert first.rating == ladder.middle().rating and not first.fitted
    assert [r.name for r in next_rungs(ladder, first)] == ["bot:1", "bot:2"]
    swept = [game(i, "bot:2", 1.0, i % 2 == 0) for i in range(4)]
    up = estimate(swept, ladder)
    assert not up.fitted and math.isinf(up.high) and up.rating > 550
    assert "bot:4" in [r.name for r in next_rungs(ladder, up)]
    lost = [game(i, "bot:1", 0.0, i % 2 == 0) for i in range(4)]
    down = estimate(lost, ladder)
    assert down.rating < 300 and "random" in [r.name for r in next_rungs(ladder, down)]


def test_mixed_results_fit_between_the_rungs_and_the_stopping_rule() -> None:
    ladder = ladder_of()
    games = [game(i, "bot:2", [1.0, 0.0, 0.5][i % 3], i % 2 == 0) for i in range(30)]
    found = estimate(games, ladder)
    assert found.fitted and 300 < found.rating < 800 and found.low < found.rating < found.high
    assert not done(10, 200, Estimate(500, 480, 520, True), 100)  # too few games yet
    assert done(MIN_GAMES, 200, Estimate(500, 480, 520, True), 100)
    assert not done(MIN_GAMES, 200, Estimate(500, 480, 520, True), 0)  # width 0: play them all
    assert not done(MIN_GAMES, 200, Estimate(500, 480, math.inf, False), 100)
    assert done(200, 200, Estimate(500, 0, 1000, True), 100)
    assert batch_size(1) == batch_size(2) == 4 and batch_size(16) == 16


def test_the_plan_said_before_a_run_counts_the_games_the_rule_expects() -> None:
    assert expected_games(400, 100) == GAMES_FOR_100_POINTS  # the defaults
    assert expected_games(400, 200) == math.ceil(GAMES_FOR_100_POINTS / 4)
    assert expected_games(400, 50) == expected_games(400, 0) == 400  # the cap: all of them
    assert expected_games(400, 1000) == MIN_GAMES
    quick, slow = expected_minutes(220, 3.0, 2)
    assert slow == pytest.approx(quick + 220 * PLAYER_MOVES * 3.0 / 2 / 60) and quick < 5
    first, then = plan_lines("peer", 3.0, RateRequest("peer", Path("rated/peer")), 7, 2, 20)
    assert first == ("rate: peer at 3 s a move (--time), at most 400 games (--games), stopping"
                     " once the 95 % interval is 100 points wide (--width; about 220 games);"
                     " 2 worker(s), seed 7, into rated/peer")
    left = expected_minutes(200, 3.0, 2)  # the 20 games kept from an earlier run not counted
    assert then.startswith(f"expect about {left[0]:.1f} min if it answers at once, up to"
                           f" {left[1]:.0f} min if it thinks 3 s on every move")


def test_a_fault_is_the_player_losing_off_the_board() -> None:
    record = PlayedGame("p", "bot:1", (), 1, Ending.ILLEGAL, "answered 'x', not a column")
    assert RatedGame(1, 1, "bot:1", True, record).fault == Ending.ILLEGAL
    assert RatedGame(1, 1, "bot:1", False, record).fault is None  # the rung lost it
    assert game(2, "bot:1", 0.0).fault is None  # lost on the board
