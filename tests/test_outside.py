"""Players from outside (``outside``): a Kaggle ConnectX file and a ``program:`` engine play real
games in processes of their own; every way of misbehaving is a loss with its reason, no process
is left behind, and a tournament with them completes and lists the faults."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agent
from arena.match import play_game
from arena.results import summarize
from arena.tournament import make_plan, run_tournament
from board import Board, moves_from_string
from ecosystems.connectx import observation_of
from ecosystems.players import is_outside, parse_spec, split_specs
from engine.games import PlayedGame
from engine.players import RandomPlayer
from outside import AgentFault, ConnectXPlayer, OutsideSpec, ProgramPlayer
from outside.process import Child, Limits
from outside.sandbox import descendants
from settings import UsageError
from tests.helpers import alive, gone, new_tag, tagged
from vocabulary import Ending

DATA = Path(__file__).resolve().parent / "data" / "outside"
AGENTS = DATA / "connectx"
ENGINE = DATA / "engine.py"
PYTHON = sys.executable


def observe(board: Board, overage: float) -> dict[str, object]:
    return observation_of(board, overage=overage)


def connectx(name: str, seconds: float = 0.3, game_overage: float = 60.0) -> ConnectXPlayer:
    return ConnectXPlayer(str(AGENTS / f"{name}.py"), seconds=seconds, observe=observe,
                          name=name, game_overage=game_overage)


def program(misbehave: str = "", seconds: float = 0.3) -> ProgramPlayer:
    command = f"{PYTHON} {ENGINE}" + (f" --misbehave {misbehave}" if misbehave else "")
    return ProgramPlayer(command, seconds=seconds, name=misbehave or "engine")


def game_against_random(player: ConnectXPlayer | ProgramPlayer, *, first: bool = True,
                        seed: int = 1) -> PlayedGame:
    """One game, the player's process checked gone at the end."""
    before = set(descendants(os.getpid()))
    player.new_game()
    other = RandomPlayer(random.Random(seed))
    try:
        return play_game(player, other) if first else play_game(other, player)
    finally:
        player.end_game()
        assert not [pid for pid in descendants(os.getpid()) if pid not in before and alive(pid)]


def check_replays(record: PlayedGame) -> Board:
    board = Board()
    for move in record.moves:
        board = board.play(move.column)
    return board


# --- games that go well -----------------------------------------------------------------------

@pytest.mark.parametrize("first", [True, False])
def test_a_connectx_file_plays_real_games(first: bool) -> None:
    player = connectx("good")  # imports a module beside it at the top of the file
    for seed in (1, 2):
        record = game_against_random(player, first=first, seed=seed)
        assert record.ending in (Ending.FOUR, Ending.FULL)
        board = check_replays(record)
        assert board.is_over()
        side = 0 if first else 1
        # the agent plays the most central free column: its first move is column 3
        assert record.moves[side].column == 3


def test_an_agent_of_one_argument_and_the_last_callable_rule() -> None:
    record = game_against_random(connectx("one_argument"))
    assert record.ending in (Ending.FOUR, Ending.FULL)
    # the last callable of the file is a helper that returns 9: Kaggle calls it, not agent()
    record = game_against_random(connectx("helper_last"))
    assert (record.winner, record.ending) == (1, "illegal")
    assert "returned 9" in record.detail and "INVALID" in record.detail


def test_none_plays_column_0_and_prints_are_no_fault() -> None:
    record = game_against_random(connectx("returns_none"))
    assert record.moves[0].column == 0
    assert record.ending in (Ending.FOUR, Ending.FULL) or "column 0, which is full" in record.detail
    record = game_against_random(connectx("prints"))  # 2 MB of print() a move, as Kaggle logs it
    assert record.ending in (Ending.FOUR, Ending.FULL)


def test_a_program_plays_real_games_with_the_line_protocol() -> None:
    player = program()
    for first in (True, False):
        record = game_against_random(player, first=first)
        assert record.ending in (Ending.FOUR, Ending.FULL)
        check_replays(record)
    assert player.said_name == "tiny-engine"


def test_a_program_is_told_the_game_as_a_move_string(tmp_path: Path) -> None:
    """A start position from an opening is sent as a move string that reaches it."""
    player = program()
    player.new_game()
    try:
        record = play_game(player, RandomPlayer(random.Random(3)),
                           opening=moves_from_string("445566"))
    finally:
        player.end_game()
    # with 445566 played, the first player wins at once in column 3 or 7 (2 or 6 from 0)
    assert record.moves[0].column in (2, 6) and record.ending == Ending.FOUR


