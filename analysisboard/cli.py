"""``agent.py board`` (the analysis board in the browser) and ``agent.py board-image``.

``board`` serves the page on 127.0.0.1 (``[board]`` in ``config.toml``; ``--host``, ``--port``
and ``--db`` override it), prints its URL and opens the default browser unless ``--no-open``
or there is no display.  The review lists the games of the client's record (``[record]``) and,
given ``--db`` or ``board.db``, of a local server's database.  ``--players SPEC,...`` lists
the players the page may play beside our engine (``analysisboard.opponents``; the command
line only, never the page, names them).  ``board-image`` writes the picture the page's "save"
buttons give, for any move string.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import webbrowser
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from analysisboard.params import MAX_SECONDS, MIN_SECONDS
from commandline import Command, Context, flag, moves_argument, option, seconds, whole
from settings import UsageError, shipped
from vocabulary import ExitStatus

if TYPE_CHECKING:
    from analysisboard.games import GameFiles
    from settings import AnalysisBoardSettings, Settings

FLAGS = {"host": "--host", "port": "--port", "db": "--db"}
DEFAULT_IMAGE_SECONDS = 2.0


@dataclass(frozen=True)
class AnalysisBoardOptions:
    """``agent.py board``'s options: each overrides its key of ``[board]``."""

    host: str | None = option("--host", help=f"address to listen on (default {shipped.BOARD_HOST})")
    port: int | None = option("--port", type=whole(0, 65535),
                              help=f"port (default {shipped.BOARD_PORT}; 0 = any free one)")
    db: str | None = option("--db", metavar="PATH",
                            help="a local server's database whose games the review lists too")
    rated: str | None = option("--rated", metavar="DIR",
                               help="the folder of an `agent.py rate` run whose games the review"
                                    " lists too (its report's links open them)")
    players: str | None = option("--players", metavar="SPEC[,SPEC...]",
                                 help="players the page may also play against, beside our"
                                      " engine: any player specs (program:\"CMD\","
                                      " connectx:PATH, bot:2, kaggle:negamax...); only these,"
                                      " picked by name on the page")
    no_open: bool = flag("--no-open", help="do not open a browser")


@dataclass(frozen=True)
class BoardImageOptions:
    """``agent.py board-image``'s options."""

    moves: str = moves_argument()
    out: str = option("--out", required=True, metavar="FILE",
                      help="the picture: FILE.svg or FILE.png")
    verdicts: bool = flag("--verdicts", help="write each column's proven result under the board")
    flip: bool = flag("--flip", help="swap the players' colours")
    time: float | None = option("--time", type=seconds, metavar="SECONDS",
                                help=f"time to prove the verdicts (default"
                                     f" {DEFAULT_IMAGE_SECONDS:g}, {MIN_SECONDS:g}-"
                                     f"{MAX_SECONDS:g})")


def board_settings(options: AnalysisBoardOptions, settings: Settings, config: str | None
                   ) -> tuple[AnalysisBoardSettings, GameFiles]:
    """``[board]`` with the flags applied, and the game files the review reads: the record of
    ``[record]`` (relative to the config file), the server database of ``--db`` (relative to
    the working directory) or ``board.db`` (relative to the config file)."""
    from analysisboard.games import RATED_GAMES, GameFiles
    from settings import config_relative, revised

    flags = {key: getattr(options, key) for key in FLAGS if getattr(options, key) is not None}
    chosen = revised(settings.board, flags, names=FLAGS)
    record = config_relative(settings.record.path, config)
    if options.db is not None:
        server: Path | None = Path(options.db)
    elif chosen.db:
        server = config_relative(chosen.db, config)
    else:
        server = None
    if server is not None and not server.is_file():
        where = "--db" if options.db is not None else "board.db"
        raise UsageError(f"{where}: {server} is not a file (give a local server's database,"
                         " such as records/local-server.sqlite3)")
    rated = Path(options.rated) if options.rated is not None else None
    if rated is not None and not (rated / RATED_GAMES).is_file():
        raise UsageError(f"--rated: {rated} holds no {RATED_GAMES} (give the --out folder of an"
                         " `agent.py rate` run)")
    return chosen, GameFiles(record, server, rated)


