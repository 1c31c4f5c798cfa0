"""``agent.py serve``: run the local emulation of the course server in the foreground.

Settings come from ``[local_server]`` in ``config.toml``; each command-line flag overrides its
key.  Both are checked by the same rules (``settings.local_server_problem``); an error names
the key or the flag.  The database path of the config is relative to the config file's folder,
``--db`` to the working directory.  The listening socket is bound here, before uvicorn
starts, so that a busy port or a bad host is reported as one clear error line rather than
uvicorn's log and exit.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
from dataclasses import replace

from localserver.service import ServiceConfigError
from settings import (
    LocalServerSettings,
    config_relative,
    load_settings,
    local_server_problem,
    mask_secret,
)

MEMORY_DB = ":memory:"
# The [local_server] keys a flag of ``agent.py serve`` overrides.
FLAGS = {"host": "--host", "port": "--port", "db": "--db", "bot_depth": "--bot-depth",
         "bot": "--bot", "first": "--first", "time_limit": "--time-limit"}


class ServeError(ValueError):
    """The server cannot start: a bad setting or an address it cannot listen on."""


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve_settings(args: argparse.Namespace) -> LocalServerSettings:
    """``[local_server]`` from the config with the command line's flags applied, checked.

    The config's ``db`` is made relative to the config file's folder; ``--db`` is taken as
    given (relative to the working directory).
    """
    settings = load_settings(args.config).local_server
    if settings.db != MEMORY_DB:
        settings = replace(settings, db=str(config_relative(settings.db, args.config)))
    for key, flag in FLAGS.items():
        value = getattr(args, key)
        if value is None:
            continue
        problem = local_server_problem(key, value)
        if problem is not None:
            raise ServeError(f"{flag}: {problem}")
        settings = replace(settings, **{key: value})
    return settings


def serve_command(args: argparse.Namespace) -> int:
    import uvicorn

    from localserver.app import create_app
    from localserver.background import bind_socket
    from localserver.service import CourseService

    settings = serve_settings(args)
    service = CourseService(
        settings.db, api_key=settings.api_key, bot=settings.bot, bot_depth=settings.bot_depth,
        first=settings.first, time_limit=settings.time_limit,
        full_board_win_is_draw=settings.full_board_win_is_draw,
    )
    try:
        try:
            sock = bind_socket(settings.host, settings.port)
        except OSError as exc:
            raise ServeError(
                f"cannot listen on {settings.host}:{settings.port}: {exc.strerror or exc}"
            ) from exc
        port = sock.getsockname()[1]
        host = f"[{settings.host}]" if ":" in settings.host else settings.host
        url = f"http://{host}:{port}/"
        service.warm_up()
        limit = f"{settings.time_limit:g} s per move" if settings.time_limit > 0 else "no limit"
        bot = f"minimax depth {settings.bot_depth}" if settings.bot == "minimax" else "random"
        print(f"local course server on {url}  (docs: {url}docs, progress: {url}progress)")
        print(f"  bot: {bot}; first: {settings.first}; time: {limit}; database: {settings.db};"
              f" api key: {mask_secret(settings.api_key)}")
        print(f"  play against it: python agent.py online --server {url}")
        if not _is_loopback(settings.host):
            print(f"warning: listening on {settings.host}, not only on this machine",
                  file=sys.stderr)
        sys.stdout.flush()
        config = uvicorn.Config(create_app(service), log_level="info", lifespan="off")
        try:
            uvicorn.Server(config).run(sockets=[sock])
        except KeyboardInterrupt:
            # uvicorn shuts down cleanly on Ctrl-C, then re-raises it: the normal way to stop.
            print("local course server stopped")
    finally:
        service.close()
    return 0


USER_ERRORS = (ServeError, ServiceConfigError)
