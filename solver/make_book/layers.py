"""Complete layers: every position any play reaches with ``n`` discs, solved for its outcome.

``layer_positions(n)`` lists them, one per mirror pair (the book's canonical key), each with a
move string in the key's orientation (on arrays: layer 13 holds 14.1 million positions); a
position where the game is already over is left out (nothing is played from it).
``solve_chunk`` runs in a worker: for each position, the outcome for the side to move and a
column that keeps it (``Solver.best_move(weak=True)``).
``pending`` lists the layer once and what its work file lacks; ``generate`` sends those
positions to an executor in chunks of neighbours in key order and appends each chunk's records
as it comes back.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from batch import BatchExecutor
from board import Board, bits
from board.keys import mirror
from solver.make_book.work import Record, WorkFile, record_moves
from solver.make_book.worker import worker_solver


@njit(cache=True)
def _children(positions: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, ...]:
    """Every position one disc on from each of the given ones, those not over, duplicates
    kept: its canonical key, and the parent's index, the column played (0-based) and whether
    the canonical key is the mirror image's."""
    count = positions.size
    keys = np.empty(count * bits.WIDTH, dtype=np.int64)
    parents = np.empty(count * bits.WIDTH, dtype=np.int64)
    columns = np.empty(count * bits.WIDTH, dtype=np.uint8)
    mirrored = np.empty(count * bits.WIDTH, dtype=np.bool_)
    n = 0
    for i in range(count):
        pos, mask = positions[i], masks[i]
        for col in range(bits.WIDTH):
            if not bits.can_play(mask, col):
                continue
            cell = bits.drop_cell(mask, col)
            if bits.has_four(pos | cell):
                continue  # the game is over there
            key = (pos ^ mask) + (mask | cell)
            flipped = mirror(key)
            keys[n] = min(key, flipped)
            parents[n] = i
            columns[n] = col
            mirrored[n] = flipped < key
            n += 1
    return keys[:n], parents[:n], columns[:n], mirrored[:n]


