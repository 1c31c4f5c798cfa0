"""``bench/strength.py`` on a tiny run: the figures it writes add up and name the targets."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_strength() -> ModuleType:
    spec = importlib.util.spec_from_file_location("strength", ROOT / "bench" / "strength.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_two_games_each_with_a_tiny_budget(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    strength = load_strength()
    out = tmp_path / "json" / "strength.json"
    code = strength.main(["--games", "2", "--seed-games", "2", "--time", "0.05",
                          "--workers", "1", "--seed", "3", "--json", str(out),
                          "--out", str(tmp_path / "report")])
    printed = capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["seconds_per_move"] == 0.05
    results = {r["opponent"]: r for r in data["results"]}
    assert set(results) == {"bot:3", "seed"}
    for r in results.values():
        assert r["games"] == 2 == r["wins"] + r["draws"] + r["losses"]
        assert sum(r["as_first"].values()) == sum(r["as_second"].values()) == 1
        assert r["moves"] == sum(r["sources"].values()) > 0
        assert r["max_seconds"] >= r["mean_seconds"] > 0
        assert r["moves_over_budget"] >= r["moves_over_budget_cpu"] >= 0
    assert results["bot:3"]["opening_plies"] == 0
    seed = results["seed"]
    assert seed["opening_plies"] == 2
    # the seed games start from two random moves, the same two with each starter
    games = [json.loads(line)
             for line in (tmp_path / "report" / "seed" / "games.jsonl").read_text().splitlines()]
    assert len(games) == 2 and len(games[0]["opening"]) == 2
    assert games[0]["opening"] == games[1]["opening"]
    assert games[0]["first"] == games[1]["second"] == "ours:0.05"
    assert seed["distinct_games"] == len({
        (tuple(g["opening"]), tuple(m["column"] for m in g["moves"])) for g in games})
    assert data["moves_over_limit"] == sum(r["moves_over_budget"] for r in results.values())
    met = data["targets_met"]
    assert met == (all(r["losses"] == 0 for r in results.values())
                   and data["moves_over_limit"] == 0)
    assert code == (0 if met else 1)
    assert "targets: 0 losses vs bot:3" in printed and "budget + 50 ms" in printed


def test_a_bad_time_is_one_error_line(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    strength = load_strength()
    code = strength.main(["--time", "0", "--json", str(tmp_path / "s.json")])
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: --time must be a number of seconds in (0, 3600], not 0"]
    assert not (tmp_path / "s.json").exists()


def test_the_default_json_path_is_the_one_the_docs_name() -> None:
    strength = load_strength()
    assert strength.DEFAULT_JSON == ROOT / "bench" / "results" / "strength.json"
    assert "bench/results/strength.json" in (ROOT / "docs" / "benchmarks.md").read_text()
