"""``agent.py sprt`` end to end: pairs from the opening suite with the colours swapped, the
verdicts, ``results.json``, a stop (Ctrl-C, a kill) that loses no finished pair and the rerun
that goes on, any player spec, and one-line errors."""

from __future__ import annotations

import io
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import agent
from arena.openings import load_openings
from arena.tournament import make_plan, plan_tasks
from arena.work import GAMES_WORK, plan_identity
from board import Board, moves_to_string
from ecosystems.players import parse_spec
from rating.sprt import Sprt, Verdict, llr
from terminal import live_line
from tests.helpers import ctrl_c_once_written

ROOT = Path(__file__).resolve().parent.parent
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SUITE = {moves_to_string(opening) for opening in load_openings()}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = agent.main(["sprt", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def results(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "results.json").read_text())
    return data


def pairs_of(data: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    games = data["games"]
    return [(games[i], games[i + 1]) for i in range(0, len(games), 2)]


def candidate_half_points(game: dict[str, Any], candidate: str) -> int:
    if game["winner"] is None:
        return 1
    return 2 if (game["first"], game["second"])[game["winner"]] == candidate else 0


def test_a_much_stronger_candidate_is_accepted(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    out = tmp_path / "test"
    code, stdout, err = run(capsys, "bot:1", "bot:3", "--elo1", "200", "--seed", "1",
                            "--workers", "1", "--out", str(out))
    assert code == 0, err
    lines = stdout.splitlines()
    assert lines[0].startswith("H1 accepted: bot:3 is stronger than bot:1. After ")
    assert lines[1].startswith("Strength of bot:3 over bot:1: +") and " Elo [" in lines[1]
    assert "a fixed number of games with the same error rates" in lines[2]
    assert "LLR" in err and "[-2.94, +2.94]" in err  # the live line

    data = results(out)
    sprt = Sprt(0, 200)
    assert data["verdict"] == "H1" and data["verdict_words"] == lines[0]
    assert (data["elo0"], data["elo1"], data["model"]) == (0, 200, "normalized")
    assert data["bounds"] == [round(b, 4) for b in sprt.bounds]
    counts = data["pentanomial"]
    assert sum(counts) == data["pairs"] == len(data["llr_curve"]) >= 2
    assert data["llr"] == pytest.approx(llr(counts, 0, 200), abs=1e-4)
    assert data["llr_curve"][-1] >= sprt.bounds[1] > max(data["llr_curve"][:-1])
    assert data["nelo"]["low"] < data["nelo"]["elo"] < data["nelo"]["high"]
    elo = data["elo"]  # the mean score's interval may reach 1: an unbounded Elo (null)
    assert elo["low"] < elo["elo"] and (elo["high"] is None or elo["elo"] < elo["high"])

    pairs = pairs_of(data)
    assert len(pairs) == data["pairs"] + sum(data["pentanomial_after_verdict"])
    tally = [0] * 5
    for first, second in pairs:
        assert first["pair"] == second["pair"] and first["opening"] == second["opening"]
        assert moves_to_string(first["opening"]) in SUITE
        # the same opening with the colours swapped: the base moves first, then the candidate
        assert (first["first"], first["second"]) == ("bot:1", "bot:3")
        assert (second["first"], second["second"]) == ("bot:3", "bot:1")
        for game in (first, second):  # played out from the opening
            assert game["move_string"].startswith(moves_to_string(game["opening"]))
            assert Board.from_moves(game["move_string"]).is_over()
        if first["counted"]:
            tally[candidate_half_points(first, "bot:3")
                  + candidate_half_points(second, "bot:3")] += 1
    assert tally == counts
    trinomial = data["trinomial"]
    assert sum(trinomial) == 2 * data["pairs"]
    assert (out / "llr.png").read_bytes().startswith(PNG_SIGNATURE)
    # the command that repeats it parses back to this test, with its seed
    words = shlex.split(data["command"])
    assert words[:2] == ["python", "agent.py"]
    _command, options, _config = agent.registry().parse(words[2:])
    assert (options.base, options.candidate, options.elo1, options.seed, options.out) == \
        ("bot:1", "bot:3", 200.0, 1, str(out))

    # run again: the test is decided, nothing more is played
    code, again, err = run(capsys, "bot:1", "bot:3", "--elo1", "200", "--workers", "1",
                           "--out", str(out))
    assert code == 0 and again.splitlines()[0] == lines[0]
    assert " min" not in again.splitlines()[2]  # nothing played, no time to tell
    assert f"resuming: {len(pairs)} pairs already played" in err
    assert len(pairs_of(results(out))) == len(pairs)


@pytest.mark.slow
def test_on_a_dask_cluster_the_same_games(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                         local_cluster: str) -> None:
    # Fixed-depth bots seeded by the plan: a pair's games do not depend on where they ran.
    argv = ["bot:1", "bot:3", "--elo1", "200", "--seed", "1"]
    assert run(capsys, *argv, "--workers", "1", "--out", str(tmp_path / "here"))[0] == 0
    code, _, err = run(capsys, *argv, "--scheduler", local_cluster, "--out",
                       str(tmp_path / "cluster"))
    assert code == 0, err

    def games(where: str) -> dict[int, list[str]]:
        found: dict[int, list[str]] = {}
        for game in results(tmp_path / where)["games"]:
            found.setdefault(game["pair"], []).append(game["move_string"])
        return found

    here, there = games("here"), games("cluster")
    assert all(there[pair] == here[pair] for pair in set(here) & set(there))
    assert results(tmp_path / "cluster")["verdict"] == "H1"


def test_a_player_against_itself_ends_in_h0(capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, err = run(capsys, "random", "random", "--elo1", "100", "--seed", "2",
                            "--workers", "1")
    assert code == 0, err
    assert stdout.startswith("H0 accepted: random#2 is not stronger than random#1 by 100 nElo.")


def test_the_maximum_then_a_larger_one_goes_on(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    out = tmp_path / "test"
    base = ["seed", "bot:2", "--seed", "4", "--workers", "1", "--out", str(out)]
    code, stdout, _ = run(capsys, *base, "--max-pairs", "3")
    assert code == 0
    assert stdout.startswith("No verdict on whether bot:2 is stronger than seed: after 3 pairs"
                             " (6 games), the maximum,")
    first = results(out)
    assert first["verdict"] == "maximum" and first["pairs"] == 3 and first["max_pairs"] == 3
    code, stdout, err = run(capsys, *base, "--max-pairs", "5")
    assert code == 0
    assert "resuming: 3 pairs already played" in err
    second = results(out)
    assert second["resumed_pairs"] == 3 and second["pairs"] == 5 and second["max_pairs"] == 5
    assert second["games"][:6] == first["games"]  # kept as played, not played again
    assert [g["pair"] for g in second["games"]] == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_another_test_in_the_same_folder_is_refused(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    out = tmp_path / "test"
    assert run(capsys, "seed", "bot:2", "--seed", "4", "--workers", "1", "--max-pairs", "1",
               "--out", str(out))[0] == 0
    for other in (["seed", "bot:2", "--elo1", "50"], ["seed", "bot:3"],
                  ["seed", "bot:2", "--model", "logistic"]):
        code, _, err = run(capsys, *other, "--workers", "1", "--out", str(out))
        assert code == 2
        assert err.startswith(f"error: {out / GAMES_WORK} holds a test of other players or"
                              " options; finish it with `python agent.py sprt seed bot:2")


def _pairs_in_work_file(out: Path) -> list[list[str]]:
    """The move strings of the whole pairs of the work file, in the order written."""
    lines = []
    for line in (out / GAMES_WORK).read_text().splitlines()[1:]:
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError:  # a last line cut short by the kill
            break
    by_game = {line["game"]: line["move_string"] for line in lines}
    return [[by_game[2 * p], by_game[2 * p + 1]] for p in sorted({g // 2 for g in by_game})
            if 2 * p in by_game and 2 * p + 1 in by_game]


@pytest.mark.slow
def test_a_kill_loses_no_finished_pair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "test"
    command = ["random", "random", "--seed", "5", "--workers", "1", "--out", str(out)]
    process = subprocess.Popen([sys.executable, str(ROOT / "agent.py"), "sprt", *command],
                               cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        work = out / GAMES_WORK
        deadline = time.monotonic() + 120
        while not (work.exists() and work.read_text().count("\n") >= 7):  # 3 pairs
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.005)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(30)
    finally:
        process.kill()
    kept = _pairs_in_work_file(out)
    assert len(kept) >= 3
    code, _, err = run(capsys, *command, "--max-pairs", str(len(kept) + 2))
    assert code == 0, err
    assert f"resuming: {len(kept)} pairs already played" in err
    games = results(out)["games"]
    resumed = [[games[i]["move_string"], games[i + 1]["move_string"]]
               for i in range(0, len(games), 2)]
    assert resumed[:len(kept)] == kept and len(resumed) == len(kept) + 2


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads processes in /proc")
def test_ctrl_c_keeps_the_pairs_and_writes_the_results_so_far(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "test"
    command = ["sprt", "bot:2", "seed", "--seed", "6", "--workers", "2", "--out", str(out)]
    code, err = ctrl_c_once_written(command, out / GAMES_WORK, 5)  # the plan's line, 2 pairs
    assert code == 130, err
    assert "Traceback" not in err and err.splitlines()[-1] == "interrupted", err
    kept = _pairs_in_work_file(out)
    assert f"{len(kept)} pairs kept in {out / GAMES_WORK}; the same command goes on" in err
    data = results(out)
    assert data["verdict"] is None and data["pairs"] == len(kept) >= 2
    assert data["verdict_words"].startswith("Not decided yet whether seed is stronger than"
                                            f" bot:2: after {len(kept)} pairs")


def test_an_outside_agent_plays_its_pairs(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    program = f'program:"{sys.executable} examples/line_engine.py":0.5'
    code, _, err = run(capsys, "random", program, "--max-pairs", "2", "--seed", "7",
                            "--workers", "1", "--out", str(tmp_path / "test"))
    assert code == 0, err
    data = results(tmp_path / "test")
    assert data["pairs"] == 2 and len(data["games"]) == 4
    for game in data["games"]:
        assert game["ending"] in ("four", "full")  # played out, no fault
        assert game["moves"]


@pytest.mark.parametrize(("argv", "message"), [
    (["random", "bot:1", "--elo0", "5", "--elo1", "1"], "error: elo0 must be below elo1"),
    (["random", "bot:1", "--alpha", "0.7"], "must be between 0 and 0.5, not 0.7"),
    (["random", "bot:1", "--elo1", "many"], "'many' is not a number"),
    (["random", "bot:1", "--elo1", "nan"], "'nan' is not a finite number"),
    (["random", "bot:1", "--elo1", "9000"], "error: elo1 9000 is beyond +-2000 nElo"),
    (["random", "bot:1", "--max-pairs", "0"], "must be at least 1, not 0"),
    (["random", "human"], "error: player 'human' cannot play in a tournament"),
    (["random", "nobody"], "error: "),
    (["random", "bot:1", "--openings", "missing.txt"], "error: cannot read the openings"),
])
def test_bad_requests_give_one_error_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                          message: str) -> None:
    code, stdout, err = run(capsys, *argv)
    assert code == 2 and stdout == ""
    assert message in err and "Traceback" not in err


def test_an_opening_file_of_the_users(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    suite = tmp_path / "mine.txt"
    suite.write_text("# two openings\n4444\n\n3353\n")
    code, _, err = run(capsys, "random", "bot:1", "--openings", str(suite), "--max-pairs", "3",
                       "--seed", "8", "--workers", "1", "--out", str(tmp_path / "test"))
    assert code == 0, err
    openings = [moves_to_string(g["opening"]) for g in results(tmp_path / "test")["games"]]
    assert sorted(openings) == ["3353", "3353", "4444", "4444", "4444", "4444"]  # from the top
    suite.write_text("4444\n445\n")
    code, _, err = run(capsys, "random", "bot:1", "--openings", str(suite))
    assert code == 2 and f"error: {suite}, line 2: '445' has an odd number of moves" in err


def test_a_plan_of_a_suite_opens_each_pair_with_its_opening() -> None:
    specs = [parse_spec("random"), parse_spec("bot:1")]
    suite = ((3, 3, 3, 3), (2, 2, 4, 2), (0, 6, 0, 6))
    plan = make_plan(specs, 8, 1, openings=suite)
    tasks = plan_tasks(plan)
    assert [task.opening for task in tasks] == [suite[0]] * 2 + [suite[1]] * 2 + \
        [suite[2]] * 2 + [suite[0]] * 2  # from the top again after the last
    assert [task.first for task in tasks] == [0, 1] * 4
    other = make_plan(specs, 8, 1, openings=suite[:2])
    assert plan_identity(plan)["openings"]["count"] == 3
    assert plan_identity(plan)["openings"] != plan_identity(other)["openings"]
    assert "openings" not in plan_identity(make_plan(specs, 8, 1))  # a tournament's as before


def test_verdicts_are_the_ratings_words() -> None:
    assert {str(v) for v in Verdict} == {"H0", "H1", "maximum"}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_live_line_in_place_on_a_terminal_and_now_and_then_in_a_log() -> None:
    terminal = _Terminal()
    with live_line(stream=terminal) as show:
        show("1 pairs")
        show("2 pairs")
    assert terminal.getvalue() == "\r1 pairs\x1b[K\r2 pairs\x1b[K\n"
    log = io.StringIO()
    with live_line(stream=log, every=3600) as show:
        for n in range(1, 4):
            show(f"{n} pairs")
    assert log.getvalue() == "1 pairs\n3 pairs\n"  # the first, then the final state
