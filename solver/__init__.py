"""Perfect play: the exact solver, the opening book and position analysis.

``solver.core`` is the compiled null-window negamax, ``solver.table`` its transposition table
of bounds, ``solver.solver`` the ``Solver`` driving it under a deadline, ``solver.book`` the
opening book our own solver computed (``solver.make_book`` builds it) and ``solver.cli`` the
``solve`` and ``analyze`` commands.
"""

from solver.solver import Move, Solution, Solver, discs_to_end, outcome, result

__all__ = ["Move", "Solution", "Solver", "discs_to_end", "outcome", "result"]
