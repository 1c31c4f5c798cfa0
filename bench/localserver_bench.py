"""Speed of the local course server: the bot's time per move and requests served over HTTP.

    python bench/localserver_bench.py [--clients 1,4,16] [--seconds 5] [--depth 3] [--json FILE]

Measures, in one run:

1. the bot alone (``CourseService``'s minimax at ``--depth`` with ``windows5000``): mean and
   maximum milliseconds per bot move over whole games against random moves;
2. the real app served by uvicorn on 127.0.0.1 (a file database, as ``agent.py serve`` runs):
   for each number of concurrent clients, each a thread playing whole games of random moves
   with its own id for ``--seconds``, the requests per second and the latency (median, 95th
   percentile, maximum) of ``POST move``; afterwards the stats must add up to the games played.

The clients run in the same process as the server, so on a small machine they compete with
it for the CPU: the figures are a lower bound for the server alone.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board import Board  # noqa: E402
from localserver.background import LocalCourseServer  # noqa: E402
from localserver.service import CourseService  # noqa: E402

KEY = "nyckel"


def bot_speed(depth: int, games: int) -> dict[str, float]:
    service = CourseService(":memory:", api_key=KEY, bot_depth=depth, time_limit=0,
                            rng=random.Random(1))
    service.warm_up()
    rng = random.Random(2)
    times: list[float] = []
    for _ in range(games):
        board = Board()
        while not board.is_over():
            board = board.play(rng.choice(board.legal_moves()))
            if board.is_over():
                break
            start = time.perf_counter()
            col = service._bot_move(board)
            times.append(time.perf_counter() - start)
            board = board.play(col)
    service.close()
    return {"moves": len(times), "mean_ms": 1000 * statistics.fmean(times),
            "max_ms": 1000 * max(times)}


def http_load(clients: int, seconds: float, depth: int, db: str) -> dict[str, float]:
    latencies: list[float] = []
    games: dict[str, int] = {}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    with LocalCourseServer(db, bot_depth=depth, time_limit=0, seed=3) as server:
        url = server.url

        def client(n: int) -> None:
            rng = random.Random(n)
            session = requests.Session()
            ids = [f"bench{clients}-{n}"]
            own: list[float] = []
            finished = 0
            while time.monotonic() < stop:
                reply: dict = {"result": 0, "state": None}
                col = -1
                while True:
                    start = time.perf_counter()
                    reply = session.post(url + "move", timeout=30,
                                         data={"stil_id": ids, "move": col, "api_key": KEY}).json()
                    own.append(time.perf_counter() - start)
                    if reply["result"] != 0:
                        finished += 1
                        break
                    col = rng.choice([c for c in range(7) if reply["state"][0][c] == 0])
            with lock:
                latencies.extend(own)
                games[ids[0]] = finished

        threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
        began = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - began
        assert server.service is not None
        counted = {s.player: s.played for s in server.service.store.all_stats()}
    if any(counted.get(player, 0) != n for player, n in games.items()):
        raise SystemExit(f"stats do not add up: played {games}, counted {counted}")
    latencies.sort()
    return {
        "clients": clients, "requests": len(latencies), "games": sum(games.values()),
        "requests_per_s": len(latencies) / elapsed,
        "median_ms": 1000 * statistics.median(latencies),
        "p95_ms": 1000 * latencies[int(0.95 * (len(latencies) - 1))],
        "max_ms": 1000 * latencies[-1],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="1,4,16", help="concurrent clients per run")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per run")
    parser.add_argument("--depth", type=int, default=3, help="bot depth")
    parser.add_argument("--bot-games", type=int, default=50, help="games for the bot's timing")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the figures")
    args = parser.parse_args()
    clients = [int(c) for c in args.clients.split(",")]

    bot = bot_speed(args.depth, args.bot_games)
    print(f"bot depth {args.depth}: {bot['moves']} moves, mean {bot['mean_ms']:.2f} ms,"
          f" max {bot['max_ms']:.2f} ms per move")
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in clients:
            run = http_load(n, args.seconds, args.depth, str(Path(tmp) / f"bench{n}.sqlite3"))
            runs.append(run)
            print(f"{n:3d} clients: {run['requests']:6d} requests, {run['games']:4d} games,"
                  f" {run['requests_per_s']:7.0f} req/s, latency median {run['median_ms']:.1f}"
                  f" ms, p95 {run['p95_ms']:.1f} ms, max {run['max_ms']:.1f} ms")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"bot": bot, "http": runs}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
