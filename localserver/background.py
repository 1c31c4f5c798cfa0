"""Run the local course server in a background thread: for tests, benchmarks and tools.

``serve_in_thread`` serves any ASGI app on a socket bound with ``bind_socket`` (the analysis
board's tests serve the board with it).  ``LocalCourseServer`` owns a ``CourseService`` and a
uvicorn server on 127.0.0.1 and can be stopped and started again on the same port and
database, which is how a restart is tested.  It binds the listening socket itself, so port 0
(a free port) works and the URL is known before the first request.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Callable
from types import TracebackType

import uvicorn
from starlette.types import ASGIApp

from localserver.app import create_app
from localserver.service import CourseService
from localserver.slow_requests import REQUEST_TIMEOUT, guarded_protocol

START_TIMEOUT = 15.0


class ServerStartError(RuntimeError):
    """The background server did not come up."""


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0 = any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP spelled out: asyncio sets TCP_NODELAY only on sockets that say they are TCP,
    # and without it a keep-alive client waits ~40 ms per request (Nagle and delayed ACKs).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    # So that a restart can take the same port while old connections are in TIME_WAIT.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class ServedApp:
    """An ASGI app served by uvicorn on a bound socket, in a daemon thread, until ``stop``."""

    def __init__(self, server: uvicorn.Server, thread: threading.Thread) -> None:
        self._server = server
        self._thread = thread

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(START_TIMEOUT)


def serve_in_thread(app: ASGIApp, sock: socket.socket, request_timeout: float,
                    what: str) -> ServedApp:
    """Serve ``app`` on ``sock`` (from ``bind_socket``) in a thread; return once it serves.

    ``what`` names the server in the ``ServerStartError`` raised when it does not start.
    uvicorn serves on ``sock`` itself and closes it when it shuts down.
    """
    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False,
                            timeout_graceful_shutdown=2, http=guarded_protocol(request_timeout))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]},
                              name=f"server-{sock.getsockname()[1]}", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise ServerStartError(f"{what} did not start")
        time.sleep(0.01)
    return ServedApp(server, thread)


class LocalCourseServer:
    """The real app served by uvicorn in a thread; a context manager that starts and stops it.

    ``service_options`` are ``CourseService``'s keyword arguments (``api_key`` defaults to
    ``"nyckel"``); ``seed`` makes the bot's choices and who starts reproducible;
    ``request_timeout`` closes a connection whose request takes longer to arrive.
    """

    def __init__(
        self,
        db: str = ":memory:",
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        seed: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        request_timeout: float = REQUEST_TIMEOUT,
        **service_options: object,
    ) -> None:
        self.db = db
        self.request_timeout = request_timeout
        self.host = host
        self.port = port
        self.seed = seed
        self.clock = clock
        self.service_options = {"api_key": "nyckel", **service_options}
        self.service: CourseService | None = None
        self._served: ServedApp | None = None

    @property
    def url(self) -> str:
        """The base URL, ending in ``/`` like the course's: endpoints are appended."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    def _new_service(self) -> CourseService:
        rng = random.Random(self.seed) if self.seed is not None else None
        return CourseService(self.db, rng=rng, clock=self.clock,
                             **self.service_options)  # type: ignore[arg-type]

    def start(self) -> LocalCourseServer:
        """Start serving; a second start after ``stop`` reopens the same database and port."""
        if self._served is not None:
            raise ServerStartError("the server is already running")
        if self.service is None:
            self.service = self._new_service()
        sock = bind_socket(self.host, self.port)
        self.port = sock.getsockname()[1]
        self._served = serve_in_thread(create_app(self.service), sock, self.request_timeout,
                                       f"the local course server on {self.url}")
        return self

    def stop(self) -> None:
        """Stop serving and close the database (a later ``start`` opens it anew)."""
        if self._served is not None:
            self._served.stop()
        self._served = None
        if self.service is not None:
            self.service.close()
            self.service = None

    def restart(self) -> LocalCourseServer:
        """Stop and start again: a new service over the same database, on the same port."""
        self.stop()
        return self.start()

    def __enter__(self) -> LocalCourseServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


__all__ = ["LocalCourseServer", "ServedApp", "ServerStartError", "bind_socket", "serve_in_thread"]
