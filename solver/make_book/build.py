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
layer at a time, so that a book complete to 13 discs (23 million positions) builds in a few
GB and minutes: the solved layer is read from its work file line by line into arrays
(``read_layer``), and each layer above it is derived by compiled lookups in the arrays of the
one below (``derived_layer``; ``derive`` is the same rule for one position).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from board import Board, bits
from board.keys import mirror
from settings import UsageError
from solver.book import Book, BookEntry, BookError, discs_of, save_book
from solver.core import CELLS, win_now_score
from solver.make_book.layers import Layer, canonical_keys, layers_up_to, replay
from solver.make_book.work import Record, pack, read_params, read_records, record_lines


def _exact(record: Record) -> bool:
    # An outcome-only solve of a drawn position knows its exact score: a draw is 0.
    return record.exact or record.score == 0


def _entry(record: Record) -> BookEntry:
    _, column = record.canonical()
    return BookEntry(column, record.score, _exact(record))


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

    def subset(self, chosen: np.ndarray) -> Entries:
        """The entries ``chosen`` picks (a boolean mask or indices)."""
        return Entries(self.keys[chosen], self.scores[chosen], self.columns[chosen],
                       self.exact[chosen])

    def with_entries(self, other: Entries) -> Entries:
        """These entries with ``other``'s in place of those of the same keys, and ``other``'s
        other keys added."""
        return Entries.joined([self.subset(~np.isin(self.keys, other.keys)), other])

    def get(self, key: int) -> BookEntry | None:
        """The entry of ``key``, or None (the mapping ``derive`` reads)."""
        index = int(np.searchsorted(self.keys, key))
        if index == len(self.keys) or int(self.keys[index]) != key:
            return None
        return BookEntry(int(self.columns[index]), int(self.scores[index]),
                         bool(self.exact[index]))

    def book(self, complete_discs: int) -> Book:
        return Book.of(self.keys, self.scores, self.columns, self.exact, complete_discs)


@dataclass(frozen=True)
class SolvedLayer:
    """The solved layer's entries, and what solving them cost (the sums over its records)."""

    entries: Entries
    seconds: float
    nodes: int


_READ_BATCH = 1 << 20  # records turned into arrays at a time


def read_layer(work: Path) -> SolvedLayer:
    """The solved layer's entries, read from its work file a line at a time and turned into
    arrays a million records at a time (layer 13's 14 million records: a few GB as records,
    a few hundred MB as arrays); the last record of a position wins."""
    parts: list[tuple[np.ndarray, ...]] = []
    seconds, nodes = 0.0, 0
    moves: list[str] = []
    columns: list[int] = []
    scores: list[int] = []
    exact: list[bool] = []

    def flush() -> None:
        try:
            keys, mirrored = canonical_keys(moves)
        except ValueError as exc:
            raise UsageError(f"{work}: {exc}") from None
        column = np.array(columns, dtype=np.int8)
        parts.append((keys, np.array(scores, dtype=np.int8),
                      np.where(mirrored, bits.WIDTH - 1 - column, column).astype(np.int8),
                      np.array(exact, dtype=np.bool_)))
        for batch in (moves, columns, scores, exact):
            batch.clear()

    for record in record_lines(work):
        moves.append(record.moves)
        columns.append(record.column)
        scores.append(record.score)
        exact.append(_exact(record))
        seconds += record.seconds
        nodes += record.nodes
        if len(moves) == _READ_BATCH:
            flush()
    flush()
    keys, score, column, flags = (np.concatenate(arrays) for arrays in zip(*parts, strict=True))
    # The last record of each key: sorted by key, stable, then the last of each run.
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    last = np.append(keys[1:] != keys[:-1], True) if keys.size else np.zeros(0, np.bool_)
    chosen = order[last]
    return SolvedLayer(Entries(keys[last], score[chosen], column[chosen], flags[chosen]),
                       seconds, nodes)


