"""``python -m solver.make_book build``: the book file from the work files, and its summary.

Three sources, merged into one book:

1. the deepest complete layer (``layers``' work file): every position with ``n`` discs, with
   its outcome and a column keeping it;
2. the shallower layers, worked out here without a solver: a position's value is the best of
   its children's (a win at once, a full board, or a child found in the layer below), so the
   whole tree above the solved layer follows from lookups;
3. the path (``path``'s work file): exact scores, which replace an outcome-only entry of the
   same position.  An exact score whose outcome disagrees with the layers' is a bug in one of
   them: the build stops and says which position.

A derived value is exact when the children that decide it are exact (all of them for a loss,
the winning ones for a win; a draw is always exact).  Among the columns keeping the value the
one with the best known exact score is taken, else the first in centre-first order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from board import Board, bits
from board.keys import canonical_key
from solver.book import BookEntry, BookError, build_book, save_book
from solver.core import win_now_score
from solver.make_book.layers import positions_after
from solver.make_book.work import Record, pack, read_params, read_records

CENTER_FIRST = bits.CENTER_ORDER


def _entry(record: Record) -> BookEntry:
    _, column = record.canonical()
    # An outcome-only solve of a drawn position knows its exact score: a draw is 0.
    return BookEntry(column, record.score, record.exact or record.score == 0)


def _child_value(board: Board, col: int, known: dict[int, BookEntry]) -> BookEntry | None:
    """The value for the side to move of playing ``col``, which does not win at once."""
    child = board.play_unchecked(col)
    if child.is_full():
        return BookEntry(col, 0, True)
    found = known.get(canonical_key(child)[0])
    if found is None:
        return None
    return BookEntry(col, -found.score, found.exact)


def derive(board: Board, known: dict[int, BookEntry]) -> BookEntry | None:
    """``board``'s entry from its children's values (in ``board``'s orientation), or None if
    a child is unknown."""
    values = []
    for col in CENTER_FIRST:
        if not board.can_play(col):
            continue
        if board.is_winning_move(col):  # the best score there is
            return BookEntry(col, int(win_now_score(board.moves)), True)
        value = _child_value(board, col, known)
        if value is None:
            return None
        values.append(value)
    best = max(v.outcome for v in values)
    deciding = [v for v in values if v.outcome == best] if best > 0 else values
    exact = best == 0 or all(v.exact for v in deciding)
    keeping = [v for v in values if v.outcome == best]
    exact_keeping = [v for v in keeping if v.exact]
    pick = max(exact_keeping, key=lambda v: v.score) if exact_keeping else keeping[0]
    if best == 0:
        return BookEntry(pick.column, 0, True)
    if exact:
        return BookEntry(pick.column, max(v.score for v in deciding), True)
    return BookEntry(pick.column, best, False)


def merged_entries(
    layer_records: dict[int, Record], path_records: dict[int, Record], discs: int | None,
) -> tuple[dict[int, BookEntry], int]:
    """Every entry of the book and its deepest complete layer (-1 if the layer is unfinished)."""
    entries = {key: _entry(record) for key, record in layer_records.items()}
    complete = -1
    if discs is not None and all(key in entries for key in positions_after(discs)):
        complete = discs
        exact_path = {key: _entry(record) for key, record in path_records.items()}
        for depth in range(discs - 1, -1, -1):
            for key, moves in positions_after(depth).items():
                known = exact_path.get(key)
                if known is not None and known.exact:
                    entries[key] = known  # the path has it exact: no need to work it out
                    continue
                derived = derive(Board.from_moves(moves), entries)
                assert derived is not None  # every child is in the layer below
                entries[key] = derived
    for key, record in path_records.items():
        entry = _entry(record)
        other = entries.get(key)
        if other is not None and other.outcome != entry.outcome:
            raise BookError(f"position {record.moves}: the path's exact score {entry.score} and the"
                            f" layers' outcome {other.outcome} disagree")
        if other is None or not other.exact:
            entries[key] = entry
    return entries, complete


def build(
    out: Path, summary: Path, *, path_work: Path | None, layers_work: Path | None,
    pack_work: bool = True,
) -> dict[str, Any]:
    """Write the book and its summary from the work files; return the summary."""
    layer_records = read_records(layers_work) if layers_work else {}
    path_records = read_records(path_work) if path_work else {}
    layer_params = read_params(layers_work) if layers_work else {}
    discs = layer_params.get("layer")
    entries, complete = merged_entries(layer_records, path_records,
                                       int(discs) if discs is not None else None)
    book = build_book(entries, complete)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_book(book, out)
    if pack_work and path_work and path_work.exists():
        pack(path_work)
    by_discs: dict[int, int] = {}
    for board, _ in book.entries():
        by_discs[board.moves] = by_discs.get(board.moves, 0) + 1
    path_params = read_params(path_work) if path_work else {}
    records = [*layer_records.values(), *path_records.values()]
    info: dict[str, Any] = {
        "positions": len(book),
        "exact_positions": int(book.exact.sum()),
        "complete_discs": complete,
        "layer": discs,
        "layer_positions_solved": len(layer_records),
        "path": path_params,
        "path_positions": len(path_records),
        "positions_by_discs": {str(k): by_discs[k] for k in sorted(by_discs)},
        "solver_seconds": round(sum(r.seconds for r in records), 1),
        "layer_solver_seconds": round(sum(r.seconds for r in layer_records.values()), 1),
        "solver_nodes": sum(r.nodes for r in records),
        "file_bytes": out.stat().st_size,
    }
    summary.write_text(json.dumps(info, indent=2) + "\n")
    return info
