"""Strength and timing of our agent: the figures the project's targets are checked against.

    python bench/strength.py [--games 500] [--seed-games 20] [--seed-opening 2] [--time S]
                             [--workers K] [--seed X] [--out DIR] [--json FILE] [--config PATH]

Plays, through the arena (``agent.py tournament`` underneath), the engine as the config
sets it (``[agent]`` and ``[solver]``: in ``course`` mode, as shipped, the search alone; in
``strongest`` mode, book, solver and search):

1. ``ours`` against ``bot:3`` (the course server's bot) over ``--games`` games, each side
   starting half of them;
2. ``ours`` against ``seed`` (the seed assignment's fixed depth-5 player) over
   ``--seed-games``.  Both players are deterministic apart from how deep our clock lets us
   get, so from the empty board these games would mostly repeat: each pair of games starts
   instead from ``--seed-opening`` random moves (2 by default: one of each colour, 49
   openings), played once with each starter.  The number of distinct games is reported;
3. the slowest move our agent made in all of them, measured by the arena around each move.

Targets: no loss against either, with both starters; no move slower than the budget plus
``arena.results.OVERRUN_TOLERANCE`` (50 ms).  The exit code is 0 when all targets are met,
1 otherwise.  ``--time`` defaults to the agent's configured time per move
(``agent.seconds_per_move``).  The figures go to ``bench/results/strength.json`` (``--json``)
and, with ``--out DIR``, each match's plots and summary to ``DIR/bot3`` and ``DIR/seed``.
Heavy: run it with ``nice`` on an otherwise quiet machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.report import write_report  # noqa: E402
from arena.results import OVERRUN_TOLERANCE, Summary, summarize  # noqa: E402
from arena.tournament import (  # noqa: E402
    make_plan,
    run_tournament,
    uneven_starts_warning,
    worker_count,
)
from batch import open_executor  # noqa: E402
from ecosystems.players import parse_spec  # noqa: E402
from engine.specs import check_seconds  # noqa: E402
from settings import ConfigError, Settings, UsageError, load_settings  # noqa: E402
from terminal import progress  # noqa: E402

DEFAULT_JSON = ROOT / "bench" / "results" / "strength.json"
TOLERANCE_MS = f"{1000 * OVERRUN_TOLERANCE:.0f} ms"


def play(opponent: str, games: int, settings: Settings, seconds: float, workers: int | None,
         seed: int, opening_plies: int = 0) -> Summary:
    plan = make_plan([parse_spec(f"ours:{seconds:g}"), parse_spec(opponent)], games, seed,
                     settings.agent, settings.solver, opening_plies=opening_plies)
    warning = uneven_starts_warning(games)
    if warning:
        print(warning, file=sys.stderr)
    start = time.monotonic()
    with open_executor(worker_count(plan, workers)) as executor, \
            progress(plan.total_games, f"games vs {opponent}") as advance:
        outcomes = run_tournament(plan, executor, lambda _done, _t, _o: advance(1))
    return summarize(plan, outcomes, workers=executor.slots, elapsed=time.monotonic() - start)


def describe(summary: Summary) -> dict[str, Any]:
    ours = summary.overall[0]
    stats = summary.moves[0]
    distinct = len({(o.task.opening, tuple(o.record.columns)) for o in summary.outcomes})
    return {
        "opponent": summary.plan.labels[1],
        "games": ours.total.games,
        "opening_plies": summary.plan.opening_plies,
        "distinct_games": distinct,
        **ours.total.to_dict(),
        "as_first": ours.as_first.to_dict(),
        "as_second": ours.as_second.to_dict(),
        "forfeits": ours.forfeits,
        "moves": len(stats.seconds),
        "mean_seconds": stats.mean_seconds,
        "max_seconds": stats.max_seconds,
        "slowest_cpu_seconds": stats.slowest_cpu,
        "moves_over_budget": stats.over_budget,
        "moves_over_budget_cpu": stats.over_budget_cpu,
        "mean_search_depth": stats.mean_search_depth,
        "sources": dict(sorted(stats.sources.items())),
        "workers": summary.workers,
        "elapsed_seconds": round(summary.elapsed, 1),
        "seed": summary.plan.seed,
    }


def _wdl(tally: dict[str, int]) -> str:
    return f"{tally['wins']}-{tally['draws']}-{tally['losses']}"


def report_line(r: dict[str, Any]) -> str:
    depth = r["mean_search_depth"]
    return (f"vs {r['opponent']}: {r['games']} games ({r['distinct_games']} distinct), "
            f"W-D-L {_wdl(r)}; as first {_wdl(r['as_first'])}, as second "
            f"{_wdl(r['as_second'])}; forfeits {r['forfeits']}; {r['moves']} moves, mean "
            f"{r['mean_seconds']:.4f} s, max {r['max_seconds']:.4f} s, over budget + "
            f"{TOLERANCE_MS}: {r['moves_over_budget']} by the wall clock, "
            f"{r['moves_over_budget_cpu']} by CPU time; mean search depth "
            f"{'-' if depth is None else f'{depth:.1f}'}; decided by {r['sources']}; "
            f"{r['elapsed_seconds']} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500, help="games against bot:3")
    parser.add_argument("--seed-games", type=int, default=20, help="games against seed")
    parser.add_argument("--seed-opening", type=int, default=2, metavar="PLIES",
                        help="random opening moves of the games against seed (even, default 2)")
    parser.add_argument("--time", type=float, default=None, metavar="S",
                        help="our seconds per move (default: the config's)")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes (default: the number of cores)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="write each match's plots and summary under DIR")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, metavar="FILE",
                        help=f"the figures as JSON (default: {DEFAULT_JSON.relative_to(ROOT)})")
    parser.add_argument("--config", default=None, metavar="PATH",
                        help="settings file (default: config.toml)")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except (UsageError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)  # once: the runs take long, the file may change
    seconds = check_seconds(args.time if args.time is not None else
                            settings.agent.seconds_per_move, "--time")
    budget_limit = seconds + OVERRUN_TOLERANCE

    results = []
    for opponent, games, opening in (("bot:3", args.games, 0),
                                     ("seed", args.seed_games, args.seed_opening)):
        if games <= 0:
            continue
        summary = play(opponent, games, settings, seconds, args.workers, args.seed, opening)
        results.append(describe(summary))
        if args.out is not None:
            write_report(summary, args.out / opponent.replace(":", ""),
                         f"python bench/strength.py --games {args.games} --seed-games "
                         f"{args.seed_games} --seed-opening {args.seed_opening} --time "
                         f"{seconds:g} --workers {summary.workers} --seed {args.seed} "
                         f"--out {args.out}")

    workers = max((r["workers"] for r in results), default=0)
    print(f"our agent, {seconds:g} s per move, {workers} worker(s), seed {args.seed}")
    for r in results:
        print(report_line(r))
    slowest = max(results, key=lambda r: r["max_seconds"] or 0.0, default=None)
    slowest_wall = float(slowest["max_seconds"] or 0.0) if slowest else 0.0
    slowest_cpu = float(slowest["slowest_cpu_seconds"] or 0.0) if slowest else 0.0
    over = sum(int(r["moves_over_budget"] or 0) for r in results)
    no_loss = all(r["losses"] == 0 for r in results)
    timing_ok = over == 0
    print(f"slowest move: {slowest_wall:.4f} s wall clock, {slowest_cpu:.4f} s of it on a core "
          f"(budget {seconds:g} s, limit {budget_limit:g} s); {over} move(s) over the limit")
    print("targets: " + ", ".join(
        f"0 losses vs {r['opponent']}: {'met' if r['losses'] == 0 else 'MISSED'}" for r in results
    ) + f", no move over budget + {TOLERANCE_MS}: {'met' if timing_ok else 'MISSED'}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "seconds_per_move": seconds,
        "tolerance_seconds": OVERRUN_TOLERANCE,
        "slowest_move": slowest_wall,
        "slowest_move_cpu": slowest_cpu,
        "moves_over_limit": over,
        "targets_met": no_loss and timing_ok,
        "results": results,
    }, indent=2) + "\n")
    print(f"wrote {args.json}", file=sys.stderr)
    return 0 if no_loss and timing_ok else 1


if __name__ == "__main__":
    sys.exit(main())
