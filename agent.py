"""Command line of the Connect Four agent: parses arguments and hands over to the packages.

    python agent.py move "4453" --time 1       # our move after a move string (Pons' notation)
    python agent.py evaluate "4453"            # the static evaluation
    python agent.py -o | online                # ranked games against the course server
    python agent.py -s | stats                 # the server's stats for us
    python agent.py -l | local                 # games against a local opponent (gym env)
    python agent.py serve                      # the local emulation of the course server
    python agent.py tournament --players ...   # matches between agents
    python agent.py play                       # play the agent yourself
    python agent.py solve < positions          # exact scores (Pons' benchmark format)
    python agent.py analyze "4453"             # per-column exact scores
    python agent.py report --out report        # measurements and figures for the report
    python agent.py board                      # the analysis board in the browser
    python agent.py board-image "4453" --out p.svg   # a position as a picture
    python agent.py kaggle --out DIR           # a Kaggle ConnectX submission (docs/arenas.md)

Each command's work lives in a ``cli`` module of its package, imported only when the command
runs, so a quick command does not pay for loading the web server or the plotting library.  A
command is called with the parsed arguments and the time ``main`` started (a move's time
counts from there: loading is part of it).  The flags ``-l``, ``-o`` and ``-s`` of the
course's skeleton keep working.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from settings import Settings

# command -> (module, function); the function takes the parsed arguments and the time main()
# started, and returns the exit code.  What a user can fix (settings.UsageError, a board
# error, a server refusing or failing) is printed as one line, exit code 2.
COMMANDS: dict[str, tuple[str, str]] = {
    "move": ("engine.cli", "move_command"),
    "evaluate": ("engine.cli", "evaluate_command"),
    "online": ("client.cli", "online_command"),
    "stats": ("client.cli", "stats_command"),
    "local": ("client.cli", "local_command"),
    "serve": ("localserver.cli", "serve_command"),
    "tournament": ("arena.cli", "tournament_command"),
    "play": ("arena.cli", "play_command"),
    "solve": ("solver.cli", "solve_command"),
    "analyze": ("engine.analyze", "analyze_command"),
    "report": ("reporting.cli", "report_command"),
    "board": ("analysisboard.cli", "board_command"),
    "board-image": ("analysisboard.cli", "board_image_command"),
    "kaggle": ("ecosystems.cli", "kaggle_command"),
}
MAX_DEPTH = 42  # plies: no search needs to look further than the board holds
# Everywhere else a column is 0-6, as the server counts; a move string is Pons' notation.
MOVES_HELP = ('the moves played so far as a move string, in Pons\' notation: 1-based columns'
              ' ("4453"; "" = the empty board)')

SKELETON_FLAGS = {"-l": "local", "--local": "local", "-o": "online", "--online": "online",
                  "-s": "stats", "--stats": "stats"}

EXIT_USAGE = 2


def _add_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", help="settings file (default: config.toml)")


def seconds(text: str) -> float:
    """A ``--time`` value, by the one rule for times per move (``timecontrol``)."""
    from timecontrol.limit import seconds_problem

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    problem = seconds_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def whole(low: int, high: int | None = None) -> type[int]:
    """An argparse type: a whole number from ``low`` (to ``high``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            bound = f"{low}-{high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, not {value}")
        return value

    parse.__name__ = "whole number"
    return parse  # type: ignore[return-value]


def _add_mode(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mode", choices=("course", "strongest"), default=None,
                        help="course: the heuristic search alone (the assignment's algorithm);"
                             " strongest: opening book, exact solver, then the search"
                             " (default: agent.mode in the config)")


def _add_opponent_model(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--opponent-model", choices=("minimax", "random"), default=None,
                        help="minimax: alpha-beta, a best-replying opponent (default); random:"
                             " expectimax, the best expected result against a uniformly random"
                             " mover (course mode)")


def _add_time(parser: argparse.ArgumentParser, default: str) -> None:
    parser.add_argument("--time", type=seconds, default=None, metavar="SECONDS",
                        help=f"seconds per move (default: {default})")