# --- faults ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "kind", "words"), [
    ("raises", Ending.ERROR, "ZeroDivisionError"),
    ("broken_import", Ending.ERROR, "ModuleNotFoundError"),
    ("numpy_int", Ending.NOT_A_COLUMN, "numpy.int64"),
    ("float_column", Ending.NOT_A_COLUMN, "TypeError"),
    ("junk", Ending.NOT_A_COLUMN, "str"),
    ("out_of_range", Ending.ILLEGAL, "out of range"),
    ("exits", Ending.EXITED, "status 0"),
    ("floods", Ending.FLOODED, "MiB"),
])
@pytest.mark.slow
def test_a_connectx_agent_that_misbehaves_loses_with_its_reason(name: str, kind: Ending,
                                                                 words: str) -> None:
    record = game_against_random(connectx(name))
    assert record.winner == 1  # the agent started: the other side wins
    assert record.ending == kind.value
    assert words in record.detail


def test_numpy_ints_are_invalid_as_kaggle_says_why() -> None:
    record = game_against_random(connectx("numpy_int"))
    assert "returned numpy.int64" in record.detail
    assert "Kaggle rejects it as an invalid action" in record.detail


@pytest.mark.slow
def test_a_late_connectx_move_is_charged_to_the_overage_then_times_out() -> None:
    # actTimeout 0.2 s, each move 0.5 s: 0.3 s of overage a move; 0.5 s of overage in all
    player = connectx("sleeps", seconds=0.2, game_overage=0.5)
    record = game_against_random(player)
    assert record.ending == Ending.LATE.value
    assert "TIMEOUT" in record.detail
    assert len(record.moves) == 2  # its first move used overage and was played


@pytest.mark.parametrize(("way", "kind"), [
    ("late", Ending.LATE),
    ("junk", Ending.NOT_A_COLUMN),
    ("illegal", Ending.ILLEGAL),
    ("flood", Ending.FLOODED),
    ("exit", Ending.EXITED),
    ("crash", Ending.CRASHED),
])
@pytest.mark.slow
def test_a_program_that_misbehaves_loses_with_its_reason(way: str, kind: Ending) -> None:
    record = game_against_random(program(way))
    assert (record.winner, record.ending) == (1, kind.value)
    assert len(record.moves) == 2  # it misbehaves in its second move
    assert record.detail


@pytest.mark.slow
def test_a_program_that_forks_and_hangs_is_killed_with_its_child() -> None:
    tag = new_tag()
    player = ProgramPlayer(f"{PYTHON} {ENGINE} --misbehave fork-hang --tag {tag}", seconds=0.2)
    seen: list[int] = []
    original = player._move

    def watched(child: Child, board: Board) -> int:
        try:
            return original(child, board)
        finally:
            seen.extend(tagged(tag))  # the engine and the child it started, before they end

    player._move = watched  # type: ignore[method-assign]
    record = game_against_random(player)
    assert record.ending == Ending.LATE.value and "grace" in record.detail
    assert len(set(seen)) == 2
    assert gone(seen, 5.0) and not tagged(tag)  # the grandchild too


def test_a_program_that_cannot_start_loses_its_first_move() -> None:
    player = ProgramPlayer("/nonexistent/engine", seconds=0.2)
    record = game_against_random(player)
    assert (record.winner, record.ending) == (1, Ending.CRASHED.value)
    assert "could not be started" in record.detail


@pytest.mark.slow
def test_limits_processor_time_and_memory() -> None:
    deadline = time.monotonic() + 60
    busy = Child([PYTHON, "-c", "while True: pass"], limits=Limits(cpu_seconds=1))
    try:
        with pytest.raises(AgentFault, match="RLIMIT_CPU") as caught:
            busy.read_line(deadline, where="in its move")
        assert caught.value.kind == Ending.CRASHED
    finally:
        busy.kill()
    greedy = Child([PYTHON, "-c", "x = bytearray(400 * 1024 * 1024)"],
                   limits=Limits(cpu_seconds=10, memory_bytes=200 * 1024**2))
    try:
        with pytest.raises(AgentFault, match=r"status 1.*MemoryError"):
            greedy.read_line(deadline, where="in its move")
    finally:
        greedy.kill()


# --- specs ----------------------------------------------------------------------------------

def test_specs_parse_with_their_options() -> None:
    path = AGENTS / "good.py"
    spec = parse_spec(f"connectx:{path}:0.3:python={PYTHON}", seconds=1.0)
    assert spec == OutsideSpec("connectx", str(path), 0.3, PYTHON) and is_outside(spec)
    assert parse_spec(f"connectx:{path}", seconds=1.5) == OutsideSpec("connectx", str(path), 1.5)
    spec = parse_spec(f'program:"{PYTHON} {ENGINE} --misbehave late":0.25')
    assert spec == OutsideSpec("program", f"{PYTHON} {ENGINE} --misbehave late", 0.25)
    assert parse_spec(spec.label) == spec  # a label is a spec
    assert parse_spec(f"program:{PYTHON} {ENGINE}", seconds=2) == OutsideSpec(
        "program", f"{PYTHON} {ENGINE}", 2)
    assert split_specs(f'ours:0.5, program:"{PYTHON} -c \'a,b\'", random') == [
        "ours:0.5", f'program:"{PYTHON} -c \'a,b\'"', "random"]