@njit(cache=True)
def _next_level(positions: np.ndarray, masks: np.ndarray, moves: np.ndarray, chosen: np.ndarray,
                parents: np.ndarray, columns: np.ndarray, mirrored: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``chosen`` children (indices into ``parents``, ``columns``, ``mirrored``), each in
    its canonical orientation: the side to move's discs, the masks and the move strings'
    columns (1-based, one row a position)."""
    count = chosen.size
    out_positions = np.empty(count, dtype=np.int64)
    out_masks = np.empty(count, dtype=np.int64)
    out_moves = np.empty((count, moves.shape[1] + 1), dtype=np.uint8)
    for i in range(count):
        child = chosen[i]
        parent = parents[child]
        cell = bits.drop_cell(masks[parent], columns[child])
        pos, mask = positions[parent] ^ masks[parent], masks[parent] | cell
        out_moves[i, :-1] = moves[parent]
        out_moves[i, -1] = columns[child] + 1
        if mirrored[child]:
            pos, mask = mirror(pos), mirror(mask)
            for j in range(out_moves.shape[1]):
                out_moves[i, j] = bits.WIDTH + 1 - out_moves[i, j]
        out_positions[i], out_masks[i] = pos, mask
    return out_positions, out_masks, out_moves


@dataclass(frozen=True)
class Layer:
    """The positions not over after ``discs`` discs, one per mirror pair: ``keys`` (canonical,
    increasing) and, row by row, the move string reaching each in that key's orientation
    (``moves``: 1-based columns as bytes)."""

    keys: np.ndarray
    moves: np.ndarray

    def __len__(self) -> int:
        return int(self.keys.size)

    def move_strings(self, rows: np.ndarray | None = None) -> list[str]:
        """The move strings of ``rows`` (indices; all by default)."""
        chosen = self.moves if rows is None else self.moves[rows]
        if chosen.shape[1] == 0:
            return [""] * chosen.shape[0]
        text = (chosen + ord("0")).view(f"S{chosen.shape[1]}").ravel()
        return [item.decode() for item in text.tolist()]


def layers_up_to(discs: int) -> Iterator[Layer]:
    """The layers of 0 to ``discs`` discs in turn, computed on arrays (layer 13 holds 14.1
    million positions: about 15 s and 2.3 GB)."""
    positions = np.zeros(1, dtype=np.int64)
    masks = np.zeros(1, dtype=np.int64)
    moves = np.zeros((1, 0), dtype=np.uint8)
    yield Layer(positions + masks, moves)
    for _ in range(discs):
        keys, parents, columns, mirrored = _children(positions, masks)
        keys, chosen = np.unique(keys, return_index=True)
        positions, masks, moves = _next_level(positions, masks, moves, chosen, parents,
                                              columns, mirrored)
        del parents, columns, mirrored, chosen
        yield Layer(keys, moves)


def layer_positions(discs: int) -> Layer:
    """Every position any play reaches with ``discs`` discs, not over, one per mirror pair."""
    (last,) = deque(layers_up_to(discs), maxlen=1)  # only the last layer kept in memory
    return last


def positions_after(discs: int) -> dict[int, str]:
    """``{canonical key: move string}`` of the positions not over after ``discs`` discs
    (``layer_positions`` as a mapping).

    The move string's position has the canonical key itself (not its mirror image).
    """
    layer = layer_positions(discs)
    return dict(zip(layer.keys.tolist(), layer.move_strings(), strict=True))


def mirror_moves(moves: str) -> str:
    """The move string of the mirror image (column ``c`` becomes ``8 - c``, 1-based)."""
    return "".join(str(bits.WIDTH + 1 - int(m)) for m in moves)


@dataclass(frozen=True)
class Pending:
    """The ``discs`` layer's ``total`` positions, and the move strings of those its work file
    lacks (``todo``), in key order."""

    discs: int
    total: int
    todo: list[str]

    @property
    def done(self) -> int:
        return self.total - len(self.todo)


@njit(cache=True)
def replay(moves: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The position after each row of ``moves`` (1-based columns; a row shorter than the
    matrix ends at its first 0), as a Board holds it: the side to move's discs and the mask;
    and the first row that is not a game (a full column played, or a move after a win), or
    -1.  (The digits are taken to be 1-7: ``move_matrix`` checks them.)"""
    positions = np.zeros(moves.shape[0], dtype=np.int64)
    masks = np.zeros(moves.shape[0], dtype=np.int64)
    for i in range(moves.shape[0]):
        pos = mask = 0
        for j in range(moves.shape[1]):
            if moves[i, j] == 0:
                break
            if not bits.can_play(mask, moves[i, j] - 1) or bits.has_four(pos ^ mask):
                return positions, masks, i  # (pos ^ mask: the discs of the side that just played)
            pos ^= mask
            mask |= bits.drop_cell(mask, moves[i, j] - 1)
        positions[i], masks[i] = pos, mask
    return positions, masks, -1


@njit(cache=True)
def _canonical_keys(positions: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The canonical key of each position, and whether it is the mirror image's."""
    keys = np.empty(positions.size, dtype=np.int64)
    mirrored = np.empty(positions.size, dtype=np.bool_)
    for i in range(positions.size):
        key = positions[i] + masks[i]
        flipped = mirror(key)
        keys[i] = min(key, flipped)
        mirrored[i] = flipped < key
    return keys, mirrored


def move_matrix(strings: Sequence[str]) -> np.ndarray:
    """Move strings as rows of 1-based columns (uint8), a shorter one ended by zeros;
    ``ValueError`` naming the first string that is not made of the digits 1-7."""
    width = max((len(moves) for moves in strings), default=0)
    text = "".join(moves.ljust(width, "0") for moves in strings).encode()
    if len(text) != len(strings) * width:  # a character beyond ASCII
        bad = next(moves for moves in strings if not moves.isascii())
        raise ValueError(f"move string {bad!r}: not made of the digits 1-7")
    matrix = np.frombuffer(text, dtype=np.uint8).reshape(len(strings), width) - ord("0")
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    played = np.arange(width) < lengths[:, None]
    wrong = np.flatnonzero((played & ((matrix < 1) | (matrix > bits.WIDTH))).any(axis=1))
    if wrong.size:
        raise ValueError(f"move string {strings[wrong[0]]!r}: not made of the digits 1-7")
    return matrix


def canonical_keys(strings: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The canonical key of the position after each move string (``canonical_key`` on arrays,
    without a Board each), and whether it is the mirror image's key; ``ValueError`` naming the
    first string that is not a game (as ``Board.from_moves`` refuses it)."""
    positions, masks, bad = replay(move_matrix(strings))
    if bad >= 0:
        raise ValueError(f"move string {strings[bad]!r}: a full column played, or a move after"
                         " a win")
    return _canonical_keys(positions, masks)


def recorded_keys(work: Path, discs: int) -> np.ndarray:
    """The canonical keys of the positions of ``discs`` discs that ``work`` has records of."""
    return canonical_keys([moves for moves in record_moves(work) if len(moves) == discs])[0]


def pending(discs: int, work: Path) -> Pending:
    """The ``discs`` layer and what ``work`` lacks of it (listing layer 13 takes about 15 s: once
    per run)."""
    layer = layer_positions(discs)
    missing = np.flatnonzero(~np.isin(layer.keys, recorded_keys(work, discs)))
    return Pending(discs, len(layer), layer.move_strings(missing))


def solve_chunk(moves_list: Sequence[str], table_bits: int, with_book: bool = False) -> list[Record]:
    """The outcome and a column keeping it for each position (runs in a worker); ``with_book``,
    the solver takes the bounds of the shipped book, complete to the layer below (the same
    answers, often without a search: ``Solver.book_bounds``)."""
    solver = worker_solver(table_bits, with_book)
    records = []
    for moves in moves_list:
        board = Board.from_moves(moves)
        start = time.perf_counter()
        move = solver.best_move(board, weak=True)
        assert move is not None  # no deadline
        records.append(Record(moves, move.column, move.score, move.exact, move.nodes,
                              time.perf_counter() - start))
    return records


Progress = Callable[[int, float], None]
"""Called with the number of positions just solved and the solver seconds they took."""


@dataclass(frozen=True)
class LayerRun:
    """What a ``generate`` call did: ``total`` positions in the layer, ``done`` solved before it
    started, ``solved`` by it; ``complete`` unless interrupted or out of time."""

    total: int
    done: int
    solved: int
    complete: bool
    seconds: float


def generate(
    layer: Pending,
    work: Path,
    executor: BatchExecutor,
    *,
    table_bits: int,
    with_book: bool = False,
    chunk: int = 64,
    stop_at: float = float("inf"),
    progress: Progress | None = None,
    on_interrupt: Callable[[int], None] | None = None,
) -> LayerRun:
    """Solve the positions ``layer`` lists as missing from ``work``, through ``executor``.

    A few chunks per worker are sent ahead (``BatchExecutor.run``): the work goes in key order,
    and a stop takes effect after the chunks already sent.  No chunk is sent after ``stop_at``
    (a ``time.monotonic()`` value).  With ``with_book``, the workers' solvers take the bounds of
    their shipped book, which must be complete to the layer below.  On Ctrl-C
    (``KeyboardInterrupt``) no new chunk starts, the ones already running are waited for and
    recorded (``on_interrupt(count)`` is told how many), and the interrupt is raised again.
    """
    start = time.monotonic()
    todo = layer.todo
    chunks = [todo[i:i + chunk] for i in range(0, len(todo), chunk)]
    solved = 0
    with WorkFile(work) as out:
        out.params({"layer": layer.discs, "table_bits": table_bits, "chunk": chunk,
                    "with_book": with_book})

        def record(_args: tuple[object, ...], records: list[Record]) -> None:
            nonlocal solved
            out.append(records)
            solved += len(records)
            if progress:
                progress(len(records), sum(r.seconds for r in records))

        sent_all = executor.run(solve_chunk, ((part, table_bits, with_book) for part in chunks), record,
                                stop_at=stop_at, on_stopping=on_interrupt)
    return LayerRun(layer.total, layer.done, solved,
                    sent_all and solved == len(todo), time.monotonic() - start)
