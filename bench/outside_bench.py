"""What running an agent outside costs: the start of its process per game, and the time a move
takes on top of the agent's own.

    python bench/outside_bench.py [--games 20] [--seed 1] [--json FILE]

Plays ``--games`` games of each outside player against ``random`` (both colours in turn), each
game in a fresh process as the arena runs them:

- ``connectx``: ``tests/data/outside/connectx/good.py`` (answers at once) under our Python;
- ``program``: ``tests/data/outside/engine.py`` (answers in well under a millisecond).

Prints and writes (``--json``), per player: the seconds to start a game's process (the worker
or program up and ready: not charged to any move), and the seconds per move measured around
``choose`` (mean, median, maximum), which for these agents is almost all overhead: the pipe
round trip and, for a ConnectX file, loading the file in the first move.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.match import play_game  # noqa: E402
from ecosystems.connectx import observation_of  # noqa: E402
from engine.players import RandomPlayer  # noqa: E402
from outside import ConnectXPlayer, ProgramPlayer  # noqa: E402

DATA = ROOT / "tests" / "data" / "outside"


def players() -> dict[str, ConnectXPlayer | ProgramPlayer]:
    return {
        "connectx": ConnectXPlayer(str(DATA / "connectx" / "good.py"), seconds=1.0,
                                   observe=lambda board, overage: observation_of(
                                       board, overage=overage)),
        "program": ProgramPlayer(f"{sys.executable} {DATA / 'engine.py'}", seconds=1.0),
    }


def measure(player: ConnectXPlayer | ProgramPlayer, games: int, seed: int) -> dict[str, object]:
    starts: list[float] = []
    first_moves: list[float] = []
    later_moves: list[float] = []
    for game in range(games):
        began = time.perf_counter()
        player.new_game()
        starts.append(time.perf_counter() - began)
        other = RandomPlayer(random.Random(seed * 1000 + game))
        ours_first = game % 2 == 0
        try:
            record = play_game(player, other) if ours_first else play_game(other, player)
        finally:
            player.end_game()
        side = 0 if ours_first else 1
        mine = [move.seconds for move in record.moves if move.side == side]
        first_moves += mine[:1]
        later_moves += mine[1:]

    def summary(values: list[float]) -> dict[str, float]:
        return {"mean": round(statistics.fmean(values), 5),
                "median": round(statistics.median(values), 5), "max": round(max(values), 5)}

    return {"games": games, "start_seconds": summary(starts),
            "first_move_seconds": summary(first_moves),
            "later_move_seconds": summary(later_moves), "later_moves": len(later_moves)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    results = {name: measure(player, args.games, args.seed)
               for name, player in players().items()}
    for name, result in results.items():
        print(f"{name}: {result}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
