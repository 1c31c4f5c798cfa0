"""``agent.py solve`` and ``agent.py analyze``: exact scores from the command line.

``solve`` is the benchmark interface of Pons' solver: lines ``moves`` or ``moves expected`` on
stdin, ``moves score nodes microseconds`` on stdout.  A bad line gets ``error: line N: ...`` on
stdout in its place (and the same on stderr), and the lines after it are still solved.  Exit
code: 0 when every line was good and matched its expected score; 1 when some score differed
from the expected one (the solver is wrong, or the expectation); 2 when some line was bad
(1 and 2 together give 2: the input needs fixing first).

``analyze`` shows a position and every column's exact score within a time budget, a heuristic
estimate (marked as such) where the budget ran out, and the best move.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from typing import TextIO

from board import Board, BoardError, IllegalMove, bits
from settings import load_settings
from solver.solver import WARM_UP_POSITION, Solver, discs_to_end, outcome
from solver.table import MAX_BITS, MIN_BITS

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_BAD_INPUT = 2

DEFAULT_ANALYZE_SECONDS = 10.0
# Share of analyze's budget kept for heuristic estimates of columns the solver did not prove.
ESTIMATE_SHARE = 0.1


class SolveInputError(ValueError):
    """A line of ``solve``'s input that is not ``moves`` or ``moves expected``."""


def parse_line(line: str) -> tuple[Board, str, int | None]:
    """The position, its move string and the expected score (if given) of one input line.

    Raises ``SolveInputError`` or a ``BoardError`` naming what is wrong.
    """
    fields = line.split()
    if len(fields) > 2:
        raise SolveInputError(f"expected 'moves' or 'moves expected', got {len(fields)} fields")
    moves = fields[0]
    expected = None
    if len(fields) == 2:
        try:
            expected = int(fields[1])
        except ValueError:
            raise SolveInputError(f"expected score {fields[1]!r} is not an integer") from None
    board = Board.from_moves(moves)
    if board.is_over():
        raise IllegalMove("the game is over after these moves: there is nothing to solve")
    return board, moves, expected


def _table_bits(args: argparse.Namespace) -> int:
    bits_ = args.table_bits
    if bits_ is None:
        return load_settings(args.config).solver.table_bits
    if not MIN_BITS <= bits_ <= MAX_BITS:
        raise SolveInputError(f"--table-bits must be {MIN_BITS}-{MAX_BITS}")
    return int(bits_)


def solve_stream(
    lines: TextIO, out: TextIO, err: TextIO, solver: Solver, *, weak: bool = False,
    reset: bool = False,
) -> int:
    """Solve every line of ``lines``, writing results to ``out``; return the exit code."""
    bad = mismatched = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            board, moves, expected = parse_line(line)
        except (SolveInputError, BoardError) as exc:
            message = f"error: line {number}: {exc}"
            print(message, file=out, flush=True)
            print(message, file=err, flush=True)
            bad += 1
            continue
        if reset:
            solver.table.clear()
        start = time.perf_counter_ns()
        solution = solver.solve(board, weak=weak)
        micros = (time.perf_counter_ns() - start) // 1000
        assert solution is not None  # no deadline
        print(f"{moves} {solution.score} {solution.nodes} {micros}", file=out, flush=True)
        if expected is not None:
            want = (expected > 0) - (expected < 0) if weak else expected
            if solution.score != want:
                print(f"line {number}: {moves}: score {solution.score}, expected {want}",
                      file=err, flush=True)
                mismatched += 1
    if bad:
        return EXIT_BAD_INPUT
    return EXIT_MISMATCH if mismatched else EXIT_OK


def solve_command(args: argparse.Namespace) -> int:
    solver = Solver(_table_bits(args))
    # Load the compiled code before the first line is timed.
    solver.solve(Board.from_moves(WARM_UP_POSITION))
    solver.table.clear()
    solver.nodes = 0
    return solve_stream(sys.stdin, sys.stdout, sys.stderr, solver, weak=args.weak,
                        reset=args.reset)


# --- analyze ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ColumnView:
    """One column of an analysis: exact (``exact``) or a heuristic estimate, or full."""

    column: int  # 0-based
    playable: bool
    score: int | None  # Pons' scale when exact; the heuristic search's scale otherwise
    exact: bool
    source: str  # "book", "solver", "heuristic" or "" for a full column

    def describe(self, moves: int) -> str:
        if not self.playable:
            return "full"
        assert self.score is not None
        if not self.exact:
            return f"~{self.score:+d} heuristic estimate, unproven"
        if self.score == 0:
            return "draw"
        after = discs_to_end(self.score, moves)
        who = "we win" if self.score > 0 else "we lose"
        return f"{outcome(self.score)}: {who} in {after} discs ({self.source})"


