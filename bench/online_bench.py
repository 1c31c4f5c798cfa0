"""The online client's timing against the local course server: is every move inside 5 s?

    python bench/online_bench.py [--games 4] [--time S] [--mode course|strongest]
                                 [--first random|student|bot] [--bot-depth 3] [--seed X]
                                 [--json FILE]

Starts the local emulation of the course server on 127.0.0.1 (its 5 s limit per move on, as
the course's), and plays ``--games`` games with ``agent.py online``'s code: the HTTP client,
the game loop, the record (a temporary file) and our engine with ``--time`` seconds per move
capped as online, ``min(S, 5 - agent.safety_margin)`` (default: the config's budget,
``min(agent.seconds_per_move, 5 - agent.safety_margin)``).

Reports, over all our moves:

- ``move``: seconds from the server's reply received to our move sent, as the server would see
  it minus the network (the figure the 5 s limit is about): mean, maximum, moves over the
  budget + 50 ms, moves over 5 s;
- ``think``: the engine's own part of it, and ``overhead`` = move - think (checking the reply,
  the mirror, writing the record): mean and maximum;
- ``round trip``: from sending a move to its reply (local HTTP plus the server's bot);
- the results (W/D/L) and the depth reached.

The server runs in the same process (another thread): the figures include its share of the
interpreter, so they are an upper bound for the client alone.  Heavy at the default budget
(about 20 moves x 3 s per game): run it with ``nice``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from client.game import move_budget  # noqa: E402
from client.http import HttpCourseServer  # noqa: E402
from client.online import run_online  # noqa: E402
from client.outcome import OurGame  # noqa: E402
from client.records import Records  # noqa: E402
from commandline import seconds as seconds_type  # noqa: E402
from course.protocol import (  # noqa: E402
    SERVER_MOVE_LIMIT,
    MoveReply,
    Stats,
)
from engine import Engine  # noqa: E402
from localserver.background import LocalCourseServer  # noqa: E402
from settings import ServerSettings, load_settings, revised  # noqa: E402

IDS = ("bench-1",)
KEY = "nyckel"
TOLERANCE = 0.05


class TimedServer:
    """The HTTP client, timing each move's round trip."""

    def __init__(self, inner: HttpCourseServer) -> None:
        self.inner = inner
        self.round_trips: list[float] = []

    @property
    def name(self) -> str:
        return self.inner.name

    def start_game(self) -> MoveReply:
        return self.inner.start_game()

    def play(self, column: int) -> MoveReply:
        start = time.perf_counter()
        try:
            return self.inner.play(column)
        finally:
            self.round_trips.append(time.perf_counter() - start)

    def stats(self) -> Stats:
        return self.inner.stats()

    def replied_ago(self, seconds: float) -> None:
        self.inner.replied_ago(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--time", type=seconds_type, default=None, metavar="S")
    parser.add_argument("--first", choices=("random", "student", "bot"), default="random")
    parser.add_argument("--bot-depth", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", choices=("course", "strongest"), default=None,
                        help="the engine's mode (default: the config's)")
    parser.add_argument("--json", default=None, metavar="FILE")
    args = parser.parse_args()

    settings = load_settings()
    agent = settings.agent
    if args.mode is not None:
        agent = revised(agent, {"mode": args.mode})
    # The online command's budget, as `online --time` makes it: --time or the configured
    # time, capped below the server's limit (move_budget also checks the margin).
    budget = move_budget(agent, args.time)
    engine = Engine(agent, solver=settings.solver)
    engine.warm_up()
    with tempfile.TemporaryDirectory() as folder, LocalCourseServer(
        seed=args.seed, first=args.first, bot_depth=args.bot_depth, time_limit=SERVER_MOVE_LIMIT,
    ) as local, Records(Path(folder) / "games.sqlite3") as records:
        if local.service is not None:
            local.service.warm_up()  # compile the bot before the clock matters
        server = TimedServer(HttpCourseServer(ServerSettings(url=local.url, stil_ids=IDS, api_key=KEY)))
        started = time.perf_counter()
        # Stop at a loss like the real command; every game counts here, so loop until done.
        outcomes: list[OurGame] = []
        while len(outcomes) < args.games:
            run = run_online(server, engine, records, IDS, budget=budget, games=1,
                             out=lambda line: None)
            outcomes.extend(run.outcomes)
        wall = time.perf_counter() - started

    moves = [m for o in outcomes for m in o.our_moves]
    seconds = [m.seconds or 0.0 for m in moves]
    thinks = [m.think or 0.0 for m in moves]
    depths = [m.depth or 0 for m in moves]
    overhead = [s - t for s, t in zip(seconds, thinks, strict=True)]
    results = [o.result for o in outcomes]
    # Each lost game's columns (0-6, in play order) and who started, to replay and analyse.
    lost_games = [{"we_started": o.we_started, "columns": "".join(map(str, o.game.columns))}
                  for o in outcomes if o.result < 0]
    report: dict[str, object] = {
        "mode": agent.mode,
        "games": len(outcomes),
        "budget": budget,
        "won": sum(r == 1 for r in results),
        "drawn": sum(r == 0.5 for r in results),
        "lost": sum(r < 0 for r in results),
        "our_moves": len(moves),
        "move_mean": statistics.fmean(seconds),
        "move_max": max(seconds),
        "over_budget": sum(s > budget + TOLERANCE for s in seconds),
        "over_limit": sum(s > SERVER_MOVE_LIMIT for s in seconds),
        "think_max": max(thinks),
        "overhead_mean_ms": 1000 * statistics.fmean(overhead),
        "overhead_max_ms": 1000 * max(overhead),
        "round_trip_mean_ms": 1000 * statistics.fmean(server.round_trips),
        "round_trip_max_ms": 1000 * max(server.round_trips),
        "depth_mean": statistics.fmean(depths),
        "depth_min": min(depths),
        "wall_seconds": wall,
        "lost_games": lost_games,
    }
    print(f"{report['games']} games at {budget:g} s per move against the local server's"
          f" bot (depth {args.bot_depth}): {report['won']} won, {report['drawn']} drawn,"
          f" {report['lost']} lost")
    print(f"our moves: {report['our_moves']}; reply to move sent: mean {report['move_mean']:.3f} s,"
          f" max {report['move_max']:.3f} s; over budget+{TOLERANCE:g}: {report['over_budget']};"
          f" over {SERVER_MOVE_LIMIT:g} s: {report['over_limit']}")
    print(f"client overhead (move - engine): mean {report['overhead_mean_ms']:.2f} ms,"
          f" max {report['overhead_max_ms']:.2f} ms")
    print(f"round trip of a move (HTTP + the bot): mean {report['round_trip_mean_ms']:.1f} ms,"
          f" max {report['round_trip_max_ms']:.1f} ms")
    print(f"depth: mean {report['depth_mean']:.1f}, min {report['depth_min']}")
    for game in lost_games:
        print(f"lost ({'we' if game['we_started'] else 'the bot'} started): {game['columns']}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0 if report["over_limit"] == 0 and report["lost"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
