"""A position's analysis as the board's JSON API gives it (``GET /api/analyze``).

Three parts, each asked for on its own or together:

- ``columns``: for every column, the result of playing it for the side to move, proven by the
  book or the solver (``engine.analyze``), as Pons' score and in ``vocabulary.Proven``'s words
  for people ("win in 7 moves", the side to move's moves, this column's included); a column
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
from vocabulary import Outcome

PARTS = ("columns", "search", "evaluations")


def outcome_name(outcome: int | None) -> str | None:
    """``"win"``, ``"draw"``, ``"loss"`` (None stays None): an outcome in the API's JSON."""
    return None if outcome is None else Outcome(outcome).word


def column_words(view: ColumnView, moves: int, seconds: float) -> str:
    """The column's result for people (``Proven.words``), "full", or that nothing was proven
    in the time."""
    if not view.playable:
        return "full"
    proven = view.result(moves)
    if proven is None:
        return f"not proven in {seconds:g} s"
    return proven.words()


def column_entry(view: ColumnView, moves: int, seconds: float) -> dict[str, Any]:
    """A column's verdict in the API: ``column`` 0-based (as every JSON ``column``); ``score``
    Pons' score when exact; ``moves_to_end`` the side to move's moves to the end, this column
    included (``Proven.moves``); ``words`` and ``short`` the result for people."""
    proven = view.result(moves) if view.playable else None
    return {
        "column": view.column,
        "legal": view.playable,
        "outcome": outcome_name(view.outcome),
        "score": view.score if view.exact else None,
        "proven": proven is not None,
        "source": view.source or None,
        "estimate": view.score if view.proof == "estimate" else None,
        "moves_to_end": proven.moves if proven is not None and view.exact else None,
        "words": column_words(view, moves, seconds),
        "short": proven.short() if proven is not None else ("?" if view.playable else ""),
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
    decision = engine.decide(board, Limit.seconds(seconds, clock=engine.clock))
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
