"""``agent.py solve``: exact scores of positions read from stdin, in Pons' benchmark format.

``solve`` is the benchmark interface of Pons' solver: lines ``moves`` or ``moves expected`` on
stdin, ``moves score nodes microseconds`` on stdout.  A bad line gets ``error: line N: ...`` on
stdout in its place (and the same on stderr, unless both are the same terminal), and the lines
after it are still solved.  Exit
code: 0 when every line was good and matched its expected score; 1 when some score differed
from the expected one (the solver is wrong, or the expectation); 2 when some line was bad
(1 and 2 together give 2: the input needs fixing first).
"""

from __future__ import annotations

import io
import os
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from commandline import Command, Context, flag, option
from settings import UsageError
from vocabulary import ExitStatus

if TYPE_CHECKING:
    from board import Board
    from solver.solver import Solver


def parse_line(line: str) -> tuple[Board, str, int | None]:
    """The position, its move string and the expected score (if given) of one input line.

    Raises ``UsageError`` or a ``BoardError`` naming what is wrong.
    """
    from board import Board, IllegalMove

    fields = line.split()
    if len(fields) > 2:
        raise UsageError(f"expected 'moves' or 'moves expected', got {len(fields)} fields")
    moves = fields[0]
    expected = None
    if len(fields) == 2:
        try:
            expected = int(fields[1])
        except ValueError:
            raise UsageError(f"expected score {fields[1]!r} is not an integer") from None
    board = Board.from_moves(moves)
    if board.is_over():
        raise IllegalMove("the game is over after these moves: there is nothing to solve")
    return board, moves, expected


def solve_stream(
    lines: TextIO, out: TextIO, err: TextIO, solver: Solver, *, weak: bool = False,
    reset: bool = False,
) -> ExitStatus:
    """Solve every line of ``lines``, writing results to ``out``; return the exit code.

    A bad line's ``error: line N: ...`` goes to ``out`` in the line's place, so the output stays
    aligned with the input, and to ``err`` too unless both are the same terminal (where it
    would show twice).
    """
    from board import BoardError

    bad = mismatched = 0
    errors_to_err = not same_terminal(out, err)
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            board, moves, expected = parse_line(line)
        except (UsageError, BoardError) as exc:
            message = f"error: line {number}: {exc}"
            print(message, file=out, flush=True)
            if errors_to_err:
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
        return ExitStatus.USAGE
    return ExitStatus.FAILURE if mismatched else ExitStatus.OK


def same_terminal(out: TextIO, err: TextIO) -> bool:
    """True when ``out`` and ``err`` are both the one terminal (the same device)."""
    try:
        if not (out.isatty() and err.isatty()):
            return False
        one, other = os.fstat(out.fileno()), os.fstat(err.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):  # closed, or not a real file
        return False
    return (one.st_dev, one.st_ino, one.st_rdev) == (other.st_dev, other.st_ino, other.st_rdev)


@dataclass(frozen=True)
class SolveOptions:
    """``agent.py solve``'s options."""

    weak: bool = flag("--weak", help="only win (1), draw (0) or loss (-1)")
    reset: bool = flag("--reset", help="empty the solver's table before each line (as Pons'"
                                       " benchmark does)")
    table_bits: int | None = option("--table-bits", type=int, metavar="B",
                                    help="table of about 2**B entries (default:"
                                         " solver.table_bits; a size out of its range is named"
                                         " with the range)")
    book: bool = flag("--book", help="search with the opening book's bounds (solver.book;"
                                     " default the shipped book): positions within its complete"
                                     " layers are answered at once. Pons' benchmark has none")


def solve_command(options: SolveOptions, context: Context) -> ExitStatus:
    from solver.book import load_book
    from solver.configured import configured_solver

    settings = context.settings.solver
    book = load_book(settings.book or None) if options.book else None
    solver = configured_solver(settings, options.table_bits, book=book)
    solver.warm_up()  # load the compiled code before the first line is timed
    solver.table.clear()
    solver.nodes = 0
    return solve_stream(sys.stdin, sys.stdout, sys.stderr, solver, weak=options.weak,
                        reset=options.reset)


COMMANDS = [
    Command("solve", "exact scores of positions read from stdin (Pons' benchmark format)",
            SolveOptions, solve_command, compiles=True, description=__doc__),
]
