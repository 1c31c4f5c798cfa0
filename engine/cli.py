"""``agent.py move`` and ``agent.py evaluate``: one position in, the agent's view of it out."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace

from board import Board, IllegalMove
from heuristics import evaluate, heuristic_id
from settings import load_settings


class UsageError(ValueError):
    """A command-line option with a value the command cannot use."""


def _position(moves: str) -> Board:
    return Board.from_moves(moves.strip())


def move_command(args: argparse.Namespace) -> int:
    from engine.engine import Engine  # imported here: it loads the compiled search

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
    board = _position(args.moves)
    if board.is_over():
        raise IllegalMove("the game in that move string is already over")
    engine = Engine(settings, solver=loaded.solver)
    engine.warm_up()
    decision = engine.choose(board, max_depth=args.depth)
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
    rate = decision.nodes / decision.seconds if decision.seconds > 0 else 0.0
    print(f"move: column {decision.column} (0-based; {decision.column + 1} in Pons' notation)")
    print(f"score: {decision.score} ({decision.source}{', proven' if decision.proven else ''})")
    print(f"depth: {decision.depth}  nodes: {decision.nodes}  seconds: {decision.seconds:.3f}"
          f"  ({rate / 1e6:.2f} M nodes/s)")
    print(f"principal variation (0-based): {' '.join(map(str, decision.pv))}")
    return 0


def evaluate_command(args: argparse.Namespace) -> int:
    settings = load_settings(args.config).agent
    name = args.heuristic or settings.heuristic
    board = _position(args.moves)
    score = evaluate(board, name)
    if args.json:
        print(json.dumps({"score": score, "heuristic": name}))
    else:
        print(board)
        print()
        print(f"{name}: {score} (for the side to move)")
    return 0


USER_ERRORS = (UsageError,)
