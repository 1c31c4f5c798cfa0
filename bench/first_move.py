"""The first move of a fresh process: is it on time, like every later one?

    python bench/first_move.py [--trials 10] [--time 0.1] [--mode strongest|course] [--seed 1]

Each trial starts a new Python process (``spawn``), builds the engine as ``agent.py online``
does (loading the book, allocating the tables), warms it up (``Engine.warm_up``), then times
``Engine.decide`` on a position off the book's path (a random one with 10 to 14 discs, where
the solver has work to do), then on a second such position.  Reports each call's time against
the budget: the first call of a process must not overrun more than the later ones do.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from commandline import seconds as seconds_type  # noqa: E402


def random_moves(rng: random.Random) -> str:
    """A move string (Pons' notation) of 10-14 random moves, the game not over."""
    from board import Board

    while True:
        board, moves = Board(), ""
        for _ in range(rng.randint(10, 14)):
            if board.is_over():
                break
            col = rng.choice(board.legal_moves())
            board, moves = board.play_unchecked(col), moves + str(col + 1)
        if not board.is_over():
            return moves


def trial(mode: str, seconds: float, positions: tuple[str, str]) -> tuple[float, float]:
    """In a fresh process: the times of the first and second ``choose`` calls."""
    sys.path.insert(0, str(ROOT))
    from board import Board
    from engine import Engine
    from settings import load_settings, revised
    from timecontrol import Limit

    settings = load_settings()
    engine = Engine(revised(settings.agent, {"mode": mode}), solver=settings.solver)
    engine.warm_up()
    times = []
    for moves in positions:
        start = time.perf_counter()
        engine.decide(Board.from_moves(moves), Limit.seconds(seconds, start=start))
        times.append(time.perf_counter() - start)
    return times[0], times[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=10)
    # agent.py's --time type: the one rule for a time per move, refused as one usage error
    parser.add_argument("--time", type=seconds_type, default=0.1, metavar="S")
    parser.add_argument("--mode", choices=("strongest", "course"), default="strongest")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    firsts, seconds = [], []
    for _ in range(args.trials):
        positions = (random_moves(rng), random_moves(rng))
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
            first, second = pool.submit(trial, args.mode, args.time, positions).result()
        firsts.append(first)
        seconds.append(second)
        print(f"{positions[0]:>14} {first:.3f} s   {positions[1]:>14} {second:.3f} s")
    print(f"{args.mode} mode, {args.time:g} s per move, {args.trials} fresh processes:"
          f" first move max {max(firsts):.3f} s (mean {statistics.fmean(firsts):.3f}),"
          f" second move max {max(seconds):.3f} s (mean {statistics.fmean(seconds):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
