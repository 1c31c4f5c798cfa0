"""The analysis board in a real headless browser: Debian's chromium driven by Selenium through
Debian's chromedriver (no browser is downloaded).

The page is loaded from the real board server on 127.0.0.1 and used as a person would: columns
clicked and keys pressed, the verdict row read after each move, a whole game played against
the agent, a move against a program the board was started with (``--players``) and a
misbehaving one's fault, a recorded game opened in the review and stepped to its first losing
move, a diagram saved.  Skipped, with the reason, where chromium or chromedriver is not installed
(CI installs both: ``apt-get install chromium chromium-driver``).
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import requests

from analysisboard.opponents import Matches, listed_players
from client.records import Records
from tests.analysisboard_games import blundering_game, record_online_game, running_analysis_board

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1366,768"]
BLUNDER_PLY = 5
WAIT = 60.0
ENGINE = Path(__file__).resolve().parent / "data" / "outside" / "engine.py"
PROGRAM = f'program:"{sys.executable} {ENGINE}"'
ILLEGAL = f'program:"{sys.executable} {ENGINE} --misbehave illegal"'

pytestmark = [pytest.mark.browser, pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="no headless browser: /usr/bin/chromium or /usr/bin/chromedriver is missing"
           " (apt-get install -y chromium chromium-driver)",
)]

if CHROMIUM.exists() and CHROMEDRIVER.exists():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support.select import Select


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("browser")
    record = folder / "games.sqlite3"
    columns = blundering_game(BLUNDER_PLY, seed=11)
    with Records(record) as records:
        game_id = record_online_game(records, columns, we_first=True)
    matches = Matches(listed_players(f"{PROGRAM},{ILLEGAL}"))
    with running_analysis_board(record, matches=matches) as url:
        yield {"url": url, "game_id": game_id, "columns": columns, "folder": folder}


@pytest.fixture(scope="module")
def browser(board: dict[str, Any]) -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    downloads = board["folder"] / "downloads"
    downloads.mkdir()
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.execute_cdp_cmd("Page.setDownloadBehavior",
                           {"behavior": "allow", "downloadPath": str(downloads)})
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(condition: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def body_data(driver: WebDriver, name: str) -> str | None:
    value = driver.execute_script(f"return document.body.dataset.{name} ?? null;")
    return None if value is None else str(value)


def press(driver: WebDriver, key: str) -> None:
    driver.find_element(By.TAG_NAME, "body").send_keys(key)


def verdict_row(driver: WebDriver) -> list[str]:
    """Each column's outcome as the page shows it (the exact length may differ from one
    analysis to the next: a warmer table proves more)."""
    # Read in one script call: cell by cell, a row the page redraws meanwhile goes stale.
    row = driver.execute_script(
        "return Array.from(document.querySelectorAll('#verdicts .verdict'),"
        " cell => cell.dataset.outcome || cell.innerText.trim());")
    return [str(cell) for cell in row]


def api_outcomes(url: str, moves: str) -> list[str]:
    query: dict[str, str | int] = {"moves": moves, "seconds": 2, "parts": "columns"}
    view = requests.get(url + "api/analyze", params=query, timeout=60).json()
    return [(c["outcome"] or "unproven") if c["legal"] else "full" for c in view["columns"]]


def more_discs(driver: WebDriver, discs: int) -> bool:
    return len(driver.find_elements(By.CSS_SELECTOR, "#board circle.p1, #board circle.p2")) > discs


def open_page(driver: WebDriver, url: str, moves: str) -> None:
    driver.get(f"{url}?moves={moves}")
    wait_for(lambda: body_data(driver, "verdicts") == moves, f"the verdicts of {moves!r}")


@pytest.mark.slow
def test_clicking_a_column_updates_the_verdict_row(browser: WebDriver, board: dict[str, Any]) -> None:
    url = board["url"]
    open_page(browser, url, "4453")
    assert verdict_row(browser) == api_outcomes(url, "4453")
    column = browser.find_element(By.CSS_SELECTOR, '#board .column[data-col="3"]')
    assert column.get_attribute("role") == "button"
    assert "column 4, drop a disc" in (column.get_attribute("aria-label") or "")  # 1-7
    column.click()
    wait_for(lambda: body_data(browser, "verdicts") == "44534", "the verdicts after a click")
    assert verdict_row(browser) == api_outcomes(url, "44534")
    assert browser.current_url.endswith("?moves=44534")
    assert "5 discs" in browser.find_element(By.ID, "status").text
    # The keyboard: a digit 1-7 drops a disc, the arrows undo and redo.
    press(browser, "3")
    wait_for(lambda: body_data(browser, "verdicts") == "445343", "the verdicts after a key")
    press(browser, "\ue012")  # left arrow
    wait_for(lambda: body_data(browser, "verdicts") == "44534", "undo")
    press(browser, "\ue014")  # right arrow
    wait_for(lambda: body_data(browser, "verdicts") == "445343", "redo")
    # Every column's verdict is coloured by its outcome and marked in words.
    classes = [cell.get_attribute("class") for cell in
               browser.find_elements(By.CSS_SELECTOR, "#verdicts .verdict")]
    assert all(any(k in (c or "") for k in ("win", "draw", "loss", "unproven", "full"))
               for c in classes)


@pytest.mark.slow
def test_keys_pressed_quickly_are_all_played_in_order(browser: WebDriver,
                                                     board: dict[str, Any]) -> None:
    open_page(browser, board["url"], "4")
    body = browser.find_element(By.TAG_NAME, "body")
    for key in "4567":  # columns 4, 5, 6, 7 at once, as in the move string
        body.send_keys(key)
    wait_for(lambda: body_data(browser, "verdicts") == "44567", "all four moves")
    for _ in range(3):
        body.send_keys("\ue012")  # left arrow, three times at once
    wait_for(lambda: body_data(browser, "verdicts") == "44", "three moves undone")
    assert browser.current_url.endswith("?moves=44")


@pytest.mark.slow
def test_the_keyboard_keeps_its_column_after_a_move(browser: WebDriver,
                                                    board: dict[str, Any]) -> None:
    open_page(browser, board["url"], "")
    column = browser.find_element(By.CSS_SELECTOR, '#board .column[data-col="2"]')
    browser.execute_script("arguments[0].focus();", column)
    browser.switch_to.active_element.send_keys("\ue007")  # Enter
    wait_for(lambda: body_data(browser, "verdicts") == "3", "the first disc")
    focused = browser.switch_to.active_element
    assert focused.get_attribute("data-col") == "2"  # the column redrawn, the focus kept
    focused.send_keys(" ")
    wait_for(lambda: body_data(browser, "verdicts") == "33", "the second disc, from the keyboard")


@pytest.mark.slow
def test_a_bad_address_shows_why_and_an_empty_board(browser: WebDriver,
                                                    board: dict[str, Any]) -> None:
    for address in ("?moves=44x", "?review=record:999"):
        browser.get(board["url"] + address)
        wait_for(lambda: body_data(browser, "verdicts") == "", f"the empty board after {address}")
        error = browser.find_element(By.ID, "error")
        assert error.is_displayed() and "The board starts empty instead." in error.text
        assert "0 discs" in browser.find_element(By.ID, "status").text
    press(browser, "4")
    wait_for(lambda: body_data(browser, "verdicts") == "4", "a move on the empty board")


@pytest.mark.slow
def test_a_server_state_and_a_move_string_load_positions(browser: WebDriver,
                                                        board: dict[str, Any]) -> None:
    open_page(browser, board["url"], "")
    field = browser.find_element(By.ID, "moves-input")
    field.clear()
    field.send_keys("4444\n")
    wait_for(lambda: body_data(browser, "verdicts") == "4444", "a typed move string")
    state = [[0] * 7 for _ in range(6)]
    state[5][3], state[4][3], state[5][2] = 1, -1, 1  # the bot started: it is our move
    area = browser.find_element(By.ID, "state-input")
    area.send_keys(str(state))
    browser.find_element(By.CSS_SELECTOR, "#state-form button").click()
    wait_for(lambda: (body_data(browser, "verdicts") or "") not in ("", "4444"), "a pasted state")
    moves = body_data(browser, "verdicts") or ""
    assert sorted(moves) == sorted("443")  # the bot's disc first: 4, then 4 and 3 in some order
    field.clear()
    field.send_keys("44x\n")
    error = wait_for(lambda: browser.find_element(By.ID, "error").text, "the error line")
    assert "move 3 is 'x'" in error


@pytest.mark.slow
def test_a_whole_game_against_the_agent(browser: WebDriver, board: dict[str, Any]) -> None:
    open_page(browser, board["url"], "")
    browser.find_element(By.ID, "tab-play").click()
    browser.find_element(By.CSS_SELECTOR, '#play-seconds option[value="0.1"]').click()
    browser.find_element(By.ID, "play-start").click()
    rng = random.Random(3)
    status = browser.find_element(By.ID, "status")
    for _ in range(30):
        wait_for(lambda: body_data(browser, "thinking") is None
                 and ("Your move" in browser.find_element(By.ID, "play-status").text
                      or body_data(browser, "gameOver") is not None), "our turn")
        if body_data(browser, "gameOver") is not None:
            break
        legal = [c.get_attribute("data-col") for c in
                 browser.find_elements(By.CSS_SELECTOR, "#board .column:not(.full)")]
        discs = len(browser.find_elements(By.CSS_SELECTOR, "#board circle.p1, #board circle.p2"))
        press(browser, str(int(rng.choice(legal) or 0) + 1))  # keys 1-7
        wait_for(partial(more_discs, browser, discs), "our disc")
    result = wait_for(lambda: body_data(browser, "gameOver"), "the end of the game")
    assert result == "The agent won."  # random moves do not beat the course-mode search
    assert status.text.startswith("Game over")
    log = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "#play-log li")]
    assert any(line.startswith("Agent: column") and "depth" in line for line in log)
    assert log[0] == "You are X (first, ✕), the agent O (second, ◯)."  # X moved first
    browser.find_element(By.ID, "play-review").click()
    summary = wait_for(lambda: browser.find_element(By.ID, "review-summary").text
                       if body_data(browser, "review") == "done" else "", "the review")
    assert "moves kept the outcome" in summary


def start_against(driver: WebDriver, url: str, player: str) -> None:
    """A game on the page against a player of the board's list, the person first."""
    open_page(driver, url, "")
    driver.find_element(By.ID, "tab-play").click()
    picker = Select(driver.find_element(By.ID, "play-mode"))
    wait_for(lambda: player in [o.get_attribute("value") for o in picker.options],
             "the listed players")
    picker.select_by_value(player)
    driver.find_element(By.ID, "play-start").click()
    wait_for(lambda: "Your move" in driver.find_element(By.ID, "play-status").text, "our turn")


