"""Expectimax against alpha-beta, both against a uniformly random opponent: how soon each wins.

    python bench/expectimax_bench.py [--games 500] [--depth 6] [--seed 1] [--json FILE]

Our engine in course mode plays ``--games`` games with each opponent model against a random
mover (``random.Random``, a uniformly random legal column): ``minimax`` (alpha-beta, the default
engine) and ``random`` (expectimax, ``search.expectimax``), both searching to the same fixed
depth ``--depth`` (``Limit(depth=...)``, no clock involved, so the result does not depend on the
machine; alpha-beta's depth counts choices, forced moves not counted, expectimax's counts
plies), ``windows5000`` at the leaves, each engine's table kept through a game and emptied
between games.  Game ``i`` (0-based) is started by us when ``i`` is even, and its random mover
is seeded from ``--seed`` and ``i``: both models meet the same random movers, with both
colours.  The arena's rules: four in a row wins, even with the last disc.

Prints and writes (``--json``), per model: wins, draws and losses (also as first and as second
player), the mean, median and maximum plies (discs on the board) at our wins, and the seconds
per move.  Measured: ``bench/results/expectimax-depth7.json`` (``--depth 7``, about 70 s on one
core).
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

from board import Board  # noqa: E402
from engine import Engine  # noqa: E402
from settings import AgentSettings  # noqa: E402
from timecontrol import Limit  # noqa: E402

MODELS = {"expectimax": "random", "alpha-beta": "minimax"}


def play(engine: Engine, depth: int, we_start: bool, rng: random.Random) -> tuple[int, int, list[float]]:
    """One game: (1 win / 0 draw / -1 loss for us, plies at the end, our seconds per move)."""
    engine.new_game()
    board = Board()
    ours = we_start
    times: list[float] = []
    while True:
        if ours:
            start = time.perf_counter()
            col = engine.decide(board, Limit(float("inf"), depth=depth)).column
            times.append(time.perf_counter() - start)
        else:
            col = rng.choice(board.legal_moves())
        won = board.is_winning_move(col)
        board = board.play(col)
        if won:
            return (1 if ours else -1), board.moves, times
        if board.is_full():
            return 0, board.moves, times
        ours = not ours


def _mean(values: list[int]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def measure(model: str, games: int, depth: int, seed: int) -> dict[str, object]:
    engine = Engine(AgentSettings(), opponent_model=model)
    engine.warm_up()
    counts = {"wins": 0, "draws": 0, "losses": 0}
    split = {"as_first": [0, 0, 0], "as_second": [0, 0, 0]}  # wins, draws, losses
    win_plies: list[int] = []
    plies_by_colour: dict[str, list[int]] = {"as_first": [], "as_second": []}
    times: list[float] = []
    started = time.perf_counter()
    for i in range(games):
        we_start = i % 2 == 0
        result, plies, moves = play(engine, depth, we_start, random.Random(seed * 1_000_003 + i))
        times += moves
        key = {1: "wins", 0: "draws", -1: "losses"}[result]
        counts[key] += 1
        split["as_first" if we_start else "as_second"][1 - result] += 1
        if result == 1:
            win_plies.append(plies)
            plies_by_colour["as_first" if we_start else "as_second"].append(plies)
    return {
        "opponent_model": model,
        "games": games,
        **counts,
        "as_first": dict(zip(("wins", "draws", "losses"), split["as_first"], strict=True)),
        "as_second": dict(zip(("wins", "draws", "losses"), split["as_second"], strict=True)),
        "mean_plies_to_win": _mean(win_plies),
        "median_plies_to_win": statistics.median(win_plies) if win_plies else None,
        "max_plies_to_win": max(win_plies) if win_plies else None,
        "mean_plies_to_win_as_first": _mean(plies_by_colour["as_first"]),
        "mean_plies_to_win_as_second": _mean(plies_by_colour["as_second"]),
        "our_moves": len(times),
        "mean_seconds_per_move": round(statistics.fmean(times), 5) if times else None,
        "max_seconds_per_move": round(max(times), 4) if times else None,
        "elapsed_seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = parser.parse_args(argv)
    figures = {name: measure(model, args.games, args.depth, args.seed)
               for name, model in MODELS.items()}
    for name, row in figures.items():
        print(f"{name:11s} {row['wins']}-{row['draws']}-{row['losses']} (W-D-L) in {row['games']}"
              f" games; plies to win: mean {row['mean_plies_to_win']}, median"
              f" {row['median_plies_to_win']}, max {row['max_plies_to_win']};"
              f" {row['mean_seconds_per_move']} s per move ({row['elapsed_seconds']} s in all)")
    if args.json:
        args.json.write_text(json.dumps({
            "command": "python bench/expectimax_bench.py " + " ".join(
                f"--{k} {v}" for k, v in (("games", args.games), ("depth", args.depth),
                                          ("seed", args.seed))),
            "setting": f"fixed depth {args.depth}, windows5000, course mode, no clock",
            "figures": figures,
        }, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