@njit(cache=True)
def _derive_rows(positions: np.ndarray, masks: np.ndarray, discs: int, keys: np.ndarray,
                 scores: np.ndarray, columns: np.ndarray, exact: np.ndarray,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The entries of positions of ``discs`` discs (the side to move's discs and the masks),
    from the layer below in arrays (``Entries``' fields): the scores, the columns (in each
    position's orientation) and the exact flags; and the first position with a child not
    found (-1 if none).  The rule is ``derive``'s."""
    count = positions.size
    out_scores = np.zeros(count, dtype=np.int8)
    out_columns = np.zeros(count, dtype=np.int8)
    out_exact = np.zeros(count, dtype=np.bool_)
    values = np.zeros(bits.WIDTH, dtype=np.int64)
    value_exact = np.zeros(bits.WIDTH, dtype=np.bool_)
    value_columns = np.zeros(bits.WIDTH, dtype=np.int64)
    for i in range(count):
        pos, mask = positions[i], masks[i]
        n = 0
        won = False
        for col in bits.CENTER_ORDER:
            if not bits.can_play(mask, col):
                continue
            cell = bits.drop_cell(mask, col)
            if bits.has_four(pos | cell):
                out_scores[i], out_columns[i], out_exact[i] = win_now_score(discs), col, True
                won = True
                break
            value_columns[n] = col
            if discs + 1 == CELLS:
                values[n], value_exact[n] = 0, True  # the board is full: a draw
            else:
                child = (pos ^ mask) + (mask | cell)
                child = min(child, mirror(child))
                index = np.searchsorted(keys, child)
                if index == keys.size or keys[index] != child:
                    return out_scores, out_columns, out_exact, i
                values[n], value_exact[n] = -scores[index], exact[index]
            n += 1
        if won:
            continue
        best = -1
        for k in range(n):
            best = max(best, np.sign(values[k]))
        is_exact = True  # the values that decide: the winning ones for a win, else all
        best_score = -CELLS
        pick = -1
        for k in range(n):
            keeps = np.sign(values[k]) == best
            # The column keeping the value: the best exact score, else the first.
            if keeps and (pick < 0 or (value_exact[k] and (not value_exact[pick]
                                                          or values[k] > values[pick]))):
                pick = k
            if best <= 0 or keeps:
                is_exact = is_exact and value_exact[k]
                best_score = max(best_score, values[k])
        out_columns[i] = value_columns[pick]
        if best == 0:
            out_scores[i], out_exact[i] = 0, True
        elif is_exact:
            out_scores[i], out_exact[i] = best_score, True
        else:
            out_scores[i], out_exact[i] = best, False
    return out_scores, out_columns, out_exact, -1


def derive(board: Board, below: Entries) -> BookEntry | None:
    """``board``'s entry from its children's values in ``below`` (in ``board``'s orientation),
    or None if a child is unknown.

    The value is the best of the children's (a win at once is the best there is; a full board
    a draw).  It is exact when the children that decide it are exact: the winning ones for a
    win, all of them otherwise (a draw is always exact).  Among the columns keeping the value,
    the one with the best exact score is taken, else the first in centre-first order.
    """
    scores, columns, exact, missing = _derive_rows(
        np.array([board.position], np.int64), np.array([board.mask], np.int64), board.moves,
        below.keys, below.scores, below.columns, below.exact)
    if missing >= 0:
        return None
    return BookEntry(int(columns[0]), int(scores[0]), bool(exact[0]))


def derived_layer(layer: Layer, below: Entries, exact_path: Entries) -> Entries | None:
    """The entries of every position of ``layer``, from the layer ``below`` (None if a
    position of that layer is missing: the solved layer is not complete yet); a position the
    path has exact takes the path's entry."""
    positions, masks, _ = replay(layer.moves)  # (the listing's own move strings: all games)
    scores, columns, exact, missing = _derive_rows(positions, masks, layer.moves.shape[1],
                                                   below.keys, below.scores, below.columns,
                                                   below.exact)
    if missing >= 0:
        return None
    return Entries(layer.keys, scores, columns, exact).with_entries(
        exact_path.subset(np.isin(exact_path.keys, layer.keys)))


def merged_entries(
    layer: Entries, path_records: dict[int, Record], discs: int | None,
) -> tuple[Entries, int]:
    """Every entry of the book and its deepest complete layer (-1 if the layer is unfinished).

    The layers above ``discs`` are derived when the layer is complete: every one of its
    positions is some position's child, so a missing one shows as a child not found.
    """
    exact_path = Entries.of((key, entry) for key, entry in
                            ((key, _entry(record)) for key, record in path_records.items())
                            if entry.exact)
    layers = [layer]
    complete = -1
    if discs is not None and len(layer):
        for above in reversed(list(layers_up_to(discs - 1))):
            found = derived_layer(above, layers[-1], exact_path)
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
    return (entries.with_entries(Entries.of(updates)) if updates else entries), complete


def build(
    out: Path, summary: Path, *, path_work: Path | None, layers_work: Path | None,
    pack_work: bool = True,
) -> dict[str, Any]:
    """Write the book and its summary from the work files; return the summary."""
    solved = read_layer(layers_work) if layers_work else SolvedLayer(Entries.of([]), 0.0, 0)
    layer = solved.entries
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
    layer_seconds, layer_nodes = solved.seconds, solved.nodes
    info: dict[str, Any] = {
        "positions": len(book),
        "exact_positions": int(book.exact.sum()),
        "complete_discs": complete,
        "layer": discs,
        "layer_positions_solved": len(layer),
        # The solved layer's outcomes for its side to move.
        "layer_outcomes": {name: int((np.sign(layer.scores) == sign).sum())
                           for name, sign in (("won", 1), ("drawn", 0), ("lost", -1))},
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
