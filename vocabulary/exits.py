"""Exit codes: one enum, each code with one meaning for every command.

Every command of ``agent.py`` and every ``python -m`` command returns an ``ExitStatus`` (the
scripts under ``bench/`` keep to its codes); ``agent.py`` turns a handler's code into one, so
a code that no member names is a bug that shows at once.  The one table of them for people is
the README's ("When something goes wrong"), which a test holds against ``meaning``;
``agent.py --help`` lists them in a line (``ExitStatus.summary``).
"""

from __future__ import annotations

from enum import IntEnum


class ExitStatus(IntEnum):
    """What a command's exit code says (as httpie's ``ExitStatus``)."""

    OK = 0
    FAILURE = 1
    USAGE = 2
    STREAK_STALLED = 3
    OUT_OF_TIME = 4
    INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a process that Ctrl-C ended

    @property
    def meaning(self) -> str:
        """What the code says, in the README's table."""
        return _MEANINGS[self]

    @classmethod
    def summary(cls) -> str:
        """The codes in a line, for ``--help``: ``0 ok, 1 failure, 2 usage, ...``."""
        return ", ".join(f"{status.value} {status.name.lower().replace('_', ' ')}"
                         for status in cls)


_MEANINGS = {
    ExitStatus.OK: "done",
    ExitStatus.FAILURE: (
        "done, and what it found is a failure: a lost game (`online`, even one finished after a"
        " Ctrl-C), a score other than the expected one (`solve`); or `online`'s output went"
        " away (piped into `head`). A bug's traceback ends with Python's own 1 too"
    ),
    ExitStatus.USAGE: "a mistake you can fix, told in one `error: ...` line; or no command given",
    ExitStatus.STREAK_STALLED: (
        "`online --until-streak` cannot reach its goal: the server's streak did not grow after"
        " a game we did not lose"
    ),
    ExitStatus.OUT_OF_TIME: (
        "stopped by its time limit with work left (`solver.make_book --hours`); the same"
        " command goes on"
    ),
    ExitStatus.INTERRUPTED: (
        "stopped by Ctrl-C; what was finished is kept (`online` first plays the game in"
        " progress to its end, unless Ctrl-C comes twice)"
    ),
}
