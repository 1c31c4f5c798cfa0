"""Student ids as the record keeps them: never in the clear, a hash to find a group's games
and a masked form to show."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from course.ids import player_key
from settings import mask_secret


def _hash(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:24]


def player_hash(stil_ids: Sequence[str]) -> str:
    """A stable, non-reversible name for a group: the hash of its name on the server
    (``player_key``: the ids sorted, each once)."""
    return _hash(player_key(stil_ids))


def player_hashes(stil_ids: Sequence[str]) -> tuple[str, str]:
    """``player_hash`` and the hash that records written before it used: the sorted ids
    joined with every duplicate kept.  They differ only for a group giving an id twice, whose
    older games are still that group's (the server counts a repeated id once)."""
    return player_hash(stil_ids), _hash("+".join(sorted(stil_ids)))


def masked_ids(stil_ids: Sequence[str]) -> str:
    """The ids as the record and the terminal may show them."""
    return "+".join(mask_secret(i) for i in sorted(stil_ids))
