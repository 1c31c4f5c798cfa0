"""Command line of the Connect Four agent: collects the packages' commands and runs one.

    python agent.py move "4453" --time 1       # our move after a move string (columns 1-7)
    python agent.py -o | online                # ranked games against the course server
    python agent.py serve                      # the local emulation of the course server
    python agent.py --help                     # every command; COMMAND --help for its options

Each package's ``cli`` module declares its commands (``commandline.Command``: options,
handler, whether it compiles); this file only collects them, loads the settings once, checks
them with the rules of the packages that use them, and dispatches.  What a user can fix
(``settings.UsageError``, a board error, a server refusing or failing) is printed as one line,
exit code 2.  Every exit code is a ``vocabulary.ExitStatus``.  The course skeleton's flags
``-l``, ``-o`` and ``-s`` keep working.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from commandline import Registry
    from settings import Settings
    from vocabulary import ExitStatus

# The packages whose cli module declares commands, in the order --help lists them.
CLI_MODULES = ("engine.cli", "client.cli", "localserver.cli", "arena.cli", "solver.cli",
               "reporting.cli", "analysisboard.cli", "ecosystems.cli", "handin.cli")


def registry() -> Registry:
    """Every command of the program."""
    from commandline import Registry
    from vocabulary import ExitStatus

    commands = [command for name in CLI_MODULES
                for command in importlib.import_module(name).COMMANDS]
    return Registry(commands, prog="agent.py",
                    description="A Connect Four agent for the EDAP01 course server.",
                    epilog="The course skeleton's flags still work: -l/--local, -o/--online,"
                           f" -s/--stats. Exit codes: {ExitStatus.summary()} (README: When something goes"
                           " wrong).")


def config_problems(settings: Settings) -> list[str]:
    """What the packages using the settings find wrong in them, past the schema's types and
    ranges (``settings`` imports none of them, so their rules come together here)."""
    from engine.engine import settings_problems
    from localserver.variants import variant_problems

    return [*settings_problems(settings.agent, settings.solver),
            *variant_problems(settings.local_server)]


def main(argv: Sequence[str] | None = None) -> ExitStatus:
    started = time.perf_counter()
    from vocabulary import ExitStatus

    commands = registry()
    try:
        command, options, config = commands.parse(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # argparse printed the usage and what was wrong
        return ExitStatus(int(exc.code or 0))
    from board import BoardError
    from commandline import Context
    from course.errors import ClientError
    from engine.startup import compile_notice
    from settings import UsageError, load_settings, use_checkout

    use_checkout(Path(__file__).absolute().parent)  # as invoked: a linked copy is its own
    try:
        settings = load_settings(config, checks=[config_problems])
        with compile_notice() if command.compiles else contextlib.nullcontext():
            # A code that no ExitStatus names is a bug of its command: ValueError.
            return ExitStatus(command.handler(options, Context(settings, config, started)))
    except (UsageError, BoardError, ClientError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return ExitStatus.USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitStatus.INTERRUPTED
    except BrokenPipeError:
        # The reader went away (``agent.py solve | head``): end quietly, as Unix tools do.
        # (``online`` never gets here: it plays the running game out.)
        from terminal import stdout_to_devnull

        stdout_to_devnull()
        return ExitStatus.OK


if __name__ == "__main__":
    sys.exit(main())