def has_display() -> bool:
    """Whether a browser window can be opened: always on macOS and Windows; on other systems
    only with an X or Wayland display (else ``webbrowser`` could start a text browser in the
    terminal the server is running in)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def analysis_board_command(options: AnalysisBoardOptions, context: Context) -> ExitStatus:
    import uvicorn

    from analysisboard.analysts import Analysts
    from analysisboard.app import create_app
    from analysisboard.opponents import Matches, listed_players
    from ecosystems.players import announce_sandbox
    from localserver.background import bind_socket
    from localserver.slow_requests import guarded_protocol

    settings = context.settings
    chosen, games = board_settings(options, settings, context.config)
    listed = listed_players(options.players)
    announce_sandbox([player.text for player in listed], settings.outside.sandbox)
    try:
        sock = bind_socket(chosen.host, chosen.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on {chosen.host}:{chosen.port}:"
                         f" {exc.strerror or exc}") from exc
    host = f"[{chosen.host}]" if ":" in chosen.host else chosen.host
    url = f"http://{host}:{sock.getsockname()[1]}/"
    print(f"loading {chosen.analysts} analyst(s): the book, the solver and the search...",
          file=sys.stderr, flush=True)
    analysts = Analysts(settings, chosen.analysts)
    print(f"analysis board on {url}  (Ctrl-C stops it)")
    reviewed = [f"the record {games.record}"] + (
        [f"the local server's {games.server}"] if games.server is not None else []) + (
        [f"the rate run {games.rated}"] if games.rated is not None else [])
    print(f"  games to review: {' and '.join(reviewed)}")
    if listed:
        print(f"  players to play beside our engine: {', '.join(p.name for p in listed)}")
    sys.stdout.flush()
    if not options.no_open and has_display():
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    matches = Matches(listed, agent=settings.agent, solver=settings.solver)
    config = uvicorn.Config(create_app(analysts, games, matches), log_level="warning",
                            lifespan="off", http=guarded_protocol())
    try:
        with contextlib.suppress(KeyboardInterrupt):
            uvicorn.Server(config).run(sockets=[sock])
    finally:  # the games' outside agents end with the board
        matches.close()
    print("analysis board stopped")
    return ExitStatus.OK


def image_format(path: Path) -> str:
    """The picture format an ``--out`` file's name asks for."""
    from analysisboard.diagram import FORMATS

    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise UsageError(f"--out {path}: the file name must end in .svg or .png")
    return fmt


def board_image_command(options: BoardImageOptions, context: Context) -> ExitStatus:
    from analysisboard.diagram import draw
    from analysisboard.verdicts import columns_part
    from board import Board, IllegalMove
    from solver import Solver
    from solver.book import load_book

    out = Path(options.out)
    fmt = image_format(out)
    moves = options.moves.strip()
    board = Board.from_moves(moves)
    if options.verdicts and board.is_over():
        raise IllegalMove("the game is over after these moves: there are no verdicts to show")
    columns = None
    if options.verdicts:
        seconds = DEFAULT_IMAGE_SECONDS if options.time is None else options.time
        if not MIN_SECONDS <= seconds <= MAX_SECONDS:
            raise UsageError(f"--time must be from {MIN_SECONDS:g} to {MAX_SECONDS:g} seconds")
        settings = context.settings.solver
        book = load_book(settings.book or None)
        solver = Solver(settings.table_bits, book=book)
        columns = columns_part(solver, book, board, seconds)["columns"]
    picture = draw(moves, verdicts=columns, flip=options.flip, fmt=fmt)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(picture)
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write it: {exc.strerror or exc}") from exc
    print(f"wrote {out} ({len(picture)} bytes)")
    return ExitStatus.OK


COMMANDS = [
    Command("board", "the analysis board and game review in the browser", AnalysisBoardOptions,
            analysis_board_command, compiles=True),
    Command("board-image", "a position as an SVG or PNG picture", BoardImageOptions,
            board_image_command, compiles=True),
]
