"""The hand-in (``agent.py handin``): the project's modules as they are, the course's packages only,
the same moves and scores as ``agent.py move --mode course`` with numba and without, its own
tests passing, and games against the real local server over HTTP."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from handin.export import FILES, OWN, PROJECT, READING_ORDER, README, export, needed_modules
from localserver.background import LocalCourseServer
from tests.handin_moves import (
    NO_NUMBA,
    agent_moves,
    differences,
    handin_command,
    handin_moves,
    sample_positions,
)

# What the hand-in may import beside the standard library and its own packages.
COURSE_PACKAGES = {"gym", "numpy", "requests"}
OPTIONAL = {"numba": "board/compiled.py", "pytest": None}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("handin") / "submission"
    export(out)
    return out


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A settings file of the defaults: what the hand-in's constants are."""
    path = tmp_path_factory.mktemp("config") / "config.toml"
    path.write_text("")
    return path


def own_module(name: str, source: str) -> ModuleType:
    """A file of ``handin/files`` imported in the project (where its imports find the project's)."""
    spec = importlib.util.spec_from_file_location(name, FILES / source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # where its dataclasses look up their annotations
    spec.loader.exec_module(module)
    return module


def test_the_project_modules_are_copied_as_they_are(folder: Path) -> None:
    copied = needed_modules()
    for core in ("board/bits.py", "board/tactics.py", "heuristics/windows.py", "search/negamax.py",
                 "search/table.py", "search/iterative.py", "timecontrol/slices.py",
                 "gym_connect_four/envs/connect_four_env.py"):
        assert core in copied
    for module in copied:
        assert (folder / module).read_bytes() == (PROJECT / module).read_bytes(), module
    assert "heuristics/__init__.py" not in copied  # the hand-in's own front, not the project's
    assert not any(name.startswith(("solver", "engine", "settings")) for name in copied)
    python = {str(path.relative_to(folder)) for path in folder.rglob("*.py")}
    assert python == set(copied) | {name for name in OWN if name.endswith(".py")}


def test_it_needs_only_the_course_packages(folder: Path) -> None:
    own = {path.name for path in folder.iterdir() if path.is_dir()} | {"connect4"}
    outside: dict[str, set[str]] = {}
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0
                     and node.module else [])
            for name in names:
                top = name.split(".")[0]
                if top not in own and top not in sys.stdlib_module_names:
                    outside.setdefault(top, set()).add(str(path.relative_to(folder)))
    assert set(outside) <= COURSE_PACKAGES | set(OPTIONAL)
    assert outside.get("numba", set()) == {OPTIONAL["numba"]}  # the one shim decides
    assert outside.get("pytest", set()) <= {"test_connect4.py"}


def test_the_readme_lists_every_file_with_its_lines(folder: Path) -> None:
    readme = (folder / README).read_text()
    for path in folder.rglob("*"):
        name = str(path.relative_to(folder))
        if path.is_file() and name != README and "__pycache__" not in name:
            lines = len(path.read_text().splitlines())
            assert f"| `{name}` | {lines:,} |" in readme, name
    assert "<!--" not in readme  # every placeholder filled


def test_the_guide_gives_the_reading_order_with_the_lines_of_each_file(folder: Path) -> None:
    guide = (PROJECT / "docs" / "handin.md").read_text()
    rows = re.findall(r"^\| `([\w/.]+)` \| ([\d,]+) \|", guide, re.MULTILINE)
    assert [name for name, _ in rows] == list(READING_ORDER)
    for name, lines in rows:
        assert int(lines.replace(",", "")) == len((folder / name).read_text().splitlines()), name
    python = {path: len(path.read_text().splitlines()) for path in folder.rglob("*.py")}
    own = sum(lines for path, lines in python.items()
              if str(path.relative_to(folder)) in OWN)
    total = sum(python.values())
    assert f"{total:,} lines of Python, of which {total - own:,} are the project's modules" in guide


def test_its_constants_are_the_projects_defaults() -> None:
    from course.protocol import SERVER_MOVE_LIMIT
    from heuristics import heuristic_id, heuristic_weights
    from settings import AgentSettings, ServerSettings
    from settings.secrets import API_KEY_ENV, STIL_IDS_ENV

    handed_in = own_module("handin_connect4", "connect4.py")
    agent = AgentSettings()
    ours = (agent.seconds_per_move, agent.safety_margin, agent.min_depth, agent.table_bits)
    assert ours == (handed_in.SECONDS_PER_MOVE, handed_in.SAFETY_MARGIN, handed_in.MIN_DEPTH,
                    handed_in.TABLE_BITS)
    assert agent.mode == "course" and agent.heuristic == "windows5000"
    assert SERVER_MOVE_LIMIT == handed_in.SERVER_MOVE_LIMIT
    assert ServerSettings().url == handed_in.COURSE_SERVER
    assert (STIL_IDS_ENV, API_KEY_ENV) == (handed_in.IDS_VARIABLE, handed_in.KEY_VARIABLE)
    front = own_module("handin_heuristics", "heuristics.py")
    name = front.DEFAULT_HEURISTIC
    assert name == agent.heuristic and front.heuristic_id(name) == heuristic_id(name)
    assert np.array_equal(front.heuristic_weights(name), heuristic_weights(name))
    with pytest.raises(ValueError, match="learned"):
        front.heuristic_id("learned")


