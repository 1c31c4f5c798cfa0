"""``agent.py tournament`` end to end: tables, JSON, report files, and one-line errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agent
from board import Board
from tests.helpers import default_ctrl_c, spawned_workers

ROOT = Path(__file__).resolve().parent.parent
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = agent.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tournament", "--players", "bot:1,random", "--games", "4",
                       "--seed", "0", "--workers", "1")
    assert code == 0
    assert "bot:1 vs random: 4 games" in out
    assert "Overall" in out and "as 1st W-D-L" in out
    overall = out.split("Overall")[1]
    bot_line = next(line for line in overall.splitlines() if line.strip().startswith("bot:1"))
    # games W D L as-first as-second: the totals and the split must agree
    games, wins, draws, losses, first, second = bot_line.split()[1:7]
    assert int(games) == int(wins) + int(draws) + int(losses) == 4
    f = [int(x) for x in first.split("-")]
    s = [int(x) for x in second.split("-")]
    assert sum(f) == sum(s) == 2
    assert [f[i] + s[i] for i in range(3)] == [int(wins), int(draws), int(losses)]


def test_every_opening_sets_the_number_of_games(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tournament", "--players", "random,bot:1", "--opening-plies", "2",
                       "--every-opening", "--seed", "3", "--workers", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["games_per_pairing"] == data["games"] == 98 and data["every_opening"] is True
    code, _, err = run(capsys, "tournament", "--players", "random,bot:1", "--opening-plies", "2",
                       "--every-opening", "--games", "10")
    assert code != 0 and "98 games per pairing, not 10" in err


def test_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tournament", "--players", "seed,random,bot:2", "--games", "2",
                       "--seed", "8", "--workers", "1", "--json")
    assert code == 0
    data = json.loads(out)  # one JSON object, nothing else on stdout
    assert data["seed"] == 8 and data["games_per_pairing"] == 2 and data["games"] == 6
    assert data["players"] == ["seed", "random", "bot:2"]
    assert len(data["pairings"]) == 3
    for pairing in data["pairings"]:
        a, b = pairing["results"]
        assert pairing["players"] == [a["player"], b["player"]]
        assert a["wins"] == b["losses"] and a["draws"] == b["draws"]
        for side in (a, b):
            assert side["games"] == 2
            assert sum(side["as_first"].values()) == sum(side["as_second"].values()) == 1
    for row in data["overall"]:
        assert set(row) >= {"player", "games", "wins", "draws", "losses", "as_first",
                            "as_second", "score_rate", "forfeits"}
        assert row["games"] == 4
    for row in data["moves"]:
        assert set(row) >= {"player", "moves", "mean_seconds", "max_seconds",
                            "mean_search_depth", "moves_over_budget_cpu"}
        assert 0 <= row["mean_seconds"] <= row["max_seconds"]
        assert row["mean_search_depth"] is None  # only our engine reports a depth
    assert sum(r["wins"] for r in data["overall"]) == sum(r["losses"] for r in data["overall"])


@pytest.mark.slow
def test_out_dir_has_plots_summary_and_records(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    out_dir = tmp_path / "report"
    code, out, err = run(capsys, "tournament", "--players", "ours:0.05,random", "--games", "2",
                         "--seed", "1", "--workers", "1", "--out", str(out_dir), "--json")
    assert code == 0
    data = json.loads(out)
    ours = data["moves"][0]
    assert ours["player"] == "ours:0.05"
    assert ours["budget_seconds"] == 0.05 and sum(ours["sources"].values()) == ours["moves"]
    assert ours["search_moves"] == ours["sources"].get("search", 0)
    if ours["search_moves"]:
        assert ours["mean_search_depth"] >= 1
    for name in ("timing.png", "depth.png", "results.png"):
        blob = (out_dir / name).read_bytes()
        assert blob.startswith(PNG_SIGNATURE), name
        import matplotlib.image

        image = matplotlib.image.imread(out_dir / name)
        assert image.shape[0] > 200 and image.shape[1] > 400
    summary = (out_dir / "summary.md").read_text()
    assert "| ours:0.05 | 2 |" in summary
    assert "--seed 1" in summary and "![timing.png](timing.png)" in summary
    assert json.loads((out_dir / "results.json").read_text())["overall"] == data["overall"]
    games = [json.loads(line) for line in (out_dir / "games.jsonl").read_text().splitlines()]
    assert len(games) == 2
    assert {g["first"] for g in games} == {"ours:0.05", "random"}
    # Each game's move string (columns 1-7) beside its 0-based columns.
    for game in games:
        assert game["move_string"] == "".join(str(m["column"] + 1) for m in game["moves"])
        assert Board.from_moves(game["move_string"]).is_over()
    assert "wrote" in err


def test_without_our_agent_only_the_results_plot(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    code, _, _ = run(capsys, "tournament", "--players", "random,random", "--games", "2",
                     "--workers", "1", "--out", str(tmp_path))
    assert code == 0
    assert (tmp_path / "results.png").read_bytes().startswith(PNG_SIGNATURE)
    assert not (tmp_path / "timing.png").exists()
    assert "random#1" in (tmp_path / "summary.md").read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "ours:abc,random"], "ours:abc"),
        (["--players", "ours:0.5:fast,random"], "'fast' is not an option of ours"),
        (["--players", "bot:\u00b2,random"], "bot depth must be an integer 1-42"),
        (["--players", "bot:" + "9" * 5000 + ",random"], "bot depth must be an integer 1-42"),
        (["--players", "bot:0,random"], "bot depth"),
        (["--players", "chess,random"], "unknown player 'chess'"),
        (["--players", "random"], "at least two players"),
        (["--players", "human,random"], "agent.py play"),
        (["--players", "random,seed", "--games", "0"], "--games"),
        (["--players", "random,seed", "--workers", "0"], "--workers"),
        (["--players", "random,seed", "--time", "-1"], "--time"),
    ],
)
def test_bad_requests_give_one_error_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                          message: str) -> None:
    code, out, err = run(capsys, "tournament", *argv)
    assert code == 2
    assert out == "" and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


@pytest.mark.slow
def test_heuristics_compared_with_search_only_players(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "tournament", "--players",
                       "ours:0.02:threats:search,ours:windows5000:d3", "--time", "0.02",
                       "--games", "2", "--seed", "3", "--workers", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["players"] == ["ours:0.02:threats:course", "ours:0.02:windows5000:d3"]
    shallow = data["moves"][1]
    for row in data["moves"]:  # no book, no solver: every move is the search's
        assert row["sources"] == {"search": row["moves"]} and row["search_moves"] == row["moves"]
        assert row["budget_seconds"] == 0.02
    assert 1 <= shallow["mean_search_depth"] <= 3


@pytest.mark.slow
def test_ours_time_comes_from_the_spec_then_time_then_the_config(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[agent]\nseconds_per_move = 0.03\ntable_bits = 16\nmode = "course"\n')
    code, out, _ = run(capsys, "tournament", "--players", "ours,ours:0.02,random", "--games", "2",
                       "--seed", "1", "--workers", "1", "--config", str(config), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["players"] == ["ours:0.03", "ours:0.02", "random"]
    assert [row["budget_seconds"] for row in data["moves"]] == [0.03, 0.02, None]
    # --time beats a configured time that would take far too long; the workers (other
    # processes, given the plan) play it too
    config.write_text('[agent]\nseconds_per_move = 60\ntable_bits = 16\nmode = "course"\n')
    code, out, _ = run(capsys, "tournament", "--players", "ours,random", "--games", "2",
                       "--seed", "1", "--workers", "2", "--time", "0.02", "--config", str(config),
                       "--json")
    assert code == 0
    data = json.loads(out)
    assert data["players"] == ["ours:0.02", "random"]
    assert data["moves"][0]["budget_seconds"] == 0.02 and data["moves"][0]["max_seconds"] < 5


@pytest.mark.slow
def test_tournament_engine_gets_the_solver_settings(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    missing = tmp_path / "no-book.bin"
    config = tmp_path / "config.toml"
    config.write_text(f'[solver]\nbook = "{missing.as_posix()}"\n')
    code, out, err = run(capsys, "tournament", "--players", "ours:0.02:strongest,random",
                         "--games", "2", "--workers", "1", "--config", str(config))
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == (f"error: opening book {missing}: cannot read: No such file "
                                    "or directory")
    # the same players in course mode do not need the book
    code, _, _ = run(capsys, "tournament", "--players", "ours:0.02:course,random", "--games",
                     "2", "--workers", "1", "--config", str(config))
    assert code == 0


@pytest.mark.slow
def test_odd_games_warn_and_the_summary_says_how_starts_were_split(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "tournament", "--players", "random,bot:1", "--games", "3",
                       "--seed", "2", "--workers", "1", "--out", str(tmp_path))
    assert code == 0
    assert "warning: --games 3 is odd: in each pairing the earlier-listed player starts 2 " \
           "games, the other 1" in err
    summary = (tmp_path / "summary.md").read_text()
    assert "each side starting half" not in summary
    assert "the earlier-listed player of a pairing starts 2, the other 1" in summary
    games = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert [g["first"] for g in games] == ["random", "bot:1", "random"]
    code, _, err = run(capsys, "tournament", "--players", "random,bot:1", "--games", "2",
                       "--workers", "1", "--out", str(tmp_path))
    assert "warning" not in err
    assert "each side starting half of them" in (tmp_path / "summary.md").read_text()


def test_out_must_be_a_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("")
    code, _, err = run(capsys, "tournament", "--players", "random,seed", "--out", str(target))
    assert code == 2 and err.startswith("error: --out") and len(err.splitlines()) == 1


@pytest.mark.slow
def test_real_process_bad_spec_no_traceback() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "agent.py"), "tournament", "--players", "ours:x,bot"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "error: player 'ours:x': 'x' is not an option of ours: SECONDS, "
        "windows5000/threats/windows_tuned/learned, course/strongest, dN (1-42), random-model, cpu"
        " or noise=P (P 0-1)"
    ]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads processes in /proc")
def test_ctrl_c_while_workers_start_stops_quietly() -> None:
    # Ctrl-C at a terminal reaches the whole process group: the parent and every worker.
    # Only the parent may react (one "interrupted" line); the workers go without a traceback.
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "agent.py"), "tournament", "--players", "ours:0.5,bot:1",
         "--games", "40", "--workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        start_new_session=True, preexec_fn=default_ctrl_c,
    )
    try:
        deadline = time.monotonic() + 60
        while len(workers := spawned_workers(proc.pid)) < 2:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(0.2)  # the workers are loading their modules and our engine
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.splitlines()[-1] == "interrupted"
    assert out == ""
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers):  # stopped, not left running
        assert time.monotonic() < deadline, "workers still running"
        time.sleep(0.05)
