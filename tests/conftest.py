"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from localserver.background import LocalCourseServer

# --- the local course server (localserver) ------------------------------------------------


@pytest.fixture
def course_server() -> Iterator[Callable[..., LocalCourseServer]]:
    """A factory for the real local course server on 127.0.0.1 (a free port, own thread).

        with course_server(first="bot", time_limit=0, db=":memory:", seed=1) as server:
            requests.post(server.url + "move", data=...)   # server.url ends in "/"
            server.service.stats(["id"], "nyckel")
            server.restart()   # same port and database file: the persistence test

    Keyword arguments: ``db`` (":memory:" by default, or a file path), ``seed``, ``clock``,
    ``host``, ``port`` and ``CourseService``'s options (``first``, ``bot``, ``bot_depth``,
    ``time_limit`` (default 0 here, so slow test machines never lose on time),
    ``full_board_win_is_draw``, ``api_key`` (default "nyckel")).  Servers still running at
    the end of the test are stopped.
    """
    servers: list[LocalCourseServer] = []

    def factory(**options: object) -> LocalCourseServer:
        options.setdefault("time_limit", 0)
        server = LocalCourseServer(**options)  # type: ignore[arg-type]
        servers.append(server)
        return server

    yield factory
    for server in servers:
        server.stop()
