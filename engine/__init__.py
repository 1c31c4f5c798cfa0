"""The agent's move choice: opening book, then exact solver, then heuristic search, under a budget.

``Engine.choose(board, seconds)`` is what the game loop, the arena and the command line call.
It owns the transposition table kept between moves of a game and the clock it is given.
"""

from engine.engine import Decision, Engine

__all__ = ["Decision", "Engine"]