def agent_lines(driver: WebDriver) -> list[str]:
    return [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#play-log li")]


@pytest.mark.slow
def test_a_move_against_a_listed_program(browser: WebDriver, board: dict[str, Any]) -> None:
    start_against(browser, board["url"], PROGRAM)
    assert agent_lines(browser)[0] == f"You are X (first, ✕), {PROGRAM} O (second, ◯)."
    press(browser, "4")
    wait_for(partial(more_discs, browser, 1), "the program's answer")
    line = wait_for(lambda: [text for text in agent_lines(browser)
                             if text.startswith("Agent: column")], "the program's move")[0]
    # The tiny engine has nothing to win or block yet: it plays the centre, column 4.
    assert line.startswith("Agent: column 4 (") and line.endswith(" s of its 0.5 s)")
    wait_for(lambda: "Your move" in browser.find_element(By.ID, "play-status").text, "our turn")
    assert body_data(browser, "gameOver") is None


@pytest.mark.slow
def test_a_misbehaving_program_loses_on_the_page(browser: WebDriver,
                                                 board: dict[str, Any]) -> None:
    start_against(browser, board["url"], ILLEGAL)
    press(browser, "4")
    wait_for(lambda: "Your move" in browser.find_element(By.ID, "play-status").text
             and more_discs(browser, 1), "its first move")
    press(browser, "3")  # its second move is 9, out of range: its loss
    result = wait_for(lambda: body_data(browser, "gameOver"), "the end of the game")
    words = f"{ILLEGAL} lost: illegal (answered 9: out of range 1-7)"
    assert result == f"You won: {words}."
    assert agent_lines(browser)[-1] == words
    assert browser.find_element(By.ID, "status").text.startswith("Game over: X (first, ✕) won")
    assert not browser.find_element(By.ID, "error").is_displayed()  # no server error


@pytest.mark.slow
def test_the_review_steps_to_the_first_losing_move(browser: WebDriver,
                                                  board: dict[str, Any]) -> None:
    open_page(browser, board["url"], "")
    browser.find_element(By.ID, "tab-review").click()
    game_id = board["game_id"]
    opener = wait_for(lambda: browser.find_elements(
        By.CSS_SELECTOR, f'button[aria-label="Open record game {game_id}"]'), "the games list")
    opener[0].click()
    wait_for(lambda: body_data(browser, "review") == "done", "the review")
    summary = browser.find_element(By.ID, "review-summary").text
    assert f"the first that lost it: move {BLUNDER_PLY}" in summary
    browser.find_element(By.ID, "step-lost").click()
    wait_for(lambda: body_data(browser, "reviewPly") == str(BLUNDER_PLY - 1), "the first lost move")
    moves = "".join(str(c + 1) for c in board["columns"])
    wait_for(lambda: body_data(browser, "verdicts") == moves[:BLUNDER_PLY - 1], "its position")
    lost = browser.find_element(By.CSS_SELECTOR, f'#review-moves li[data-ply="{BLUNDER_PLY}"]')
    assert {"ours", "lost", "first-lost"} <= set((lost.get_attribute("class") or "").split())
    next_move = browser.find_element(By.ID, "review-move").text
    assert "Next: Move 5 (ours)" in next_move
    # Columns as people read them, 1-7: the move played, and those that kept the outcome.
    assert f"Next: Move 5 (ours): column {moves[BLUNDER_PLY - 1]}," in next_move
    keeping = next_move.split("columns that kept it: ")[1].split(", ")
    assert keeping and all(c in "1234567" for c in keeping) and moves[BLUNDER_PLY - 1] not in keeping
    assert f"review=record%3A{game_id}" in browser.current_url or \
        f"review=record:{game_id}" in browser.current_url
    press(browser, "\ue014")  # right arrow: the losing move itself
    wait_for(lambda: body_data(browser, "reviewPly") == str(BLUNDER_PLY), "one step on")
    assert "lost the outcome" in browser.find_element(By.ID, "review-move").text


@pytest.mark.slow
def test_saving_a_diagram(browser: WebDriver, board: dict[str, Any]) -> None:
    open_page(browser, board["url"], "4453")
    downloads = board["folder"] / "downloads"
    browser.find_element(By.ID, "save-svg").click()
    svg = wait_for(lambda: [p for p in downloads.glob("*.svg") if p.stat().st_size > 0],
                   "the SVG download")[0]
    assert svg.name == "connect4-4453.svg" and b"<svg" in svg.read_bytes()[:400]
    browser.find_element(By.ID, "save-png").click()
    png = wait_for(lambda: [p for p in downloads.glob("*.png") if p.stat().st_size > 0],
                   "the PNG download")[0]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
