"""A local emulation of the course's tournament server: same protocol, same bot, kept in SQLite.

``localserver.service`` holds the game logic (no HTTP), ``localserver.app`` the FastAPI app with
the course's endpoints and a progress page, ``localserver.variants`` the versions of the course
server it can behave like, ``localserver.inprocess`` a ``CourseServer`` that calls the service
without HTTP, ``localserver.background`` runs it in a thread for tests and tools, and
``localserver.cli`` is ``agent.py serve``.
"""

from localserver.service import CourseService, RequestError

__all__ = ["CourseService", "RequestError"]
