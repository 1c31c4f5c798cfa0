"""``agent.py handin --out DIR [--report DIR]``: the assignment's hand-in, a folder to submit as it
is (``handin.export``; docs/handin.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from commandline import Command, Context, option

DEFAULT_REPORT = "report"  # where the README's `agent.py report --out report` writes


@dataclass(frozen=True)
class HandinOptions:
    """``agent.py handin``'s options."""

    out: str = option("--out", required=True, metavar="DIR",
                      help="the folder to write the hand-in into (a new or an empty one)")
    report: str | None = option("--report", metavar="DIR",
                                help="the folder of agent.py report to include (default:"
                                     f" {DEFAULT_REPORT}/ when it holds a report.md)")


def handin_command(options: HandinOptions, context: Context) -> int:
    from handin.export import export

    report = Path(options.report) if options.report is not None else Path(DEFAULT_REPORT)
    found = options.report is not None or (report / "report.md").is_file()
    done = export(Path(options.out), report if found else None)
    print(f"wrote the hand-in to {done.out}: {len(done.files)} files,"
          f" {done.python_lines:,} lines of Python ({len(done.copied)} of the project's modules as"
          " they are, and its own connect4.py, tests and heuristics front)")
    if done.report:
        print(f"with the report of {report}/: {', '.join(done.report)}")
    else:
        print(f"no report in it: {report}/report.md does not exist (python agent.py report --out"
              f" {report} makes one; then run handin again into a new folder)")
    print(f"check it where only the course's packages are: cd {done.out} && python -m pip"
          " install -r requirements.txt && python test_connect4.py")
    return 0


COMMANDS = [
    Command("handin", "the assignment's hand-in: the course-mode player on its own, with the"
                      " course's packages only, its README, tests and report", HandinOptions,
            handin_command),
]
