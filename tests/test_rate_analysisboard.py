"""The games of an ``agent.py rate`` run in the analysis board, over real HTTP on 127.0.0.1: the
review lists them and opens each, the rated player as our side, and the board's referee agrees
with the rate report on every worst move its links point to; ``board --rated`` refuses a folder
that holds no run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from agent import main
from analysisboard.analysts import Analysts
from analysisboard.app import create_app
from analysisboard.games import GameFiles
from localserver.background import bind_socket, serve_in_thread
from reporting.rate import GAMES, RateRequest, rate
from settings import Settings
from tests.test_rate import tiny_ladder


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("rated-board")
    out = folder / "run"
    rate(RateRequest("bot:1", out, 4, 0.2, workers=1, seed=8,
                     ladder=tiny_ladder(folder / "ladder.json")), Settings())
    return out


@pytest.fixture(scope="module")
def url(run: Path) -> Iterator[str]:
    sock = bind_socket("127.0.0.1", 0)
    files = GameFiles(run.parent / "no-record.sqlite3", None, run)
    served = serve_in_thread(create_app(Analysts(Settings(), 1), files), sock, 10.0, "board")
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        served.stop()


def ok(url: str, path: str, **params: Any) -> dict[str, Any]:
    reply = requests.get(url + path, params=params, timeout=120)
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


@pytest.mark.slow
def test_the_review_lists_the_rated_games(url: str, run: Path) -> None:
    lines = [json.loads(line) for line in (run / GAMES).read_text().splitlines()][1:]
    listing = ok(url, "api/games", source="rated")
    assert "rated" in listing["sources"]
    assert sorted(g["id"] for g in listing["games"]) == [line["game"] for line in lines]
    for game in listing["games"]:
        line = lines[game["id"] - 1]
        assert game["source"] == "rated" and game["kind"] == "rated"
        assert game["our_side"] == (1 if line["player_first"] else 2)
        assert game["opponent"] == line["rung"]
        assert game["plies"] == len(line["opening"]) + len(line["moves"])
        expected = {1.0: "won", 0.5: "draw", 0.0: "lost"}[line["score"]]
        assert game["result"] == expected


def test_a_worst_move_link_opens_the_game_where_the_board_agrees(url: str, run: Path) -> None:
    report = json.loads((run / "rate.json").read_text())
    assert report["worst_moves"], "bot:1 throws away some outcome in four games"
    worst = report["worst_moves"][0]
    assert f"?review=rated:{worst['game']}&ply={worst['ply'] - 1}" in worst["link"]
    review = ok(url, "api/review", source="rated", id=worst["game"], seconds=2)
    entry = review["plies"][worst["ply"] - 1]
    assert entry["ply"] == worst["ply"] and entry["column"] == worst["column"]
    assert entry["ours"] and entry["kept"] is False
    assert (entry["best"], entry["outcome"]) == (worst["best"], worst["outcome"])
    assert review["game"]["id"] == worst["game"]
    # The run's random opening is judged but is no one's: the counts are the player's moves.
    opening = review["game"]["opening"]
    assert opening == 2 and not any(e["ours"] for e in review["plies"][:opening])
    ours = [e for e in review["plies"] if e["ours"]]
    assert ours and all(e["ply"] > opening for e in ours)
    assert review["summary"]["moves"] == len(ours)


def test_a_game_not_in_the_run_is_one_sentence(url: str) -> None:
    reply = requests.get(url + "api/review", params={"source": "rated", "id": "99"}, timeout=60)
    assert reply.status_code == 400 and "no game 99" in reply.json()["error"]


def test_board_rated_needs_a_run_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                        ) -> None:
    assert main(["board", "--rated", str(tmp_path), "--no-open"]) == 2
    assert "holds no games.jsonl" in capsys.readouterr().err


@pytest.mark.browser
@pytest.mark.skipif(not (Path("/usr/bin/chromium").exists()
                         and Path("/usr/bin/chromedriver").exists()),
                    reason="no headless browser: /usr/bin/chromium or /usr/bin/chromedriver")
def test_a_worst_move_link_opens_in_a_browser_at_that_move(url: str, run: Path) -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    from tests.test_analysisboard_browser import CHROMEDRIVER, CHROMIUM, FLAGS, body_data, wait_for

    worst = json.loads((run / "rate.json").read_text())["worst_moves"][0]
    link = url + worst["link"].split("/", 3)[3]  # the report's address, on this board's port
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        driver.get(link)
        wait_for(lambda: body_data(driver, "review") == "done", "the review")
        wait_for(lambda: body_data(driver, "reviewPly") == str(worst["ply"] - 1), "the move")
        item = driver.find_element(By.CSS_SELECTOR, f'#review-moves li[data-ply="{worst["ply"]}"]')
        assert {"ours", "lost"} <= set((item.get_attribute("class") or "").split())
    finally:
        driver.quit()
