"""Tournaments through the batch executor: fixed-depth players play the same games in this
process, on a local process pool and on a Dask cluster on 127.0.0.1; a worker killed mid-run
loses no finished game and the run completes; ``--out`` keeps each game as it finishes, so that
a run stopped by Ctrl-C resumes with the games missing."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

import agent
from arena.results import summarize
from arena.tournament import TournamentGame, TournamentPlan, make_plan, run_tournament
from arena.work import GAMES_WORK, TournamentWork
from batch import open_executor
from ecosystems.players import parse_spec
from settings import AgentSettings, load_settings
from tests.helpers import cluster_workers, ctrl_c_once_written, spawned_workers

ROOT = Path(__file__).resolve().parent.parent


def fixed_depth_plan() -> TournamentPlan:
    """Players that choose the same move every time (fixed depths; the bot's ties and the
    openings drawn from the seed): 12 games from random two-ply openings."""
    specs = [parse_spec(text, seconds=30) for text in ("ours:d4", "bot:2", "seed")]
    return make_plan(specs, 4, seed=11, agent=AgentSettings(table_bits=16), opening_plies=2)


def played(games: list[TournamentGame]) -> list[tuple[Any, ...]]:
    return [(game.task, game.record.columns, game.record.winner, game.record.ending)
            for game in games]


@pytest.fixture(scope="module")
def on_the_pool() -> list[TournamentGame]:
    with open_executor(2) as pool:
        return run_tournament(fixed_depth_plan(), pool)


@pytest.mark.slow
def test_fixed_depth_players_play_the_same_games_here_on_the_pool_and_on_the_cluster(
        local_cluster: str, on_the_pool: list[TournamentGame]) -> None:
    plan = fixed_depth_plan()
    with open_executor(scheduler=local_cluster) as cluster:
        on_the_cluster = run_tournament(plan, cluster)
    assert played(on_the_cluster) == played(on_the_pool) == played(run_tournament(plan))
    pool_table, cluster_table = (summarize(plan, games, workers=2, elapsed=0.0).overall
                                 for games in (on_the_pool, on_the_cluster))
    assert [s.to_dict() for s in pool_table] == [s.to_dict() for s in cluster_table]  # W-D-L
    assert len({tuple(columns) for _, columns, _, _ in played(on_the_pool)}) > 6  # varied


@pytest.mark.slow
def test_a_killed_cluster_worker_loses_no_finished_game(
        local_cluster: str, on_the_pool: list[TournamentGame]) -> None:
    victim = cluster_workers(local_cluster)[0]
    recorded: list[TournamentGame] = []

    def record(game: TournamentGame) -> None:
        recorded.append(game)
        if len(recorded) == 3:
            os.kill(victim, signal.SIGKILL)  # killed in the middle of its next game

    with open_executor(scheduler=local_cluster) as cluster:
        games = run_tournament(fixed_depth_plan(), cluster, record=record)
    assert played(games) == played(on_the_pool)  # the run completed: Dask played it again
    assert sorted(game.task.index for game in recorded) == list(range(len(games)))
    assert all(games[game.task.index] is game for game in recorded[:3])
    assert victim not in cluster_workers(local_cluster)  # its nanny started a new worker


@pytest.mark.slow
def test_a_killed_pool_worker_loses_no_finished_game(on_the_pool: list[TournamentGame]) -> None:
    others = set(spawned_workers(os.getpid()))  # a LocalCluster's nannies, say
    recorded: list[TournamentGame] = []

    def record(game: TournamentGame) -> None:
        recorded.append(game)
        if len(recorded) == 3:
            os.kill(min(set(spawned_workers(os.getpid())) - others), signal.SIGKILL)

    with open_executor(2) as pool:
        games = run_tournament(fixed_depth_plan(), pool, record=record)
    assert played(games) == played(on_the_pool)  # a new pool played the games left
    assert sorted(game.task.index for game in recorded) == list(range(len(games)))
    assert all(games[game.task.index] is game for game in recorded[:3])


# --- --out: the games kept, a stopped run resumed --------------------------------------------

TOURNAMENT = ["tournament", "--players", "bot:2,seed", "--games", "30", "--seed", "3"]


def games_file(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads processes in /proc")
def test_ctrl_c_keeps_the_finished_games_and_the_same_command_plays_the_rest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    work = out / GAMES_WORK
    code, err = ctrl_c_once_written([*TOURNAMENT, "--workers", "2", "--out", str(out)], work,
                                    4, timeout=120)  # the plan's line and 3 games
    assert code == 130, err
    assert "Traceback" not in err and err.splitlines()[-1] == "interrupted", err
    lines = [json.loads(line) for line in work.read_text().splitlines()]  # every line whole
    kept = {line["game"]: line for line in lines[1:]}
    assert f"{len(kept)} of 30 games kept in {work}" in err
    assert 3 <= len(kept) < 30 and not (out / "games.jsonl").exists()

    assert agent.main([*TOURNAMENT, "--workers", "1", "--out", str(out)]) == 0
    assert f"resuming: {len(kept)} of 30 games already played" in capsys.readouterr().err
    assert not work.exists()  # the games are in games.jsonl now
    resumed = games_file(out)
    for line in resumed:
        if line["game"] in kept:
            assert line == kept[line["game"]]  # kept as played (move times too), not replayed
    fresh = tmp_path / "fresh"
    assert agent.main([*TOURNAMENT, "--workers", "1", "--out", str(fresh)]) == 0
    assert [(g["game"], [m["column"] for m in g["moves"]]) for g in resumed] == \
        [(g["game"], [m["column"] for m in g["moves"]]) for g in games_file(fresh)]


@pytest.mark.slow
def test_a_rerun_takes_the_unfinished_runs_seed_and_refuses_another_plan(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = load_settings(None)
    plan = make_plan([parse_spec("bot:2"), parse_spec("seed")], 4, 8, settings.agent,
                     settings.solver)
    work = TournamentWork(tmp_path / GAMES_WORK)
    work.begin(plan, "python agent.py tournament ... --seed 8")

    def stop_after_two(done: int, _total: int, _game: TournamentGame) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_tournament(plan, progress=stop_after_two, record=work.add)

    other = ["tournament", "--players", "bot:2,seed", "--games", "6", "--out", str(tmp_path)]
    assert agent.main(other) == 2
    err = capsys.readouterr().err
    assert err == (f"error: {work.path} holds an unfinished tournament of other players or"
                   " options; finish it with `python agent.py tournament ... --seed 8`, or"
                   " choose another --out\n")

    assert agent.main(["tournament", "--players", "bot:2,seed", "--games", "4", "--out",
                       str(tmp_path), "--json"]) == 0  # no --seed: the unfinished run's
    out, err = capsys.readouterr()
    assert "resuming: 2 of 4 games already played" in err
    assert json.loads(out)["seed"] == 8 and not work.path.exists()
