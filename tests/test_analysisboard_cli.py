"""``agent.py board`` and ``agent.py board-image``: a real process serving the page, pictures
written to disk, and every user mistake as one error line."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import requests

import agent
from tests.helpers import default_ctrl_c, interrupt, stream_lines

REPO = Path(__file__).resolve().parent.parent


def run_agent(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = agent.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_board_image_writes_svg_and_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    svg = tmp_path / "pictures" / "position.svg"
    code, out, err = run_agent(capsys, "board-image", "4453", "--out", str(svg), "--verdicts",
                               "--time", "0.5")
    assert code == 0, err
    assert out.startswith(f"wrote {svg}") and b"<svg" in svg.read_bytes()[:400]
    # The verdict row: every column of 4453 is a loss for the player to move (the book's), in
    # the side to move's moves (Proven.short); the column numbers 1-7 under the board.
    text = svg.read_text()
    assert text.count("\u2212") >= 7 and "\u221218" in text
    assert "X (first player, cross) to move" in text
    png = tmp_path / "position.png"
    code, _, err = run_agent(capsys, "board-image", "4455667", "--out", str(png), "--flip")
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("argv", "message"), [
    (["4453", "--out", "picture.gif"], "the file name must end in .svg or .png"),
    (["44x", "--out", "p.svg"], "move 3 is 'x'"),
    (["4455667", "--out", "p.svg", "--verdicts"], "the game is over"),
    (["44", "--out", "p.svg", "--verdicts", "--time", "20"], "--time must be from 0.05 to 10"),
])
def test_board_image_mistakes_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                           message: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_agent(capsys, "board-image", *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())  # nothing written


def test_board_refuses_a_missing_database_and_a_busy_port(capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    code, _, err = run_agent(capsys, "board", "--no-open", "--db", str(tmp_path / "none.sqlite3"))
    assert code == 2 and "--db" in err and "is not a file" in err and err.count("\n") == 1
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        code, _, err = run_agent(capsys, "board", "--no-open", "--port", str(port))
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in err


@pytest.mark.parametrize(("players", "message"), [
    ("bot:2,nonsense", "--players: unknown player 'nonsense'"),
    ('program:"/nonexistent/engine --fast"', "/nonexistent/engine is not a file"),
    ("human", "--players: human is the person at the page"),
])
def test_board_refuses_a_bad_player_list_before_it_starts(capsys: pytest.CaptureFixture[str],
                                                           players: str, message: str) -> None:
    code, out, err = run_agent(capsys, "board", "--no-open", "--port", "0", "--players", players)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


@pytest.mark.slow
def test_board_serves_the_page_until_ctrl_c(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[record]\npath = "mine.sqlite3"\n[board]\nanalysts = 1\n')
    command = [sys.executable, str(REPO / "agent.py"), "board", "--config", str(config),
               "--port", "0", "--no-open", "--players", "bot:2"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "DISPLAY": ""}
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, preexec_fn=default_ctrl_c,
                               env=env)
    try:
        assert process.stdout is not None
        output = stream_lines(process.stdout)
        banner = [output.get(timeout=180) for _ in range(3)]
        assert banner[0].startswith("analysis board on http://127.0.0.1:"), banner
        url = banner[0].split()[3]
        assert banner[1].strip() == f"games to review: the record {tmp_path / 'mine.sqlite3'}"
        assert banner[2].strip() == "players to play beside our engine: bot:2"
        listed = requests.get(url + "api/players", timeout=30).json()
        assert listed == {"players": [{"name": "bot:2", "kind": "bot", "seconds": None}]}
        answer = requests.get(url + "api/move", params={"moves": "44", "player": "bot:2",
                                                        "page": "cli"}, timeout=30).json()
        assert answer["column"] in range(7) and answer["fault"] is None
        page = requests.get(url, timeout=30)
        assert page.status_code == 200 and "Connect Four analysis board" in page.text
        position = requests.get(url + "api/position", params={"moves": "44"}, timeout=30).json()
        assert position["to_move"] == 1 and position["legal"] == list(range(7))
        assert requests.get(url + "api/games", timeout=30).json()["games"] == []
    finally:
        code = interrupt(process)
    assert code == 0
    assert not (tmp_path / "mine.sqlite3").exists()  # the review only reads
