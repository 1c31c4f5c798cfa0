"""What an opening book costs: its size on disk, its first unpacking and its load, a lookup,
and the memory of a move in strongest mode, for the shipped book beside others, in one run.

    python bench/book_bench.py [BOOK ...] [--unpacks 3] [--loads 21] [--lookups 20000]
                               [--rss-runs 3] [--json FILE]

For each book (default: the shipped one, ``solver/data/book.bin``):

- ``file_bytes`` and the positions it holds, with its complete layers;
- ``unpack_seconds``: the first load on a machine, the compressed file unpacked into the
  cache (``solver.bookfile``: decompress, the SHA-256, the keys added up and checked, written
  into the mapped file) and mapped, the median of ``--unpacks`` (each into an empty cache);
- ``load_milliseconds``: every later load, the cached file mapped and checked
  (``solver.bookfile.mapped_packed``: the header, the size, 1,024 sampled entries), the median
  of ``--loads``; ``read_seconds`` beside it, reading the whole book into memory as the
  program did before the mapped form (``solver.book.read_book``), the median of three;
- ``lookup_microseconds``: ``Book.lookup`` from Python on positions of its complete layers
  reached by random play (the canonical key, the binary search, the entry made), the median
  of five passes over ``--lookups`` positions;
- ``move_max_rss_mb``: the peak resident memory of ``agent.py move 44 --mode strongest --time
  0.1`` in a fresh process with that book (``solver.book`` in a config file written for the
  run; the book unpacked already), the median of ``--rss-runs`` processes, and the same with
  ``--mode course`` (no book, no solver) for reference.

The run unpacks into a temporary cache folder of its own (``CONNECT4_AGENT_CACHE``), never the
user's.  The books are measured in turn within each repetition, so a change in the machine's
load touches them all; compare them by ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.commands_bench import peak_run  # noqa: E402
from board import Board  # noqa: E402
from solver import bookfile  # noqa: E402
from solver.book import DEFAULT_BOOK_PATH, Book, read_book  # noqa: E402


def positions_in(book: Book, count: int, seed: int) -> list[Board]:
    """``count`` positions of ``book``'s complete layers, reached by random play (not over)."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        board = Board()
        target = rng.randint(0, max(book.complete_discs, 0))
        while board.moves < target and not board.is_over():
            board = board.play_unchecked(rng.choice(board.legal_moves()))
        if not board.is_over():
            found.append(board)
    return found


def lookup_microseconds(book: Book, boards: list[Board]) -> float:
    passes = []
    for _ in range(5):
        start = time.perf_counter()
        for board in boards:
            book.lookup(board)
        passes.append((time.perf_counter() - start) / len(boards) * 1e6)
    return statistics.median(passes)


def move_max_rss_mb(book: Path | None, mode: str) -> float:
    """The peak resident memory (MB) of one ``agent.py move`` process."""
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.toml"
        # json.dumps quotes the path as a TOML basic string (backslashes and quotes escaped)
        config.write_text(f"[solver]\nbook = {json.dumps(str(book))}\n" if book else "")
        return peak_run([str(ROOT / "agent.py"), "move", "44", "--mode", mode, "--time", "0.1",
                         "--config", str(config)])[1]


def _timed(call: Any) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _is_mapped(path: Path) -> bool:
    with path.open("rb") as handle:
        return handle.read(8) == bookfile.MAP_MAGIC


def measure(paths: list[Path], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each book's row (see the docstring), in the cache folder of ``CONNECT4_AGENT_CACHE``."""
    unpacks: dict[Path, list[float]] = {path: [] for path in paths}
    for _ in range(args.unpacks):
        for path in paths:
            for cached in bookfile.cache_folder().glob("book-*.map"):
                cached.unlink()
            unpacks[path].append(_timed(lambda path=path: bookfile.mapped_packed(path)))
    for path in paths:
        bookfile.mapped_packed(path)  # the cache of every book, for the loads and the moves
    loads: dict[Path, list[float]] = {path: [] for path in paths}
    reads: dict[Path, list[float]] = {path: [] for path in paths}
    for repetition in range(args.loads):
        for path in paths:
            loads[path].append(_timed(lambda path=path: bookfile.mapped_packed(path)))
            if repetition < 3 and not _is_mapped(path):
                reads[path].append(_timed(lambda path=path: read_book(path)))
    rss: dict[Path, list[float]] = {path: [] for path in paths}
    for _ in range(args.rss_runs):
        for path in paths:
            rss[path].append(move_max_rss_mb(path, "strongest"))
    rows: list[dict[str, Any]] = []
    for path in paths:
        book = Book(bookfile.mapped_packed(path))
        boards = positions_in(book, args.lookups, args.seed)
        rows.append({
            "book": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path),
            "file_bytes": path.stat().st_size,
            "positions": len(book),
            "complete_discs": book.complete_discs,
            "unpack_seconds": statistics.median(unpacks[path]),
            "load_milliseconds": statistics.median(loads[path]) * 1000,
            "read_seconds": statistics.median(reads[path]) if reads[path] else float("nan"),
            "lookup_microseconds": lookup_microseconds(book, boards),
            "move_max_rss_mb": statistics.median(rss[path]),
        })
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("books", nargs="*", type=Path, metavar="BOOK",
                        help=f"book files (default: {DEFAULT_BOOK_PATH.relative_to(ROOT)})")
    parser.add_argument("--unpacks", type=int, default=3, metavar="N")
    parser.add_argument("--loads", type=int, default=21, metavar="N")
    parser.add_argument("--lookups", type=int, default=20_000, metavar="N")
    parser.add_argument("--rss-runs", type=int, default=3, metavar="N")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, metavar="FILE")
    args = parser.parse_args(argv)
    paths = [path.resolve() for path in args.books] or [DEFAULT_BOOK_PATH]
    for path in paths:
        if not path.is_file():
            parser.error(f"{path} is not a file")

    cache = Path(tempfile.mkdtemp(prefix="book-bench-"))
    os.environ[bookfile.CACHE_ENV] = str(cache)  # (the agent.py processes below inherit it)
    try:
        rows = measure(paths, args)
        course = [move_max_rss_mb(None, "course") for _ in range(args.rss_runs)]
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    course_rss = statistics.median(course)
    print(f"{'book':<32} {'bytes':>11} {'positions':>10} {'complete':>8} {'unpack':>7}"
          f" {'load':>8} {'read':>7} {'lookup':>8} {'move RSS':>9}")
    for row in rows:
        print(f"{row['book']:<32} {row['file_bytes']:>11,} {row['positions']:>10,}"
              f" {row['complete_discs']:>8} {row['unpack_seconds']:>6.2f}s"
              f" {row['load_milliseconds']:>6.2f}ms {row['read_seconds']:>6.2f}s"
              f" {row['lookup_microseconds']:>6.1f}us {row['move_max_rss_mb']:>7.0f}MB")
    print(f"course mode's move (no book, no solver): {course_rss:.0f} MB")
    if args.json:
        args.json.write_text(json.dumps({"books": rows, "course_move_max_rss_mb": course_rss,
                                         "unpacks": args.unpacks, "loads": args.loads,
                                         "lookups": args.lookups, "rss_runs": args.rss_runs},
                                        indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
