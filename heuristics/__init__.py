"""Static evaluations of a position, from the view of the side to move.

A heuristic is a compiled pure function ``(own, mask, moves, weights) -> int`` over bitboards.
``HEURISTICS`` names them; the search refers to one by its index so that the compiled core can
dispatch without Python objects, and passes the heuristic's weights array along
(``heuristic_weights``: the fitted ones read theirs from ``heuristics/data``, the others take
none).  ``windows5000`` is the default: the course's heuristic.
"""

from typing import TYPE_CHECKING

from heuristics.names import DEFAULT_HEURISTIC, FITTED, HEURISTICS, UnknownHeuristic, heuristic_id
from vocabulary.lazy import lazy_names

if TYPE_CHECKING:
    from heuristics.evaluation import evaluate, evaluate_id, heuristic_problems, heuristic_weights
    from heuristics.weights import WeightsError

# The evaluations are compiled code (numba): imported when first asked for, so that what needs
# only their names (the command line's help, the settings' check of a name) does not load it.
__getattr__ = lazy_names(__name__, {
    "heuristics.evaluation": ("evaluate", "evaluate_id", "heuristic_problems", "heuristic_weights"),
    "heuristics.weights": ("WeightsError",),
})


__all__ = ["DEFAULT_HEURISTIC", "FITTED", "HEURISTICS", "UnknownHeuristic", "WeightsError",
           "evaluate", "evaluate_id", "heuristic_id", "heuristic_problems", "heuristic_weights"]
