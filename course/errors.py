"""What can go wrong between us and a course server, as a family of typed errors.

Each error says, through ``in_doubt``, whether the request may have changed the game on the
server: a move that never reached the server (``ServerUnreachable``) or was rejected by its
validation (``RequestRejected``) changed nothing, so the game can go on from the same position
later; after a lost connection, a server failure or an unreadable reply nobody knows whether
the move was played, so the game must not be continued blindly.  A ``status: false`` reply is a
``ServerRefused`` (or the more precise ``WrongApiKey``, ``ImpossibleMove``, ``LostOnServer``).
"""

from __future__ import annotations

from course.grid import Grid


class ClientError(Exception):
    """Base class: talking to the course server (or keeping our view of the game) failed.

    ``in_doubt`` is True when the request may have changed the game on the server.
    """

    in_doubt = False


class ServerUnreachable(ClientError):
    """The request never reached the server: no connection (refused, DNS, connect timeout)."""


class ConnectionLost(ClientError):
    """The request was sent but no complete reply came back (read timeout, connection dropped)."""

    in_doubt = True


class RequestRejected(ClientError):
    """The server rejected the request's fields (HTTP 4xx, e.g. 422): nothing was played."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class ServerFailed(ClientError):
    """The server failed while handling the request (HTTP 5xx): it may or may not have played it."""

    in_doubt = True

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class StatsUnavailable(RequestRejected):
    """The server has no stats endpoint (HTTP 404 to ``stats``): a course server version that
    keeps no stats, or a base URL that is wrong."""


class MalformedReply(ClientError, ValueError):
    """The reply is not what the protocol says (not JSON, a missing field, a value out of range)."""

    in_doubt = True


class ServerRefused(ClientError):
    """The server answered ``status: false``; ``msg``, ``result`` and ``state`` are what it said."""

    def __init__(
        self,
        message: str,
        *,
        msg: str = "",
        result: float | None = None,
        state: Grid | None = None,
    ) -> None:
        super().__init__(message)
        self.msg = msg
        self.result = result
        self.state = state


class WrongApiKey(ServerRefused):
    """The server does not accept our API key."""


class ImpossibleMove(ServerRefused):
    """We played a full column: the server ended the game as lost with result -10."""


class LostOnServer(ServerRefused):
    """The server ended the game as lost (result -1) without playing our move (e.g. too late)."""


class Desync(ClientError):
    """The server's board differs from our mirror of the game: we stop rather than play on it."""


class ResumeUnsafe(ClientError):
    """An unfinished game in the record cannot be resumed safely; the message says why."""


