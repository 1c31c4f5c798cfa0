"""Time control: how long a move may take, and how compiled searches keep to it.

``Limit`` is the one value a front end makes for a move (an absolute deadline, and a depth
cap for a depth-limited search) and hands to ``Engine.decide``.  The compiled searches cannot
read a clock: they count nodes in a ``counters`` array (``timecontrol.counters``) and stop at a
node limit, and their drivers run them in slices sized by ``SliceSizer`` from the node rate
measured so far, reading the clock in between.  A ``StoppableClock`` makes every deadline on
it pass at once: how a computation in flight is cancelled.
"""

from timecontrol.limit import MAX_SECONDS, Clock, Limit, seconds_problem
from timecontrol.slices import SliceSizer
from timecontrol.stoppable import StoppableClock

__all__ = ["MAX_SECONDS", "Clock", "Limit", "SliceSizer", "StoppableClock", "seconds_problem"]
