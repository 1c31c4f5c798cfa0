"""``agent.py analyze``: every column of a position, proven by the book or the solver where that
fits in the time, estimated by the heuristic search where it does not.

It lives with the engine because it uses all three of the engine's stages (book, solver,
search) on one position, column by column.
"""

from __future__ import annotations

from dataclasses import dataclass

from board import Board, IllegalMove, bits
from engine.referee import book_outcome
from solver import Solver, result
from solver.book import Book
from vocabulary import Outcome, Proven, Source, column_label, scale_note, side_words, symbol

# Share of analyze's budget kept for heuristic estimates of columns the solver did not prove.
ESTIMATE_SHARE = 0.1


@dataclass(frozen=True, slots=True)
class ColumnView:
    """One column of an analysis: proven (its exact score, or only its outcome), estimated by
    the heuristic search, or full.

    ``proof`` is ``"exact"`` (``score`` on Pons' scale), ``"outcome"`` (``score`` 1, 0 or -1:
    win, draw or loss, the exact score not known), ``"estimate"`` (``score`` on the heuristic
    search's scale, nothing proven) or ``""`` for a full column; ``source`` says who found it:
    ``book``, ``solver`` or ``search`` (the heuristic search's estimate), None for a full column.
    """

    column: int  # 0-based, as the server counts (people read it plus one)
    playable: bool
    score: int | None
    proof: str
    source: Source | None

    @property
    def exact(self) -> bool:
        return self.proof == "exact"

    @property
    def outcome(self) -> Outcome | None:
        """The outcome for the side to move, when proven."""
        if self.proof not in ("exact", "outcome") or self.score is None:
            return None
        return Outcome.of(self.score)

    def result(self, moves: int) -> Proven | None:
        """The proven result at a position of ``moves`` discs (None if not proven), the column's
        disc being the side to move's first move (``solver.result``)."""
        if self.outcome is None or self.score is None:
            return None
        return result(self.score, moves, exact=self.exact)


def best_column(views: list[ColumnView]) -> ColumnView:
    """The column to play: the best proven win or draw (an exact score before an outcome of the
    same kind), and otherwise the best estimate among unproven columns (they may still be
    better than a proven loss); the best proven loss if nothing is unproven.  Ties go to the
    centre."""
    playable = [v for v in views if v.playable]
    order = {c: i for i, c in enumerate(bits.CENTER_ORDER)}
    proven = sorted((v for v in playable if v.outcome is not None),
                    key=lambda v: (-(v.outcome or 0), not v.exact, -(v.score or 0),
                                   order[v.column]))
    unproven = sorted((v for v in playable if v.outcome is None),
                      key=lambda v: (-(v.score or 0), order[v.column]))
    if proven and (proven[0].outcome or 0) >= 0:
        return proven[0]
    if unproven:
        return unproven[0]
    return proven[0]


def _book_views(board: Board, book: Book) -> dict[int, ColumnView]:
    """What the book proves of ``board``'s columns: exact scores, or outcomes."""
    views = {col: ColumnView(col, True, score, "exact", Source.BOOK)
             for col, score in book.column_scores(board).items()}
    for col in board.legal_moves():
        if col in views or board.is_winning_move(col):
            continue
        found = book_outcome(board, col, book)
        if found is not None:
            views[col] = ColumnView(col, True, found, "outcome", Source.BOOK)
    return views


def _prove(board: Board, columns: list[int], deadline: float, solver: Solver, *,
           weak: bool) -> dict[int, int]:
    """What ``solver`` proves of ``columns`` before ``deadline``: each column's outcome (with
    ``weak``) or exact score.  Each column may use an equal share of the time left, so the time
    a quick proof leaves goes to the columns after it; the shared table lets a later column
    profit from an earlier one's work."""
    proven: dict[int, int] = {}
    for i, col in enumerate(columns):
        now = solver.clock()
        share = now + (deadline - now) / (len(columns) - i)
        score = solver.column_score(board, col, share, weak=weak)
        if score is not None:
            proven[col] = score
    return proven