@pytest.mark.slow
@pytest.mark.parametrize("jit", ["absent", "disabled"])
def test_without_numba_it_plays_as_agent_py_move_does(folder: Path, config: Path, jit: str) -> None:
    positions = sample_positions(16, seed=36)
    # Up to the depth it always completes, no iteration runs in slices: the nodes are the same too.
    ours = handin_moves(folder, positions, 5, jit)
    assert differences(positions, ours, agent_moves(positions, 5, config), nodes=True) == []
    ours = handin_moves(folder, positions[:8], 6, jit)
    assert differences(positions[:8], ours, agent_moves(positions[:8], 6, config), nodes=False) == []


@pytest.mark.slow
def test_compiled_it_plays_as_agent_py_move_does(folder: Path, config: Path) -> None:
    """numba compiles the hand-in's copy in its folder (a minute, the first time)."""
    positions = sample_positions(12, seed=37, plies=(4, 30))
    for depth in (5, 7):
        ours = handin_moves(folder, positions, depth, "compiled")
        assert differences(positions, ours, agent_moves(positions, depth, config),
                           nodes=depth == 5) == []


@pytest.mark.slow
def test_its_own_tests_pass_without_numba(folder: Path) -> None:
    _, env = handin_command("absent")
    done = subprocess.run([sys.executable, "-c", NO_NUMBA + " import runpy;"
                           " runpy.run_path('test_connect4.py', run_name='__main__')"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    passed = [line for line in done.stdout.splitlines() if line.startswith("passed: test_")]
    tests = [node for node in ast.parse((folder / "test_connect4.py").read_text()).body
             if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    assert len(passed) == len(tests) >= 7


@pytest.mark.slow
def test_it_plays_the_local_server_over_http(
        folder: Path, course_server: Callable[..., LocalCourseServer]) -> None:
    command, env = handin_command("absent")
    ids = ["ab1234cd-s", "ef5678gh-s"]
    env.update(EDAP01_STIL_IDS=",".join(ids), EDAP01_API_KEY="nyckel")
    with course_server(first="random", seed=3) as server:
        done = subprocess.run([*command, "-o", "-s", "--games", "2", "--time", "0.2", "--server",
                               server.url], cwd=folder, env=env, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        service = server.service
        assert service is not None
        stats = service.stats(ids, "nyckel")
        assert stats["played"] == 2 and stats["total_reward"] > -10  # no illegal move
        assert done.stdout.count("we play") >= 4 and "2 game(s): " in done.stdout
        assert '"played": 2' in done.stdout.splitlines()[-1]  # -s, after the games
        for secret in [*ids, "nyckel"]:
            assert secret not in done.stdout + done.stderr
        env["EDAP01_API_KEY"] = "wrong"
        done = subprocess.run([*command, "-o", "--server", server.url], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 1 and "Incorrect API key" in done.stderr
        assert service.stats(ids, "nyckel")["played"] == 2


@pytest.mark.slow
def test_a_tournament_plays_it_and_a_skeleton_confined_as_outside_programs(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What ``rate`` plays too: the hand-in by the line protocol (``--line``), and a course
    skeleton's ``student_move`` through ``examples/skeleton_program.py``, each in its process."""
    import agent

    handin = f'program:"env NUMBA_DISABLE_JIT=1 {sys.executable} {folder}/connect4.py --line":0.5'
    skeleton = (f'program:"{sys.executable} {PROJECT}/examples/skeleton_program.py'
                f' {PROJECT}/tests/data/outside/skeleton_client.py"')
    assert agent.main(["tournament", "--players", f"{handin},{skeleton}", "--games", "2",
                       "--workers", "1", "--seed", "1", "--json"]) == 0
    ours, theirs = json.loads(capsys.readouterr().out)["pairings"][0]["results"]
    assert ours["player"] == handin and theirs["player"].startswith(skeleton)
    # The skeleton plays the leftmost free column: a search of depth 5 or more beats it.
    assert ours["wins"] == 2 and ours["forfeits"] == theirs["forfeits"] == 0


def test_the_command_writes_a_new_folder_with_the_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import agent

    report = tmp_path / "report"
    report.mkdir()
    (report / "report.md").write_text("# Report\n\n![results](results.png)\n[x](https://a/b.png)\n")
    (report / "results.png").write_bytes(b"\x89PNG")
    (report / "games.jsonl").write_text("{}\n")  # not linked: not handed in
    out = tmp_path / "submission"
    assert agent.main(["handin", "--out", str(out), "--report", str(report)]) == 0
    said = capsys.readouterr().out
    assert f"wrote the hand-in to {out}" in said and "report.md, report/results.png" in said
    assert sorted(p.name for p in (out / "report").iterdir()) == ["report.md", "results.png"]
    assert "`report/report.md`" in (out / README).read_text()
    assert agent.main(["handin", "--out", str(out)]) == 2  # not empty: refused
    assert "is not an empty folder" in capsys.readouterr().err
    assert agent.main(["handin", "--out", str(tmp_path / "new"), "--report", str(out)]) == 2
    assert "has no report.md" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()
