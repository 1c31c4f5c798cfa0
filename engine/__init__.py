"""The agent's move choice: opening book, then exact solver, then heuristic search, within a limit.

``Engine.decide(board, limit)`` is what the game loop, the arena and the command line call.
It owns the transposition table kept between moves of a game and the clock it is given;
``engine.decision`` has what it answers, ``engine.players`` the players built on it (and the
other players it meets), ``engine.cli`` the ``move`` and ``evaluate`` commands and
``engine.analyze`` the ``analyze`` command.
"""

from typing import TYPE_CHECKING

from vocabulary.lazy import lazy_names

if TYPE_CHECKING:
    from engine.decision import Decision, ProvenScore, Score, SearchScore
    from engine.engine import Engine

# The engine loads the compiled search (and the solver): imported when first asked for, so that
# engine.cli's declarations and the light modules of the package do not pay for it.
__getattr__ = lazy_names(__name__, {
    "engine.decision": ("Decision", "ProvenScore", "Score", "SearchScore"),
    "engine.engine": ("Engine",),
})


__all__ = ["Decision", "Engine", "ProvenScore", "Score", "SearchScore"]
