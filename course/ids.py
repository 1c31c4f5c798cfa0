"""Student ids as the course server takes them: one rule for the client and the local server.

An id matches ``^[\\w\\d_-]*$`` and is at most 50 characters; a group sends several, and the
server stores them sorted and joined with ``+`` (``player_key``).  We also refuse an empty id,
which the server's pattern would let through.  Messages never quote an id (it is a secret).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

STIL_ID_PATTERN = re.compile(r"[\w\d_-]*")  # used with fullmatch: "$" would let a "\n" end it
STIL_ID_MAX_LENGTH = 50


def stil_id_problem(stil_id: object) -> str | None:
    """What is wrong with one student id by the course server's rule, or None if nothing."""
    if not isinstance(stil_id, str):
        return f"an id must be a string, not {type(stil_id).__name__}"
    if not stil_id:
        return "an id must not be empty"
    if len(stil_id) > STIL_ID_MAX_LENGTH:
        return f"an id may not be longer than {STIL_ID_MAX_LENGTH} characters"
    if not STIL_ID_PATTERN.fullmatch(stil_id):
        bad = sorted({c for c in stil_id if not STIL_ID_PATTERN.fullmatch(c)})
        return f"only letters, digits, '_' and '-' are allowed in an id, not {''.join(bad)!r}"
    return None


def stil_ids_problem(ids: Sequence[str]) -> tuple[int, str] | None:
    """The index of the first bad id of a group and what is wrong with it, or None."""
    if not ids:
        return -1, "give at least one STIL id"
    for index, stil_id in enumerate(ids):
        problem = stil_id_problem(stil_id)
        if problem is not None:
            return index, problem
    return None


def player_key(stil_ids: Sequence[str]) -> str:
    """The name the server stores a group under: its ids sorted, joined with ``+``, each once."""
    return "+".join(sorted(set(stil_ids)))
