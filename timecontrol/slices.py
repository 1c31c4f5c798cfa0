"""Node slices sized to a deadline: how the compiled searches run under a clock they cannot read.

The compiled cores (``search.negamax``, ``solver.core``) take a node limit and stop when it is
reached (``timecontrol.counters``).  Their drivers run them one slice of nodes at a time and
read the injected clock in between.  ``SliceSizer`` sizes each slice from the node rate
measured so far, so that a slice takes at most half the time left and at most
``max_seconds``, and grows at most twofold from one slice to the next (a coarse or stalled
clock must not make one slice explode).  A deadline is therefore overrun by a fraction of one
slice at most.
"""

from __future__ import annotations

MAX_SLICE_SECONDS = 0.02


class SliceSizer:
    """The node budget of the next slice, learnt from the slices run so far."""

    def __init__(self, first_nodes: int, min_nodes: int, max_seconds: float = MAX_SLICE_SECONDS):
        self.min_nodes = min_nodes
        self.max_seconds = max_seconds
        self.rate = first_nodes / max_seconds  # nodes per second, until measured
        self._last = first_nodes

    def next(self, time_left: float) -> int:
        """Nodes for a slice starting with ``time_left`` seconds before the deadline."""
        budget = min(self.max_seconds, time_left / 2)
        nodes = max(self.min_nodes, min(2 * self._last, int(self.rate * budget)))
        self._last = nodes
        return nodes

    def measured(self, nodes: int, seconds: float) -> None:
        """Record that a slice searched ``nodes`` in ``seconds``."""
        if nodes > 0 and seconds > 0:
            self.rate = nodes / seconds
