"""The other arenas' targets (docs/arenas.md): our agent in Kaggle ConnectX and against OpenSpiel's MCTS.

    python bench/arenas_bench.py connectx --games 100 --opponent negamax --mode strongest
    python bench/arenas_bench.py connectx --games 100 --opponent random --mode strongest
    python bench/arenas_bench.py openspiel --games 20 --simulations 1000 --time 1 --mode strongest

``connectx`` writes a submission with ``agent.py kaggle`` (a subprocess), unpacks it into a new
folder and plays it with kaggle-environments in this process, as Kaggle does: the file is run
inside our first move (so the first move of the run pays for the imports and, the folder being
new, for compiling the engine), at ConnectX's own limits (``actTimeout`` 2 s, 60 s of overage),
our agent taking each colour in turn, ``random.seed(game)`` before each game (the built-in
agents draw from ``random``).  It counts the results, the invalid actions, errors and timeouts,
our slowest move (the first one apart) and the first move's time, load included.  Nothing of
our project is imported here: the archive's packages must be the ones that play.

``openspiel`` plays our engine (``ecosystems.openspiel.OurBot``) against ``MCTSBot`` with
random rollouts (uct_c 2, ``solve=True``, as OpenSpiel's example) through OpenSpiel's own game
loop (``evaluate_bots``), each colour in turn.

Each run appends one JSON line per game to ``--work`` (default under bench/results/) and
resumes from it: a run stopped half-way goes on where it was.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def _done(work: Path) -> list[dict[str, Any]]:
    if not work.exists():
        return []
    return [json.loads(line) for line in work.read_text().splitlines() if line.strip()]


def _append(work: Path, row: dict[str, Any]) -> None:
    work.parent.mkdir(parents=True, exist_ok=True)
    with work.open("a") as out:
        out.write(json.dumps(row) + "\n")


def connectx(args: argparse.Namespace) -> dict[str, Any]:
    from kaggle_environments import make  # imports nothing of ours

    work = args.work or RESULTS / f"connectx-{args.mode}-{args.opponent}.jsonl"
    rows = _done(work)
    folder = Path(tempfile.mkdtemp(prefix="connectx-"))
    command = [sys.executable, str(ROOT / "agent.py"), "kaggle", "--out", str(folder),
               "--mode", args.mode]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["tar", "-xzf", str(folder / "submission.tar.gz"), "-C", str(folder)], check=True)
    main_py = str(folder / "main.py")
    for game in range(len(rows), args.games):
        ours = game % 2  # 0: we start
        agents: list[Any] = [main_py, args.opponent] if ours == 0 else [args.opponent, main_py]
        random.seed(game)
        env = make("connectx", debug=True)
        began = time.perf_counter()
        steps = env.run(agents)
        last = steps[-1]
        durations = [log[ours]["duration"] for log in env.logs if len(log) > ours and "duration" in log[ours]]
        row = {"game": game, "ours": ours, "reward": last[ours]["reward"],
               "status": last[ours]["status"], "opponent_status": last[1 - ours]["status"],
               "moves": len(durations), "durations": durations,
               "overage_left": last[ours]["observation"]["remainingOverageTime"],
               "seconds": time.perf_counter() - began}
        _append(work, row)
        rows.append(row)
        print(f"game {game}: {'first' if ours == 0 else 'second'}, reward {row['reward']},"
              f" {row['status']}, {row['moves']} moves, slowest {max(durations, default=0):.3f} s",
              flush=True)
    return _connectx_summary(rows, args)


def _connectx_summary(rows: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    rewards = [row["reward"] for row in rows]
    later = [d for row in rows for d in row["durations"][1:]]
    firsts = [row["durations"][0] for row in rows if row["durations"]]
    return {
        "arena": "connectx", "mode": args.mode, "opponent": args.opponent, "games": len(rows),
        "wins": rewards.count(1), "draws": rewards.count(0), "losses": rewards.count(-1),
        "invalid": sum(row["status"] == "INVALID" for row in rows),
        "errors": sum(row["status"] == "ERROR" for row in rows),
        "timeouts": sum(row["status"] == "TIMEOUT" for row in rows),
        "first_move_of_run": firsts[0] if firsts else None,
        "slowest_first_move_of_a_later_game": max(firsts[1:], default=None),
        "slowest_other_move": max(later, default=None),
        "mean_move": statistics.fmean(later) if later else None,
        "least_overage_left": min(row["overage_left"] for row in rows) if rows else None,
    }


def openspiel(args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    from ecosystems.openspiel import OurBot
    from settings import AgentSettings, SolverSettings

    work = args.work or RESULTS / f"openspiel-{args.mode}-mcts{args.simulations}-{args.time:g}s.jsonl"
    rows = _done(work)
    game = pyspiel.load_game("connect_four")
    ours_bot = OurBot(game, AgentSettings(mode=args.mode), SolverSettings(), seconds=args.time)
    for number in range(len(rows), args.games):
        rng = np.random.RandomState(number)
        theirs = mcts.MCTSBot(game, 2, args.simulations,
                              mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                              solve=True, random_state=rng)
        ours = number % 2
        bots = [ours_bot, theirs] if ours == 0 else [theirs, ours_bot]
        timed = _Timed(bots)
        began = time.perf_counter()
        returns = evaluate_bots(game.new_initial_state(), timed.bots, rng)
        row = {"game": number, "ours": ours, "return": returns[ours],
               "our_seconds": timed.seconds[ours], "their_seconds": timed.seconds[1 - ours],
               "seconds": time.perf_counter() - began}
        _append(work, row)
        rows.append(row)
        print(f"game {number}: {'first' if ours == 0 else 'second'}, return {returns[ours]},"
              f" our slowest {max(row['our_seconds']):.3f} s, MCTS mean"
              f" {statistics.fmean(row['their_seconds']):.3f} s", flush=True)
    ours_times = [s for row in rows for s in row["our_seconds"]]
    theirs = [s for row in rows for s in row["their_seconds"]]
    results = [row["return"] for row in rows]
    return {"arena": "openspiel", "mode": args.mode, "simulations": args.simulations,
            "time": args.time, "games": len(rows), "wins": results.count(1.0),
            "draws": results.count(0.0), "losses": results.count(-1.0),
            "our_slowest": max(ours_times, default=None),
            "our_mean": statistics.fmean(ours_times) if ours_times else None,
            "mcts_mean": statistics.fmean(theirs) if theirs else None,
            "mcts_slowest": max(theirs, default=None)}


class _Timed:
    """The bots of a game, each ``step`` timed (seconds per move, by bot)."""

    def __init__(self, bots: list[Any]) -> None:
        self.seconds: list[list[float]] = [[], []]
        self.bots = [_TimedBot(bot, self.seconds[index]) for index, bot in enumerate(bots)]


class _TimedBot:
    def __init__(self, bot: Any, seconds: list[float]) -> None:
        self._bot = bot
        self._seconds = seconds

    def restart_at(self, state: Any) -> None:
        self._bot.restart_at(state)

    def inform_action(self, state: Any, player: int, action: int) -> None:
        self._bot.inform_action(state, player, action)

    def step(self, state: Any) -> int:
        began = time.perf_counter()
        action = int(self._bot.step(state))
        self._seconds.append(time.perf_counter() - began)
        return action


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="arena", required=True)
    p = sub.add_parser("connectx", help="the submission against a built-in agent")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--opponent", choices=("negamax", "random"), default="negamax")
    p.add_argument("--mode", choices=("course", "strongest"), default="strongest")
    p.add_argument("--work", type=Path, default=None, help="the results file to resume from")
    p = sub.add_parser("openspiel", help="our bot against MCTSBot")
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--simulations", type=int, default=1000)
    p.add_argument("--time", type=float, default=1.0, help="our seconds per move")
    p.add_argument("--mode", choices=("course", "strongest"), default="strongest")
    p.add_argument("--work", type=Path, default=None, help="the results file to resume from")
    args = parser.parse_args(argv)
    if args.arena == "openspiel":
        sys.path.insert(0, str(ROOT))
    summary = connectx(args) if args.arena == "connectx" else openspiel(args)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
