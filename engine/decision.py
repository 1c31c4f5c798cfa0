"""What the engine answers: a column, and a ``Score`` whose scale is part of its type.

Two scales exist and are never mixed: the heuristic search's (``SearchScore``: a heuristic
estimate, or ``WIN - n`` for a win on the ``n``-th disc, found by the search) and Pons' exact
scale of the book and the solver (``ProvenScore``: 0 a draw, ``22 - k`` a win with the winner's
``k``-th disc, or only the outcome when the exact score was not found in time).  Both are from
the view of the side to move.  A proven score of either scale becomes the one value people read,
``vocabulary.Proven`` (``result``), and is worded by it alone (``words``): the same position
proven by the search or by the solver reads the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from board import bits
from search import WIN, is_loss_score, is_proven, is_win_score
from vocabulary import Mode, Outcome, Proven, Source, column_label, columns_text, side_words


@dataclass(frozen=True, slots=True)
class SearchScore:
    """The heuristic search's value: an estimate, unless ``proven`` (a forced win or loss was
    found, or the search saw every move to the end of the game)."""

    value: int
    proven: bool = False

    @classmethod
    def of(cls, value: int, exhausted: bool = False) -> SearchScore:
        return cls(value, exhausted or is_proven(value))

    @property
    def outcome(self) -> Outcome | None:
        """The outcome for the side to move when proven; None for an estimate."""
        if not self.proven:
            return None
        return (Outcome.WIN if is_win_score(self.value) else
                Outcome.LOSS if is_loss_score(self.value) else Outcome.DRAW)

    def result(self, moves: int) -> Proven | None:
        """The proven result at a position of ``moves`` discs (None for an estimate): a win
        ``WIN - n`` (or a loss ``-(WIN - n)``) ends on the board's ``n``-th disc; a draw seen
        to the end fills the board.  The one conversion from the search's scale."""
        outcome = self.outcome
        if outcome is None:
            return None
        if outcome is Outcome.DRAW:
            return Proven(outcome, bits.CELLS - moves)
        discs = WIN - abs(self.value) - moves
        if discs < 1 or discs % 2 != (1 if outcome is Outcome.WIN else 0):
            # Expectimax's win is a mean over the random mover's lines: no one distance.
            return Proven(outcome)
        return Proven(outcome, discs)

    def words(self, moves: int) -> str:
        """The proven result's words (``Proven.words``), or the estimate: "+12 (heuristic)"."""
        proven = self.result(moves)
        return proven.words() if proven is not None else f"{self.value:+d} (heuristic)"


@dataclass(frozen=True, slots=True)
class ProvenScore:
    """A proven value on Pons' scale: exact, or with ``exact`` False only its outcome (then
    ``value`` is 1 for a win kept, 0 a draw kept, -1 a loss); with ``held`` (value 0, not
    exact) only that the draw is held, a win not ruled out."""

    value: int
    exact: bool = True
    held: bool = False

    proven = True

    @property
    def outcome(self) -> Outcome:
        return Outcome.of(self.value)

    def result(self, moves: int) -> Proven:
        """The result at a position of ``moves`` discs, on the one scale (``solver.result``)."""
        from solver import result  # the solver's scale (only a proven score has one)

        if self.held:
            return Proven(Outcome.DRAW, at_least=True)
        return result(self.value, moves, exact=self.exact)

    def words(self, moves: int) -> str:
        return self.result(moves).words()


Score = SearchScore | ProvenScore


@dataclass(frozen=True, slots=True)
class Decision:
    """A chosen move and how it was found.

    ``column`` is 0-based (people read it plus one); ``source`` the stage that decided it;
    ``mode`` the engine's mode (``course``: the search alone, ``strongest``).
    ``depth`` is the search's depth for a search decision, and for a book or
    solver decision with an exact score the discs left to play if both sides keep it (0 when
    only the outcome is known).  ``nodes`` and ``seconds`` count everything this move took.
    """

    column: int
    score: Score
    depth: int
    nodes: int
    seconds: float
    pv: tuple[int, ...]
    source: Source
    mode: Mode = Mode.COURSE

    @property
    def proven(self) -> bool:
        """The score is a proof (exact or an outcome), not a heuristic estimate."""
        return self.score.proven


def describe(decision: Decision, moves: int) -> list[str]:
    """The figures of ``decision`` (at a position of ``moves`` discs) as lines for people:
    columns 1-7 as in move strings, a proven result in ``Proven``'s words."""
    mover = side_words(moves % 2 == 0)
    lines = [f"move: column {column_label(decision.column)} (1-7, as in move strings;"
             f" {decision.column} in JSON and to the server) for {mover}",
             f"mode: {decision.mode}; decided by the {decision.source}"]
    score = decision.score
    if isinstance(score, SearchScore):
        rate = decision.nodes / decision.seconds if decision.seconds > 0 else 0.0
        proven = score.result(moves)
        if proven is not None:
            lines.append(f"score: {proven.words()} for {mover} (proven by the heuristic search;"
                         f" search score {score.value})")
        else:
            lines.append(f"score: {score.value:+d} for {mover} (the heuristic search's estimate,"
                         " not a proof)")
        lines.append(f"depth: {decision.depth}  nodes: {decision.nodes}  seconds: "
                     f"{decision.seconds:.3f}  ({rate / 1e6:.2f} M nodes/s)")
        lines.append(f"principal variation: {columns_text(decision.pv)}")
    else:
        if score.exact or score.held:
            how = ""
        elif decision.source == Source.BOOK:
            how = " (the book holds the outcome only)"
        else:
            how = " (the outcome proven, its distance not in the time)"
        lines.append(f"proven by the {decision.source}: {score.words(moves)} for {mover}{how}")
        lines.append(f"nodes: {decision.nodes}  seconds: {decision.seconds:.3f}")
    return lines
