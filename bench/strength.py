"""Strength and timing of our agent: the figures the project's targets are checked against.

    python bench/strength.py [--games 500] [--seed-games 20] [--time S] [--workers K]
                             [--seed X] [--out DIR] [--json FILE]

Plays, through the arena (``agent.py tournament`` underneath):

1. ``ours`` against ``bot:3`` (the course server's bot) over ``--games`` games, each side
   starting half of them;
2. ``ours`` against ``seed`` (the seed assignment's fixed depth-5 player) over ``--seed-games``.
   Both players are deterministic apart from how deep our clock lets us get, so these games
   repeat; the number of distinct games is reported next to the result;
3. the slowest move our agent made in all of them, measured by the arena around each move.

Targets: no loss against either, with both starters; no move slower than the budget plus
50 ms.  The exit code is 0 when all targets are met, 1 otherwise.  ``--time`` defaults to the
agent's configured time per move (``agent.seconds_per_move`` in ``config.toml``).
Heavy: run it with ``nice`` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.players import parse_spec  # noqa: E402
from arena.progress import ProgressBar  # noqa: E402
from arena.report import write_report  # noqa: E402
from arena.results import OVERRUN_TOLERANCE, Summary, summarize  # noqa: E402
from arena.tournament import default_workers, make_plan, run_tournament  # noqa: E402
from settings import AgentSettings, load_settings  # noqa: E402


def play(opponent: str, games: int, agent: AgentSettings, seconds: float, workers: int,
         seed: int) -> Summary:
    plan = make_plan([parse_spec(f"ours:{seconds:g}"), parse_spec(opponent)], games, seed, agent)
    total = games
    bar = ProgressBar(total, sys.stderr, label=f"games vs {opponent}")
    bar.update(0)
    start = time.monotonic()
    outcomes = run_tournament(plan, min(workers, total), lambda done, _t, _o: bar.update(done))
    return summarize(plan, outcomes, workers=min(workers, total),
                     elapsed=time.monotonic() - start)


def describe(summary: Summary) -> dict[str, object]:
    ours = summary.overall[0]
    stats = summary.moves[0]
    distinct = len({tuple(o.record.columns) for o in summary.outcomes})
    return {
        "opponent": summary.plan.labels[1],
        "games": ours.total.games,
        "distinct_games": distinct,
        **ours.total.to_dict(),
        "as_first": ours.as_first.to_dict(),
        "as_second": ours.as_second.to_dict(),
        "forfeits": ours.forfeits,
        "moves": len(stats.seconds),
        "mean_seconds": stats.mean_seconds,
        "max_seconds": stats.max_seconds,
        "slowest_cpu_seconds": stats.slowest_cpu,
        "moves_over_budget_cpu": sum(
            1 for o in summary.outcomes for m in o.record.moves
            if m.source is not None and m.cpu_seconds is not None
            and m.cpu_seconds > (stats.budget or 0.0) + OVERRUN_TOLERANCE),
        "moves_over_budget": stats.over_budget,
        "mean_depth": stats.mean_depth,
        "sources": dict(stats.sources),
        "elapsed_seconds": round(summary.elapsed, 1),
        "seed": summary.plan.seed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500, help="games against bot:3")
    parser.add_argument("--seed-games", type=int, default=20, help="games against seed")
    parser.add_argument("--time", type=float, default=None, metavar="S",
                        help="our seconds per move (default: the config's)")
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, metavar="DIR",
                        help="write each tournament's plots and summary under DIR")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE")
    args = parser.parse_args(argv)
    agent = load_settings().agent  # once: the runs take long, the file may change meanwhile
    seconds = args.time if args.time is not None else agent.seconds_per_move
    budget_limit = seconds + OVERRUN_TOLERANCE

    results = []
    for opponent, games in (("bot:3", args.games), ("seed", args.seed_games)):
        if games <= 0:
            continue
        summary = play(opponent, games, agent, seconds, args.workers, args.seed)
        results.append(describe(summary))
        if args.out is not None:
            write_report(summary, args.out / opponent.replace(":", ""),
                         f"python bench/strength.py --games {args.games} --seed-games "
                         f"{args.seed_games} --time {seconds:g} --workers {args.workers} "
                         f"--seed {args.seed} --out {args.out}")

    print(f"our agent, {seconds:g} s per move, {args.workers} worker(s), seed {args.seed}")
    ok = True
    slowest = 0.0
    slowest_cpu = 0.0
    over = 0
    for r in results:
        first, second = r["as_first"], r["as_second"]
        assert isinstance(first, dict) and isinstance(second, dict)
        print(f"vs {r['opponent']}: {r['games']} games ({r['distinct_games']} distinct), "
              f"W-D-L {r['wins']}-{r['draws']}-{r['losses']}; as first "
              f"{first['wins']}-{first['draws']}-{first['losses']}, as second "
              f"{second['wins']}-{second['draws']}-{second['losses']}; forfeits {r['forfeits']}; "
              f"{r['moves']} moves, mean {r['mean_seconds']:.4f} s, max {r['max_seconds']:.4f} s,"
              f" over budget + 50 ms: {r['moves_over_budget']} by the wall clock, "
              f"{r['moves_over_budget_cpu']} by CPU time; mean depth {r['mean_depth']:.1f}; "
              f"decided by {r['sources']}; {r['elapsed_seconds']} s")
        ok &= r["losses"] == 0
        if float(r["max_seconds"] or 0.0) > slowest:  # type: ignore[arg-type]
            slowest = float(r["max_seconds"])  # type: ignore[arg-type]
            slowest_cpu = float(r["slowest_cpu_seconds"] or 0.0)  # type: ignore[arg-type]
        over += int(r["moves_over_budget"] or 0)  # type: ignore[call-overload]
    timing_ok = slowest <= budget_limit
    print(f"slowest move: {slowest:.4f} s wall clock, {slowest_cpu:.4f} s of it on a core "
          f"(budget {seconds:g} s, limit {budget_limit:g} s); {over} move(s) over the limit")
    print("targets: " + ", ".join(
        f"0 losses vs {r['opponent']}: {'met' if r['losses'] == 0 else 'MISSED'}" for r in results
    ) + f", no move over budget + 50 ms: {'met' if timing_ok else 'MISSED'}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"seconds_per_move": seconds, "slowest_move": slowest,
                                         "results": results}, indent=2) + "\n")
    return 0 if ok and timing_ok else 1


if __name__ == "__main__":
    sys.exit(main())
