"""Command line of the Connect Four agent: parses arguments and hands over to the packages.

    python agent.py move "4453" --time 1       # our move in a position (Pons' 1-based moves)
    python agent.py evaluate "4453"            # the static evaluation
    python agent.py -o | online                # ranked games against the course server
    python agent.py -s | stats                 # the server's stats for us
    python agent.py -l | local                 # games against a local opponent (gym env)
    python agent.py serve                      # the local emulation of the course server
    python agent.py tournament --players ...   # matches between agents
    python agent.py play                       # play the agent yourself
    python agent.py solve < positions          # exact scores (Pons' benchmark format)
    python agent.py analyze "4453"             # per-column exact scores

Each command's work lives in a ``cli`` module of its package, imported only when the command
runs, so a quick command does not pay for loading the web server or the plotting library.
The flags ``-l``, ``-o`` and ``-s`` of the course's skeleton keep working.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Sequence

# command -> (module, function); the function takes the parsed arguments and returns the
# exit code.  The module may define USER_ERRORS: exceptions printed as one line (exit 2).
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
    "analyze": ("solver.cli", "analyze_command"),
}

SKELETON_FLAGS = {"-l": "local", "--local": "local", "-o": "online", "--online": "online",
                  "-s": "stats", "--stats": "stats"}

EXIT_USAGE = 2


def _add_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", metavar="PATH", help="settings file (default: config.toml)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent.py",
        description="A Connect Four agent for the EDAP01 course server.",
        epilog="The course skeleton's flags still work: -l/--local, -o/--online, -s/--stats.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("move", help="the agent's move in a position")
    p.add_argument("moves", help='moves played so far, 1-based columns ("" = empty board)')
    p.add_argument("--time", type=float, default=None, metavar="SECONDS",
                   help="time budget (default: agent.seconds_per_move in the config)")
    p.add_argument("--depth", type=int, default=None, metavar="N", help="maximum search depth")
    p.add_argument("--heuristic", default=None, metavar="NAME", help="evaluation to search with")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_config(p)

    p = sub.add_parser("evaluate", help="the static evaluation of a position")
    p.add_argument("moves", help='moves played so far, 1-based columns ("" = empty board)')
    p.add_argument("--heuristic", default=None, metavar="NAME", help="evaluation to use")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_config(p)

    p = sub.add_parser("online", help="play ranked games against the course server")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help="games to play (default 1; with --until-streak, at most N)")
    p.add_argument("--until-streak", type=int, default=None, metavar="K",
                   help="play until the server's streak reaches K (stops at a loss)")
    p.add_argument("--server", default=None, metavar="URL", help="server base URL")
    p.add_argument("--new-game", action="store_true",
                   help="give up an unfinished game that cannot be resumed safely")
    _add_config(p)

    p = sub.add_parser("stats", help="the course server's stats for our ids")
    p.add_argument("--server", default=None, metavar="URL", help="server base URL")
    _add_config(p)

    p = sub.add_parser("local", help="play against a local opponent in the course environment")
    p.add_argument("--opponent", default="random", metavar="NAME",
                   help="random, bot[:DEPTH], seed or ours[:SECONDS] (default random)")
    p.add_argument("--first", choices=("me", "them", "random"), default="random",
                   help="who starts (default random)")
    p.add_argument("--games", type=int, default=1, metavar="N")
    p.add_argument("--time", type=float, default=None, metavar="SECONDS",
                   help="our time per move (default: from the config)")
    _add_config(p)

    p = sub.add_parser("serve", help="run the local emulation of the course server")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8000; 0 = any free one)")
    p.add_argument("--db", default=None, metavar="PATH", help='SQLite file (":memory:" allowed)')
    p.add_argument("--bot-depth", type=int, default=None, metavar="N")
    p.add_argument("--bot", choices=("minimax", "random"), default=None)
    p.add_argument("--first", choices=("student", "bot", "random"), default=None)
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="seconds per move, 0 = no limit")
    _add_config(p)

    p = sub.add_parser("tournament", help="matches between agents, with tables and plots")
    p.add_argument("--players", required=True, metavar="A,B[,C...]",
                   help="player specs: ours[:SECONDS][:HEURISTIC][:search|:dN], bot[:DEPTH], "
                        "random, seed")
    p.add_argument("--games", type=int, default=10, metavar="N", help="games per pairing")
    p.add_argument("--time", type=float, default=None, metavar="S",
                   help="seconds per move of an `ours` given without one (default: the config)")
    p.add_argument("--workers", type=int, default=None, metavar="K",
                   help="worker processes (default: the number of cores)")
    p.add_argument("--seed", type=int, default=None, metavar="X",
                   help="seed of every random choice (default: a random one, printed)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--out", default=None, metavar="DIR", help="write plots and a summary here")
    _add_config(p)

    p = sub.add_parser("play", help="play against the agent in the terminal")
    p.add_argument("--first", choices=("me", "agent"), default="me", help="who starts (default me)")
    p.add_argument("--time", type=float, default=None, metavar="S",
                   help="agent's seconds per move (default: the config)")
    _add_config(p)

    p = sub.add_parser("solve", help="exact scores of positions read from stdin (Pons' format)")
    p.add_argument("--weak", action="store_true", help="only win (1), draw (0) or loss (-1)")
    p.add_argument("--reset", action="store_true",
                   help="empty the solver's table before each line (as Pons' benchmark does)")
    p.add_argument("--table-bits", type=int, default=None, metavar="B",
                   help="table of about 2**B entries, 24-28 (default: solver.table_bits)")
    _add_config(p)

    p = sub.add_parser("analyze", help="exact score of every column of a position")
    p.add_argument("moves", help='moves played so far, 1-based columns ("" = empty board)')
    p.add_argument("--time", type=float, default=None, metavar="S",
                   help="time budget in seconds (default 10)")
    p.add_argument("--no-book", action="store_true", help="do not use the opening book")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _add_config(p)
    return parser


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
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 1
    args.started = started
    module_name, function_name = COMMANDS[args.command]
    module = importlib.import_module(module_name)
    from board import BoardError
    from heuristics import UnknownHeuristic
    from settings import ConfigError

    user_errors = (BoardError, UnknownHeuristic, ConfigError, *getattr(module, "USER_ERRORS", ()))
    try:
        return int(getattr(module, function_name)(args))
    except user_errors as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
