"""``agent.py kaggle --out DIR [--mode M] [--time S]``: a submission for Kaggle ConnectX."""

from __future__ import annotations

from dataclasses import dataclass

from commandline import Command, Context, mode_option, option, time_option, writable_folder
from vocabulary import ExitStatus, Mode


@dataclass(frozen=True)
class KaggleOptions:
    """``agent.py kaggle``'s options."""

    out: str = option("--out", required=True, metavar="DIR", help="write submission.tar.gz here")
    mode: Mode | None = mode_option()
    time: float | None = time_option("ConnectX's actTimeout less a safety margin",
                                     what="thinking time per move at most")


def kaggle_command(options: KaggleOptions, context: Context) -> ExitStatus:
    from ecosystems.connectx import SAFETY_MARGIN
    from ecosystems.submission import ARCHIVE, BOOK_LIMIT, REQUIRES, write_submission
    from engine.overrides import with_mode
    from solver.book import DEFAULT_BOOK_PATH, load_book

    settings = context.settings
    agent = with_mode(settings.agent, options.mode)
    out = writable_folder(options.out)
    path, book_discs = write_submission(out, agent, settings.solver, options.time)
    budget = (f"{options.time:g} s a move at most" if options.time
              else f"actTimeout - {SAFETY_MARGIN:g} s a move")
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB): {agent.mode} mode, {budget}")
    if book_discs is not None:
        shipped = load_book()
        if book_discs < shipped.complete_discs:
            print(f"the opening book in it is complete to {book_discs} discs: the shipped one"
                  f" (complete to {shipped.complete_discs}, {DEFAULT_BOOK_PATH.stat().st_size / 1e6:.1f} MB)"
                  f" is cut to what fits in {BOOK_LIMIT / 1e6:g} MB")
        else:
            print(f"the opening book in it is the shipped one, complete to {book_discs} discs")
    unpacked = out / "unpacked"
    print(f"where it runs it needs {REQUIRES}; play it as Kaggle does with:")
    print(f"  mkdir -p {unpacked} && tar -xzf {path} -C {unpacked}")
    print(f"  python -c 'from kaggle_environments import make;"
          f" print(make(\"connectx\").run([\"{unpacked / 'main.py'}\", \"negamax\"])[-1])'")
    print(f"then submit {ARCHIVE} to the competition (docs/arenas.md)")
    return ExitStatus.OK


COMMANDS = [
    Command("kaggle", "write a Kaggle ConnectX submission (submission.tar.gz)", KaggleOptions,
            kaggle_command),
]
