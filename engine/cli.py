"""``agent.py move`` and ``agent.py evaluate``: one position in, the agent's view of it out."""

from __future__ import annotations

import argparse
import json

from board import Board, IllegalMove
from engine.decision import Decision, SearchScore, plural
from heuristics import UnknownHeuristic, evaluate, heuristic_problems
from settings import AgentSettings, UsageError, load_settings, revised
from solver import outcome
from timecontrol import Limit


def _position(moves: str, *, playable: bool = False) -> Board:
    """The board after a move string; with ``playable``, refuse a finished game."""
    board = Board.from_moves(moves.strip())
    if playable and board.is_over():
        raise IllegalMove("the game in that move string is already over")
    return board


def with_mode(agent: AgentSettings, mode: str | None) -> AgentSettings:
    """``agent`` in ``mode`` (``--mode``), or as configured when None."""
    return agent if mode is None else revised(agent, {"mode": mode}, names={"mode": "--mode"})


def opponent_model(agent: AgentSettings, model: str | None) -> str:
    """The engine's opponent model from ``--opponent-model`` (None: ``minimax``), refused by
    the engine's rule (``opponent_model_problem``), naming the flag, before any game starts."""
    if model is None:
        return "minimax"
    # Loads the compiled search, which the command builds its engine with next anyway.
    from engine.engine import opponent_model_problem

    problem = opponent_model_problem(agent.mode, model)
    if problem is not None:
        hint = "" if agent.mode == "course" else ": add --mode course"
        raise UsageError(f"--opponent-model {model}: {problem}{hint}")
    return model


def describe(decision: Decision, moves: int) -> list[str]:
    """The figures of a decision as lines of text, in the words of the stage that made it."""
    lines = [f"move: column {decision.column} (0-based, as the server counts)",
             f"mode: {decision.mode}; decided by the {decision.source}"]
    score = decision.score
    if isinstance(score, SearchScore):
        rate = decision.nodes / decision.seconds if decision.seconds > 0 else 0.0
        lines.append(f"score: {score.value} (heuristic search"
                     f"{', proven: ' + score.words(moves) if score.proven else ''})")
        lines.append(f"depth: {decision.depth}  nodes: {decision.nodes}  seconds: "
                     f"{decision.seconds:.3f}  ({rate / 1e6:.2f} M nodes/s)")
        lines.append(f"principal variation (0-based): {' '.join(map(str, decision.pv))}")
    else:
        word = outcome(score.value)
        result = "a draw" if word == "draw" else f"a {word} for the side to move"
        if score.exact:
            exact = f"exact score {score.value} (Pons' scale), {plural(decision.depth, 'disc')} to the end"
        elif decision.source == "book":
            exact = "the book holds the outcome only"
        else:
            exact = "outcome proven, exact score not in time"
        lines.append(f"proven by the {decision.source}: {result}; {exact}")
        lines.append(f"nodes: {decision.nodes}  seconds: {decision.seconds:.3f}")
    return lines


def move_command(args: argparse.Namespace, started: float) -> int:
    from engine.engine import Engine  # imported here: it loads the compiled search and solver

    loaded = load_settings(args.config)
    settings = with_mode(loaded.agent, args.mode)
    if args.heuristic is not None:
        problems = heuristic_problems(args.heuristic, key="--heuristic")
        if problems:
            raise UsageError("; ".join(problems))
        settings = revised(settings, {"heuristic": args.heuristic}, names={"heuristic": "--heuristic"})
    if args.depth is not None and settings.mode != "course":
        raise UsageError("--depth is for course mode (the heuristic search alone); strongest mode"
                         " plays the book and the solver first: add --mode course")
    model = opponent_model(settings, getattr(args, "opponent_model", None))
    seconds = settings.seconds_per_move if args.time is None else args.time
    board = _position(args.moves, playable=True)
    engine = Engine(settings, solver=loaded.solver, opponent_model=model)
    engine.warm_up()
    # The time counts from the command's start: loading and warming up are part of it.
    decision = engine.choose(board, Limit(started + seconds, depth=args.depth))
    if args.json:
        print(json.dumps({
            "column": decision.column,
            "score": decision.score.value,
            "depth": decision.depth,
            "nodes": decision.nodes,
            "seconds": round(decision.seconds, 4),
            "pv": list(decision.pv),
            "source": decision.source,
            "mode": decision.mode,
            "proven": decision.proven,
            **({"opponent_model": model} if model != "minimax" else {}),
        }))
        return 0
    print(board)
    print()
    print("\n".join(describe(decision, board.moves)))
    if model == "random":
        print("opponent model: random (expectimax: the score is the expected value against a"
              " uniformly random mover)")
    return 0


def evaluate_command(args: argparse.Namespace, started: float) -> int:
    settings = load_settings(args.config).agent
    name = args.heuristic or settings.heuristic
    board = _position(args.moves, playable=True)
    try:
        score = evaluate(board, name)
    except UnknownHeuristic as exc:
        where = "--heuristic" if args.heuristic else "agent.heuristic"
        raise UsageError(f"{where}: {exc}") from None
    if args.json:
        print(json.dumps({"score": score, "heuristic": name}))
    else:
        print(board)
        print()
        print(f"{name}: {score} (for the side to move)")
    return 0

