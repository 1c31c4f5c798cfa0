"""``agent.py play``: a person against the agent, driven here by scripted input."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import TextIO, cast

import pytest

import agent
from arena.cli import play_terminal
from arena.human import HumanPlayer, render_board
from board import Board
from settings import AgentSettings
from tests.helpers import assert_option_refused

ROOT = Path(__file__).resolve().parent.parent
AGENT = AgentSettings()
FAST = 0.05  # seconds per move


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class CtrlC:
    """A keyboard whose user presses Ctrl-C at the prompt."""

    def readline(self) -> str:
        raise KeyboardInterrupt

    def isatty(self) -> bool:
        return True


def play(lines: str, *, human_first: bool = True) -> tuple[int, str]:
    out = io.StringIO()
    code = play_terminal(AGENT, seconds=FAST, human_first=human_first, stdin=io.StringIO(lines),
                         stdout=out)
    return code, out.getvalue()


def test_bad_input_is_asked_again_then_quit() -> None:
    code, out = play("seven\n9\n0\n\n-3\n" + "9" * 5000 + "\n04\nq\n")
    assert code == 0
    assert "'seven' is not a column number; try again." in out
    assert "column 9 does not exist: columns are 1-7; try again." in out
    assert "column 0 does not exist" in out
    assert "type a column number; try again." in out
    assert "'-3' is not a column number" in out
    assert "column 99999999999999999999... does not exist" in out
    assert out.count("The agent plays column") == 1  # the one good move got an answer
    assert out.rstrip().endswith("Game abandoned. Bye!")
    assert "\x1b[" not in out  # not a terminal: no colour codes


def test_a_full_column_is_refused() -> None:
    out = io.StringIO()
    human = HumanPlayer(io.StringIO("4\n5\n"), out, colour=False)
    assert human.choose(Board.from_moves("444444")) == 4  # 0-based: the column typed as 5
    assert "column 4 is full; try again." in out.getvalue()


def test_end_of_input_exits_cleanly() -> None:
    code, out = play("")
    assert code == 0
    assert "Game abandoned" in out


def test_ctrl_c_exits_cleanly() -> None:
    out = io.StringIO()
    code = play_terminal(AGENT, seconds=FAST, human_first=True, stdin=cast(TextIO, CtrlC()),
                         stdout=out)
    assert code == 130
    assert out.getvalue().rstrip().endswith("Game abandoned. Bye!")


@pytest.mark.parametrize("human_first", [True, False])
def test_a_whole_game_ends_with_a_verdict(human_first: bool) -> None:
    # a person who cycles through the columns; full ones are asked again
    code, out = play("1\n2\n3\n4\n5\n6\n7\n" * 12, human_first=human_first)
    assert code == 0
    verdicts = ("The agent wins: four in a row.", "You win! Four in a row.",
                "Draw: the board is full.")
    assert sum(out.count(v) for v in verdicts) == 1
    assert "The agent wins" in out  # it does not lose to this
    moves = out.split("Move string (for `agent.py analyze`): ")[1].split()[0]
    board = Board.from_moves(moves)
    # The agent's moves, as it said them, are the move string's (columns 1-7 in both).
    agent_said = re.findall(r"The agent plays column (\d) ", out)
    assert agent_said == list(moves[(0 if not human_first else 1)::2])
    assert board.is_over() and board.last_mover_won()
    assert len(moves) % 2 == (0 if human_first else 1)  # the agent made the last move
    assert ("You play X (first)" in out) == human_first


def shown(markup: str, *, colour: bool | None, environ: dict[str, str] | None = None) -> str:
    """What the person sees of ``markup`` on a terminal (``colour`` None: rich decides)."""
    screen = Terminal()
    with pytest.MonkeyPatch.context() as patch:
        for name in ("NO_COLOR", "TERM", "FORCE_COLOR"):
            patch.delenv(name, raising=False)
        for name, value in (environ or {}).items():
            patch.setenv(name, value)
        HumanPlayer(io.StringIO(), screen, colour=colour).say(markup)
    return screen.getvalue()


def test_board_shows_first_player_as_x_and_marks_the_last_move() -> None:
    board = Board.from_moves("445")
    lines = shown(render_board(board, last=4), colour=False).splitlines()
    assert lines[-2] == "1 2 3 4 5 6 7"
    assert lines[-3] == ". . . X X . ."
    assert lines[-4] == ". . . O . . ."
    assert lines[-1] == " " * 8 + "^"
    coloured = shown(render_board(board), colour=True)
    assert "\x1b[1;31mX\x1b[0m" in coloured and "\x1b[1;33mO\x1b[0m" in coloured


def test_colour_only_on_a_terminal_without_no_color() -> None:
    markup = render_board(Board.from_moves("4"))
    red = "31m"  # the first player's colour, as an ANSI code
    assert red in shown(markup, colour=None)
    assert red not in shown(markup, colour=None, environ={"NO_COLOR": "1"})
    assert red not in shown(markup, colour=None, environ={"TERM": "dumb"})
    plain = io.StringIO()
    HumanPlayer(io.StringIO(), plain).say(markup)
    assert "\x1b[" not in plain.getvalue()


def test_human_player_marks_the_reply() -> None:
    out = io.StringIO()
    human = HumanPlayer(io.StringIO("4\n3\n"), out, colour=False)
    assert human.choose(Board()) == 3  # 0-based
    assert human.choose(Board.from_moves("46")) == 2  # the reply was column 6
    last_board = out.getvalue().split("Your move")[-2]
    assert last_board.rstrip().endswith(" " * 10 + "^")


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "stages"), [("course", "search"),
                                             ("strongest", "book|solver|search")])
def test_play_has_a_mode_and_says_it_with_each_move(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, mode: str, stages: str
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("4\nq\n"))
    assert agent.main(["play", "--mode", mode, "--time", "0.2"]) == 0
    out = capsys.readouterr().out
    assert f"the agent plays O in {mode} mode with 0.2 s per move" in out
    assert "You play X (first)" in out
    # As online, local and move say it: the stage that decided the move, and the mode.
    assert re.search(rf"The agent plays column \d \(\d+\.\d\d s, depth \d+, ({stages}),"
                     rf" {mode} mode\)\.", out), out


def test_bad_time_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert agent.main(["play", "--time", "0"]) == 2
    assert_option_refused(capsys.readouterr().err, "play", "--time",
                          "must be a number of seconds in (0, 3600], not 0")


@pytest.mark.slow
def test_real_process_with_piped_input() -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    result = subprocess.run(
        [sys.executable, str(ROOT / "agent.py"), "play", "--time", "0.05", "--first", "agent"],
        input="x\n4\n", capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "You play O (second), the agent plays X" in result.stdout
    assert "Your move O (column 1-7, q to quit): x\n  'x' is not a column number" in result.stdout
    assert result.stdout.count("The agent plays column") == 2
    assert "Game abandoned. Bye!" in result.stdout


def test_the_agent_is_built_with_the_solver_settings(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    # The [solver] section reaches the engine: a book file that is not there stops the command
    # before the game (with the built-in defaults the shipped book would load and play).
    missing = tmp_path / "no-book.bin"
    config = tmp_path / "config.toml"
    config.write_text(f'[agent]\nmode = "strongest"\n[solver]\nbook = "{missing.as_posix()}"\n')
    code = agent.main(["play", "--config", str(config)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.splitlines() == [f"error: opening book {missing}: cannot read: No such file or "
                                "directory"]
