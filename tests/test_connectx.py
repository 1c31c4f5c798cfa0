"""Kaggle ConnectX: observations read right, a configuration we do not play refused, and the
submission written by ``agent.py kaggle`` played by the real kaggle-environments from its
unpacked archive, in a process of its own (as Kaggle runs it), against ``negamax`` and
``random`` with both colours and against itself (Kaggle's validation episode)."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path
from typing import Any

import pytest

import agent
from board import Board, InvalidGrid
from ecosystems.connectx import (
    board_from_observation,
    check_configuration,
    make_agent,
    move_seconds,
    observation_of,
)
from ecosystems.submission import write_submission
from settings import AgentSettings, SolverSettings, UsageError
from vocabulary import Mode

pytest.importorskip("kaggle_environments")

SECONDS = 0.2  # per move in the games: the CI's time, not strength, is what is measured here


def cells(rows: list[str]) -> list[int]:
    """A ConnectX board from six strings of seven digits, the top row first (as ConnectX)."""
    assert len(rows) == 6 and all(len(row) == 7 for row in rows)
    return [int(char) for row in rows for char in row]


EMPTY_ROWS = ["0000000"] * 5


def test_row_zero_is_the_top_and_our_mark_is_the_side_to_move() -> None:
    # Mark 1 played column 3, mark 2 column 3 on top of it, mark 1 column 4: mark 2 to move.
    board = cells(["0000000"] * 4 + ["0002000", "0001100"])
    found = board_from_observation({"board": board, "mark": 2})
    assert found == Board.from_moves([3, 3, 4], one_based=False)
    assert not found.first_player_to_move
    # The same cells with the discs of the marks swapped: mark 1 to move, its discs on top.
    swapped = [{1: 2, 2: 1}.get(cell, 0) for cell in board]
    assert board_from_observation({"board": swapped, "mark": 1}) == found


def test_an_observation_of_ours_reads_back_as_the_same_position() -> None:
    for moves in ("", "4", "4455", "1234567", "44444433"):
        board = Board.from_moves(moves)
        observation = observation_of(board)
        assert observation["mark"] == (1 if board.moves % 2 == 0 else 2)
        assert board_from_observation(observation) == board


@pytest.mark.parametrize(("board", "mark", "message"), [
    (cells([*EMPTY_ROWS, "0003000"]), 1, "cells of 0, 1 and 2"),
    ([0] * 41, 1, "got 41 cells"),
    (cells([*EMPTY_ROWS, "0001000"]), 3, "mark must be 1 or 2"),
    (cells(["0001000", *EMPTY_ROWS[:4], "0000000"]), 2, "floating disc"),
    (cells([*EMPTY_ROWS, "0001000"]), 1, "side to move"),  # mark 2 is to move, not 1
])
def test_a_bad_observation_is_refused_saying_why(board: list[int], mark: int, message: str) -> None:
    with pytest.raises(InvalidGrid, match=message):
        board_from_observation({"board": board, "mark": mark})


def test_only_connect_four_is_played() -> None:
    check_configuration({"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2})
    with pytest.raises(ValueError, match=r"Connect Four only: rows=6, columns=7, inarow=4;"
                                         r" the configuration asks for rows=6, columns=8, inarow=5"):
        check_configuration({"rows": 6, "columns": 8, "inarow": 5})


def test_a_move_keeps_a_margin_below_the_limit() -> None:
    assert move_seconds({"actTimeout": 2}, None) == 1.5
    assert move_seconds({"actTimeout": 2}, 0.3) == 0.3
    assert move_seconds({"actTimeout": 2}, 5.0) == 1.5
    assert move_seconds({"actTimeout": 0.6}, None) == 0.3  # a short limit: half of it
    # The overage pays for loading; once less than the margin is left, a move thinks less.
    assert move_seconds({"actTimeout": 2}, None, overage=60.0) == 1.5
    assert move_seconds({"actTimeout": 2}, None, overage=0.2) == pytest.approx(1.2)
    assert move_seconds({"actTimeout": 2}, None, overage=0.0) == 1.0


def test_the_agent_answers_a_python_int_and_wins_when_it_can() -> None:
    play = make_agent("course", seconds=0.05)
    configuration = {"rows": 6, "columns": 7, "inarow": 4, "actTimeout": 2}
    # Mark 2 has three in column 5 and is to move: it wins there.
    board = cells(["0000000"] * 3 + ["0000020", "0000020", "1110020"])
    column = play({"board": board, "mark": 2, "remainingOverageTime": 60}, configuration)
    assert type(column) is int and column == 5
    with pytest.raises(ValueError, match="Connect Four only"):
        play({"board": board, "mark": 2}, {"rows": 5, "columns": 7, "inarow": 4})


def test_a_new_game_is_noticed_from_the_position() -> None:
    play = make_agent("course", seconds=0.05)
    configuration = {"actTimeout": 2}
    first = play({"board": [0] * 42, "mark": 1}, configuration)
    after = observation_of(Board().play(first).play(0))
    play(after, configuration)  # the same game: it follows from our answer
    left = play.session._left[1]
    assert left.moves == 3
    play({"board": [0] * 42, "mark": 1}, configuration)  # the empty board again: a new game
    assert play.session._left[1].moves == 1


# --- the submission --------------------------------------------------------------------------

@pytest.mark.slow
def test_the_archive_holds_main_py_and_what_the_agent_imports(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from solver.book import load_book

    course, no_book = write_submission(tmp_path / "course", AgentSettings(), SolverSettings(), None)
    assert no_book is None
    assert agent.main(["kaggle", "--out", str(tmp_path / "strongest"), "--mode", "strongest",
                       "--time", "1.0"]) == 0
    strongest = tmp_path / "strongest" / "submission.tar.gz"
    # The command says which book went in: the shipped one, or its layers that fit.
    said = capsys.readouterr().out.splitlines()[1]
    complete = load_book().complete_discs
    assert (said == f"the opening book in it is the shipped one, complete to {complete} discs"
            or (said.startswith("the opening book in it is complete to ")
            and f"(complete to {complete}, " in said))
    with tarfile.open(course) as archive:
        names = set(archive.getnames())
    assert "main.py" in names and "engine/engine.py" in names and "search/negamax.py" in names
    assert "heuristics/data/learned.json" in names and "ecosystems/connectx.py" in names
    assert "solver/data/book.bin" not in names  # course mode plays no book
    assert not any("__pycache__" in name for name in names)
    assert "ecosystems/openspiel.py" not in names  # the other arenas' adapters stay out
    with tarfile.open(strongest) as archive:
        assert "solver/data/book.bin" in archive.getnames()
        assert "solver/data/book.json" not in archive.getnames()  # it describes the whole book
        main = archive.extractfile("main.py")
        assert main is not None
        text = main.read().decode()
    assert "'mode': 'strongest'" in text and "seconds=1.0" in text
    assert text.rstrip().splitlines()[-1].strip() == "return PLAY(observation, configuration)"
    with pytest.raises(UsageError, match="opening book shipped in solver/data"):
        write_submission(tmp_path, AgentSettings(), SolverSettings(book="my.bin"), None)


@pytest.mark.slow
def test_a_book_too_large_for_the_archive_is_cut_to_the_complete_layers_that_fit(
        tmp_path: Path) -> None:
    import mmap
    import zlib

    from ecosystems.submission import COMPRESS_LEVEL
    from solver.book import load_book
    from solver.bookfile import MAP_MAGIC

    shipped = load_book()
    path, book_discs = write_submission(tmp_path, AgentSettings(mode=Mode.STRONGEST), SolverSettings(),
                                        None, book_limit=400_000)
    with tarfile.open(path) as archive:
        data = archive.extractfile("solver/data/book.bin")
        assert data is not None
        (tmp_path / "cut.bin").write_bytes(data.read())
    # In the mapped form, used in place where the archive is unpacked (nothing cached).
    written = (tmp_path / "cut.bin").read_bytes()
    assert written[:8] == MAP_MAGIC and len(zlib.compress(written, COMPRESS_LEVEL)) <= 400_000
    cut = load_book(tmp_path / "cut.bin")
    base = cut.packed.base
    assert isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)  # a view of the file
    assert book_discs is not None and 0 <= cut.complete_discs == book_discs < shipped.complete_discs
    # Every position of the cut book's complete layers, with the shipped book's answer.
    assert len(cut) == len(shipped.up_to(cut.complete_discs))
    for board, entry in cut.entries()[::997]:
        assert board.moves <= cut.complete_discs and shipped.lookup(board) == entry


def test_the_kaggle_command_refuses_a_file_for_a_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "taken"
    target.write_text("")
    assert agent.main(["kaggle", "--out", str(target)]) == 2
    assert capsys.readouterr().err == f"error: --out {target}: exists and is not a folder\n"


RUNNER = textwrap.dedent("""
    import json, random, sys
    from kaggle_environments import make

    main_py = sys.argv[1]
    results = {}
    for name, agents in [("negamax_second", ["negamax", main_py]),
                         ("negamax_first", [main_py, "negamax"]),
                         ("random_first", [main_py, "random"]),
                         ("random_second", ["random", main_py]),
                         ("itself", [main_py, main_py])]:
        random.seed(len(results))
        env = make("connectx", debug=True)
        steps = env.run(agents)
        results[name] = {
            "last": [[agent["reward"], agent["status"]] for agent in steps[-1]],
            "steps": len(steps),
            "durations": [[log.get("duration") for log in logs] for logs in env.logs],
            "overage": [agent["observation"]["remainingOverageTime"] for agent in steps[-1]],
        }
    import board
    results["board_from"] = board.__file__
    print(json.dumps(results))
