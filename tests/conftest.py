"""Shared pytest fixtures."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from localserver.background import LocalCourseServer
from vocabulary import Mode

if TYPE_CHECKING:
    from engine import Engine

# --- the tiers -------------------------------------------------------------------------------


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test on a Dask cluster (the ``local_cluster`` fixture) is ``cluster``, one in the
    browser (the modules that drive chromium mark themselves) ``browser``: both are slow."""
    for item in items:
        if "local_cluster" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.cluster)
        if item.get_closest_marker("cluster") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.slow)


# --- the settings file of every test --------------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def own_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of ``config.toml`` in a folder of the session's, named by ``EDAP01_CONFIG`` for
    every test and every process a test starts: what a command writes beside its settings
    (the record, the local server's database) goes there, never into the checkout.  A test
    that runs a copy of the checkout as a person would (the README's) drops the variable."""
    folder = tmp_path_factory.mktemp("settings")
    config = folder / "config.toml"
    config.write_text((Path(__file__).resolve().parent.parent / "config.toml").read_text())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EDAP01_CONFIG", str(config))
        yield config
# --- the opening book's cache ---------------------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def book_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder the opening book is unpacked into for the whole session (this process and the
    commands the tests start): the shipped book is unpacked once per session, in the session's
    temporary folder, never in the user's cache."""
    from solver.bookfile import CACHE_ENV

    folder = tmp_path_factory.mktemp("book-cache")
    before = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(folder)
    yield folder
    if before is None:
        del os.environ[CACHE_ENV]
    else:
        os.environ[CACHE_ENV] = before


# --- the engine of the client's tests ------------------------------------------------------


@pytest.fixture(scope="module")
def engine(request: pytest.FixtureRequest) -> Engine:
    """A warmed-up engine in course mode, one per test module, sized by the module's
    ``ENGINE_SETTINGS`` (``AgentSettings`` fields: its budget, table and depth).

    The heuristic search alone: the client's tests need moves, not the book's or the solver's
    memory.
    """
    from engine import Engine  # imported here: it loads the compiled search and solver
    from settings import AgentSettings

    engine = Engine(AgentSettings(mode=Mode.COURSE, **request.module.ENGINE_SETTINGS))
    engine.warm_up()
    return engine


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


# --- a Dask cluster on loopback (batch) ---------------------------------------------------


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[str]:
    """The address of a real Dask ``LocalCluster`` on 127.0.0.1: two worker processes of one
    thread each, each under a nanny that starts it again if it dies.

    One per test module (starting one takes seconds; its scheduler runs in this process, so it
    does not outlive the module that needs it); a test that kills a worker finds the workers
    with ``tests.helpers.cluster_workers``, which waits for both to be up.
    """
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        yield str(cluster.scheduler_address)


# --- figures --------------------------------------------------------------------------------


@pytest.fixture
def saved_figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every matplotlib figure saved during the test, drawn, to look at its parts."""
    from matplotlib.figure import Figure  # imported here: only the figure tests need it

    saved: list[Any] = []
    save = Figure.savefig

    def keep(fig: Any, *args: Any, **kwargs: Any) -> None:
        save(fig, *args, **kwargs)
        fig.canvas.draw()
        saved.append(fig)

    monkeypatch.setattr(Figure, "savefig", keep)
    return saved
