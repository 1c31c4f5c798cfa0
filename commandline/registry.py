"""Commands as declarations, and the one parser made from them."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, NoReturn, TypeVar

from commandline.options import Arg, scheduler_option, workers_option
from settings import CONFIG_ENV, CONFIG_NAME
from vocabulary import ExitStatus

if TYPE_CHECKING:
    from settings import Settings

Options = TypeVar("Options")


@dataclass(frozen=True)
class Context:
    """What every handler gets beside its options: the settings (loaded and checked once),
    the ``--config`` path as given (None: the checkout's ``config.toml``), and the
    ``time.perf_counter()`` of the program's start (start-up is reported apart from a move's
    thinking time, which starts with its search)."""

    settings: Settings
    config: str | None
    started: float

    @property
    def config_name(self) -> str:
        """The settings file's name, for messages."""
        from settings import default_config_path

        return str(Path(self.config)) if self.config else str(default_config_path())


@dataclass(frozen=True)
class Command(Generic[Options]):
    """A command of ``agent.py``: ``handler(options, context)`` returns the exit code (a
    ``vocabulary.ExitStatus``; ``agent.py`` refuses a code that is none).

    ``options`` is the dataclass its arguments are parsed into; ``compiles`` says it runs the
    compiled search or solver (a first run compiles them, and is told so); ``aliases`` are
    other names (the course skeleton's ``-o``, ``-l``, ``-s``).
    """

    name: str
    help: str
    options: type[Options]
    handler: Callable[[Options, Context], int]
    compiles: bool = False
    aliases: tuple[str, ...] = ()
    description: str | None = None


def add_arguments(parser: argparse.ArgumentParser, options: type[Any]) -> None:
    """The fields of the dataclass ``options`` as ``parser``'s arguments."""
    groups: dict[str, Any] = {}
    for item in dataclasses.fields(options):
        arg = item.metadata.get("arg")
        if not isinstance(arg, Arg):
            raise TypeError(f"{options.__name__}.{item.name} is not a command-line option")
        target: Any = parser
        if arg.group is not None:
            if arg.group not in groups:  # one group (an empty one breaks argparse's usage)
                groups[arg.group] = parser.add_mutually_exclusive_group()
            target = groups[arg.group]
        if arg.flags:
            target.add_argument(*arg.flags, dest=item.name, **arg.keywords)
        else:
            target.add_argument(item.name, **arg.keywords)


def _add_command_arguments(parser: argparse.ArgumentParser, options: type[Any]) -> None:
    add_arguments(parser, options)
    parser.add_argument("--config", metavar="PATH",
                        help=f"settings file (default: {CONFIG_ENV} if set, else {CONFIG_NAME} of"
                             " the checkout)")


class OneLineParser(argparse.ArgumentParser):
    """A parser whose mistakes are one line, as every other user error is: ``error: PROG:
    WHAT (PROG --help lists the options)``, exit code 2 (``ExitStatus.USAGE``)."""

    def error(self, message: str) -> NoReturn:
        self.exit(ExitStatus.USAGE,
                  f"error: {self.prog}: {message} ({self.prog} --help lists the options)\n")


class Registry:
    """The commands of the program, and its parser."""

    def __init__(self, commands: Iterable[Command[Any]], *, prog: str, description: str,
                 epilog: str | None = None) -> None:
        self.commands: dict[str, Command[Any]] = {}
        self.aliases: dict[str, str] = {}
        for command in commands:
            if command.name in self.commands:
                raise ValueError(f"two commands are named {command.name!r}")
            self.commands[command.name] = command
            self.aliases.update({alias: command.name for alias in command.aliases})
        self.parser = OneLineParser(prog=prog, description=description, epilog=epilog)
        sub = self.parser.add_subparsers(dest="command", metavar="COMMAND",
                                         parser_class=OneLineParser)
        self._parsers: Mapping[str, argparse.ArgumentParser] = sub.choices
        for command in self.commands.values():
            _add_command_arguments(sub.add_parser(command.name, help=command.help,
                                          description=command.description or command.help),
                           command.options)

    def parse(self, argv: list[str]) -> tuple[Command[Any], Any, str | None]:
        """The command, its options and ``--config``; raises ``SystemExit`` with
        ``ExitStatus.USAGE`` for arguments that do not parse (after one line saying what was
        wrong) and when no command is given (after the program's help)."""
        if argv and argv[0] in self.aliases:
            argv = [self.aliases[argv[0]], *argv[1:]]
        args, extras = self.parser.parse_known_args(argv)
        if args.command is None:
            self.parser.print_help()
            raise SystemExit(ExitStatus.USAGE)
        if extras:  # told in the command's name, not the program's
            self._parsers[args.command].error(f"unrecognized arguments: {' '.join(extras)}")
        command = self.commands[args.command]
        values = {item.name: getattr(args, item.name)
                  for item in dataclasses.fields(command.options)}
        return command, command.options(**values), args.config


@dataclass(frozen=True)
class ExecutorOptions:
    """Where batch work runs (``batch.open_executor(options.workers, options.scheduler)``)."""

    workers: int | None = workers_option()
    scheduler: str | None = scheduler_option()


def add_executor_arguments(parser: argparse.ArgumentParser) -> None:
    """``--workers K`` or ``--scheduler ADDRESS``, for the scripts that build their own parser."""
    add_arguments(parser, ExecutorOptions)
