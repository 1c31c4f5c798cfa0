"""The evaluations compared: a study a report can cite.

    python bench/heuristic_study.py [--heuristics windows5000,threats,windows_tuned,learned]
        [--time 0.5] [--workers K | --scheduler ADDRESS] [--seed 1] [--positions 300]
        [--kept-time 1.0] [--skip-kept] [--out DIR]

Every evaluation is played in course mode (the heuristic search alone: no book, no solver),
``--time`` seconds per move, and measured three ways:

1. **Games**: every evaluation against every other, from all 49 two-ply openings, each opening
   once with each colour (98 games per pairing, ``agent.py tournament --every-opening``).  The
   win-rate matrix (score: wins + draws / 2, per game) goes to ``matrix.png``.
2. **Exact outcome kept** (unless ``--skip-kept``): ``bench/perfect_play.py --mode course
   --heuristic H --time KEPT_TIME`` on ``--positions`` random positions (4-20 discs) where some
   move changes the game-theoretic outcome, with our solver as the referee: the share of
   positions where the move chosen keeps it, overall and by disc count.
3. **Speed and depth**: for each evaluation, the nodes per second and the depth the search
   completes in ``--time`` on the empty board and on 20 random positions of 6-20 discs (the
   same for every evaluation), from cold tables.

Writes ``study.json``, ``matrix.png`` and ``study.md`` (the tables and the commands) into
``--out`` (default ``bench/results/heuristic-study``).  Heavy: ~35 plies x --time per game;
run it with ``nice`` on an otherwise quiet machine.  The games run through the ``batch``
executor: ``--workers K`` local processes (default one per core), or the workers of a Dask
cluster with ``--scheduler ADDRESS``; the other two stages measure this machine, here.  Each
stage's result is kept in ``--out`` as it completes (``stage-*.json``), and the matrix's games
as they finish (``stage-matrix-games.jsonl``, until the stage is kept): a rerun with the same
parameters picks up after the last finished stage, and plays only the games missing.
``bench/perfect_play.py``'s exit code 1 (strongest mode's targets missed) is expected here.
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
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.figures import plot_matrix  # noqa: E402
from arena.results import summarize  # noqa: E402
from arena.tournament import make_plan, run_tournament  # noqa: E402
from arena.work import OtherPlan, TournamentWork  # noqa: E402
from batch import (  # noqa: E402
    BatchExecutor,
    announce_stopping,
    open_executor,
)
from board import Board  # noqa: E402
from commandline import add_executor_arguments  # noqa: E402
from ecosystems.players import parse_spec  # noqa: E402
from heuristics import HEURISTICS  # noqa: E402
from search import TranspositionTable, iterative_deepening  # noqa: E402
from settings import UsageError, load_settings  # noqa: E402
from terminal import progress  # noqa: E402
from vocabulary import ExitStatus  # noqa: E402

DEFAULT_OUT = ROOT / "bench" / "results" / "heuristic-study"
MATRIX_GAMES = "stage-matrix-games.jsonl"  # the matrix's games as they finish, until it is kept
OPENING_PLIES = 2
SPEED_POSITIONS = 20


def play_matrix(names: list[str], seconds: float, seed: int, executor: BatchExecutor,
                games_work: Path, command: str) -> dict[str, Any]:
    """Every evaluation against every other from every two-ply opening, both colours.

    Each game is kept in ``games_work`` as it finishes (``arena.work``): a rerun after a stop
    plays only the games missing.
    """
    settings = load_settings(None)
    specs = [parse_spec(f"ours:{seconds:g}:{name}:course") for name in names]
    plan = make_plan(specs, 2 * 7**OPENING_PLIES, seed, settings.agent, settings.solver,
                     opening_plies=OPENING_PLIES, every_opening=True)
    work = TournamentWork(games_work)
    try:
        plan, done = work.resume(plan)
    except OtherPlan:  # the games of a matrix with other parameters: this one starts over
        work.remove()
        done = {}
    work.begin(plan, command)
    if done:
        print(f"matrix: resuming, {len(done)} of {plan.total_games} games already played",
              file=sys.stderr)
    start = time.monotonic()
    with progress(plan.total_games - len(done), "games") as advance:
        outcomes = run_tournament(plan, executor, lambda _d, _t, _g: advance(1), done=done,
                                  record=work.add, on_stopping=announce_stopping("game"))
    summary = summarize(plan, outcomes, workers=executor.slots,
                        elapsed=time.monotonic() - start)
    index = {label: i for i, label in enumerate(plan.labels)}
    scores: list[list[float | None]] = [[None] * len(names) for _ in names]
    records: list[list[str | None]] = [[None] * len(names) for _ in names]
    for pairing in summary.pairings:
        a, b = index[pairing.a.player], index[pairing.b.player]
        for row, col, side in ((a, b, pairing.a), (b, a, pairing.b)):
            tally = side.total
            scores[row][col] = tally.score_rate
            records[row][col] = f"{tally.wins}-{tally.draws}-{tally.losses}"
    slowest = max((m.max_seconds or 0.0) for m in summary.moves)
    return {"games_per_pairing": plan.games, "seed": seed, "scores": scores,
            "records": records, "slowest_move": slowest, "minutes": summary.elapsed / 60}


def outcome_kept(name: str, positions: int, seconds: float, seed: int) -> dict[str, Any]:
    """``bench/perfect_play.py`` in course mode with evaluation ``name``: its report, which
    ``stage`` keeps (the script's own file is only passed through)."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "kept.json"
        # Exit code 1 says that strongest mode's targets were missed: expected in course mode.
        done = subprocess.run([sys.executable, str(ROOT / "bench" / "perfect_play.py"),
                               "--mode", "course", "--heuristic", name, "--positions",
                               str(positions), "--time", f"{seconds:g}", "--seed", str(seed),
                               "--json", str(target)], stdout=subprocess.DEVNULL)
        if done.returncode not in (0, 1):
            raise RuntimeError(f"bench/perfect_play.py failed for {name} (exit {done.returncode})")
        return dict(json.loads(target.read_text()))


def stage(out: Path, name: str, params: dict[str, Any], compute: Callable[[], dict[str, Any]]
          ) -> dict[str, Any]:
    """``compute()``, kept in ``out/stage-NAME.json`` with ``params``: a rerun with the same
    parameters reads it back instead of measuring again (the matrix alone takes half an hour)."""
    path = out / f"stage-{name}.json"
    if path.exists():
        saved = json.loads(path.read_text())
        if saved.get("params") == params:
            print(f"{name}: reusing {path}", file=sys.stderr)
            return dict(saved["result"])
    result = compute()
    path.write_text(json.dumps({"params": params, "result": result}, indent=1) + "\n")
    return result


def speed(name: str, seconds: float, seed: int) -> dict[str, Any]:
    """Nodes per second and depth completed in ``seconds``, cold tables, same positions for
    every evaluation."""
    rng = random.Random(seed)
    boards = [Board()]
    while len(boards) < SPEED_POSITIONS + 1:
        board = Board()
        target = rng.randint(6, 20)
        while board.moves < target and not board.is_over():
            board = board.play_unchecked(rng.choice(board.legal_moves()))
        if not board.is_over():
            boards.append(board)
    list(iterative_deepening(Board(), time.perf_counter() + 0.05, heuristic=name))  # compile
    rates, depths = [], []
    for board in boards:
        table = TranspositionTable(bits=20)
        start = time.perf_counter()
        last = None
        for result in iterative_deepening(board, start + seconds, heuristic=name, table=table):
            last = result
        assert last is not None
        rates.append(last.nodes / max(last.seconds, 1e-9))
        depths.append(last.depth)
    return {"nodes_per_second": round(statistics.mean(rates)),
            "depth_empty_board": depths[0],
            "depth_mean": round(statistics.mean(depths[1:]), 2)}


def markdown(names: list[str], study: dict[str, Any], command: str) -> str:
    games = study["matrix"]
    lines = ["# The evaluations compared", "", f"Made by `{command}`.", "",
             f"## Games ({games['games_per_pairing']} per pairing: every two-ply opening with"
             f" each colour; course mode, {study['seconds']:g} s per move)", "",
             "Row's score against the column (wins + draws / 2 per game), and its record"
             " (wins-draws-losses):", "",
             "| | " + " | ".join(f"`{n}`" for n in names) + " |",
             "|---" * (len(names) + 1) + "|"]
    for i, name in enumerate(names):
        cells = ["" if games["scores"][i][j] is None else
                 f"{games['scores'][i][j]:.0%} ({games['records'][i][j]})"
                 for j in range(len(names))]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    lines += ["", f"Slowest move: {games['slowest_move']:.3f} s.", "",
              f"## Speed and depth ({study['seconds']:g} s per move, cold tables)", "",
              "| evaluation | nodes/s | depth from the empty board | mean depth, 20 positions"
              " of 6-20 discs |", "|---|---|---|---|"]
    for name in names:
        s = study["speed"][name]
        lines.append(f"| `{name}` | {s['nodes_per_second']:,} | {s['depth_empty_board']} |"
                     f" {s['depth_mean']} |")
    if study.get("kept"):
        lines += ["", f"## Exact outcome kept (course mode, {study['kept_seconds']:g} s per"
                  " move, random positions where a move can change it, our solver as referee)",
                  "", "| evaluation | positions | kept |", "|---|---|---|"]
        for name in names:
            k = study["kept"][name]
            lines.append(f"| `{name}` | {k['positions']} | {k['kept_share']:.1%} |")
    return "\n".join(lines) + "\n"


def measure(args: argparse.Namespace, names: list[str], command: str) -> dict[str, Any]:
    """The three stages, each kept in ``args.out`` as it completes (and the matrix's games as
    they finish), each read back by a rerun with the same parameters."""
    study: dict[str, Any] = {"heuristics": names, "seconds": args.time,
                             "kept_seconds": args.kept_time}
    # Opened first: a cluster that cannot be reached is said at once, not after the speed stage
    # (a pool starts its processes only when the matrix needs them).
    with open_executor(args.workers, args.scheduler) as executor:
        study["speed"] = {name: stage(args.out, f"speed-{name}",
                                      {"time": args.time, "seed": args.seed},
                                      partial(speed, name, args.time, args.seed))
                          for name in names}
        study["matrix"] = stage(args.out, "matrix",
                                {"heuristics": names, "time": args.time, "seed": args.seed},
                                lambda: play_matrix(names, args.time, args.seed, executor,
                                                    args.out / MATRIX_GAMES, command))
    (args.out / MATRIX_GAMES).unlink(missing_ok=True)  # its result is kept in the stage file
    if not args.skip_kept:
        study["kept"] = {}
        for name in names:
            params = {"positions": args.positions, "time": args.kept_time, "seed": args.seed}
            report = stage(args.out, f"kept-{name}", params,
                           partial(outcome_kept, name, args.positions, args.kept_time,
                                   args.seed))
            study["kept"][name] = {"positions": report["positions"],
                                   "kept_share": report["kept"] / report["positions"],
                                   "by_discs": report["kept_by_discs"]}
    return study


def main(argv: list[str] | None = None) -> ExitStatus:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--heuristics", default=",".join(HEURISTICS))
    parser.add_argument("--time", type=float, default=0.5)
    add_executor_arguments(parser)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--kept-time", type=float, default=1.0)
    parser.add_argument("--skip-kept", action="store_true")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.heuristics.split(",") if n.strip()]
    unknown = [n for n in names if n not in HEURISTICS]
    problem = None
    if unknown or len(set(names)) < 2 or len(set(names)) < len(names):
        problem = (f"--heuristics needs two or more different ones of {', '.join(HEURISTICS)}"
                   + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
    elif not args.time > 0 or not args.kept_time > 0:
        problem = f"--time and --kept-time must be positive, not {args.time:g} and {args.kept_time:g}"
    elif args.positions < 1:
        problem = f"--positions must be at least 1, not {args.positions}"
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return ExitStatus.USAGE
    args.out.mkdir(parents=True, exist_ok=True)
    command = " ".join(["python bench/heuristic_study.py",
                        *(argv if argv is not None else sys.argv[1:])])
    try:
        study = measure(args, names, command)
    except UsageError as exc:  # a cluster that cannot be reached, workers lost
        print(f"error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    except KeyboardInterrupt:
        print(f"interrupted: the stages and games finished are kept in {args.out}; run again"
              " to go on", file=sys.stderr)
        return ExitStatus.INTERRUPTED
    (args.out / "study.json").write_text(json.dumps(study, indent=1) + "\n")
    plot_matrix(names, study["matrix"]["scores"], study["matrix"]["games_per_pairing"],
                args.out / "matrix.png",
                f"Evaluations compared, course mode, {args.time:g} s per move")
    (args.out / "study.md").write_text(markdown(names, study, command))
    print((args.out / "study.md").read_text())
    return ExitStatus.OK


if __name__ == "__main__":
    sys.exit(main())
