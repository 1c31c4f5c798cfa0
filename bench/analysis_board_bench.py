"""The analysis board's targets, measured on the real server (``agent.py board`` in a process).

    python bench/analysis_board_bench.py [--positions 300] [--loads 20] [--games 5] [--seed 1]
                                [--json FILE]

1. **Page load**: the page, its script and style loaded in headless chromium (Selenium, as the
   tests drive it), ``--loads`` times; the navigation timing's ``loadEventEnd`` (skipped without
   chromium).
2. **Book verdicts**: ``/api/analyze?parts=columns&exact=0`` round trips (the page's first
   request for a position: the outcomes; the exact lengths follow) for positions whose every
   column leads into the book's complete layers (one disc fewer than the deepest complete
   layer: 7 with a book complete to 8), from random play; median, 95th percentile, slowest.
3. **Proof coverage at 1 s**: ``--positions`` positions from random play (the game's length
   drawn uniformly, the game not over), each analysed with ``seconds=1&exact=0`` (as the page
   first asks): the share with every legal column's outcome proven, by disc count.  The
   board's tables stay warm between positions, as in a session of a person using it.
4. **Review**: ``--games`` games of at least 40 plies (course mode at depth 6 against itself
   from random 4-move openings), each reviewed (``/api/review``, 1 s a move at most): seconds
   per review.

Prints a table for each and writes everything to ``--json``.  Run on a quiet machine: the
times are wall-clock times on loopback.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board import Board  # noqa: E402
from vocabulary import Mode  # noqa: E402

BANDS = [(0, 8), (9, 12), (13, 16), (17, 20), (21, 26), (27, 41)]


def start_board(config: Path) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, str(ROOT / "agent.py"), "board", "--port", "0", "--no-open",
               "--config", str(config)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("analysis board on "):
        process.kill()
        raise SystemExit(f"the board did not start: {line!r}")
    return process, line.split()[3]


def moves_of(board_moves: list[int]) -> str:
    return "".join(str(c + 1) for c in board_moves)


def random_position(rng: random.Random, low: int, high: int) -> str:
    while True:
        plies = rng.randint(low, high)
        board, moves = Board(), list[int]()
        while len(moves) < plies and not board.is_over():
            col = rng.choice(board.legal_moves())
            board = board.play(col)
            moves.append(col)
        if not board.is_over() and len(moves) == plies:
            return moves_of(moves)


def page_loads(url: str, loads: int) -> dict[str, Any] | None:
    if not (Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists()):
        return None
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1366,768"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    times = []
    try:
        driver.get(url)  # the first load fills the browser's cache, as a person's first visit
        for _ in range(loads):
            driver.get(url + "?moves=4453")
            timing = driver.execute_script(
                "const t = performance.getEntriesByType('navigation')[0];"
                "return [t.domContentLoadedEventEnd, t.loadEventEnd];")
            times.append(float(timing[1]))
    finally:
        driver.quit()
    return summary(times, "ms")


def summary(values: list[float], unit: str) -> dict[str, Any]:
    ordered = sorted(values)
    return {"n": len(values), "unit": unit, "median": round(statistics.median(ordered), 2),
            "p95": round(ordered[max(0, int(len(ordered) * 0.95) - 1)], 2),
            "max": round(ordered[-1], 2), "mean": round(statistics.fmean(ordered), 2)}


Query = dict[str, str | int | float]


def analysis(session: requests.Session, url: str, moves: str) -> dict[str, Any]:
    """The page's first request for a position: its columns' outcomes within 1 s."""
    query: Query = {"moves": moves, "seconds": 1, "parts": "columns", "exact": 0}
    view: dict[str, Any] = session.get(url + "api/analyze", params=query, timeout=60).json()
    return view


def book_verdicts(url: str, rng: random.Random, count: int) -> dict[str, Any]:
    from solver.book import load_book

    deepest = load_book().complete_discs - 1
    session = requests.Session()
    times = []
    for _ in range(count):
        moves = random_position(rng, 0, deepest)
        start = time.perf_counter()
        view = analysis(session, url, moves)
        times.append((time.perf_counter() - start) * 1000)
        assert view["all_proven"], moves
    return {"discs": f"0-{deepest}", **summary(times, "ms")}


def coverage(url: str, rng: random.Random, count: int) -> dict[str, Any]:
    session = requests.Session()
    by_discs: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for _ in range(count):
        moves = random_position(rng, 0, 41)
        view = analysis(session, url, moves)
        by_discs[len(moves)][0] += int(view["all_proven"])
        by_discs[len(moves)][1] += 1
    bands = {}
    for low, high in BANDS:
        proven = sum(by_discs[d][0] for d in range(low, high + 1))
        total = sum(by_discs[d][1] for d in range(low, high + 1))
        bands[f"{low}-{high}"] = [proven, total]
    proven = sum(v[0] for v in by_discs.values())
    return {"positions": count, "all_proven": proven, "share": round(proven / count, 4),
            "by_discs": {str(k): v for k, v in sorted(by_discs.items())}, "bands": bands}


def long_games(rng: random.Random, count: int, plies: int = 40) -> list[str]:
    """Games of at least ``plies`` moves: course mode at depth 6 against itself, random
    openings of 4 moves."""
    from engine import Engine
    from settings import AgentSettings
    from timecontrol import Limit

    engine = Engine(AgentSettings(mode=Mode.COURSE, table_bits=20))
    engine.warm_up()
    found: list[str] = []
    while len(found) < count:
        board, moves = Board(), list[int]()
        engine.new_game()
        while not board.is_over():
            if len(moves) < 4:
                col = rng.choice(board.legal_moves())
            else:
                col = engine.decide(board, Limit(float("inf"), depth=6)).column
            board = board.play(col)
            moves.append(col)
        if len(moves) >= plies:
            found.append(moves_of(moves))
    return found


def reviews(url: str, games: list[str]) -> dict[str, Any]:
    times, unproven = [], 0
    for moves in games:
        start = time.perf_counter()
        query: Query = {"moves": moves, "side": 1, "seconds": 1}
        review = requests.get(url + "api/review", params=query, timeout=300).json()
        times.append(time.perf_counter() - start)
        unproven += sum(1 for ply in review["plies"] if not ply["proven"])
    return {"games": len(games), "plies": [len(g) for g in games],
            "seconds": [round(t, 3) for t in times], "unproven_moves": unproven,
            **summary(times, "s")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--book-positions", type=int, default=200)
    parser.add_argument("--loads", type=int, default=20)
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--config", type=Path, default=ROOT / "config.toml")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    process, url = start_board(args.config)
    try:
        result: dict[str, Any] = {"url": url, "seed": args.seed}
        result["page_load"] = page_loads(url, args.loads)
        print("page load (ms):", result["page_load"], flush=True)
        result["book_verdicts"] = book_verdicts(url, rng, args.book_positions)
        print("book verdicts (ms):", result["book_verdicts"], flush=True)
        result["coverage_1s"] = coverage(url, rng, args.positions)
        print("all columns proven in 1 s:", result["coverage_1s"]["share"],
              result["coverage_1s"]["bands"], flush=True)
        games = long_games(rng, args.games)
        result["review"] = reviews(url, games)
        print("review (s):", result["review"], flush=True)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(30)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
