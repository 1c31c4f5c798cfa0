"""``agent.py move``, ``evaluate`` and ``analyze``: one position in, the agent's view of it out.

Declarations only at the top: the handlers import the board, the engine, the solver and the
evaluations when they run, so that ``--help`` loads no compiled code.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from commandline import (
    MAX_DEPTH,
    Command,
    Context,
    flag,
    json_flag,
    mode_option,
    moves_argument,
    opponent_model_option,
    option,
    time_option,
    whole,
)
from heuristics import HEURISTICS
from settings import UsageError
from timecontrol import Limit
from vocabulary import ExitStatus, Mode, OpponentModel

if TYPE_CHECKING:
    from board import Board

DEFAULT_ANALYZE_SECONDS = 10.0  # for the whole analysis


def _position(moves: str, *, playable: bool = False) -> Board:
    """The board after a move string; with ``playable``, refuse a finished game."""
    from board import Board, IllegalMove

    board = Board.from_moves(moves.strip())
    if playable and board.is_over():
        raise IllegalMove("the game in that move string is already over")
    return board


@dataclass(frozen=True)
class MoveOptions:
    """``agent.py move``'s options."""

    moves: str = moves_argument()
    time: float | None = time_option()
    mode: Mode | None = mode_option()
    opponent_model: OpponentModel | None = opponent_model_option()
    depth: int | None = option("--depth", type=whole(1, MAX_DEPTH), metavar="N",
                               help="search no deeper than N plies (course mode)")
    heuristic: str | None = option("--heuristic", metavar="NAME",
                                   help=f"evaluation to search with: {', '.join(HEURISTICS)}"
                                        " (default: agent.heuristic in the config)")
    json: bool = json_flag()


def move_command(options: MoveOptions, context: Context) -> ExitStatus:
    from engine.decision import describe
    from engine.engine import Engine  # imported here: it loads the compiled search
    from engine.overrides import opponent_model, with_mode
    from engine.startup import warm_up
    from heuristics import heuristic_problems
    from settings import revised

    settings = with_mode(context.settings.agent, options.mode)
    if options.heuristic is not None:
        problems = heuristic_problems(options.heuristic, key="--heuristic")
        if problems:
            raise UsageError("; ".join(problems))
        settings = revised(settings, {"heuristic": options.heuristic},
                           names={"heuristic": "--heuristic"})
    if options.depth is not None and settings.mode != Mode.COURSE:
        raise UsageError("--depth is for course mode (the heuristic search alone); strongest mode"
                         " plays the book and the solver first: add --mode course")
    model = opponent_model(settings, options.opponent_model)
    seconds = settings.seconds_per_move if options.time is None else options.time
    board = _position(options.moves, playable=True)
    engine = Engine(settings, solver=context.settings.solver, opponent_model=model)
    warm_up(engine)
    startup = time.perf_counter() - context.started
    # The thinking time counts from here: start-up is reported apart.
    decision = engine.decide(board, Limit.seconds(seconds, depth=options.depth))
    if options.json:
        print(json.dumps({
            "column": decision.column,
            "score": decision.score.value,
            "depth": decision.depth,
            "nodes": decision.nodes,
            "seconds": round(decision.seconds, 4),
            "startup_seconds": round(startup, 4),
            "pv": list(decision.pv),
            "source": decision.source,
            "mode": decision.mode,
            "proven": decision.proven,
            "words": decision.score.words(board.moves),
            **({"opponent_model": model} if model != OpponentModel.MINIMAX else {}),
        }))
        return ExitStatus.OK
    print(board)
    print()
    print("\n".join(describe(decision, board.moves)))
    print(f"start-up: {startup:.2f} s (loading and compiling, before the move's time)")
    if model == OpponentModel.RANDOM:
        print("opponent model: random (expectimax: the score is the expected value against a"
              " uniformly random mover)")
    return ExitStatus.OK


@dataclass(frozen=True)
class EvaluateOptions:
    """``agent.py evaluate``'s options."""

    moves: str = moves_argument()
    heuristic: str | None = option("--heuristic", metavar="NAME",
                                   help=f"evaluation to use: {', '.join(HEURISTICS)} (default:"
                                        " agent.heuristic in the config)")
    json: bool = json_flag()


def evaluate_command(options: EvaluateOptions, context: Context) -> ExitStatus:
    from heuristics import UnknownHeuristic, evaluate

    name = options.heuristic or context.settings.agent.heuristic
    board = _position(options.moves, playable=True)
    try:
        score = evaluate(board, name)
    except UnknownHeuristic as exc:
        where = "--heuristic" if options.heuristic else "agent.heuristic"
        raise UsageError(f"{where}: {exc}") from None
    if options.json:
        print(json.dumps({"score": score, "heuristic": name}))
    else:
        print(board)
        print()
        print(f"{name}: {score} (for the side to move)")
    return ExitStatus.OK


@dataclass(frozen=True)
class AnalyzeOptions:
    """``agent.py analyze``'s options."""

    moves: str = moves_argument()
    time: float | None = time_option(f"{DEFAULT_ANALYZE_SECONDS:g}",
                                     what="time for the whole analysis")
    no_book: bool = flag("--no-book", help="do not use the opening book")
    json: bool = json_flag()


def analyze_command(options: AnalyzeOptions, context: Context) -> ExitStatus:
    from board import Board, IllegalMove
    from engine.analyze import analysis_lines, analyze, best_column
    from solver.book import load_book
    from solver.configured import configured_solver

    seconds = DEFAULT_ANALYZE_SECONDS if options.time is None else options.time
    board = Board.from_moves(options.moves.strip())
    if board.is_over():
        raise IllegalMove("the game is over after these moves: there is nothing to analyze")
    settings = context.settings.solver
    book = None if options.no_book else load_book(settings.book or None)
    solver = configured_solver(settings, book=book)
    solver.warm_up()  # compiled code loaded before the analysis' time starts
    start = time.perf_counter()
    views, nodes = analyze(board, seconds, solver, book=book)
    elapsed = time.perf_counter() - start
    best = best_column(views)
    mover = board.player_to_move
    if options.json:
        print(json.dumps({
            "moves": options.moves.strip(),
            "to_move": mover,
            "columns": [
                {"column": v.column, "playable": v.playable,
                 "proven": v.score if v.exact else None, "outcome": v.outcome,
                 "estimate": v.score if v.proof == "estimate" else None,
                 "source": v.source or None}
                for v in views
            ],
            "best": {"column": best.column, "proven": best.outcome is not None,
                     "outcome": best.outcome, "score": best.score},
            "all_proven": all(v.outcome is not None for v in views if v.playable),
            "nodes": nodes,
            "seconds": round(elapsed, 4),
        }))
        return ExitStatus.OK
    print(board)
    print()
    print("\n".join(analysis_lines(board, views, best, nodes, elapsed)))
    return ExitStatus.OK


COMMANDS = [
    Command("move", "the agent's move in a position", MoveOptions, move_command, compiles=True),
    Command("evaluate", "the static evaluation of a position", EvaluateOptions, evaluate_command),
    Command("analyze", "every column of a position, proven by the book or the solver, or"
                       " estimated by the search", AnalyzeOptions, analyze_command, compiles=True),
]
