"""Make the screenshots of docs/analysis-board.md: each view of the analysis board in headless chromium.

    python docs/analysis_board_screenshots.py

Serves the board (as the tests do) with a record holding one game in which our side throws the
outcome away at move 5, then takes the analysis view of a position, a game against the agent
played to its end, and the review stepped to that first lost move, at 1366x768 (a laptop's
screen), into docs/images/.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from client.records import Records  # noqa: E402
from tests.analysisboard_games import blundering_game, record_online_game, running_analysis_board  # noqa: E402

IMAGES = ROOT / "docs" / "images"
POSITION = "4452266"  # one winning column, one drawing, the rest losing


def until(driver: webdriver.Chrome, script: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not driver.execute_script(f"return {script};"):
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {script}")
        time.sleep(0.1)


def main() -> int:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        record = Path(folder) / "games.sqlite3"
        with Records(record) as records:
            game_id = record_online_game(records, blundering_game(5, seed=11), we_first=True)
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                     "--no-first-run", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--window-size=1366,768",
                     "--hide-scrollbars"):
            options.add_argument(flag)
        with running_analysis_board(record) as url:
            driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
            try:
                driver.get(f"{url}?moves={POSITION}")
                until(driver, "document.body.dataset.analysis === 'done'")
                driver.save_screenshot(str(IMAGES / "board-analyse.png"))

                driver.find_element(By.ID, "tab-play").click()
                driver.find_element(By.CSS_SELECTOR, '#play-seconds option[value="0.1"]').click()
                driver.find_element(By.ID, "play-start").click()
                rng = random.Random(4)
                while not driver.execute_script("return document.body.dataset.gameOver || '';"):
                    until(driver, "!document.body.dataset.thinking")
                    if driver.execute_script("return document.body.dataset.gameOver || '';"):
                        break
                    legal = [c.get_attribute("data-col") for c in driver.find_elements(
                        By.CSS_SELECTOR, "#board .column:not(.full)")]
                    column = int(rng.choice(legal) or 0)  # 0-based; its key is 1-7
                    driver.find_element(By.TAG_NAME, "body").send_keys(str(column + 1))
                    time.sleep(0.4)
                driver.save_screenshot(str(IMAGES / "board-play.png"))

                driver.get(f"{url}?review=record:{game_id}")
                until(driver, "document.body.dataset.review === 'done'")
                driver.find_element(By.ID, "step-lost").click()
                until(driver, "document.body.dataset.reviewPly === '4'")
                until(driver, "document.body.dataset.analysis === 'done'")
                driver.save_screenshot(str(IMAGES / "board-review.png"))
            finally:
                driver.quit()
    for name in ("analyse", "play", "review"):
        print(IMAGES / f"board-{name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
