"""``agent.py serve``: run the local emulation of the course server in the foreground.

Settings come from ``[local_server]`` in ``config.toml``; each command-line flag overrides its
key.  Both are checked by the same rules (the schema, ``settings.revised``); an error names
the key or the flag.  The database path of the config is relative to the config file's folder,
``--db`` to the working directory.  The listening socket is bound here, before uvicorn
starts, so that a busy port or a bad host is reported as one clear error line rather than
uvicorn's log and exit.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from commandline import Command, Context, option
from localserver.variants import SWITCHES, VARIANTS, Behaviour, resolve
from settings import (
    API_KEY_ENV,
    STIL_IDS_ENV,
    UsageError,
    is_placeholder,
    mask_secret,
    shipped,
)
from vocabulary import ExitStatus

if TYPE_CHECKING:
    from settings import LocalServerSettings, Settings

MEMORY_DB = ":memory:"
# The id the printed command plays under while the configured ones are the placeholders.
EXAMPLE_STIL_ID = "local-test"
# The [local_server] keys a flag of ``agent.py serve`` overrides.
FLAGS = {"host": "--host", "port": "--port", "db": "--db", "bot_depth": "--bot-depth",
         "time_limit": "--time-limit", "variant": "--variant",
         **{switch: "--" + switch.replace("_", "-") for switch in SWITCHES}}


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve_settings(options: ServeOptions, settings: Settings, config: str | None
                   ) -> tuple[LocalServerSettings, Behaviour]:
    """``[local_server]`` from the config with the command line's flags applied, checked, and
    the behaviour its variant and switches make.

    The config's ``db`` is made relative to the config file's folder; ``--db`` is taken as
    given (relative to the working directory).  A conflict names the key or flag that set
    each side of it.
    """
    from settings import config_relative, revised

    served = settings.local_server
    if served.db != MEMORY_DB:
        served = revised(served, {"db": str(config_relative(served.db, config))})
    flags = {key: getattr(options, key) for key in FLAGS if getattr(options, key) is not None}
    served = revised(served, flags, names=FLAGS)
    sources = {key: FLAGS[key] if key in flags else f"local_server.{key}" for key in FLAGS}
    chosen = {switch: (getattr(served, switch), sources[switch]) for switch in SWITCHES
              if getattr(served, switch) is not None}
    behaviour = resolve(served.variant, chosen, variant_source=sources["variant"])
    return served, behaviour


def describe(behaviour: Behaviour, bot_depth: int, bots: str | None = None) -> str:
    """The behaviour in a line: who starts, the bot (``bots``: a spec's player instead), and
    how this server version answers."""
    bot = f"minimax depth {bot_depth}" if behaviour.bot == "minimax" else "random"
    if bots is not None:
        bot = bots
    parts = [f"bot: {bot}", f"first: {behaviour.first}",
             "stats: " + ("yes" if behaviour.stats_endpoint else "none (HTTP 404)")]
    if behaviour.null_start_reply:
        parts.append("null fields in the reply to -1")
    if behaviour.float_results:
        parts.append("results as floats")
    if behaviour.every_start_lost:
        parts.append("every -1 booked as a loss")
    return "; ".join(parts)


def key_shown(api_key: str, course_key: str) -> str:
    """The local server's key as the banner shows it, in every line the same way.

    In full: it is this server's key, which whoever plays against it needs (``nyckel`` as
    shipped), not the course's.  Masked when it is also the configured ``server.api_key``
    (the user's course key, a secret): the client then sends it without being told.
    """
    if api_key == course_key:
        return f"{mask_secret(api_key)} (server.api_key's, so not shown)"
    return api_key


def play_command(url: str, api_key: str, ids: Sequence[str], config: str | None,
                 course_key: str) -> str:
    """The command that plays a game against this server, ready to paste: its key (unless it
    is the configured ``server.api_key`` already: ``key_shown``), the config file it was served
    with, and, while the configured ids are still the shipped placeholders (which the client
    refuses to send), an example id."""
    env = [] if api_key == course_key else [f"{API_KEY_ENV}={shlex.quote(api_key)}"]
    if any(is_placeholder(stil_id) for stil_id in ids):
        env.append(f"{STIL_IDS_ENV}={EXAMPLE_STIL_ID}")
    command = ["python", "agent.py", "online", "--server", url]
    if config is not None:
        command += ["--config", config]
    return " ".join([*env, shlex.join(command)])


def serve_command(options: ServeOptions, context: Context) -> ExitStatus:
    import uvicorn

    from ecosystems.players import announce_sandbox
    from localserver.app import create_app
    from localserver.background import bind_socket
    from localserver.bots import COURSE_BOTS, bots_of_option
    from localserver.service import CourseService
    from localserver.slow_requests import guarded_protocol

    agent = context.settings.agent
    # a spec (or ``ladder``) replaces the course's bot, whose switch keeps its variant's value
    spec_bot = options.bot is not None and options.bot.strip().lower() not in COURSE_BOTS
    served_options = dataclasses.replace(options, bot=None) if spec_bot else options
    settings, behaviour = serve_settings(served_options, context.settings, context.config)
    bots = bots_of_option(options.bot, seconds=agent.seconds_per_move, agent=agent,
                          solver=context.settings.solver, db=settings.db)
    if spec_bot and options.bot is not None:
        announce_sandbox([options.bot], context.settings.outside.sandbox)
    service = CourseService(
        settings.db, api_key=settings.api_key, bot_depth=settings.bot_depth,
        time_limit=settings.time_limit, full_board_win_is_draw=settings.full_board_win_is_draw,
        variant=settings.variant, **{switch: getattr(behaviour, switch) for switch in SWITCHES},
        bots=bots,
    )
    try:
        try:
            sock = bind_socket(settings.host, settings.port)
        except OSError as exc:
            raise UsageError(
                f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}"
            ) from exc
        port = sock.getsockname()[1]
        host = f"[{settings.host}]" if ":" in settings.host else settings.host
        url = f"http://{host}:{port}/"
        service.warm_up()
        if bots is not None:
            bots.warm_up()
        limit = f"{settings.time_limit:g} s per move" if settings.time_limit > 0 else "no limit"
        ids, course_key = context.settings.server.stil_ids, context.settings.server.api_key
        print(f"local course server on {url}  (docs: {url}docs, progress: {url}progress)")
        shown = None if bots is None else bots.describe()
        print(f"  variant {settings.variant}: {describe(behaviour, settings.bot_depth, shown)}")
        key = key_shown(settings.api_key, course_key)
        print(f"  time: {limit}; database: {settings.db}; api key: {key}")
        command = play_command(url, settings.api_key, ids, context.config, course_key)
        print(f"  play against it: {command}")
        if not _is_loopback(settings.host):
            print(f"warning: listening on {settings.host}, not only on this machine",
                  file=sys.stderr)
        sys.stdout.flush()
        config = uvicorn.Config(create_app(service), log_level="info", lifespan="off",
                                http=guarded_protocol())
        try:
            uvicorn.Server(config).run(sockets=[sock])
        except KeyboardInterrupt:
            # uvicorn shuts down cleanly on Ctrl-C, then re-raises it: the normal way to stop.
            print("local course server stopped")
    finally:
        service.close()
    return ExitStatus.OK





@dataclass(frozen=True)
class ServeOptions:
    """``agent.py serve``'s options: each overrides its key of ``[local_server]``."""

    host: str | None = option("--host", help=f"address to listen on (default {shipped.LOCAL_SERVER_HOST})")
    # Ranges are checked by the settings' schema, as the config file's values are.
    port: int | None = option("--port", type=int,
                              help=f"port (default {shipped.LOCAL_SERVER_PORT}; 0 = any free one)")
    db: str | None = option("--db", metavar="PATH",
                            help=f'SQLite file (default {shipped.LOCAL_SERVER_DB}; "{MEMORY_DB}" allowed)')
    bot_depth: int | None = option("--bot-depth", type=int, metavar="N",
                                   help=f"the bot's search depth (default {shipped.BOT_DEPTH})")
    time_limit: float | None = option("--time-limit", type=float, metavar="S",
                                      help="seconds per move, 0 = no limit (default"
                                           f" {shipped.LOCAL_SERVER_TIME_LIMIT:g})")
    variant: str | None = option("--variant", choices=tuple(VARIANTS),
                                 help="the course server version to behave like (default"
                                      f" {shipped.LOCAL_SERVER_VARIANT})")
    bot: str | None = option("--bot", metavar="minimax|random|SPEC|ladder",
                             help="the bot's way of playing (default: the variant's), or any"
                                  " player spec (ours:0.5, kaggle:negamax, connectx:PATH,"
                                  " program:CMD...; docs/local-server.md), or ladder: the"
                                  " rating ladder's rung nearest each student's rating"
                                  " (docs/rating.md)")
    first: str | None = option("--first", choices=("student", "bot", "random"),
                               help="who starts a game (default: the variant's)")
    null_start_reply: bool | None = option(
        "--null-start-reply", action=argparse.BooleanOptionalAction,
        help="answer -1 with null result, botmove and state (as the 2021 server)")
    float_results: bool | None = option(
        "--float-results", action=argparse.BooleanOptionalAction,
        help="send results as floats, 0.0 and 1.0 (as the 2021 server)")
    stats_endpoint: bool | None = option(
        "--stats-endpoint", action=argparse.BooleanOptionalAction,
        help="serve POST stats (the 2021 server had none)")
    every_start_lost: bool | None = option(
        "--every-start-lost", action=argparse.BooleanOptionalAction,
        help="book every -1 as a lost game, a game running or not (as the 2021 server)")


COMMANDS = [
    Command("serve", "run the local emulation of the course server", ServeOptions,
            serve_command, compiles=True, description=__doc__),
]
