"""A local emulation of the course's tournament server: same protocol, same bot, kept in SQLite.

``localserver.service`` holds the game logic (no HTTP), ``localserver.app`` the FastAPI app with
the course's endpoints and a progress page, ``localserver.variants`` the versions of the course
server it can behave like, ``localserver.inprocess`` a ``CourseServer`` that calls the service
without HTTP, ``localserver.background`` runs it in a thread for tests and tools, and
``localserver.cli`` is ``agent.py serve``.
"""

from typing import TYPE_CHECKING

from vocabulary.lazy import lazy_names

if TYPE_CHECKING:
    from localserver.service import CourseService, RequestError

# The service loads the game rules and the bot (numba): imported when first asked for, so that
# localserver.cli's declarations do not pay for it.
__getattr__ = lazy_names(__name__, {
    "localserver.service": ("CourseService", "RequestError"),
})


__all__ = ["CourseService", "RequestError"]
