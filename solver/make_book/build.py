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

The entries are held in arrays (``Entries``: sorted keys beside scores, columns and flags), a
layer at a time, so that a book complete to 12 discs (9.2 million positions) builds in a few
GB: the solved layer is read from its work file line by line, and each layer above it is
derived by lookups in the arrays of the one below.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from board import Board, bits
from board.keys import canonical_key
from solver.book import Book, BookEntry, BookError, discs_of, save_book
from solver.core import win_now_score
from solver.make_book.layers import positions_after
from solver.make_book.work import Record, pack, read_params, read_records, record_lines

CENTER_FIRST = bits.CENTER_ORDER


def _entry(record: Record) -> BookEntry:
    _, column = record.canonical()
    # An outcome-only solve of a drawn position knows its exact score: a draw is 0.
    return BookEntry(column, record.score, record.exact or record.score == 0)


class Known(Protocol):
    """The values known so far, by canonical key (a dict, or ``Entries``)."""

    def get(self, key: int, /) -> BookEntry | None: ...


def _child_value(board: Board, col: int, known: Known) -> BookEntry | None:
    """The value for the side to move of playing ``col``, which does not win at once."""
    child = board.play_unchecked(col)
    if child.is_full():
        return BookEntry(col, 0, True)
    found = known.get(canonical_key(child)[0])
    if found is None:
        return None
    return BookEntry(col, -found.score, found.exact)


def derive(board: Board, known: Known) -> BookEntry | None:
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


@dataclass(frozen=True)
class Entries:
    """Book entries in arrays sorted by canonical key (columns in the key's orientation)."""

    keys: np.ndarray  # int64, strictly increasing
    scores: np.ndarray  # int8
    columns: np.ndarray  # int8
    exact: np.ndarray  # bool

    @classmethod
    def of(cls, items: Iterable[tuple[int, BookEntry]]) -> Entries:
        """From ``(key, entry)`` pairs; a later pair of the same key wins."""
        unique = dict(items)
        keys = np.fromiter(unique, dtype=np.int64, count=len(unique))
        order = np.argsort(keys, kind="stable")
        values = list(unique.values())
        return cls(keys[order],
                   np.fromiter((v.score for v in values), np.int8, len(values))[order],
                   np.fromiter((v.column for v in values), np.int8, len(values))[order],
                   np.fromiter((v.exact for v in values), np.bool_, len(values))[order])

    @staticmethod
    def joined(parts: Iterable[Entries]) -> Entries:
        """One set from sets of different keys."""
        parts = list(parts)
        keys = np.concatenate([p.keys for p in parts]) if parts else np.zeros(0, np.int64)
        order = np.argsort(keys, kind="stable")
        return Entries(keys[order], *(np.concatenate([getattr(p, name) for p in parts])[order]
                                      if parts else np.zeros(0, dtype)
                                      for name, dtype in (("scores", np.int8),
                                                          ("columns", np.int8),
                                                          ("exact", np.bool_))))

    def __len__(self) -> int:
        return len(self.keys)

    def get(self, key: int) -> BookEntry | None:
        """The entry of ``key``, or None (the mapping ``derive`` reads)."""
        index = int(np.searchsorted(self.keys, key))
        if index == len(self.keys) or int(self.keys[index]) != key:
            return None
        return BookEntry(int(self.columns[index]), int(self.scores[index]),
                         bool(self.exact[index]))

    def book(self, complete_discs: int) -> Book:
        return Book.of(self.keys, self.scores, self.columns, self.exact, complete_discs)


def layer_entries(work: Path) -> Entries:
    """The solved layer's entries, read from its work file a line at a time."""
    return Entries.of((record.canonical()[0], _entry(record)) for record in record_lines(work))


def derived_layer(depth: int, below: Entries, exact_path: dict[int, BookEntry]
                  ) -> Entries | None:
    """The entries of every position with ``depth`` discs, from the layer ``below`` (None if a
    position of that layer is missing: the solved layer is not complete yet)."""
    derived = []
    for key, moves in positions_after(depth).items():
        known = exact_path.get(key)
        if known is not None and known.exact:
            derived.append((key, known))  # the path has it exact: no need to work it out
            continue
        entry = derive(Board.from_moves(moves), below)
        if entry is None:
            return None
        derived.append((key, entry))
    return Entries.of(derived)


def merged_entries(
    layer: Entries, path_records: dict[int, Record], discs: int | None,
) -> tuple[Entries, int]:
    """Every entry of the book and its deepest complete layer (-1 if the layer is unfinished).

    The layers above ``discs`` are derived when the layer is complete: every one of its
    positions is some position's child, so a missing one shows as a child not found.
    """
    exact_path = {key: _entry(record) for key, record in path_records.items()}
    layers = [layer]
    complete = -1
    if discs is not None and len(layer):
        for depth in range(discs - 1, -1, -1):
            found = derived_layer(depth, layers[-1], exact_path)
            if found is None:
                layers = [layer]
                break
            layers.append(found)
        else:
            complete = discs
    entries = Entries.joined(layers)
    updates = []
    for key, record in path_records.items():
        entry = _entry(record)
        other = entries.get(key)
        if other is not None and other.outcome != entry.outcome:
            raise BookError(f"position {record.moves}: the path's exact score {entry.score} and the"
                            f" layers' outcome {other.outcome} disagree")
        if other is None or not other.exact:
            updates.append((key, entry))
    if updates:
        replaced = Entries.of(updates)
        kept = ~np.isin(entries.keys, replaced.keys)
        entries = Entries.joined([Entries(entries.keys[kept], entries.scores[kept],
                                          entries.columns[kept], entries.exact[kept]),
                                  replaced])
    return entries, complete


def build(
    out: Path, summary: Path, *, path_work: Path | None, layers_work: Path | None,
    pack_work: bool = True,
) -> dict[str, Any]:
    """Write the book and its summary from the work files; return the summary."""
    layer = layer_entries(layers_work) if layers_work else Entries.of([])
    path_records = read_records(path_work) if path_work else {}
    layer_params = read_params(layers_work) if layers_work else {}
    discs = layer_params.get("layer")
    entries, complete = merged_entries(layer, path_records,
                                       int(discs) if discs is not None else None)
    book = entries.book(complete)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_book(book, out)
    if pack_work and path_work and path_work.exists():
        pack(path_work)
    discs_found, counts = np.unique(discs_of(book.keys), return_counts=True)
    by_discs = dict(zip(discs_found.tolist(), counts.tolist(), strict=True))
    path_params = read_params(path_work) if path_work else {}
    layer_seconds = layer_nodes = 0.0
    if layers_work:
        for record in record_lines(layers_work):
            layer_seconds += record.seconds
            layer_nodes += record.nodes
    info: dict[str, Any] = {
        "positions": len(book),
        "exact_positions": int(book.exact.sum()),
        "complete_discs": complete,
        "layer": discs,
        "layer_positions_solved": len(layer),
        "path": path_params,
        "path_positions": len(path_records),
        "positions_by_discs": {str(k): by_discs[k] for k in sorted(by_discs)},
        "solver_seconds": round(layer_seconds + sum(r.seconds for r in path_records.values()), 1),
        "layer_solver_seconds": round(layer_seconds, 1),
        "solver_nodes": int(layer_nodes) + sum(r.nodes for r in path_records.values()),
        "file_bytes": out.stat().st_size,
    }
    summary.write_text(json.dumps(info, indent=2) + "\n")
    return info
