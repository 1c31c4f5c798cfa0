"""Perfect play: the exact solver, the opening book and position analysis.

``solver.core`` is the compiled null-window negamax, ``solver.table`` its transposition table
of bounds, ``solver.solver`` the ``Solver`` driving it under a deadline, ``solver.book`` the
opening book our own solver computed (``solver.make_book`` builds it) and ``solver.cli`` the
``solve`` and ``analyze`` commands.
"""

from typing import TYPE_CHECKING

from vocabulary.lazy import lazy_names

if TYPE_CHECKING:
    from solver.solver import Move, Solution, Solver, discs_to_end, outcome, result

# The solver is compiled code: imported when first asked for, so that solver.cli's declarations
# (and a package's light modules) do not load numba.
__getattr__ = lazy_names(__name__, {
    "solver.solver": ("Move", "Solution", "Solver", "discs_to_end", "outcome", "result"),
})


__all__ = ["Move", "Solution", "Solver", "discs_to_end", "outcome", "result"]
