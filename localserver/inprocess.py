"""``CourseServer`` in the same process: calls ``localserver.service.CourseService`` directly.

The same replies as over HTTP (the service returns the JSON bodies the app sends), parsed by
the same code (``CourseServerBase``), without a socket: for quick tests, benchmarks and tools.
The service's ``RequestError`` (what the app turns into HTTP 422) becomes ``RequestRejected``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from course.errors import RequestRejected, StatsUnavailable
from course.protocol import CourseServerBase
from settings import redact

if TYPE_CHECKING:
    from localserver.service import CourseService


class InProcessCourseServer(CourseServerBase):
    """A ``CourseService`` seen through the client's protocol, for one player."""

    def __init__(
        self,
        service: CourseService,
        stil_ids: Sequence[str],
        api_key: str,
        *,
        name: str = "in-process",
    ) -> None:
        super().__init__(stil_ids, api_key)
        self.service = service
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def _send_move(self, move: int) -> Any:
        return self._call(lambda: self.service.move(list(self.stil_ids), move, self.api_key))

    def _send_stats(self) -> Any:
        return self._call(lambda: self.service.stats(list(self.stil_ids), self.api_key))

    def _call(self, request: Callable[[], Any]) -> Any:
        from localserver.service import NoStatsEndpoint, RequestError

        try:
            return request()
        except NoStatsEndpoint as exc:
            raise StatsUnavailable(f"the server has no stats endpoint: {exc}", 404) from exc
        except RequestError as exc:
            raise RequestRejected(
                f"the server rejected the request: {redact(str(exc), self.secrets)}", 422
            ) from exc
