"""The ``counters`` array a compiled search shares with its driver.

Slot ``NODES`` counts the nodes searched; the search stops when it passes ``NODE_LIMIT`` and
sets ``ABORTED``: its result is then meaningless, and it stored nothing for the nodes it did
not finish, so a new call with a higher limit walks back through table hits to where it
stopped.  A search may keep more state after ``BASE_SLOTS`` (the solver keeps its window).
"""

from __future__ import annotations

import numpy as np

NODES = 0
NODE_LIMIT = 1
ABORTED = 2
BASE_SLOTS = 3
UNLIMITED = 1 << 62


def new_counters(node_limit: int = UNLIMITED, slots: int = BASE_SLOTS) -> np.ndarray:
    """A fresh counters array with ``slots`` slots and the given node limit."""
    counters = np.zeros(slots, dtype=np.int64)
    counters[NODE_LIMIT] = node_limit
    return counters


def searched(counters: np.ndarray) -> int:
    """The nodes a call searched (an aborted call counts up to its limit)."""
    return int(min(counters[NODES], counters[NODE_LIMIT]))