""")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The games of a submission (course mode, 0.2 s a move) unpacked into a new folder, played
    in one new process: the first move there compiles the engine into the folder's cache."""
    folder = tmp_path_factory.mktemp("submission")
    assert agent.main(["kaggle", "--out", str(folder), "--mode", "course",
                       "--time", str(SECONDS)]) == 0
    with tarfile.open(folder / "submission.tar.gz") as archive:
        archive.extractall(folder / "unpacked", filter="data")
    result = subprocess.run([sys.executable, "-c", RUNNER, str(folder / "unpacked" / "main.py")],
                            cwd=folder, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    data["folder"] = str(folder / "unpacked")
    return data


@pytest.mark.slow
def test_the_archive_plays_with_its_own_packages(played: dict[str, Any]) -> None:
    assert played["board_from"].startswith(played["folder"])


@pytest.mark.slow
@pytest.mark.parametrize(("game", "ours"), [("negamax_first", 0), ("negamax_second", 1),
                                            ("random_first", 0), ("random_second", 1)])
def test_every_game_is_won_without_an_invalid_action_or_a_timeout(
        played: dict[str, Any], game: str, ours: int) -> None:
    last = played[game]["last"]
    assert last[ours] == [1, "DONE"] and last[1 - ours] == [-1, "DONE"], last
    # Thinking kept within the limit (2 s): only the first move, which loads the agent (and
    # compiles it, in this new folder), may have used the overage.
    ours_moves = [logs[ours] for logs in played[game]["durations"]
                  if len(logs) > ours and logs[ours] is not None]
    assert len(ours_moves) >= 4 and max(ours_moves[1:]) < 2
    assert played[game]["overage"][ours] > 0


def test_the_validation_episode_against_itself_ends_cleanly(played: dict[str, Any]) -> None:
    rewards_and_status = played["itself"]["last"]
    assert sorted(rewards_and_status) in ([[-1, "DONE"], [1, "DONE"]], [[0, "DONE"], [0, "DONE"]])
