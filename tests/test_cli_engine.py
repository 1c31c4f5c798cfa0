"""``agent.py move`` and ``evaluate``: outputs and error paths, through ``agent.main``."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import agent
from board import Board
from heuristics import evaluate
from settings import load_settings
from tests.helpers import assert_option_refused

ROOT = Path(__file__).resolve().parent.parent


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = agent.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_move_json_gives_a_legal_column_and_the_search_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "move", "4453", "--json", "--depth", "6", "--time", "5")
    assert code == 0, err
    reply = json.loads(out)
    assert set(reply) >= {"column", "score", "depth", "nodes", "seconds", "pv"}
    assert Board.from_moves("4453").can_play(reply["column"])
    assert reply["depth"] == 6 and reply["pv"][0] == reply["column"]
    assert reply["nodes"] > 0


def test_move_finds_the_winning_column_in_server_numbering(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "move", "112233", "--json", "--time", "0.5")
    assert code == 0
    assert json.loads(out)["column"] == 3  # 0-based: Pons' column 4


def test_move_prints_board_and_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "move", "", "--depth", "5", "--time", "1")
    assert code == 0
    assert "1 2 3 4 5 6 7" in out
    assert "depth: 5" in out and "nodes:" in out
    assert "move: column 4 (1-7, as in move strings; 3 in JSON and to the server) for X (first)" \
        in out


def test_move_says_how_many_moves_a_proven_result_takes(capsys: pytest.CaptureFixture[str]) -> None:
    # The side to move wins with its next disc (column 3 completes a row of four).
    code, out, _ = run(capsys, "move", "445566", "--mode", "strongest", "--time", "2")
    assert code == 0
    assert "win in 1 move for X (first)" in out
    # Past the book (14 discs): the solver proves a win with our second move from now.
    code, out, _ = run(capsys, "move", "36762377233722", "--mode", "strongest", "--time", "2")
    assert code == 0
    assert "proven by the solver: win in 2 moves for X (first)" in out
    # The same position in course mode: the search proves it, and says it in the same words.
    code, out, _ = run(capsys, "move", "36762377233722", "--mode", "course", "--time", "2")
    assert code == 0
    assert "score: win in 2 moves for X (first) (proven by the heuristic search" in out
    # In the book's complete layers a win may be known as a win only, and is said so.
    code, out, _ = run(capsys, "move", "4455", "--mode", "strongest", "--time", "2")
    assert code == 0
    assert ("proven by the book: win (distance not proven) for X (first) (the book holds the"
            " outcome only)") in out


def test_evaluate_json_matches_the_heuristic(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("windows5000", "threats"):
        code, out, _ = run(capsys, "evaluate", "4453", "--json", "--heuristic", name)
        assert code == 0
        assert json.loads(out)["score"] == evaluate(Board.from_moves("4453"), name)


@pytest.mark.parametrize(
    ("argv", "option", "message"),
    [
        (["move", "44", "--time", "0"], "--time", "must be a number of seconds in (0, 3600]"),
        (["move", "44", "--time", "soon"], "--time", "'soon' is not a number of seconds"),
        (["move", "44", "--depth", "0"], "--depth", "must be 1-42, not 0"),
    ],
)
def test_a_bad_option_shows_the_commands_usage_and_the_reason(
    capsys: pytest.CaptureFixture[str], argv: list[str], option: str, message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert_option_refused(err, "move", option, message)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["move", "44x"], "move 3 is 'x'"),
        (["move", "1111111"], "column 1 is full"),
        (["move", "1212121"], "already over"),
        (["move", "44", "--heuristic", "nope"], "unknown heuristic 'nope'"),
        (["evaluate", "48"], "move 2 is '8'"),
        (["evaluate", "4", "--heuristic", "x"], "unknown heuristic"),
        (["evaluate", "1212121"], "already over"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err


def test_no_arguments_prints_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys)
    assert code == 2 and "usage:" in out  # a usage mistake (ExitStatus.USAGE), not a failure


@pytest.mark.slow
def test_fresh_process_answers_without_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "agent.py"), "move", "9"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("error:")


def test_the_thinking_time_counts_from_the_search_not_the_command_start(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A command that started long ago (slow loading, a first compile) still thinks for its
    whole --time: start-up is reported apart, and the search goes past the minimum depth."""
    from commandline import Context
    from engine.cli import MoveOptions, move_command
    from settings import load_settings

    options = MoveOptions(moves="4453", time=0.5, json=True)
    context = Context(load_settings(None), None, time.perf_counter() - 100.0)
    assert move_command(options, context) == 0
    reply = json.loads(capsys.readouterr().out)
    assert reply["source"] == "search" and reply["depth"] > 5  # agent.min_depth is 5
    assert reply["startup_seconds"] >= 100 and reply["seconds"] < 100
    assert not reply["proven"] and reply["words"] == f"{reply['score']:+d} (heuristic)"


