"""A position's analysis as the board's JSON API gives it (``GET /api/analyze``).

Three parts, each asked for on its own or together:

- ``columns``: for every column, the result of playing it for the side to move, proven by the
  book or the solver (``engine.analyze``), in Pons' scale and in words for people; a column
  not proven in the time is marked unproven and carries the search's estimate instead;
- ``search``: what the course-mode search (the assignment's algorithm, the configured
  heuristic) plays in the time given: its column, depth, nodes, score and principal variation;
- ``evaluations``: the static evaluations ``windows5000`` and ``learned`` of the position.
"""

from __future__ import annotations

import math
import time
from typing import Any

from analysisboard.analysts import Analyst
from board import Board
from engine.analyze import ColumnView, analyze, best_column
from heuristics import evaluate
from heuristics.fitted import SCALE
from solver import Solver
from solver.book import Book
from timecontrol import Limit

PARTS = ("columns", "search", "evaluations")
OUTCOME_NAMES = {1: "win", 0: "draw", -1: "loss"}


def moves_to_end(score: int, moves: int) -> int:
    """For a column's exact ``score`` (Pons' scale, for the side to move at a position with
    ``moves`` discs): how many discs the winner still plays, the winning one included (0 for a
    draw).  A win counts the mover's own discs, this one included; a loss the opponent's."""
    if score == 0:
        return 0
    own = moves // 2  # the side to move's discs on the board
    if score > 0:
        return 22 - score - own
    return 22 + score - (moves - own)


def proven_words(score: int, exact: bool, moves: int, *, mover: str = "your",
                 other: str = "their", they: str = "they") -> str:
    """A proven result for people: "win in 7 of your moves", "draw", "loss in 12 of their
    moves", "win (length not proven)".  ``score`` is Pons' score (``exact``) or the outcome
    (1, 0, -1) for the side to move at a position with ``moves`` discs; ``mover``, ``other``
    and ``they`` name the two sides ("your", "their", "they"; for the agent "its", "your",
    "you")."""
    outcome = (score > 0) - (score < 0)
    name = OUTCOME_NAMES[outcome]
    if outcome == 0:
        return name
    if not exact:
        return f"{name} (length not proven)"
    count = moves_to_end(score, moves)
    if outcome > 0:
        return "win at once" if count == 1 else f"win in {count} of {mover} moves"
    return f"loss: {they} win next" if count == 1 else f"loss in {count} of {other} moves"


def column_words(view: ColumnView, moves: int, seconds: float) -> str:
    """The column's result for people (``proven_words``), "full", or that nothing was proven
    in the time."""
    if not view.playable:
        return "full"
    if view.outcome is None or view.score is None:
        return f"not proven in {seconds:g} s"
    return proven_words(view.score, view.exact, moves)


def column_entry(view: ColumnView, moves: int, seconds: float) -> dict[str, Any]:
    proven = view.outcome is not None
    return {
        "column": view.column,
        "legal": view.playable,
        "outcome": OUTCOME_NAMES[view.outcome] if view.outcome is not None else None,
        "score": view.score if view.exact else None,
        "proven": proven,
        "source": view.source or None,
        "estimate": view.score if view.proof == "estimate" else None,
        "moves_to_end": moves_to_end(view.score, moves)
        if view.exact and view.score is not None else None,
        "words": column_words(view, moves, seconds),
    }


def columns_part(solver: Solver, book: Book, board: Board, seconds: float, *,
                 exact: bool = True) -> dict[str, Any]:
    """Every column's verdict, proven by ``book`` and ``solver`` within ``seconds``."""
    start = time.perf_counter()
    views, nodes = analyze(board, seconds, solver, book=book, exact=exact)
    best = best_column(views)
    return {
        "columns": [column_entry(view, board.moves, seconds) for view in views],
        "all_proven": all(v.outcome is not None for v in views if v.playable),
        "all_exact": all(v.exact for v in views if v.playable),
        "best": best.column,
        "solver_nodes": nodes,
        "columns_seconds": round(time.perf_counter() - start, 4),
    }


def search_part(analyst: Analyst, board: Board, seconds: float) -> dict[str, Any]:
    engine = analyst.course
    engine.new_game()  # the view of a fresh search, as `agent.py move` gives it
    decision = engine.choose(board, Limit.seconds(seconds, clock=engine.clock))
    return {
        "column": decision.column,
        "depth": decision.depth,
        "score": decision.score.value,
        "pv": list(decision.pv),
        "nodes": decision.nodes,
        "seconds": round(decision.seconds, 4),
        "proven": decision.proven,
        "words": decision.score.words(board.moves),
        "heuristic": engine.settings.heuristic,
    }


def evaluations_part(board: Board) -> dict[str, Any]:
    logit = evaluate(board, "learned") / SCALE
    return {
        "windows5000": evaluate(board, "windows5000"),
        "learned": round(logit, 4),
        "learned_win_chance": round(1 / (1 + math.exp(-logit)), 4),
    }


def position_view(analyst: Analyst, moves: str, board: Board, seconds: float,
                  parts: tuple[str, ...], *, exact: bool = True) -> dict[str, Any]:
    """The analysis of the position after ``moves`` (not over): the ``parts`` asked for, each
    in ``seconds`` (the columns' proofs; the search).  Without ``exact`` the columns' proofs
    end once every outcome is proven (the time left is not spent on exact scores)."""
    view: dict[str, Any] = {"moves": moves, "to_move": board.player_to_move,
                            "discs": board.moves, "seconds": seconds}
    if "columns" in parts:
        view.update(columns_part(analyst.solver, analyst.book, board, seconds, exact=exact))
    if "search" in parts:
        view["search"] = search_part(analyst, board, seconds)
    if "evaluations" in parts:
        view["evaluations"] = evaluations_part(board)
    return view