class AgentParser(argparse.ArgumentParser):
    """The command line's parser, which knows its commands' own parsers (for their usage)."""

    commands: Mapping[str, argparse.ArgumentParser]


def build_parser() -> AgentParser:
    from batch import add_executor_arguments

    parser = AgentParser(
        prog="agent.py",
        description="A Connect Four agent for the EDAP01 course server.",
        epilog="The course skeleton's flags still work: -l/--local, -o/--online, -s/--stats.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices

    p = sub.add_parser("move", help="the agent's move in a position")
    p.add_argument("moves", help=MOVES_HELP)
    _add_time(p, "agent.seconds_per_move in the config; loading counts")
    _add_mode(p)
    _add_opponent_model(p)
    p.add_argument("--depth", type=whole(1, MAX_DEPTH), default=None, metavar="N",
                   help="search no deeper than N plies (course mode)")
    p.add_argument("--heuristic", default=None, metavar="NAME", help="evaluation to search with")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_config(p)

    p = sub.add_parser("evaluate", help="the static evaluation of a position")
    p.add_argument("moves", help=MOVES_HELP)
    p.add_argument("--heuristic", default=None, metavar="NAME", help="evaluation to use")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_config(p)

    p = sub.add_parser("online", help="play ranked games against the course server")
    p.add_argument("--games", type=whole(1), default=None, metavar="N",
                   help="games to play (default 1; with --until-streak, at most N)")
    p.add_argument("--until-streak", type=whole(1), default=None, metavar="K",
                   help="play until the server's streak reaches K (stops at a loss)")
    p.add_argument("--server", default=None, metavar="URL", help="server base URL")
    p.add_argument("--new-game", action="store_true",
                   help="give up an unfinished game that cannot be resumed safely")
    _add_time(p, "agent.seconds_per_move in the config; at most 5 - agent.safety_margin")
    _add_mode(p)
    _add_opponent_model(p)
    _add_config(p)

    p = sub.add_parser("stats", help="the course server's stats for our ids")
    p.add_argument("--server", default=None, metavar="URL", help="server base URL")
    _add_config(p)

    p = sub.add_parser("local", help="play against a local opponent in the course environment")
    p.add_argument("--opponent", default="random", metavar="NAME",
                   help="random, bot[:DEPTH], seed, ours[:SECONDS][:HEURISTIC][:course|:strongest]"
                        "[:dN][:random-model], kaggle:negamax, kaggle:random or"
                        " openspiel:mcts[:N] (default random)")
    p.add_argument("--first", choices=("me", "them", "random"), default="random",
                   help="who starts (default random)")
    p.add_argument("--games", type=whole(1), default=1, metavar="N")
    _add_time(p, "agent.seconds_per_move in the config")
    _add_mode(p)
    _add_opponent_model(p)
    _add_config(p)

    p = sub.add_parser("serve", help="run the local emulation of the course server")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8000; 0 = any free one)")
    p.add_argument("--db", default=None, metavar="PATH", help='SQLite file (":memory:" allowed)')
    p.add_argument("--bot-depth", type=int, default=None, metavar="N")
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="seconds per move, 0 = no limit")
    p.add_argument("--variant", choices=("current", "2021"), default=None,
                   help="the course server version to behave like (default current)")
    p.add_argument("--bot", choices=("minimax", "random"), default=None)
    p.add_argument("--first", choices=("student", "bot", "random"), default=None)
    p.add_argument("--null-start-reply", action=argparse.BooleanOptionalAction, default=None,
                   help="answer -1 with null result, botmove and state (as the 2021 server)")
    p.add_argument("--float-results", action=argparse.BooleanOptionalAction, default=None,
                   help="send results as floats, 0.0 and 1.0 (as the 2021 server)")
    p.add_argument("--stats-endpoint", action=argparse.BooleanOptionalAction, default=None,
                   help="serve POST stats (the 2021 server had none)")
    p.add_argument("--every-start-lost", action=argparse.BooleanOptionalAction, default=None,
                   help="book every -1 as a lost game, a game running or not (as the 2021 server)")
    _add_config(p)

    p = sub.add_parser("tournament", help="matches between agents, with tables and plots")
    p.add_argument("--players", required=True, metavar="A,B[,C...]",
                   help="player specs: ours[:SECONDS][:HEURISTIC][:course|:strongest][:dN]"
                        "[:random-model], "
                        "bot[:DEPTH], random, seed, kaggle:negamax, kaggle:random,"
                        " openspiel:mcts[:N]")
    p.add_argument("--games", type=whole(1), default=None, metavar="N",
                   help="games per pairing (default 10; with --every-opening, 2 x 7^K)")
    _add_time(p, "agent.seconds_per_move, for an `ours` given without a time")
    add_executor_arguments(p)
    p.add_argument("--seed", type=int, default=None, metavar="X",
                   help="seed of every random choice (default: a random one, printed)")
    p.add_argument("--opening-plies", type=whole(0, 10), default=0, metavar="K",
                   help="open each pair of games with K random moves (even, 0-10), played once"
                        " with each starter (default 0: from the empty board)")
    p.add_argument("--every-opening", action="store_true",
                   help="play every opening of --opening-plies K plies (2 or 4) instead of"
                        " random ones, each once with each starter")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write plots and a summary here, and keep the games as they finish"
                        " (a rerun resumes)")
    _add_config(p)

    p = sub.add_parser("play", help="play against the agent in the terminal")
    p.add_argument("--first", choices=("me", "agent"), default="me", help="who starts (default me)")
    _add_time(p, "agent.seconds_per_move in the config")
    _add_mode(p)
    _add_config(p)

    p = sub.add_parser("solve", help="exact scores of positions read from stdin (Pons' format)")
    p.add_argument("--weak", action="store_true", help="only win (1), draw (0) or loss (-1)")
    p.add_argument("--reset", action="store_true",
                   help="empty the solver's table before each line (as Pons' benchmark does)")
    p.add_argument("--table-bits", type=int, default=None, metavar="B",
                   help="table of about 2**B entries, 24-28 (default: solver.table_bits)")
    p.add_argument("--book", action="store_true",
                   help="search with the opening book's bounds (solver.book; default the shipped "
                        "book): positions within its complete layers are answered at once. Pons' "
                        "benchmark has none")
    _add_config(p)

    p = sub.add_parser("report", help="the measurements and figures for the course report")
    p.add_argument("--out", required=True, metavar="DIR", help="write report.md and figures here")
    p.add_argument("--games", type=whole(1), default=None, metavar="N",
                   help="games against each opponent (default 10; 6 with --quick)")
    _add_time(p, "agent.seconds_per_move; 0.3 with --quick")
    p.add_argument("--quick", action="store_true",
                   help="a smaller report at 0.3 s per move, in about five minutes")
    p.add_argument("--seed", type=int, default=None, metavar="X",
                   help="seed of every random choice (default: a random one, printed)")
    p.add_argument("--opponents", default=None, metavar="A,B[,C...]",
                   help="the opponents' player specs (default bot:3,seed,random; also"
                        " kaggle:negamax, kaggle:random, openspiel:mcts[:N])")
    _add_config(p)

    p = sub.add_parser("kaggle", help="write a Kaggle ConnectX submission (submission.tar.gz)")
    p.add_argument("--out", required=True, metavar="DIR", help="write submission.tar.gz here")
    _add_mode(p)
    p.add_argument("--time", type=seconds, default=None, metavar="SECONDS",
                   help="seconds per move at most (default: ConnectX's actTimeout less a margin)")
    _add_config(p)

    p = sub.add_parser("analyze", help="exact score of every column of a position")
    p.add_argument("moves", help=MOVES_HELP)
    p.add_argument("--time", type=seconds, default=None, metavar="SECONDS",
                   help="time for the whole analysis (default 10)")
    p.add_argument("--no-book", action="store_true", help="do not use the opening book")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_config(p)

    p = sub.add_parser("board", help="the analysis board and game review in the browser")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=whole(0, 65535), default=None,
                   help="port (default 8100; 0 = any free one)")
    p.add_argument("--db", default=None, metavar="PATH",
                   help="a local server's database whose games the review lists too")
    p.add_argument("--no-open", action="store_true", help="do not open a browser")
    _add_config(p)

    p = sub.add_parser("board-image", help="a position as an SVG or PNG picture")
    p.add_argument("moves", help=MOVES_HELP)
    p.add_argument("--out", required=True, metavar="FILE", help="the picture: FILE.svg or FILE.png")
    p.add_argument("--verdicts", action="store_true",
                   help="write each column's proven result under the board")
    p.add_argument("--flip", action="store_true", help="swap the players' colours")
    p.add_argument("--time", type=seconds, default=None, metavar="SECONDS",
                   help="time to prove the verdicts (default 2, at most 10)")
    _add_config(p)
    return parser


