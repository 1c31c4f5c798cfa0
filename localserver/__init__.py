"""A local emulation of the course's tournament server: same protocol, same bot, kept in SQLite.

``localserver.service`` holds the game logic (no HTTP), ``localserver.app`` the FastAPI app with
the course's endpoints and a progress page, ``localserver.background`` runs it in a thread for
tests and tools, and ``localserver.cli`` is ``agent.py serve``.
"""

from localserver.service import CourseService, RequestError, ServiceConfigError

__all__ = ["CourseService", "RequestError", "ServiceConfigError"]
