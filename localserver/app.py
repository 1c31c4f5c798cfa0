"""The HTTP face of the local course server: the course's endpoints on a FastAPI app.

``POST /move`` and ``POST /stats`` take form-encoded fields like the course server (``stil_id``
repeated for a group) and answer with ``CourseService``'s reply bodies; out-of-range fields get
HTTP 422 from FastAPI's validation, as on the course server.  ``GET /`` describes the service,
``/docs`` is FastAPI's, and ``GET /progress`` is an HTML page of every player's record.

The endpoints sit at the root so that a client whose base URL ends in ``/`` (as the course's
does) reaches ``{base}move``.  Request bodies are capped (``MAX_BODY_BYTES``) before FastAPI
parses them, so a huge or endless body costs the server nothing.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import FastAPI, Form, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from localserver.progress import render_progress
from localserver.service import MAX_MOVE, MIN_MOVE, CourseService, RequestError, request_player

# A move request is about 100 bytes; a group of ten long ids stays well under 2 KiB.
MAX_BODY_BYTES = 16 * 1024
MAX_KEY_LENGTH = 200

DESCRIPTION = (
    "Local emulation of the EDAP01 4-in-a-row tournament server: POST move and POST stats"
    " (form fields stil_id, move, api_key); see /docs for the API and /progress for results."
)

# The ids are checked by ``request_player`` (the one rule for ids, ``course.ids``);
# its ``RequestError`` becomes the same HTTP 422 as FastAPI's own validation errors.
StilIds = Annotated[list[str], Form(
    description=r"student id(s) matching ^[\w\d_-]*$, at most 50 characters; repeat the key"
                " for a group")]
ApiKey = Annotated[str, Form(max_length=MAX_KEY_LENGTH, description="the course's api key")]
Move = Annotated[int, Form(ge=MIN_MOVE, le=MAX_MOVE,
                           description="-1 starts a new game, 0-6 is a column")]


class BodySizeLimit:
    """ASGI middleware: answer 413 to a request whose body exceeds ``max_bytes``.

    The body is read here (up to the limit) and handed on whole, so the app never sees more
    than ``max_bytes`` whatever the Content-Length header claims.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await self._reject(send, 400, "Invalid Content-Length header.")
                    return
                if declared > self.max_bytes:
                    await self._reject(send, 413, self._too_large())
                    return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._reject(send, 413, self._too_large())
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _too_large(self) -> str:
        return f"Request body too large (the limit is {self.max_bytes} bytes)."

    @staticmethod
    async def _reject(send: Send, status: int, detail: str) -> None:
        body = json.dumps({"detail": detail}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


def create_app(service: CourseService, *, max_body_bytes: int = MAX_BODY_BYTES) -> FastAPI:
    """The course server's API over ``service``."""
    app = FastAPI(
        title="EDAP01 4-in-a-row (local emulation)",
        description=DESCRIPTION,
        version="1.0",
    )
    app.state.service = service

    @app.exception_handler(RequestError)
    async def request_error(request: Request, exc: RequestError) -> JSONResponse:
        # The same shape as FastAPI's own validation errors.
        return JSONResponse(status_code=422, content={"detail": [
            {"type": "value_error", "loc": ["body", exc.field], "msg": exc.message}]})

    @app.get("/", summary="What this service is")
    def root() -> str:
        return DESCRIPTION

    # Plain ``def`` endpoints run in the thread pool: the bot's search and SQLite block, and
    # the service is thread-safe, so players are served in parallel.
    @app.post("/move", summary="Start a game (move -1) or play a column (0-6)")
    def move(stil_id: StilIds, move: Move, api_key: ApiKey) -> dict[str, Any]:
        return service.move(stil_id, move, api_key)

    if service.behaviour.stats_endpoint:  # a server version without one answers 404

        @app.post("/stats", summary="A player's record")
        def stats(stil_id: StilIds, api_key: ApiKey) -> dict[str, Any]:
            return service.stats(stil_id, api_key)

    @app.get("/progress", response_class=HTMLResponse, summary="Every player's progress (HTML)")
    def progress(
        stil_id: Annotated[list[str] | None, Query(description="show only this player")] = None,
    ) -> HTMLResponse:
        player = request_player(stil_id) if stil_id else None
        return HTMLResponse(render_progress(service, player))

    app.add_middleware(BodySizeLimit, max_bytes=max_body_bytes)
    return app


__all__ = ["DESCRIPTION", "MAX_BODY_BYTES", "BodySizeLimit", "create_app"]
