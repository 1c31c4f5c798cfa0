"""The referee: whether a move kept the game-theoretic outcome, proven by the book and the solver.

A move keeps the outcome when the outcome after it (win, draw or loss for the side that played
it) is the best any legal move had.  The referee finds the outcome of every legal move: from
the opening book where it holds the position reached (any entry, exact or outcome-only, gives
the outcome), proven by the exact solver otherwise, within a deadline; a move whose outcomes
could not all be proven in time is *unproven*, never guessed.

``judge_move`` judges one move; ``judge_game`` every move of a game, from the last to the first
so that the solver's table, warmed by the short endgames, helps the longer openings.  The
report's correctness figure (``reporting.measure``) and the analysis board's game review both
use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from board import Board
from solver import Solver
from solver.book import Book
from vocabulary import Outcome


@dataclass(frozen=True)
class Verdict:
    """The referee's word on the move ``column`` played at ``ply`` (1 = the game's first disc).

    ``outcomes`` maps every legal column to its outcome for the side that moved, or is None
    when some could not be proven in time; ``booked`` counts the columns
    whose outcome the book gave (the solver proved the others).
    """

    ply: int
    column: int
    outcomes: Mapping[int, Outcome] | None
    # Where the outcomes came from, not part of the verdict: verdicts that agree are equal.
    booked: int = field(default=0, compare=False)

    @property
    def proven(self) -> bool:
        return self.outcomes is not None

    @property
    def best(self) -> Outcome | None:
        """The best outcome any legal move had (the position's value), when proven."""
        return None if self.outcomes is None else max(self.outcomes.values())

    @property
    def outcome(self) -> Outcome | None:
        """The outcome after the move played, when proven."""
        return None if self.outcomes is None else self.outcomes[self.column]

    @property
    def critical(self) -> bool | None:
        """Some legal move changes the outcome (so the choice mattered); None if unproven."""
        return None if self.outcomes is None else min(self.outcomes.values()) != self.best

    @property
    def kept(self) -> bool | None:
        """The move kept the best outcome; None if unproven."""
        return None if self.outcomes is None else self.outcome == self.best


def book_outcome(board: Board, col: int, book: Book) -> Outcome | None:
    """The outcome for the side to move of playing ``col`` as the book proves it,
    or None when the book does not hold the position it leads to."""
    # Every entry, exact or outcome only, in a complete layer or on the book's deeper paths,
    # holds the game-theoretic value of its position; the outcome is all a judge needs.
    entry = book.lookup(board.play_unchecked(col))
    return None if entry is None else -Outcome.of(entry.outcome)


def judge_move(board: Board, column: int, ply: int, solver: Solver, book: Book | None,
               deadline: float | None) -> Verdict:
    """Whether ``column`` (legal in ``board``, which is not over) keeps the outcome: each legal
    move's outcome from ``book`` where it holds the position reached, else proven by ``solver``
    before ``deadline`` (a time of the solver's clock; None: no limit)."""
    outcomes: dict[int, Outcome] = {}
    # The book first, for every move: it answers at once and leaves the solver all the time.
    if book is not None:
        for col in board.legal_moves():
            if not board.is_winning_move(col):
                found = book_outcome(board, col, book)
                if found is not None:
                    outcomes[col] = found
    booked = len(outcomes)
    for col in board.legal_moves():
        if col not in outcomes:
            outcome = solver.column_score(board, col, deadline, weak=True)
            if outcome is None:
                return Verdict(ply, column, None, booked)
            outcomes[col] = Outcome.of(outcome)
    return Verdict(ply, column, outcomes, booked)


def judge_game(columns: Sequence[int], solver: Solver, book: Book | None, seconds: float, *,
               start: Board | None = None,
               progress: Callable[[Verdict], None] | None = None) -> list[Verdict]:
    """A verdict on every move of the game ``columns`` (0-based, from ``start``, default the
    empty board), in the game's order; each move gets ``seconds`` of the solver's clock.

    The moves are judged from the last to the first: the endgame's proofs are quick and stay
    in the solver's table, where the earlier, longer proofs find them.  ``progress`` is told of
    each verdict as it is made.  Raises ``IllegalMove`` if a column cannot be played.
    """
    boards = [start or Board()]
    for col in columns:
        boards.append(boards[-1].play(col))
    verdicts: list[Verdict] = []
    for index in range(len(columns) - 1, -1, -1):
        board = boards[index]
        verdict = judge_move(board, columns[index], board.moves + 1, solver, book,
                             solver.clock() + seconds)
        verdicts.append(verdict)
        if progress is not None:
            progress(verdict)
    verdicts.reverse()
    return verdicts
