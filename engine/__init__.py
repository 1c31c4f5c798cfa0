"""The agent's move choice: opening book, then exact solver, then heuristic search, within a limit.

``Engine.decide(board, limit)`` is what the game loop, the arena and the command line call.
It owns the transposition table kept between moves of a game and the clock it is given;
``engine.decision`` has what it answers, ``engine.players`` the players built on it (and the
other players it meets), ``engine.cli`` the ``move`` and ``evaluate`` commands and
``engine.analyze`` the ``analyze`` command.
"""

from engine.decision import Decision, ProvenScore, Score, SearchScore
from engine.engine import Engine

__all__ = ["Decision", "Engine", "ProvenScore", "Score", "SearchScore"]