@pytest.mark.parametrize(("spec", "words"), [
    ("connectx:/no/such/agent.py", "is not a file"),
    (f"connectx:{AGENTS / 'good.py'}:python=/no/such/python", "interpreter"),
    (f"connectx:{AGENTS / 'good.py'}:fast", "good.py:fast is not a file"),
    (f"connectx:{AGENTS / 'good.py'}:0.5:0.3", "second time"),
    ("program:no-such-program-here --x", "not found on PATH"),
    ('program:"unclosed', "not closed"),
    (f"program:{PYTHON}:python=x", "not an option of program"),
    (f"program:{PYTHON}:0", "time"),
])
def test_bad_specs_are_one_clear_error(spec: str, words: str) -> None:
    with pytest.raises(UsageError, match=words):
        parse_spec(spec, seconds=1.0)


# --- a tournament with them -----------------------------------------------------------------

@pytest.mark.slow
def test_a_tournament_with_misbehaving_agents_completes_and_lists_the_faults() -> None:
    texts = split_specs(f"connectx:{AGENTS / 'good.py'},connectx:{AGENTS / 'raises.py'},"
                        f'program:"{PYTHON} {ENGINE} --misbehave late",'
                        f'program:"{PYTHON} {ENGINE} --misbehave crash",random')
    specs = [parse_spec(text, seconds=0.2) for text in texts]
    before = set(descendants(os.getpid()))
    plan = make_plan(specs, 2, seed=5)
    summary = summarize(plan, run_tournament(plan), workers=1, elapsed=0.0)
    assert len(summary.outcomes) == 20
    assert not [pid for pid in descendants(os.getpid()) if pid not in before and alive(pid)]
    faults = {(player, reason) for _, player, reason, _ in summary.faults}
    labels = plan.labels
    assert (labels[1], "error") in faults
    assert (labels[2], "late") in faults
    assert (labels[3], "crashed") in faults
    overall = {standing.player: standing for standing in summary.overall}
    # the agents that misbehave on their second move lose every game they do not finish first
    assert overall[labels[3]].faults["crashed"] >= 4
    assert overall[labels[0]].forfeits == 0
    data = summary.to_dict()
    assert {entry["ending"] for entry in data["faults"]} >= {"error", "late", "crashed"}
    assert data["moves"][2]["budget_seconds"] == 0.2


