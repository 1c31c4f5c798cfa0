"""``CourseServer`` in the same process: calls ``localserver.service.CourseService`` directly.

The same replies as over HTTP (the service returns the JSON bodies the app sends), parsed by
the same functions, without a socket: for quick tests, benchmarks and tools.  The service's
``RequestError`` (what the app turns into HTTP 422) becomes ``RequestRejected``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from client.protocol import NEW_GAME, MoveReply, RequestRejected, Stats, parse_move_reply, parse_stats

if TYPE_CHECKING:
    from localserver.service import CourseService


class InProcessCourseServer:
    """A ``CourseService`` seen through the client's protocol, for one player."""

    def __init__(
        self,
        service: CourseService,
        stil_ids: Sequence[str],
        api_key: str,
        *,
        name: str = "in-process",
    ) -> None:
        self.service = service
        self.stil_ids = list(stil_ids)
        self.api_key = api_key
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def start_game(self) -> MoveReply:
        return parse_move_reply(self._move(NEW_GAME))

    def play(self, column: int) -> MoveReply:
        if not 0 <= column <= 6:
            raise ValueError(f"column {column} is not 0-6")
        return parse_move_reply(self._move(column))

    def stats(self) -> Stats:
        return parse_stats(self.service.stats(self.stil_ids, self.api_key))

    def _move(self, move: int) -> object:
        from localserver.service import RequestError

        try:
            return self.service.move(self.stil_ids, move, self.api_key)
        except RequestError as exc:
            raise RequestRejected(f"the server rejected the request: {exc}", 422) from exc
