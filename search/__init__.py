"""The heuristic game-tree search: compiled negamax alpha-beta and iterative deepening.

``search.negamax`` is the compiled core (no I/O, no clock), ``search.table`` its transposition
table, ``search.iterative`` the deadline-driven driver yielding a result per depth (its slices
sized by ``timecontrol``), and ``search.bot`` the fixed-depth player that stands in for the
course server's bot.
"""

from search.iterative import SearchResult, deepest, iterative_deepening
from search.negamax import WIN, is_loss_score, is_proven, is_win_score
from search.table import TranspositionTable

__all__ = [
    "WIN",
    "SearchResult",
    "TranspositionTable",
    "deepest",
    "is_loss_score",
    "is_proven",
    "is_win_score",
    "iterative_deepening",
]
