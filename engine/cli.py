"""``agent.py move`` and ``agent.py evaluate``: one position in, the agent's view of it out."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from board import Board, IllegalMove
from heuristics import evaluate, heuristic_id
from settings import load_settings
from solver import outcome

if TYPE_CHECKING:
    from engine.engine import Decision


class UsageError(ValueError):
    """A command-line option with a value the command cannot use."""


def _position(moves: str, *, playable: bool = False) -> Board:
    """The board after a move string; with ``playable``, refuse a finished game."""
    board = Board.from_moves(moves.strip())
    if playable and board.is_over():
        raise IllegalMove("the game in that move string is already over")
    return board


def describe(decision: Decision) -> list[str]:
    """The figures of a decision as lines of text, in the words of the stage that made it."""
    lines = [f"move: column {decision.column} (0-based; {decision.column + 1} in Pons' notation)"]
    if decision.source == "search":
        rate = decision.nodes / decision.seconds if decision.seconds > 0 else 0.0
        lines.append(f"score: {decision.score} (heuristic search"
                     f"{', proven' if decision.proven else ''})")
        lines.append(f"depth: {decision.depth}  nodes: {decision.nodes}  seconds: "
                     f"{decision.seconds:.3f}  ({rate / 1e6:.2f} M nodes/s)")
        lines.append(f"principal variation (0-based): {' '.join(map(str, decision.pv))}")
    else:
        word = outcome(decision.score)
        result = "a draw" if word == "draw" else f"a {word} for the side to move"
        exact = (f"exact score {decision.score} (Pons' scale), {decision.depth} discs to the end"
                 if decision.proven else "outcome proven, exact score not in time")
        lines.append(f"proven by the {decision.source}: {result}; {exact}")
        lines.append(f"nodes: {decision.nodes}  seconds: {decision.seconds:.3f}")
    return lines


def move_command(args: argparse.Namespace) -> int:
    from engine.engine import Engine  # imported here: it loads the compiled search and solver

    loaded = load_settings(args.config)
    settings = loaded.agent
    if args.heuristic is not None:
        heuristic_id(args.heuristic)
        settings = replace(settings, heuristic=args.heuristic)
    if args.time is not None:
        if not args.time > 0:
            raise UsageError("--time must be a positive number of seconds")
        settings = replace(settings, seconds_per_move=args.time)
    if args.depth is not None and args.depth < 1:
        raise UsageError("--depth must be at least 1")
    board = _position(args.moves, playable=True)
    engine = Engine(settings, solver=loaded.solver)
    engine.warm_up()
    # The budget counts from the command's start: loading and warming up are part of it.
    elapsed = time.perf_counter() - getattr(args, "started", time.perf_counter())
    decision = engine.choose(
        board, max(0.0, settings.seconds_per_move - elapsed), max_depth=args.depth
    )
    if args.json:
        print(json.dumps({
            "column": decision.column,
            "score": decision.score,
            "depth": decision.depth,
            "nodes": decision.nodes,
            "seconds": round(decision.seconds, 4),
            "pv": list(decision.pv),
            "source": decision.source,
            "proven": decision.proven,
        }))
        return 0
    print(board)
    print()
    print("\n".join(describe(decision)))
    return 0


def evaluate_command(args: argparse.Namespace) -> int:
    settings = load_settings(args.config).agent
    name = args.heuristic or settings.heuristic
    board = _position(args.moves, playable=True)
    score = evaluate(board, name)
    if args.json:
        print(json.dumps({"score": score, "heuristic": name}))
    else:
        print(board)
        print()
        print(f"{name}: {score} (for the side to move)")
    return 0


USER_ERRORS = (UsageError,)