@pytest.mark.slow
def test_the_tournament_command_shows_and_keeps_the_faults(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    players = (f"connectx:{AGENTS / 'numpy_int.py'},"
               f'program:"{PYTHON} {ENGINE} --misbehave junk",random')
    out_dir = tmp_path / "run"
    code = agent.main(["tournament", "--players", players, "--games", "2", "--seed", "3",
                       "--time", "0.2", "--workers", "1", "--out", str(out_dir)])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "Games lost by a fault" in out and "not_a_column" in out
    games = [json.loads(line) for line in (out_dir / "games.jsonl").read_text().splitlines()]
    assert len(games) == 6
    assert sum(game["ending"] == "not_a_column" for game in games) >= 4
    summary = (out_dir / "summary.md").read_text()
    assert "## Faults" in summary and "numpy.int64" in summary


@pytest.mark.slow
def test_local_games_against_outside_agents(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    from client.records import Records

    config = tmp_path / "config.toml"
    config.write_text('[agent]\nseconds_per_move = 0.2\ntable_bits = 16\nmode = "course"\n'
                      '[record]\npath = "games.sqlite3"\n')
    before = set(descendants(os.getpid()))
    code = agent.main(["local", "--config", str(config), "--games", "2", "--time", "0.05",
                       "--opponent", f'program:"{PYTHON} {ENGINE}"'])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "summary: 2 games against program:" in out
    code = agent.main(["local", "--config", str(config), "--first", "them", "--time", "0.05",
                       "--opponent", f'program:"{PYTHON} {ENGINE} --misbehave crash"'])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "lost by a fault, crashed: ended with status 3" in out
    assert not [pid for pid in descendants(os.getpid()) if pid not in before and alive(pid)]
    with Records(tmp_path / "games.sqlite3") as records:
        games = records.games("local")
    assert len(games) == 3 and "crashed" in games[0].game.detail
    assert games[0].game.ending is Ending.CRASHED and games[0].game.winner == games[0].our_side


@pytest.mark.slow
def test_the_report_plays_outside_opponents() -> None:
    from batch import open_executor
    from reporting.cli import opponents_of
    from reporting.measure import play_opponents
    from settings import AgentSettings, SolverSettings

    text = f'program:"{PYTHON} {ENGINE}",connectx:{AGENTS / "raises.py"}'
    opponents = opponents_of(text)
    assert len(opponents) == 2  # split at the comma outside the quotes
    with open_executor(1) as executor:
        summaries = play_opponents(AgentSettings(table_bits=16), SolverSettings(), 0.05, 2, 7,
                                   executor, lambda _n: None, opponents)
    engine, raises = summaries.values()
    assert engine.overall[1].total.games == 2 and engine.moves[1].budget == 0.05
    assert raises.overall[1].faults["error"] == 2  # it raises on its second move, every game


@pytest.mark.slow
def test_a_killed_tournament_resumes_without_losing_a_game_and_python_is_used(
        tmp_path: Path) -> None:
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\nC4_WRAPPED=yes exec {PYTHON} "$@"\n')
    wrapper.chmod(0o755)
    out_dir = tmp_path / "run"
    players = (f"connectx:{AGENTS / 'wrapped.py'},connectx:{AGENTS / 'sleeps.py'},"
               f'program:"{PYTHON} {ENGINE}"')
    command = [PYTHON, str(Path(agent.__file__)), "tournament", "--players", players,
               "--games", "4", "--seed", "9", "--time", "0.1", "--workers", "1",
               "--out", str(out_dir), "--python", str(wrapper)]
    work = out_dir / "games-work.jsonl"
    first = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if work.exists() and len(work.read_text().splitlines()) >= 4:  # the plan, 3 games
                break
            time.sleep(0.05)
        first.kill()  # no chance to tidy up
        first.wait()
    finally:
        if first.poll() is None:
            first.kill()
    kept = [json.loads(line) for line in work.read_text().splitlines()[1:] if line.endswith("}")]
    assert 3 <= len(kept) < 12
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert f"resuming: {len(kept)} of 12 games" in done.stderr
    games = {game["game"]: game for game in
             (json.loads(line) for line in (out_dir / "games.jsonl").read_text().splitlines())}
    assert sorted(games) == list(range(12))
    for game in kept:  # the games played before the kill are kept as they were
        assert games[game["game"]] == game
    firsts = [game["moves"][0 if "wrapped.py" in game["first"] else 1]["column"]
              for game in games.values()
              if "wrapped.py" in game["first"] + game["second"] and len(game["moves"]) > 1]
    assert firsts and set(firsts) == {6}  # the agent files ran under --python
    assert sum(game["ending"] == "late" for game in games.values()) == 0  # overage pays


SYSTEM_PYTHON = "/usr/bin/python3"


@pytest.mark.skipif(not Path(SYSTEM_PYTHON).exists(), reason="no system Python to compare")
def test_an_agent_file_under_another_interpreter_sees_its_packages() -> None:
    import subprocess as run

    has_numpy = run.run([SYSTEM_PYTHON, "-c", "import numpy"], capture_output=True,
                        check=False).returncode == 0
    spec = parse_spec(f"connectx:{AGENTS / 'numpy_int.py'}:0.3:python={SYSTEM_PYTHON}")
    assert isinstance(spec, OutsideSpec)
    player = ConnectXPlayer(spec.target, seconds=0.3, observe=observe, python=spec.python)
    record = game_against_random(player)
    if has_numpy:  # the same verdict as under ours
        assert record.ending == Ending.NOT_A_COLUMN.value
    else:  # its imports are that interpreter's, not ours
        assert record.ending == Ending.ERROR.value and "numpy" in record.detail
    record = game_against_random(ConnectXPlayer(str(AGENTS / "good.py"), seconds=0.3,
                                                observe=observe, python=SYSTEM_PYTHON))
    assert record.ending in (Ending.FOUR, Ending.FULL)


def test_a_submission_archive_plays_from_its_main_py(tmp_path: Path) -> None:
    import tarfile

    archive = tmp_path / "submission.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(AGENTS / "good.py", arcname="main.py")
        tar.add(AGENTS / "helper_columns.py", arcname="helper_columns.py")  # imported by main.py
    spec = parse_spec(f"connectx:{archive}", seconds=0.3)
    assert isinstance(spec, OutsideSpec)
    player = ConnectXPlayer(spec.target, seconds=0.3, observe=observe)
    for seed in (1, 2):
        record = game_against_random(player, seed=seed)
        assert record.ending in (Ending.FOUR, Ending.FULL) and record.moves[0].column == 3
    empty = tmp_path / "empty.tar.gz"
    with tarfile.open(empty, "w:gz") as tar:
        tar.add(AGENTS / "helper_columns.py", arcname="helper_columns.py")
    record = game_against_random(ConnectXPlayer(str(empty), seconds=0.3, observe=observe))
    assert record.ending == Ending.ERROR.value and "no main.py" in record.detail