@pytest.mark.parametrize(
    ("config", "argv", "message"),
    [
        ('[agent]\nheuristic = "magic"\n', ["move", "44"],
         "agent.heuristic: unknown heuristic 'magic'; choose one of windows5000"),
        ("", ["move", "44", "--heuristic", "magic"],
         "--heuristic: unknown heuristic 'magic'; choose one of windows5000"),
        ("[agent]\ntable_bits = 40\n", ["move", "44"], "agent.table_bits: must be 10-27"),
        ("[solver]\ntable_bits = 3\n", ["move", "44", "--mode", "strongest"],
         "solver.table_bits: must be 24-28"),
        ("[solver]\ntable_bits = 3\n", ["solve"], "solver.table_bits: must be 24-28"),
        ("[solver]\ntable_bits = 3\n", ["analyze", "44"], "solver.table_bits: must be 24-28"),
    ],
)
def test_a_setting_is_checked_where_it_is_used_and_named(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, config: str, argv: list[str],
    message: str,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(config)
    code, out, err = run(capsys, *argv, "--config", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err


@pytest.mark.parametrize("argv", [["move", "44"], ["stats"], ["serve", "--db", ":memory:"],
                                  ["solve", "--table-bits", "24"]])
def test_every_problem_of_the_config_is_one_error_before_any_command_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str],
) -> None:
    # Four problems the schema cannot see: each package's rule (the heuristics, the two
    # tables, the local server's variants) finds its own, and they come out together.
    path = tmp_path / "config.toml"
    path.write_text('[agent]\nheuristic = "magic"\ntable_bits = 40\n'
                    '[solver]\ntable_bits = 3\n[local_server]\nvariant = "2020"\n')
    code, out, err = run(capsys, *argv, "--config", str(path))
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"error: {path}: 4 problems:",
        "  agent.heuristic: unknown heuristic 'magic'; choose one of windows5000, threats,"
        " windows_tuned, learned",
        "  agent.table_bits: must be 10-27 (a table of 2**bits entries of 16 bytes), not 40",
        "  solver.table_bits: must be 24-28 (a table of about 2**bits entries of 4 bytes),"
        " not 3",
        "  local_server.variant: unknown variant '2020'; choose one of current, 2021"]


def test_the_default_settings_pass_every_packages_rules() -> None:
    from settings import Settings

    assert agent.config_problems(Settings()) == []
    assert agent.config_problems(load_settings(env={})) == []  # the shipped config.toml


def test_a_mistyped_option_is_one_line_naming_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "move", "44", "--tme", "1")
    assert code == 2 and out == ""
    assert err == ("error: agent.py move: unrecognized arguments: --tme 1 (agent.py move --help"
                   " lists the options)\n")


@pytest.mark.slow
def test_solve_into_a_closed_pipe_ends_quietly() -> None:
    lines = (ROOT / "tests/data/pons/Test_L3_R1").read_text()
    result = subprocess.run(f"{sys.executable} agent.py solve | head -1", shell=True, cwd=ROOT,
                            input=lines, capture_output=True, text=True, timeout=120)
    assert len(result.stdout.splitlines()) == 1
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr


def test_a_first_run_says_it_is_compiling(capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import numba

    from engine import startup

    assert not startup.compiled_code_cached([tmp_path])
    (tmp_path / "negamax.negamax-80.py311.nbi").write_bytes(b"")
    assert not startup.compiled_code_cached([tmp_path])  # the solver is not compiled yet
    (tmp_path / "core.solve-454.py311.nbi").write_bytes(b"")
    assert startup.compiled_code_cached([tmp_path])
    monkeypatch.setattr(startup, "compiled_code_cached", lambda: False)
    said: list[str] = []
    with startup.compile_notice(said.append):
        assert said == []  # nothing compiled yet: nothing said
        assert numba.njit(lambda x: x + 1)(1) == 2  # a compilation starts
        numba.njit(lambda x: x + 2)(1)
    assert len(said) == 1 and said[0].startswith("first run: compiling the search and the solver")
    numba.njit(lambda x: x + 3)(1)  # after the block: nothing more
    assert len(said) == 1
    # A first run stopped by a bad input says only what was wrong.
    code, _, err = run(capsys, "move", "48")
    assert code == 2 and err.count("\n") == 1 and err.startswith("error: ")
    monkeypatch.setattr(startup, "compiled_code_cached", lambda: True)
    with startup.compile_notice(said.append):
        numba.njit(lambda x: x + 4)(1)
    assert len(said) == 1  # not a first run: nothing said
