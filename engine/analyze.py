"""``agent.py analyze``: every column of a position, proven by the book or the solver where that
fits in the time, estimated by the heuristic search where it does not.

It lives with the engine because it uses all three of the engine's stages (book, solver,
search) on one position, column by column.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass

from board import Board, IllegalMove, bits
from settings import load_settings
from solver import Solver, discs_to_end, outcome
from solver.book import Book, load_book
from solver.cli import make_solver

DEFAULT_ANALYZE_SECONDS = 10.0
# Share of analyze's budget kept for heuristic estimates of columns the solver did not prove.
ESTIMATE_SHARE = 0.1


@dataclass(frozen=True, slots=True)
class ColumnView:
    """One column of an analysis: proven (its exact score, or only its outcome), estimated by
    the heuristic search, or full.

    ``proof`` is ``"exact"`` (``score`` on Pons' scale), ``"outcome"`` (``score`` 1, 0 or -1:
    win, draw or loss, the exact score not known), ``"estimate"`` (``score`` on the heuristic
    search's scale, nothing proven) or ``""`` for a full column; ``source`` says who found it:
    ``book``, ``solver`` or ``heuristic``.
    """

    column: int  # 0-based, as the server counts
    playable: bool
    score: int | None
    proof: str
    source: str

    @property
    def exact(self) -> bool:
        return self.proof == "exact"

    @property
    def outcome(self) -> int | None:
        """1 win, 0 draw, -1 loss for the side to move, when proven."""
        if self.proof not in ("exact", "outcome") or self.score is None:
            return None
        return (self.score > 0) - (self.score < 0)

    def proven_words(self, moves: int) -> str:
        """The proven result in words ("" if not proven)."""
        if self.outcome is None or self.score is None:
            return ""
        if self.score == 0:
            return f"draw ({self.source})"
        if not self.exact:
            return f"{outcome(self.score)} ({self.source}; the exact score not proven)"
        after = discs_to_end(self.score, moves)
        return f"{outcome(self.score)} in {after} discs, {self.score:+d} ({self.source})"


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
    views = {col: ColumnView(col, True, score, "exact", "book")
             for col, score in book.column_scores(board).items()}
    for col in board.legal_moves():
        if col in views or board.is_winning_move(col):
            continue
        entry = book.lookup(board.play_unchecked(col))
        if entry is not None and not board.play_unchecked(col).is_full():
            views[col] = ColumnView(col, True, -entry.outcome, "outcome", "book")
    return views


def analyze(board: Board, seconds: float, solver: Solver, *,
            book: Book | None = None) -> tuple[list[ColumnView], int]:
    """Every column's view of ``board`` within ``seconds``, and the nodes the solver searched.

    The book's proofs first; then, for the rest, the solver: the outcome of each column in
    half its share of the time, then the exact score; what is still unproven at the end gets
    a heuristic estimate from the search (``ESTIMATE_SHARE`` of the time).
    """
    from search import deepest, iterative_deepening

    if board.is_over():
        raise IllegalMove("the game is over after these moves: there is nothing to analyze")
    clock = solver.clock
    start = clock()
    deadline = start + seconds * (1 - ESTIMATE_SHARE)
    found = _book_views(board, book) if book is not None else {}
    legal = board.legal_moves()
    nodes_before = solver.nodes
    pending = [c for c in sorted(legal, key=bits.CENTER_ORDER.index)
               if c not in found or not found[c].exact]
    for i, col in enumerate(pending):
        # Each column may use an equal share of the time left; the shared table lets a later
        # column profit from an earlier one's work.
        now = clock()
        share = now + (deadline - now) / (len(pending) - i)
        if col not in found:
            known = solver.column_score(board, col, now + (share - now) / 2, weak=True)
            if known is not None:
                found[col] = ColumnView(col, True, known, "outcome", "solver")
        exact = solver.column_score(board, col, share)
        if exact is not None:
            found[col] = ColumnView(col, True, exact, "exact", "solver")
    views = [found.get(col, ColumnView(col, col in legal, None, "" if col not in legal else
                                       "estimate", "" if col not in legal else "heuristic"))
             for col in range(bits.WIDTH)]
    unproven = [c for c in legal if c not in found]
    estimate_end = start + seconds
    for i, col in enumerate(unproven):
        child = board.play_unchecked(col)
        now = clock()
        slot = max(0.0, (estimate_end - now) / (len(unproven) - i))
        result = deepest(iterative_deepening(child, now + slot, clock=clock))
        views[col] = ColumnView(col, True, -result.score, "estimate", "heuristic")
    return views, solver.nodes - nodes_before


def analyze_command(args: argparse.Namespace, started: float) -> int:
    settings = load_settings(args.config)
    seconds = DEFAULT_ANALYZE_SECONDS if args.time is None else args.time
    board = Board.from_moves(args.moves.strip())
    if board.is_over():
        raise IllegalMove("the game is over after these moves: there is nothing to analyze")
    book = None if args.no_book else load_book(settings.solver.book or None)
    solver = make_solver(None, args.config, book=book)
    start = time.perf_counter()
    views, nodes = analyze(board, seconds, solver, book=book)
    elapsed = time.perf_counter() - start
    best = best_column(views)
    mover = 1 if board.first_player_to_move else 2
    if args.json:
        print(json.dumps({
            "moves": args.moves.strip(),
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
        return 0
    symbol = "X" if mover == 1 else "O"
    print(board)
    print()
    print(f"{symbol} to move (player {mover}); columns 0-6 as the server counts them; scores for"
          f" {symbol}")
    print(f"{'column':>6}  {'proven (Pons: +win, 22 - own discs at the end)':<46}"
          f"  {'heuristic estimate (unproven)'}")
    for v in views:
        if not v.playable:
            proven, estimate = "full", ""
        else:
            proven = v.proven_words(board.moves)
            estimate = f"~{v.score:+d}" if v.proof == "estimate" else ""
        marker = "  <- best" if v.column == best.column else ""
        print(f"{v.column:>6}  {proven:<46}  {estimate}{marker}".rstrip())
    if best.outcome is not None:
        verdict = f"proven: {best.proven_words(board.moves)}"
    else:
        verdict = "an estimate: no column was proven better in the time"
    print(f"best move: column {best.column}, {verdict}  [{nodes} solver nodes, {elapsed:.2f} s]")
    return 0
