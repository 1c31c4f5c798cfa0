"""Build the opening book with our own solver: ``python -m solver.make_book generate|build|status``.

The book covers the positions where the agent is to move that it can reach in its first plies:

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

Every answer is appended to a work file (JSON lines) as soon as it is known, so an interrupted
run resumes where it stopped: the traversal is replayed from the root, answers already in the
work file are reused.  ``build`` turns the work file into the compact book (``solver.book``),
a summary of the compute it took, and a compressed copy of the work file, which is what the
repository ships (a fresh clone unpacks it on the first ``generate`` to extend the book).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from board import Board, bits
from solver.book import DEFAULT_BOOK_PATH, build_book, canonical_key, save_book
from solver.solver import Solver

DEFAULT_WORK_PATH = DEFAULT_BOOK_PATH.with_name("book-work.jsonl")


def packed(work: Path) -> Path:
    """The compressed copy of a work file that is shipped (the work file itself is not)."""
    return work.with_name(work.name + ".gz")


def _work_text(path: Path) -> str:
    """A work file's text (``.gz``: compressed); a missing work file is unpacked from its
    shipped copy if there is one."""
    if path.suffix == ".gz":
        return gzip.decompress(path.read_bytes()).decode()
    if not path.exists() and packed(path).exists():
        path.write_bytes(gzip.decompress(packed(path).read_bytes()))
    return path.read_text() if path.exists() else ""
SUMMARY_PATH = DEFAULT_BOOK_PATH.with_name("book.json")


@dataclass(frozen=True)
class Record:
    """One solved position of the work file (``column`` 0-based, in ``moves``' orientation)."""

    moves: str
    column: int
    score: int
    nodes: int
    seconds: float
    easy: bool

    def to_json(self) -> str:
        return json.dumps({"moves": self.moves, "column": self.column, "score": self.score,
                           "nodes": self.nodes, "seconds": round(self.seconds, 3),
                           "easy": self.easy})


def read_params(path: Path) -> dict[str, object]:
    """The parameters of the last run recorded in a work file ({} if none)."""
    params: dict[str, object] = {}
    for line in _work_text(path).splitlines():
        if line.startswith('{"params"'):
            try:
                params = json.loads(line)["params"]
            except json.JSONDecodeError:
                continue
    return params


def read_work(path: Path) -> dict[int, Record]:
    """The records of a work file by canonical key (a torn last line is ignored)."""
    records: dict[int, Record] = {}
    for line in _work_text(path).splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut short by an interruption
        if "moves" not in data:
            continue  # a run's parameters
        record = Record(data["moves"], data["column"], data["score"], data["nodes"],
                        data["seconds"], data["easy"])
        key, _ = canonical_key(Board.from_moves(record.moves))
        records[key] = record
    return records


@dataclass
class Generator:
    """The traversal; ``solver`` keeps a large table for the whole run."""

    work: Path
    first_full: int
    second_full: int
    max_ply: int
    easy_seconds: float
    solver: Solver
    stop_at: float  # time.monotonic() after which no new solve starts

    def __post_init__(self) -> None:
        self.records = read_work(self.work)
        self.checker = Solver(24)  # the easy test: a fresh small table each time
        self.new = 0
        params = {"first_full": self.first_full, "second_full": self.second_full,
                  "max_ply": self.max_ply, "easy_seconds": self.easy_seconds,
                  "table_bits": self.solver.table.bits}
        with self.work.open("a") as handle:
            handle.write(json.dumps({"params": params}) + "\n")

    def _record(self, board: Board, moves: str) -> Record | None:
        key, _ = canonical_key(board)
        if key in self.records:
            return self.records[key]
        if time.monotonic() >= self.stop_at:
            return None
        full = self.first_full if board.moves % 2 == 0 else self.second_full
        start = time.perf_counter()
        move = None
        easy = False
        if board.moves > full:
            self.checker.table.clear()
            move = self.checker.best_move(board, deadline=time.perf_counter() + self.easy_seconds)
            easy = move is not None
        if move is None:
            move = self.solver.best_move(board)
        assert move is not None  # no deadline
        record = Record(moves, move.column, move.score, move.nodes,
                        time.perf_counter() - start, easy)
        with self.work.open("a") as handle:
            handle.write(record.to_json() + "\n")
        self.records[key] = record
        self.new += 1
        print(f"{moves or '-':<16} ply {board.moves:2d}  column {move.column + 1}  score "
              f"{move.score:+3d}  {'easy' if easy else 'hard'}  {record.seconds:8.2f} s  "
              f"({len(self.records)} positions)", flush=True)
        return record

    @staticmethod
    def _column(record: Record, board: Board) -> int:
        """The record's column for ``board``, which may be the mirror image of the record's."""
        if Board.from_moves(record.moves).key != board.key:
            return bits.WIDTH - 1 - record.column
        return record.column

    def _easy(self, record: Record) -> bool:
        """Easy by this run's threshold: a run with a lower ``--easy`` explores further below
        positions an earlier run found easy."""
        return record.easy and record.seconds <= self.easy_seconds

    def roots(self) -> Iterator[tuple[Board, str, int]]:
        yield Board(), "", self.first_full
        for col in range(bits.WIDTH):
            yield Board().play(col), str(col + 1), self.second_full

    def run(self) -> bool:
        """Traverse both trees; False if stopped by the time limit."""
        return all(self._traverse(root, moves, full) for root, moves, full in self.roots())

    def _traverse(self, root: Board, root_moves: str, full: int) -> bool:
        level = {canonical_key(root)[0]: (root, root_moves)}
        while level:
            following: dict[int, tuple[Board, str]] = {}
            for board, moves in level.values():
                record = self._record(board, moves)
                if record is None:
                    return False
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
                    key, _ = canonical_key(grandchild)
                    following.setdefault(
                        key, (grandchild, f"{moves}{child_col + 1}{reply + 1}")
                    )
            level = following
        return True


def build(work: Path, out: Path, summary: Path) -> dict[str, object]:
    """Write the book and its summary from the work file; return the summary."""
    records = read_work(work)
    entries: dict[int, tuple[int, int]] = {}
    for key, record in records.items():
        board = Board.from_moves(record.moves)
        _, mirrored = canonical_key(board)
        col = bits.WIDTH - 1 - record.column if mirrored else record.column
        entries[key] = (col, record.score)
    book = build_book(entries)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_book(book, out)
    # mtime=0: the same work file always packs to the same bytes.
    packed(work).write_bytes(gzip.compress(work.read_bytes(), mtime=0))
    plies: dict[int, int] = {}
    for record in records.values():
        n = len(record.moves)
        plies[n] = plies.get(n, 0) + 1
    params = read_params(work)
    threshold = float(str(params.get("easy_seconds", "inf")))

    def hard(r: Record) -> bool:
        return not (r.easy and r.seconds <= threshold)

    sides = {"first_player": [r for r in records.values() if len(r.moves) % 2 == 0],
             "second_player": [r for r in records.values() if len(r.moves) % 2 == 1]}
    info: dict[str, object] = {
        **params,
        "positions": len(book),
        "hard_positions": sum(hard(r) for r in records.values()),
        **{f"{side}_positions": len(rs) for side, rs in sides.items()},
        **{f"{side}_deepest_hard_ply": max((len(r.moves) for r in rs if hard(r)), default=0)
           for side, rs in sides.items()},
        "positions_by_ply": {str(k): plies[k] for k in sorted(plies)},
        "solver_seconds": round(sum(r.seconds for r in records.values()), 1),
        "solver_nodes": sum(r.nodes for r in records.values()),
        "slowest": (max(records.values(), key=lambda r: r.seconds).moves or "(empty board)"
                    if records else None),
        "slowest_seconds": round(max((r.seconds for r in records.values()), default=0.0), 1),
        "file_bytes": out.stat().st_size,
    }
    summary.write_text(json.dumps(info, indent=2) + "\n")
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.make_book", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="solve positions, appending to the work file")
    gen.add_argument("--work", type=Path, default=DEFAULT_WORK_PATH)
    gen.add_argument("--first-full", type=int, default=6, metavar="PLY",
                     help="as first player, every position up to PLY discs (default 6)")
    gen.add_argument("--second-full", type=int, default=3, metavar="PLY",
                     help="as second player, every position up to PLY discs (default 3)")
    gen.add_argument("--max-ply", type=int, default=20, metavar="PLY",
                     help="no position with more discs (default 20)")
    gen.add_argument("--easy", type=float, default=0.3, metavar="S",
                     help="a position a fresh solver settles in S seconds is easy (default 0.3)")
    gen.add_argument("--table-bits", type=int, default=26, metavar="B")
    gen.add_argument("--hours", type=float, default=None, metavar="H",
                     help="start no new solve after H hours")
    bld = sub.add_parser("build", help="write the book file from the work file")
    bld.add_argument("--work", type=Path, default=DEFAULT_WORK_PATH)
    bld.add_argument("--out", type=Path, default=DEFAULT_BOOK_PATH)
    bld.add_argument("--summary", type=Path, default=SUMMARY_PATH)
    args = parser.parse_args(argv)
    if args.command == "build":
        info = build(args.work, args.out, args.summary)
        print(json.dumps(info, indent=2))
        return 0
    stop_at = time.monotonic() + (args.hours * 3600 if args.hours else float("inf"))
    args.work.parent.mkdir(parents=True, exist_ok=True)
    generator = Generator(args.work, args.first_full, args.second_full, args.max_ply,
                          args.easy, Solver(args.table_bits), stop_at)
    complete = generator.run()
    print(f"{'complete' if complete else 'stopped by --hours'}: {generator.new} new positions,"
          f" {len(generator.records)} in {args.work}", file=sys.stderr)
    return 0 if complete else 3


if __name__ == "__main__":
    sys.exit(main())
