"""The agent's own path through the opening, solved exactly: ``python -m solver.make_book path``.

The path covers the positions where the agent is to move that it can reach in its first plies:

- as **first player**: from the empty board, the book's move, then every opponent reply, the
  book's move again, and so on; every such position up to ``--first-full`` discs is in the
  book;
- as **second player**: from each of the 7 first moves of the opponent, the same way, up to
  ``--second-full`` discs.

Beyond those plies (up to ``--max-ply``) a position enters the book only if it is hard: if a
fresh solver (cleared table, as the engine has at worst) cannot prove it and find its move in
``--easy`` seconds, it is solved without a limit, stored, and its subtree is explored further;
an easy position is stored too (the answer is known) but its subtree is left to the engine's
solver in play, which has more time than ``--easy``.  A later run with a lower ``--easy`` or
higher ``--first-full``/``--second-full`` explores further from the same work file.

The traversal is replayed from the root on every run; answers already in the work file are
reused.  A level's new positions are solved in parallel through the executor; the next level
depends on their columns.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from batch import BatchExecutor
from board import Board, bits
from board.keys import canonical_key
from solver.book import DEFAULT_BOOK_PATH
from solver.make_book.work import Record, WorkFile, read_records
from solver.make_book.worker import worker_solver
from solver.solver import Solver

DEFAULT_WORK_PATH = DEFAULT_BOOK_PATH.with_name("book-work.jsonl")

_checkers: dict[int, Solver] = {}


def solve_path_position(moves: str, easy_seconds: float | None, table_bits: int) -> Record:
    """Solve one position exactly (runs in a worker).

    With ``easy_seconds``, a fresh solver (cleared table, as the engine has at worst) tries
    first; if it finds the move in time, the record is marked easy.  Otherwise the worker's
    long-lived solver solves it without a limit.
    """
    board = Board.from_moves(moves)
    start = time.perf_counter()
    move = None
    if easy_seconds is not None:
        checker = _checkers.setdefault(0, Solver(24))
        checker.table.clear()
        move = checker.best_move(board, deadline=time.perf_counter() + easy_seconds)
    easy = move is not None
    if move is None:
        move = worker_solver(table_bits).best_move(board)
    assert move is not None  # no deadline
    return Record(moves, move.column, move.score, move.exact, move.nodes,
                  time.perf_counter() - start, easy)


Report = Callable[[Record], None]


@dataclass
class Generator:
    """The traversal, level by level; each level's new positions are solved through
    ``executor`` in parallel."""

    work: Path
    first_full: int
    second_full: int
    max_ply: int
    easy_seconds: float
    table_bits: int
    executor: BatchExecutor
    stop_at: float  # time.monotonic() after which no new solve starts
    report: Report | None = None
    on_interrupt: Callable[[int], None] | None = None  # told how many solves Ctrl-C waits for

    def run(self) -> bool:
        """Traverse both trees; False if stopped by the time limit."""
        self.records = read_records(self.work)
        self.new = 0
        with WorkFile(self.work) as out:
            out.params({"first_full": self.first_full, "second_full": self.second_full,
                        "max_ply": self.max_ply, "easy_seconds": self.easy_seconds,
                        "table_bits": self.table_bits})
            self.out = out
            return all(self._traverse(root, moves, full) for root, moves, full in self.roots())

    def roots(self) -> Iterator[tuple[Board, str, int]]:
        yield Board(), "", self.first_full
        for col in range(bits.WIDTH):
            yield Board().play(col), str(col + 1), self.second_full

    def _solve_level(self, level: dict[int, tuple[Board, str]], full: int) -> bool:
        """Solve the positions of ``level`` not in the work file yet; False if out of time."""
        todo = [(moves, self.easy_seconds if board.moves > full else None, self.table_bits)
                for key, (board, moves) in level.items() if key not in self.records]

        def record(_args: tuple[object, ...], solved: Record) -> None:
            self.out.append([solved])
            self.records[solved.canonical()[0]] = solved
            self.new += 1
            if self.report:
                self.report(solved)

        self.executor.run(solve_path_position, todo, record, stop_at=self.stop_at,
                          on_stopping=self.on_interrupt)
        return all(key in self.records for key in level)

    @staticmethod
    def _column(record: Record, board: Board) -> int:
        """The record's column for ``board``, which may be the mirror image of the record's."""
        if record.board().key != board.key:
            return bits.WIDTH - 1 - record.column
        return record.column

    def _easy(self, record: Record) -> bool:
        """Easy by this run's threshold: a run with a lower ``--easy`` explores further below
        positions an earlier run found easy."""
        return record.easy and record.seconds <= self.easy_seconds

    def _traverse(self, root: Board, root_moves: str, full: int) -> bool:
        level = {canonical_key(root)[0]: (root, root_moves)}
        while level:
            if not self._solve_level(level, full):
                return False
            following: dict[int, tuple[Board, str]] = {}
            for key, (board, moves) in level.items():
                record = self.records[key]
                if (self._easy(record) and board.moves > full) or board.moves + 2 > self.max_ply:
                    continue
                child_col = self._column(record, board)
                child = board.play(child_col)
                if child.is_over():
                    continue
                for reply in child.legal_moves():
                    grandchild = child.play(reply)
                    if grandchild.is_over():
                        continue
                    following.setdefault(canonical_key(grandchild)[0],
                                         (grandchild, f"{moves}{child_col + 1}{reply + 1}"))
            level = following
        return True


def print_record(record: Record) -> None:
    """One line per solved position, as the path generator reports its progress."""
    print(f"{record.moves or '-':<16} ply {len(record.moves):2d}  column {record.column}  score "
          f"{record.score:+3d}  {'easy' if record.easy else 'hard'}  {record.seconds:8.2f} s",
          flush=True)