def analyze(board: Board, seconds: float, solver: Solver, *, book: Book | None = None,
            exact: bool = True) -> tuple[list[ColumnView], int]:
    """Every column's view of ``board`` within ``seconds`` of the solver's clock, and the nodes
    the solver searched.

    The book's proofs first; then the solver proves the outcome of every other column (the
    cheaper proof, so that as many columns as possible are proven), in two rounds: a column it
    could not prove in its share of the first round gets another share of what is left, with
    the table its first try filled.  The time left goes to the exact scores of the columns
    whose outcome alone is known (unless not ``exact``: then the analysis ends once every
    outcome is proven).  A column still unproven gets a heuristic estimate from the search, in
    the last ``ESTIMATE_SHARE`` of the time.  A stopped clock
    (``timecontrol.StoppableClock``) ends every stage at once.
    """
    from search import deepest, iterative_deepening

    if board.is_over():
        raise IllegalMove("the game is over after these moves: there is nothing to analyze")
    clock = solver.clock
    start = clock()
    end = start + seconds
    proof_end = start + seconds * (1 - ESTIMATE_SHARE)
    found = _book_views(board, book) if book is not None else {}
    legal = board.legal_moves()
    centre_first = sorted(legal, key=bits.CENTER_ORDER.index)
    nodes_before = solver.nodes
    for _ in range(2):
        unproven = [c for c in centre_first if c not in found]
        for col, score in _prove(board, unproven, proof_end, solver, weak=True).items():
            found[col] = ColumnView(col, True, score, "outcome", Source.SOLVER)
    unproven = [c for c in legal if c not in found]
    inexact = [c for c in centre_first if c in found and not found[c].exact] if exact else []
    for col, score in _prove(board, inexact, proof_end if unproven else end, solver,
                             weak=False).items():
        found[col] = ColumnView(col, True, score, "exact", Source.SOLVER)
    views = [found.get(col, ColumnView(col, col in legal, None, "" if col not in legal else
                                       "estimate", None if col not in legal else Source.SEARCH))
             for col in range(bits.WIDTH)]
    for i, col in enumerate(unproven):
        child = board.play_unchecked(col)
        now = clock()
        slot = max(0.0, (end - now) / (len(unproven) - i))
        found_by_search = deepest(iterative_deepening(child, now + slot, clock=clock))
        views[col] = ColumnView(col, True, -found_by_search.score, "estimate", Source.SEARCH)
    return views, solver.nodes - nodes_before


def analysis_lines(board: Board, views: list[ColumnView], best: ColumnView, nodes: int,
                   elapsed: float) -> list[str]:
    """``analyze``'s table for people: columns 1-7, each proven result in ``Proven``'s words
    and who proved it (Pons' scores are in ``--json``)."""
    first = board.first_player_to_move
    mover, other = symbol(first), symbol(not first)
    lines = [f"{side_words(first)} to move; columns 1-7 as in move strings; results for {mover}:",
             f"  {scale_note(mover, other)}",
             f"{'column':>6}  {'proven result':<36}  {'by':<6}  heuristic estimate (unproven)"]
    for v in views:
        words, by, estimate = "full", "", ""
        if v.playable:
            proven = v.result(board.moves)
            words = proven.words() if proven is not None else ""
            by = (v.source or "") if proven is not None else ""
            estimate = f"~{v.score:+d}" if v.proof == "estimate" else ""
        marker = "  <- best" if v.column == best.column else ""
        lines.append(f"{column_label(v.column):>6}  {words:<36}  {by:<6}  {estimate}{marker}"
                     .rstrip())
    proven = best.result(board.moves)
    if proven is not None:
        verdict = f"proven by the {best.source}: {proven.words()}"
    else:
        verdict = "an estimate: no column was proven better in the time"
    lines.append(f"best move: column {column_label(best.column)}, {verdict}"
                 f"  [{nodes} solver nodes, {elapsed:.2f} s]")
    return lines
