"""Every command of the registry: its ``--help`` shows its options with the defaults they
parse to, and one bad input is one line, ``error: ...``, exit code 2.

A new command without a bad input here fails ``test_every_command_has_a_bad_input``.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from types import SimpleNamespace

import pytest

import agent

# One mistake a person could make with each command, and words the one line must hold.
BAD_INPUT: dict[str, tuple[list[str], str]] = {
    "move": (["move", "48"], "expected a column digit 1-7"),
    "evaluate": (["evaluate", "4x"], "'x'"),
    "analyze": (["analyze", "4444444"], "full"),
    "practice": (["practice", "--games", "0"], "must be at least 1"),
    "online": (["online"], "placeholder"),
    "stats": (["stats"], "placeholder"),
    "local": (["local", "--opponent", "nobody"], "unknown player 'nobody'"),
    "serve": (["serve", "--port", "70000"], "--port"),
    "tournament": (["tournament", "--players", "random"], "at least two"),
    "sprt": (["sprt", "random", "bot:1", "--elo0", "5", "--elo1", "5"], "elo0 must be below elo1"),
    "play": (["play", "--first", "nobody"], "invalid choice"),
    "solve": (["solve", "--table-bits", "3"], "--table-bits"),
    "report": (["report", "--out", "r", "--opponents", "ours"], "our agent"),
    "rate": (["rate", "nobody:1"], "nobody"),
    "board": (["board", "--db", "no-such-file.sqlite3"], "is not a file"),
    "board-image": (["board-image", "44", "--out", "picture.gif"], ".svg or .png"),
    "kaggle": (["kaggle"], "--out"),
    "handin": (["handin", "--out", "submission", "--report", "no-such-folder"], "no report.md"),
}


def test_every_command_has_a_bad_input() -> None:
    assert set(BAD_INPUT) == set(agent.registry().commands)


@pytest.mark.parametrize("name", sorted(BAD_INPUT))
def test_help_lists_the_options(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert agent.main([name, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: agent.py {name}") and "--config PATH" in out
    command = agent.registry().commands[name]
    for field in command.options.__dataclass_fields__.values():
        flags = field.metadata["arg"].flags
        assert (flags[0] if flags else field.name) in out or field.metadata["arg"].keywords.get(
            "metavar", "") in out


@pytest.mark.parametrize("name", sorted(BAD_INPUT))
def test_a_bad_input_is_one_line(name: str, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch,
                                 tmp_path: Path) -> None:
    for key in ("EDAP01_STIL_IDS", "EDAP01_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)  # anything a command writes stays here
    # As on a first run: the compile notice comes only when a compilation starts.
    monkeypatch.setattr("engine.startup.compiled_code_cached", lambda: False)
    argv, words = BAD_INPUT[name]
    assert agent.main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("error: ") and words in lines[0], lines[0]
    assert captured.out == ""


def test_a_repeat_command_parses_back_to_the_options_it_was_written_from() -> None:
    from arena.cli import _command_line

    argv = ["tournament", "--players", "random,bot:2", "--games", "4", "--seed", "9",
            "--time", "0.25", "--every-opening", "--opening-plies", "2", "--config", "my c.toml"]
    _command, options, config = agent.registry().parse(argv)
    plan = SimpleNamespace(games=4, seed=9)  # what the line takes from the plan
    line = _command_line(options, plan, config)  # type: ignore[arg-type]
    assert line.endswith("--config 'my c.toml'")  # quoted for a shell
    words = shlex.split(line)
    assert words[:2] == ["python", "agent.py"]
    again_command, again, again_config = agent.registry().parse(words[2:])
    assert again == options and again_config == "my c.toml" and again_command.name == "tournament"
    assert "--workers" not in words and words[words.index("--time") + 1] == "0.25"
