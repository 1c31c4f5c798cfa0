"""What running an agent outside costs: the start of its process per game, and the time a move
takes on top of the agent's own.

    python bench/outside_bench.py [--games 20] [--seed 1] [--starts 40] [--moves 10]
                                  [--json FILE]

Plays ``--games`` games of each outside player against ``random`` (both colours in turn), each
game in a fresh process as the arena runs them:

- ``connectx``: ``tests/data/outside/connectx/good.py`` (answers at once) under our Python;
- ``program``: ``tests/data/outside/engine.py`` (answers in well under a millisecond).

Prints and writes (``--json``), per player: the seconds to start a game's process (the worker
or program up and ready: not charged to any move), and the seconds per move measured around
``choose`` (mean, median, maximum), which for these agents is almost all overhead: the pipe
round trip and, for a ConnectX file, loading the file in the first move.

**What the sandbox costs** (``sandbox``): the same program (``tests/data/outside/engine.py``)
started ``--starts`` times confined (``outside.process.Child``: the sandbox set up, the program
up and ready, then everything of it killed and its folder removed) and as many times bare (a
plain ``subprocess.Popen`` of the same command, ready, then killed), in turn, in this process;
and ``--moves`` exchanges of a position and an answer with each.  The differences of the
medians are the sandbox's cost for a start and for a move; the layers it ran under are printed.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.match import play_game  # noqa: E402
from ecosystems.connectx import observation_of  # noqa: E402
from engine.players import RandomPlayer  # noqa: E402
from outside import ConnectXPlayer, ProgramPlayer, system_layers  # noqa: E402
from outside.process import Child  # noqa: E402

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
        mine = [move.seconds or 0.0 for move in record.moves if move.side == side]
        first_moves += mine[:1]
        later_moves += mine[1:]

    def summary(values: list[float]) -> dict[str, float]:
        return {"mean": round(statistics.fmean(values), 5),
                "median": round(statistics.median(values), 5), "max": round(max(values), 5)}

    return {"games": games, "start_seconds": summary(starts),
            "first_move_seconds": summary(first_moves),
            "later_move_seconds": summary(later_moves), "later_moves": len(later_moves)}


class Bare:
    """The engine as a plain process: no sandbox (the reference of ``sandbox_cost``)."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1, start_new_session=True)

    def ask(self, line: str) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        while True:
            answer = self.proc.stdout.readline()
            if not answer.startswith("#"):
                return answer

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()


class Confined:
    """The engine in its sandbox, as ``program:`` runs it."""

    def __init__(self, argv: list[str]) -> None:
        from outside.program import program_limits
        from outside.sandbox import program_paths, safe_environment

        argv, run, own = program_paths(argv, safe_environment("")["PATH"])
        self.child = Child(argv, limits=program_limits(1.0), run=run, own=own)

    def ask(self, line: str) -> str:
        self.child.send(line)
        while True:
            answer = self.child.read_line(time.monotonic() + 10, where="in the benchmark")
            assert answer is not None
            if not answer.startswith("#"):
                return answer

    def kill(self) -> None:
        self.child.kill()


def sandbox_cost(starts: int, moves: int) -> dict[str, object]:
    """Start, play ``moves`` exchanges with, and end the engine, bare and confined in turn,
    ``starts`` times each: the medians and their differences."""
    argv = [sys.executable, str(DATA / "engine.py")]
    timing: dict[str, dict[str, list[float]]] = {
        kind: {"start": [], "move": [], "end": []} for kind in ("bare", "confined")}
    for round_ in range(starts):
        for kind in (("bare", "confined") if round_ % 2 == 0 else ("confined", "bare")):
            began = time.perf_counter()
            process: Bare | Confined = Bare(argv) if kind == "bare" else Confined(argv)
            process.ask("connect4 1 1")
            timing[kind]["start"].append(time.perf_counter() - began)
            moves_so_far = ""
            for _ in range(moves):
                began = time.perf_counter()
                column = process.ask(f"position {moves_so_far or '-'} 1").strip()
                timing[kind]["move"].append(time.perf_counter() - began)
                moves_so_far = (moves_so_far + column + column)[:12]
            began = time.perf_counter()
            process.kill()
            timing[kind]["end"].append(time.perf_counter() - began)
    medians = {kind: {part: round(statistics.median(values), 5) for part, values in parts.items()}
               for kind, parts in timing.items()}
    return {"layers": system_layers().line(), "starts": starts, "moves": moves,
            "median_seconds": medians,
            "sandbox_adds": {part: round(medians["confined"][part] - medians["bare"][part], 5)
                             for part in ("start", "move", "end")}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--starts", type=int, default=40, help="for the sandbox's cost")
    parser.add_argument("--moves", type=int, default=10, help="a start, for the sandbox's cost")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    results: dict[str, object] = {name: measure(player, args.games, args.seed)
                                  for name, player in players().items()}
    results["sandbox"] = sandbox_cost(args.starts, args.moves)
    for name, result in results.items():
        print(f"{name}: {result}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