def best_column(views: list[ColumnView]) -> ColumnView:
    """The column to play: the book's (it has the position's score, the best there is); else
    the best exact score if it is a win or a draw, and otherwise the best estimate among
    unproven columns (they may still be better than a proven loss); the best exact loss if
    nothing is unproven.  Ties go to the centre."""
    playable = [v for v in views if v.playable]
    for view in playable:
        if view.source == "book":
            return view
    order = {c: i for i, c in enumerate(bits.CENTER_ORDER)}
    exact = sorted((v for v in playable if v.exact), key=lambda v: (-(v.score or 0), order[v.column]))
    unproven = sorted((v for v in playable if not v.exact),
                      key=lambda v: (-(v.score or 0), order[v.column]))
    if exact and (exact[0].score or 0) >= 0:
        return exact[0]
    if unproven:
        return unproven[0]
    return exact[0]


def analyze(board: Board, seconds: float, solver: Solver, *, use_book: bool = True,
            book_path: str = "") -> tuple[list[ColumnView], int]:
    """Every column's view of ``board`` within ``seconds``, and the nodes the solver searched."""
    from search import search

    if board.is_over():
        raise IllegalMove("the game is over after these moves: there is nothing to analyze")
    clock = solver.clock
    start = clock()
    deadline = start + seconds * (1 - ESTIMATE_SHARE)
    book_scores: dict[int, int] = {}
    if use_book:
        from solver.book import load_book

        book = load_book(book_path or None)
        book_scores = book.column_scores(board)
    legal = board.legal_moves()
    exact: dict[int, int] = {}
    sources: dict[int, str] = {}
    for col in legal:
        if col in book_scores:
            exact[col], sources[col] = book_scores[col], "book"
    nodes_before = solver.nodes
    pending = [c for c in sorted(legal, key=bits.CENTER_ORDER.index) if c not in exact]
    for i, col in enumerate(pending):
        # Each column may use an equal share of the time left; the shared table lets a later
        # column profit from an earlier one's work.
        now = clock()
        share = now + (deadline - now) / (len(pending) - i)
        scores = solver.column_score(board, col, share)
        if scores is not None:
            exact[col], sources[col] = scores, "solver"
    views: list[ColumnView] = []
    unproven = [c for c in legal if c not in exact]
    for col in range(bits.WIDTH):
        if col not in legal:
            views.append(ColumnView(col, False, None, False, ""))
        elif col in exact:
            views.append(ColumnView(col, True, exact[col], True, sources[col]))
        else:
            views.append(ColumnView(col, True, None, False, "heuristic"))
    estimate_end = start + seconds
    for i, col in enumerate(unproven):
        child = board.play_unchecked(col)
        now = clock()
        slot = max(0.0, (estimate_end - now) / (len(unproven) - i))
        result = search(child, slot, clock=clock)
        views[col] = ColumnView(col, True, -result.score, False, "heuristic")
    return views, solver.nodes - nodes_before


def analyze_command(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    seconds = DEFAULT_ANALYZE_SECONDS if args.time is None else args.time
    if not 0 < seconds < 1e6:
        raise SolveInputError("--time must be a positive number of seconds")
    board = Board.from_moves(args.moves.strip())
    if board.is_over():
        raise IllegalMove("the game is over after these moves: there is nothing to analyze")
    solver = Solver(settings.solver.table_bits)
    start = time.perf_counter()
    views, nodes = analyze(board, seconds, solver, use_book=not args.no_book,
                           book_path=settings.solver.book)
    elapsed = time.perf_counter() - start
    best = best_column(views)
    mover = 1 if board.first_player_to_move else 2
    if args.json:
        print(json.dumps({
            "moves": args.moves.strip(),
            "to_move": mover,
            "columns": [
                {"column": v.column, "pons_column": v.column + 1, "playable": v.playable,
                 "score": v.score, "exact": v.exact, "source": v.source or None}
                for v in views
            ],
            "best": {"column": best.column, "pons_column": best.column + 1,
                     "score": best.score, "exact": best.exact},
            "all_exact": all(v.exact for v in views if v.playable),
            "nodes": nodes,
            "seconds": round(elapsed, 4),
        }))
        return EXIT_OK
    symbol = "X" if mover == 1 else "O"
    print(board)
    print()
    print(f"{symbol} to move (player {mover}); scores for {symbol}, Pons' scale"
          " (+: win, 22 - own discs at the end)")
    for v in views:
        score = "" if v.score is None or not v.exact else f"{v.score:+d}"
        marker = "  <- best" if v.column == best.column else ""
        print(f"  column {v.column + 1}: {score:>4}  {v.describe(board.moves)}{marker}")
    kind = "exact" if best.exact else "heuristic estimate"
    print(f"best move: column {best.column + 1} (0-based {best.column}), {kind}"
          f"  [{nodes} solver nodes, {elapsed:.2f} s]")
    return EXIT_OK


USER_ERRORS = (SolveInputError,)  # board errors are user errors for every command