# Commands that run the compiled search or solver (and so compile it on a first run).
COMPILING = {"move", "evaluate", "online", "local", "serve", "tournament", "play", "solve",
             "analyze", "report", "board", "board-image"}


def compiled_code_cached(folders: Sequence[Path] | None = None) -> bool:
    """True if numba's on-disk cache (in ``folders``; default: where numba keeps it) holds the
    search's compiled code: not a first run."""
    if folders is None:
        folders = [Path(__file__).resolve().parent / "search" / "__pycache__"]
        if os.environ.get("NUMBA_CACHE_DIR"):
            folders.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    return any(any(folder.rglob("negamax*.nbi")) for folder in folders if folder.exists())


def config_problems(settings: Settings) -> list[str]:
    """What the packages using the settings find wrong in them, past the schema's types and
    ranges: the heuristic's name, the tables' sizes, the local server's variant and switches
    (``settings`` imports none of them, so their rules come together here), each line naming
    its key."""
    from engine.engine import settings_problems
    from localserver.variants import variant_problems

    return [*settings_problems(settings.agent, settings.solver),
            *variant_problems(settings.local_server)]


def _parse(parser: AgentParser, args_list: list[str]) -> argparse.Namespace:
    """The arguments; a mistyped option is reported with its command's usage."""
    args, extras = parser.parse_known_args(args_list)
    if extras:
        command = parser.commands.get(args.command) if args.command else None
        (command or parser).error(f"unrecognized arguments: {' '.join(extras)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    # Time budgets of commands count from here: loading the compiled code is part of them.
    started = time.perf_counter()
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not args_list:
        parser.print_help()
        return 1
    if args_list[0] in SKELETON_FLAGS:
        args_list[0] = SKELETON_FLAGS[args_list[0]]
    try:
        args = _parse(parser, args_list)
    except SystemExit as exc:  # argparse printed the command's usage and what was wrong
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help()
        return 1
    if args.command in COMPILING and not compiled_code_cached():
        print("first run: compiling the search and the solver (about 10-30 s, once)...",
              file=sys.stderr, flush=True)
    module_name, function_name = COMMANDS[args.command]
    module = importlib.import_module(module_name)
    from board import BoardError
    from course.errors import ClientError
    from settings import UsageError, load_settings

    try:
        # Every problem of the config file in one error, before the command does anything
        # (the command then reads the small file again for itself).
        load_settings(args.config, checks=[config_problems])
        return int(getattr(module, function_name)(args, started))
    except (UsageError, BoardError, ClientError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``agent.py solve | head``): end quietly, as Unix tools do.
        # (``online`` never gets here: it plays the running game out, ``SurvivingOutput``.)
        from terminal import stdout_to_devnull

        stdout_to_devnull()
        return 0


if __name__ == "__main__":
    sys.exit(main())
