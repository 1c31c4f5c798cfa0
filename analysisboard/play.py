"""The agent's move in a game played on the board page (``GET /api/move``).

The page holds the game (its move string); the server only answers the agent's move, from the
course-mode or the strongest-mode engine of whichever analyst is free, in the time the player
chose.  The search's table is cleared at a game's first move; otherwise a move finds what the
analyst's earlier work left in its tables (true bounds in the solver's; in the search's,
entries that a new search only uses when they were searched at least as deep).
"""

from __future__ import annotations

from typing import Any

from analysisboard.analysts import Analyst
from board import Board
from timecontrol import Limit
from vocabulary import Mode


def agent_move(analyst: Analyst, board: Board, mode: Mode, seconds: float) -> dict[str, Any]:
    """The agent's decision in ``board`` (not over) in ``mode``, within ``seconds``."""
    engine = analyst.engine(mode)
    if board.moves <= 1:
        engine.new_game()
    decision = engine.decide(board, Limit.seconds(seconds, clock=engine.clock))
    return {
        "column": decision.column,
        "mode": decision.mode,
        "source": decision.source,
        "depth": decision.depth,
        "nodes": decision.nodes,
        "seconds": round(decision.seconds, 4),
        "score": decision.score.value,
        "proven": decision.proven,
        # The result from the agent's side, in the one renderer's words ("win in 9 moves").
        "words": decision.score.words(board.moves),
        "pv": list(decision.pv),
    }
