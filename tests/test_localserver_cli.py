"""``agent.py serve``: settings from the config and the flags, clear errors, a real process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import requests

import agent
from localserver.cli import key_shown, play_command, serve_settings
from localserver.variants import VARIANTS, Behaviour
from settings import LocalServerSettings, load_settings
from tests.helpers import default_ctrl_c, interrupt, stream_lines

REPO = Path(__file__).resolve().parent.parent


def served(*argv: str) -> tuple[LocalServerSettings, Behaviour]:
    """``serve_settings`` of ``agent.py serve ARGV``, parsed as the command line parses it."""
    _, options, config = agent.registry().parse(["serve", *argv])
    return serve_settings(options, load_settings(config), config)


def run_agent(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = agent.main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--time-limit", "-1"], "--time-limit: must be at least 0, got -1.0"),
        (["--time-limit", "nan"], "--time-limit: must be a finite number, got nan"),
        (["--port", "70000"], "--port: must be at most 65535, got 70000"),
        (["--bot-depth", "0"], "--bot-depth: must be at least 1, got 0"),
        (["--host", ""], "--host: must not be empty"),
        (["--host", "no-such-host.invalid"], "cannot listen on no-such-host.invalid"),
    ],
)
def test_bad_flags_are_one_line_errors(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, err = run_agent(capsys, "serve", "--db", ":memory:", *argv)
    assert code == 2
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_a_busy_port_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        code, err = run_agent(capsys, "serve", "--db", ":memory:", "--port", str(port))
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in err


def test_a_bad_config_value_names_the_key(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[local_server]\nbot = "alphazero"\n')
    code, err = run_agent(capsys, "serve", "--db", ":memory:", "--config", str(config))
    assert code == 2 and err.startswith(f"error: {config}: local_server.bot: must be one of")
    assert "alphazero" in err
    config.write_text('[local_server]\nbot_depth = "deep"\n')
    code, err = run_agent(capsys, "serve", "--db", ":memory:", "--config", str(config))
    assert code == 2 and "local_server.bot_depth" in err


@pytest.mark.parametrize(
    ("config", "argv", "message"),
    [
        ("", ["--variant", "2021", "--first", "bot"],
         "--first bot contradicts --variant 2021, whose first is student"),
        ("", ["--variant", "2021", "--stats-endpoint"],
         "--stats-endpoint true contradicts --variant 2021, whose stats_endpoint is false"),
        ('variant = "2021"\nbot = "minimax"\n', [],
         "local_server.bot minimax contradicts local_server.variant 2021"),
        ('variant = "2021"\n', ["--no-every-start-lost"],
         "--every-start-lost false contradicts local_server.variant 2021"),
        ('variant = "2020"\n', [], "local_server.variant: unknown variant '2020'"),
        ("", ["--null-start-reply", "--first", "random"],
         "--first random cannot go with null_start_reply"),
    ],
)
def test_a_switch_against_the_variant_is_refused_naming_both(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, config: str, argv: list[str],
    message: str,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[local_server]\n" + config)
    code, err = run_agent(capsys, "serve", "--db", ":memory:", "--config", str(path), *argv)
    assert code == 2 and err.startswith("error: ") and message in err and err.count("\n") == 1


def test_the_2021_variant_accepts_its_own_values_and_current_takes_any_switch(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[local_server]\nvariant = "2021"\nfirst = "student"\n')
    _, behaviour = served("--config", str(config))
    assert behaviour == VARIANTS["2021"]
    config.write_text('[local_server]\nevery_start_lost = true\n')
    _, behaviour = served("--config", str(config), "--bot", "random")
    assert behaviour.every_start_lost and behaviour.stats_endpoint and behaviour.bot == "random"


def test_the_configs_db_is_relative_to_the_config_file_and_db_to_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "conf"
    folder.mkdir()
    config = folder / "config.toml"
    config.write_text('[local_server]\ndb = "data/server.sqlite3"\n')
    monkeypatch.chdir(tmp_path)  # elsewhere than the config file
    assert Path(served("--config", str(config))[0].db) == folder / "data" / "server.sqlite3"
    assert served("--config", str(config), "--db", "mine.db")[0].db == "mine.db"
    config.write_text('[local_server]\ndb = ":memory:"\n')
    assert served("--config", str(config))[0].db == ":memory:"


@pytest.mark.slow
def test_serve_runs_a_server_with_the_configured_settings(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    # The ids are the shipped placeholders; a quick agent for the game the printed command plays.
    config.write_text('[local_server]\napi_key = "hemlig"\nfirst = "student"\ntime_limit = 0\n'
                      '[agent]\nseconds_per_move = 0.05\ntable_bits = 16\n')
    db = tmp_path / "served.sqlite3"
    command = [sys.executable, str(REPO / "agent.py"), "serve", "--config", str(config),
               "--port", "0", "--db", str(db), "--first", "bot"]
    env = {name: value for name, value in os.environ.items() if not name.startswith("EDAP01_")}
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=default_ctrl_c,
                               env={**env, "PYTHONUNBUFFERED": "1"})
    try:
        assert process.stdout is not None
        output = stream_lines(process.stdout)
        banner = [output.get(timeout=120) for _ in range(4)]
        assert banner[0].startswith("local course server on http://127.0.0.1:"), banner
        url = banner[0].split()[4]
        assert banner[1].startswith("  variant current: bot: minimax depth 3; first: bot;")
        # The local key is not a secret: shown in full, as in the command below, where an
        # example id stands in for the placeholder: the command is ready to paste.
        assert banner[2].rstrip().endswith("api key: hemlig"), banner
        printed = (f"EDAP01_API_KEY=hemlig EDAP01_STIL_IDS=local-test python agent.py online"
                   f" --server {url} --config {config}")
        assert banner[3].strip() == f"play against it: {printed}"
        pasted = printed.replace("python agent.py", f"{sys.executable} {REPO / 'agent.py'}")
        game = subprocess.run(pasted, shell=True, cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert game.returncode in (0, 1), game.stderr  # 1: the game was lost
        assert "summary: 1 game: " in game.stdout and "Traceback" not in game.stderr
        form = {"stil_id": ["cli-s"], "move": -1, "api_key": "hemlig"}
        reply = requests.post(url + "move", data=form, timeout=30).json()
        assert reply["status"] is True and reply["botmove"] >= 0  # --first beat the config
        form["api_key"] = "nyckel"  # the config's key replaced the default
        assert requests.post(url + "move", data=form, timeout=30).json()["status"] is False
    finally:
        code = interrupt(process)
    assert code == 0
    assert db.exists()


def test_the_banner_hides_the_local_key_only_when_it_is_the_course_key() -> None:
    url = "http://127.0.0.1:8000/"
    assert key_shown("nyckel", "your-course-api-key") == "nyckel"
    assert (play_command(url, "nyckel", ("your-stil-id",), None, "your-course-api-key")
            == f"EDAP01_API_KEY=nyckel EDAP01_STIL_IDS=local-test python agent.py online --server {url}")
    # The user's course key, served locally too: masked everywhere, and the command needs no
    # key (the client sends server.api_key, which is that one); real ids need no example.
    shown = key_shown("secret-course-key", "secret-course-key")
    assert "secret-course-key" not in shown and shown.startswith("se")
    command = play_command(url, "secret-course-key", ("ab1234cd-s",), "c.toml", "secret-course-key")
    assert command == f"python agent.py online --server {url} --config c.toml"
