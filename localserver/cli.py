"""``agent.py serve``: run the local emulation of the course server in the foreground.

Settings come from ``[local_server]`` in ``config.toml``; each command-line flag overrides its
key.  The listening socket is bound here, before uvicorn starts, so that a busy port or a bad
host is reported as one clear error line rather than uvicorn's log and exit.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import sys
from dataclasses import replace

from localserver.service import ServiceConfigError
from settings import LocalServerSettings, load_settings, mask_secret


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
    """``[local_server]`` from the config with the command line's flags applied, checked."""
    settings = load_settings(args.config).local_server
    overrides = {
        "host": args.host, "port": args.port, "db": args.db, "bot_depth": args.bot_depth,
        "bot": args.bot, "first": args.first, "time_limit": args.time_limit,
    }
    settings = replace(settings, **{k: v for k, v in overrides.items() if v is not None})
    if not 0 <= settings.port <= 65535:
        raise ServeError(f"port must be 0-65535, not {settings.port}")
    if not math.isfinite(settings.time_limit) or settings.time_limit < 0:
        raise ServeError(f"--time-limit must be >= 0 seconds (0 = off), not {settings.time_limit}")
    if not settings.host:
        raise ServeError("host may not be empty")
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
