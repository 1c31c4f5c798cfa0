"""``agent.py kaggle --out DIR [--mode M] [--time S]``: a submission for Kaggle ConnectX."""

from __future__ import annotations

import argparse
from pathlib import Path

from ecosystems.connectx import SAFETY_MARGIN
from ecosystems.submission import ARCHIVE, REQUIRES, write_submission
from engine.cli import with_mode
from settings import UsageError, load_settings


def kaggle_command(args: argparse.Namespace, started: float) -> int:
    settings = load_settings(args.config)
    agent = with_mode(settings.agent, args.mode)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a folder")
    path = write_submission(out, agent, settings.solver, args.time)
    budget = f"{args.time:g} s a move at most" if args.time else f"actTimeout - {SAFETY_MARGIN:g} s a move"
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB): {agent.mode} mode, {budget}")
    unpacked = out / "unpacked"
    print(f"where it runs it needs {REQUIRES}; play it as Kaggle does with:")
    print(f"  mkdir -p {unpacked} && tar -xzf {path} -C {unpacked}")
    print(f"  python -c 'from kaggle_environments import make;"
          f" print(make(\"connectx\").run([\"{unpacked / 'main.py'}\", \"negamax\"])[-1])'")
    print(f"then submit {ARCHIVE} to the competition (docs/arenas.md)")
    return 0
