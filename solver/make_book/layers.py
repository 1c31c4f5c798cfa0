"""Complete layers: every position any play reaches with ``n`` discs, solved for its outcome.

``positions_after(n)`` lists them, one per mirror pair (the book's canonical key), each with a
move string in the key's orientation; a position where the game is already over is left out
(nothing is played from it).  ``solve_chunk`` runs in a worker: for each position, the
outcome for the side to move and a column that keeps it (``Solver.best_move(weak=True)``).
``pending`` lists the layer once and what its work file lacks; ``generate`` sends those
positions to an executor in chunks of neighbours in key order and appends each chunk's records
as it comes back.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from batch import BatchExecutor
from board import Board, bits
from board.keys import canonical_key
from solver.make_book.work import Record, WorkFile, read_records
from solver.make_book.worker import worker_solver


def positions_after(discs: int) -> dict[int, str]:
    """``{canonical key: move string}`` of the positions not over after ``discs`` discs.

    The move string's position has the canonical key itself (not its mirror image).
    """
    level: dict[int, tuple[Board, str]] = {Board().key: (Board(), "")}
    for _ in range(discs):
        following: dict[int, tuple[Board, str]] = {}
        for board, moves in level.values():
            if board.is_over():
                continue
            for col in board.legal_moves():
                child = board.play_unchecked(col)
                following.setdefault(child.key, (child, moves + str(col + 1)))
        level = following
    found: dict[int, str] = {}
    for board, moves in level.values():
        if board.is_over():
            continue
        key, mirrored = canonical_key(board)
        if key not in found:
            found[key] = mirror_moves(moves) if mirrored else moves
    return found


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


def pending(discs: int, work: Path) -> Pending:
    """The ``discs`` layer and what ``work`` lacks of it (listing layer 12 takes minutes: once
    per run)."""
    layer = positions_after(discs)
    known = read_records(work)
    return Pending(discs, len(layer), [layer[key] for key in sorted(layer) if key not in known])


def solve_chunk(moves_list: Sequence[str], table_bits: int) -> list[Record]:
    """The outcome and a column keeping it for each position (runs in a worker)."""
    solver = worker_solver(table_bits)
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
    chunk: int = 64,
    stop_at: float = float("inf"),
    progress: Progress | None = None,
    on_interrupt: Callable[[int], None] | None = None,
) -> LayerRun:
    """Solve the positions ``layer`` lists as missing from ``work``, through ``executor``.

    A few chunks per worker are sent ahead (``BatchExecutor.run``): the work goes in key order,
    and a stop takes effect after the chunks already sent.  No chunk is sent after ``stop_at``
    (a ``time.monotonic()`` value).  On Ctrl-C (``KeyboardInterrupt``) no new chunk starts, the
    ones already running are waited for and recorded (``on_interrupt(count)`` is told how
    many), and the interrupt is raised again.
    """
    start = time.monotonic()
    todo = layer.todo
    chunks = [todo[i:i + chunk] for i in range(0, len(todo), chunk)]
    solved = 0
    with WorkFile(work) as out:
        out.params({"layer": layer.discs, "table_bits": table_bits, "chunk": chunk})

        def record(_args: tuple[object, ...], records: list[Record]) -> None:
            nonlocal solved
            out.append(records)
            solved += len(records)
            if progress:
                progress(len(records), sum(r.seconds for r in records))

        sent_all = executor.run(solve_chunk, ((part, table_bits) for part in chunks), record,
                                stop_at=stop_at, on_stopping=on_interrupt)
    return LayerRun(layer.total, layer.done, solved,
                    sent_all and solved == len(todo), time.monotonic() - start)
