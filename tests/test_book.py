"""The opening book: file format checks, mirror lookups, and the shipped book against the solver."""

from __future__ import annotations

import hashlib
import itertools
import json
import mmap
import random
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from batch import BatchExecutor, open_executor
from board import Board, bits
from board.keys import canonical_key
from solver import Solver, bookfile, core
from solver.book import (
    DEFAULT_BOOK_PATH,
    Book,
    BookEntry,
    BookError,
    build_book,
    decode_key,
    discs_of,
    load_book,
    read_book,
    save_book,
)
from solver.bookfile import CACHE_ENV, MAGIC, MAGIC_V1, MAGIC_V2, MAP_HEADER_BYTES, MAP_MAGIC
from solver.make_book.build import build
from solver.make_book.cli import DEFAULT_LAYERS_WORK as LAYERS_WORK
from solver.make_book.cli import SUMMARY_PATH
from solver.make_book.path import DEFAULT_WORK_PATH, Generator
from solver.make_book.work import Record, WorkFile, read_records, record_lines
from tests.helpers import random_position

ROOT = Path(__file__).resolve().parent.parent


def small_book(tmp_path: Path) -> Path:
    board = Board.from_moves("1")  # not its own mirror image
    key, mirrored = canonical_key(board)
    col = 5 if mirrored else 1  # "column 1 (0-based) from board's view", stored canonically
    path = tmp_path / "book.bin"
    save_book(build_book({key: BookEntry(col, -3, True),
                          canonical_key(Board())[0]: BookEntry(3, 1, False)}), path)
    return path


def test_one_int64_an_entry_keeps_every_value_and_bounds_it_for_the_core() -> None:
    """Every exact score, both outcome-only results and every column survive the packing, in
    key order, and the core reads the bounds each value gives (an outcome bounds one side; a
    draw is always exact)."""
    rng = random.Random(8)
    values = [(s, True) for s in range(core.MIN_SCORE, core.MAX_SCORE + 1)]
    values += [(1, False), (-1, False), (0, False)]
    keys = np.array(sorted(rng.sample(range(1, 1 << 49), len(values))), dtype=np.int64)
    columns = np.array([rng.randrange(bits.WIDTH) for _ in values], dtype=np.int8)
    scores = np.array([s for s, _ in values], dtype=np.int8)
    exact = np.array([e for _, e in values], dtype=np.uint8)
    book = Book.of(keys, scores, columns, exact, complete_discs=7)
    assert book.complete_discs == 7 and len(book) == len(values)
    assert (book.keys == keys).all() and (book.columns == columns).all()
    assert (book.scores == scores).all()
    assert book.exact.tolist() == [1] * (len(values) - 3) + [0, 0, 1]  # the draw: exact
    for i, (score, is_exact) in enumerate(values):
        low, high = core.book_bounds(int(book.packed[1 + i]))
        if is_exact or score == 0:
            assert low == high == score
        else:
            assert (low, high) == ((1, core.MAX_SCORE) if score > 0 else (core.MIN_SCORE, -1))


def test_decode_key_inverts_the_key() -> None:
    rng = random.Random(1)
    for _ in range(300):
        board, _ = random_position(rng, 0, 40)
        decoded = decode_key(board.key)
        assert (decoded.position, decoded.mask, decoded.moves) == (
            board.position, board.mask, board.moves)


def test_lookup_through_the_mirror_mirrors_the_column(tmp_path: Path) -> None:
    book = read_book(small_book(tmp_path))
    assert len(book) == 2
    assert book.lookup(Board()) == BookEntry(3, 1, False)
    assert book.lookup(Board.from_moves("1")) == BookEntry(1, -3, True)
    assert book.lookup(Board.from_moves("7")) == BookEntry(5, -3, True)  # the mirror of "1"
    assert book.lookup(Board.from_moves("2")) is None
    assert book.column_scores(Board.from_moves("7")) == {5: -3}
    # From the empty board: the children "1" and "7" are booked; the board's own entry is only
    # an outcome, not a score.
    assert book.column_scores(Board()) == {0: 3, 6: 3}


def test_a_first_format_book_reads_as_exact_entries_without_a_complete_layer(
        tmp_path: Path) -> None:
    import hashlib
    import struct

    key = canonical_key(Board.from_moves("44"))[0]
    payload = key.to_bytes(8, "little") + bytes([2]) + bytes([3])
    path = tmp_path / "v1.bin"
    path.write_bytes(struct.pack("<8sI32s", MAGIC_V1, 1, hashlib.sha256(payload).digest())
                     + payload)
    book = read_book(path)
    assert book.lookup(Board.from_moves("44")) == BookEntry(3, 2, True)
    assert book.complete_discs == -1 and not book.covers(Board())


def test_a_second_format_book_still_reads(tmp_path: Path) -> None:
    import hashlib
    import struct

    current = read_book(small_book(tmp_path))
    payload = (current.keys.astype("<i8").tobytes() + current.scores.tobytes()
               + current.columns.tobytes() + current.exact.tobytes())
    path = tmp_path / "v2.bin"
    path.write_bytes(struct.pack("<8sIB32s", MAGIC_V2, 2, 255, hashlib.sha256(payload).digest())
                     + payload)
    old = read_book(path)
    assert (old.keys == current.keys).all() and old.lookup(Board()) == BookEntry(3, 1, False)


def test_the_current_format_stores_keys_as_compressed_differences(tmp_path: Path) -> None:
    book = read_book(small_book(tmp_path))
    save_book(book, tmp_path / "again.bin")
    data = (tmp_path / "again.bin").read_bytes()
    assert data[:8] == MAGIC
    assert (read_book(tmp_path / "again.bin").keys == book.keys).all()
    shipped = load_book()  # a whole layer's keys compress far below their 8 bytes each
    assert DEFAULT_BOOK_PATH.stat().st_size < 4 * len(shipped)


@pytest.mark.parametrize(("damage", "message"), [
    (lambda data: data[:-1], "damaged or truncated"),
    (lambda data: data[:50] + bytes([data[50] ^ 1]) + data[51:], "damaged"),
    (lambda data: data + b"\x00", "damaged or truncated"),
    (lambda data: b"NOTABOOK" + data[8:], "bad magic"),
    (lambda data: b"", "bad magic"),
])
def test_a_damaged_book_is_refused_with_a_reason(tmp_path: Path, damage: Callable[[bytes], bytes],
                                                 message: str) -> None:
    path = small_book(tmp_path)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(BookError, match=message):
        read_book(path)


@pytest.mark.parametrize(("extra", "message"), [(1, "more data than its count"),
                                               (-1, "bytes of data missing")])
def test_a_payload_not_of_its_count_is_refused(tmp_path: Path, extra: int, message: str) -> None:
    import hashlib
    import struct
    import zlib

    payload = bytes(8) + b"\x01\x00\x01" + bytes(max(extra, 0))
    payload = payload[:len(payload) + min(extra, 0)]
    path = tmp_path / "bad.bin"
    path.write_bytes(struct.pack("<8sIB32s", MAGIC, 1, 255, hashlib.sha256(payload).digest())
                     + zlib.compress(payload))
    with pytest.raises(BookError, match=message):
        read_book(path)


def _peak_bytes(call: Callable[[], object]) -> int:
    import tracemalloc

    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_unpacking_writes_the_entries_into_the_file_not_into_memory(
        tmp_path: Path, shipped: Book) -> None:
    """The payload is inflated straight into the mapped file's entries: the process holds the
    values (3 bytes a position) and a few blocks of the stream, never the entries (8 bytes a
    position, as reading into memory does) nor the payload (11)."""
    source = tmp_path / "book.bin"
    save_book(shipped.up_to(9), source)  # 0.4 million positions
    data = memoryview(source.read_bytes())
    header = bookfile.read_header(data, source)
    into_file = _peak_bytes(lambda: bookfile.unpack_to_file(data, header, source,
                                                            tmp_path / "book.map"))
    into_memory = _peak_bytes(lambda: bookfile.read_packed(source, data))
    assert into_file < into_memory - 7 * header.count
    mapped = bookfile.map_file(tmp_path / "book.map", header.digest)
    assert np.array_equal(mapped, read_book(source).packed)


def test_a_missing_book_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BookError, match="cannot read"):
        load_book(tmp_path / "nowhere.bin")


def test_unsorted_keys_are_refused(tmp_path: Path) -> None:
    import hashlib
    import struct

    keys = [5, 3]
    payload = b"".join(k.to_bytes(8, "little") for k in keys) + bytes([1, 1]) + bytes([0, 0])
    path = tmp_path / "bad.bin"
    path.write_bytes(struct.pack("<8sI32s", MAGIC_V1, 2, hashlib.sha256(payload).digest())
                     + payload)
    with pytest.raises(BookError, match="increasing"):
        read_book(path)


@pytest.mark.parametrize(("differences", "scores", "columns", "flags", "message"), [
    ([5, 0], [1, 1], [0, 0], [0, 0], "increasing"),  # a key repeated
    ([5, -2], [1, 1], [0, 0], [0, 0], "increasing"),  # a key smaller than the one before
    ([-5, 2], [1, 1], [0, 0], [0, 0], "negative"),
    ([5, 1 << 49], [1, 1], [0, 0], [0, 0], "bits beyond the board"),
    ([5, 2], [1, 1], [0, 7], [0, 0], "column is outside 0-6"),
    ([5, 2], [22, 1], [0, 0], [1, 0], "score is outside the possible range"),
    ([5, 2], [1, 1], [0, 0], [0, 2], "flag is neither 0 nor 1"),
    ([5, 2], [1, 3], [0, 0], [0, 0], "outcome-only entry is not -1, 0 or 1"),
])
def test_entries_no_book_holds_are_refused_naming_the_problem(
        tmp_path: Path, differences: list[int], scores: list[int], columns: list[int],
        flags: list[int], message: str) -> None:
    import hashlib
    import struct
    import zlib

    payload = (b"".join(d.to_bytes(8, "little", signed=True) for d in differences)
               + bytes(scores) + bytes(columns) + bytes(flags))
    path = tmp_path / "bad.bin"
    path.write_bytes(struct.pack("<8sIB32s", MAGIC, 2, 255, hashlib.sha256(payload).digest())
                     + zlib.compress(payload))
    with pytest.raises(BookError, match=message):
        read_book(path)


# --- the mapped form and its cache ---------------------------------------------------------


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder of the test's own (and of the processes it starts)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    return folder


def _is_mapped(book: Book) -> bool:
    """Whether the book's entries are a view of a mapped file (not this process's memory)."""
    base = book.packed.base
    return isinstance(base, memoryview) and isinstance(base.obj, mmap.mmap)


def test_the_mapped_book_agrees_with_the_old_reading_on_every_entry(
        tmp_path: Path, cache: Path, shipped: Book) -> None:
    source = tmp_path / "book.bin"
    save_book(shipped.up_to(6), source)  # 11,000 positions
    old = read_book(source)  # into memory, as the program read books before
    mapped = load_book(source)
    assert _is_mapped(mapped) and not _is_mapped(old)
    assert np.array_equal(mapped.packed, old.packed) and len(mapped) > bookfile.SAMPLES
    header = bookfile.read_header(source.read_bytes(), source)
    assert [path.name for path in cache.iterdir()] == [bookfile.cache_path(header).name]
    for board, entry in old.entries()[::97]:
        assert mapped.lookup(board) == entry
    # A file in the mapped form is used where it is, nothing cached (the ConnectX archive's).
    direct = tmp_path / "direct.map"
    direct.write_bytes(bookfile.mapped_bytes(old.packed))
    assert direct.read_bytes()[:8] == MAP_MAGIC
    in_place = load_book(direct)
    assert _is_mapped(in_place) and np.array_equal(in_place.packed, old.packed)
    assert len(list(cache.iterdir())) == 1


def _sampled_entries(path: Path, picks: np.ndarray) -> np.ndarray:
    """The packed entries at the indices ``picks`` of a compressed book, decoded from the file
    as a stream: the keys' differences are added up a block at a time and dropped, so the test
    holds the values (3 bytes a position), never the book (the session's cache holds it)."""
    data = memoryview(path.read_bytes())
    header = bookfile.read_header(data, path)
    count = header.count
    inflate = zlib.decompressobj()
    keys = np.zeros(picks.size, dtype=np.int64)
    values = bytearray()  # the scores, the columns, the flags
    pending, done, total = b"", 0, np.int64(0)  # done: the keys added up so far
    for start in range(header.size, len(data), 1 << 20):
        block = inflate.decompress(data[start:start + (1 << 20)])
        if done < count:
            pending += block
            n = min(len(pending) // 8, count - done)
            sums = total + np.cumsum(np.frombuffer(pending[:8 * n], dtype="<i8"))
            inside = (picks >= done) & (picks < done + n)
            keys[inside] = sums[picks[inside] - done]
            total = sums[-1] if n else total
            done += n
            block, pending = (pending[8 * n:], b"") if done == count else (b"", pending[8 * n:])
        values += block
    found = np.frombuffer(bytes(values), dtype=np.uint8)
    packed = np.empty(picks.size, dtype=np.int64)
    core.pack_entries(keys, found[picks].view(np.int8), found[count + picks].view(np.int8),
                      found[2 * count + picks], packed)
    return packed


def test_the_mapped_shipped_book_agrees_with_its_compressed_file_on_samples(shipped: Book) -> None:
    assert _is_mapped(shipped)
    picks = np.unique(np.random.default_rng(9).integers(0, len(shipped), 3000))
    picks = np.concatenate([[0], picks, [len(shipped) - 1]])
    assert np.array_equal(shipped.packed[1 + picks], _sampled_entries(DEFAULT_BOOK_PATH, picks))


def _damaged(data: bytes, damage: str, other: bytes) -> bytes:
    entries = MAP_HEADER_BYTES + 8  # the first entry, after the header and the complete layers
    if damage == "truncated":
        return data[:-8]
    if damage == "header":
        return data[:20] + bytes([data[20] ^ 1]) + data[21:]
    if damage == "an entry":
        at = entries + 8 * 300 + 6  # a key's bits
        return data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:]
    if damage == "a run of entries zeroed":
        return data[:entries + 8000] + bytes(4096) + data[entries + 8000 + 4096:]
    if damage == "another book's":
        return other
    return bytes(len(data))  # "emptied"


@pytest.mark.parametrize("damage", ["truncated", "header", "an entry", "a run of entries zeroed",
                                    "another book's", "emptied"])
def test_a_damaged_cache_file_is_detected_and_unpacked_again(
        tmp_path: Path, cache: Path, shipped: Book, damage: str) -> None:
    source = tmp_path / "book.bin"
    # All 696 positions of a book to 4 discs are sampled; a run longer than the sampling's
    # step is found in the larger one.
    save_book(shipped.up_to(6 if damage == "a run of entries zeroed" else 4), source)
    expected = read_book(source).packed
    header = bookfile.read_header(source.read_bytes(), source)
    bookfile.mapped_packed(source)
    cached = bookfile.cache_path(header)
    other = bookfile.mapped_bytes(shipped.up_to(3).packed)
    cached.write_bytes(_damaged(cached.read_bytes(), damage, other))
    with pytest.raises(BookError):
        bookfile.map_file(cached, header.digest)
    assert np.array_equal(bookfile.mapped_packed(source), expected)
    assert np.array_equal(bookfile.map_file(cached, header.digest), expected)  # rebuilt
    assert [path.name for path in cache.iterdir()] == [cached.name]  # no temporary file left


def test_a_damaged_mapped_file_is_refused_with_a_reason(tmp_path: Path) -> None:
    """A mapped file loaded as it is (no compressed source to unpack it from again)."""
    path = tmp_path / "book.map"
    data = bookfile.mapped_bytes(read_book(small_book(tmp_path)).packed)
    path.write_bytes(data[:-1])
    with pytest.raises(BookError, match="truncated"):
        load_book(path)


_TWO_READERS = """
import hashlib, sys, time
from pathlib import Path
from solver.book import load_book
print("ready", flush=True)
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.001)
book = load_book(sys.argv[1])
print(hashlib.sha256(book.packed.tobytes()).hexdigest(), flush=True)
sys.stdin.readline()  # the book stays mapped until the test has looked
"""


def test_two_processes_unpack_and_read_the_book_at_once(
        tmp_path: Path, cache: Path, shipped: Book) -> None:
    source = tmp_path / "book.bin"
    save_book(shipped.up_to(9), source)  # 0.4 million positions: unpacking takes a while
    go = tmp_path / "go"
    readers = [subprocess.Popen([sys.executable, "-c", _TWO_READERS, str(source), str(go)],
                                cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
               for _ in range(2)]
    try:
        for reader in readers:
            assert reader.stdout is not None and reader.stdout.readline() == "ready\n"
        go.touch()  # both load at the same moment
        digests = [reader.stdout.readline().strip() for reader in readers if reader.stdout]
        maps = [Path(f"/proc/{reader.pid}/maps").read_text() if sys.platform == "linux" else ""
                for reader in readers]
    finally:
        for reader in readers:
            reader.communicate("\n", timeout=60)
    assert [reader.returncode for reader in readers] == [0, 0]
    assert digests == [hashlib.sha256(read_book(source).packed.tobytes()).hexdigest()] * 2
    cached = bookfile.cache_path(bookfile.read_header(source.read_bytes(), source))
    assert [path.name for path in cache.iterdir()] == [cached.name]  # no temporary file left
    assert bookfile.map_file(cached).size == len(shipped.up_to(9)) + 1
    for mapped in maps:  # each maps a file of the cache (the same one unless both unpacked)
        assert sys.platform != "linux" or str(cached) in mapped


@pytest.fixture
def here() -> Iterator[BatchExecutor]:
    """The executor of one worker: this process."""
    with open_executor(1) as executor:
        yield executor


def test_generator_resumes_from_its_work_file(tmp_path: Path, here: BatchExecutor) -> None:
    """A tiny book (late plies so it is quick): a second run solves nothing new."""
    work = tmp_path / "work.jsonl"

    def generator() -> Generator:
        g = Generator(work, first_full=20, second_full=20, max_ply=14, easy_seconds=5.0,
                      table_bits=24, executor=here, stop_at=float("inf"))
        g.roots = lambda: iter([  # type: ignore[method-assign]
            (Board.from_moves("444444333333"), "444444333333", 13),
        ])
        return g

    g = generator()
    assert g.run()
    first = read_records(work)
    root = Board.from_moves("444444333333")
    child = root.play(first[canonical_key(root)[0]].column)
    replies = {canonical_key(child.play(r))[0] for r in child.legal_moves()
               if not child.play(r).is_over()}
    assert g.new == len(first) == 1 + len(replies) > 1  # the root and every reply to its move
    again = generator()
    assert again.run() and again.new == 0
    work.write_text(work.read_text() + '{"moves": "12')  # a line torn by an interruption
    assert read_records(work) == first
    out = tmp_path / "book.bin"
    info = build(out, tmp_path / "book.json", path_work=work, layers_work=None)
    book = read_book(out)
    assert info["positions"] == len(book) == len(first)
    assert info["path"]["first_full"] == 20 and info["path"]["max_ply"] == 14
    for record in first.values():
        board = Board.from_moves(record.moves)
        assert book.lookup(board) == BookEntry(record.column, record.score, True)


# --- the shipped book -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped() -> Book:
    return load_book()


def _decoded(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``decode_key`` on every key at once: the discs of the side to move, the mask and the
    number of discs (``discs_of``'s heights, added up on the way)."""
    keys = keys.astype(np.int64)
    position = np.zeros_like(keys)
    mask = np.zeros_like(keys)
    discs = np.zeros_like(keys)
    for col in range(bits.WIDTH):
        part = (keys >> (col * bits.H1)) & 0x7F
        height = np.frexp((part + 1).astype(np.float64))[1] - 1  # floor(log2(part + 1))
        column = (np.int64(1) << height.astype(np.int64)) - 1
        position |= (part - column) << (col * bits.H1)
        mask |= column << (col * bits.H1)
        discs += height.astype(np.int64)
    return position, mask, discs


def _has_four(discs: np.ndarray) -> np.ndarray:
    """``bits.has_four`` on every element at once."""
    found = np.zeros(discs.shape, dtype=bool)
    for shift in (1, bits.H1 - 1, bits.H1, bits.H1 + 1):
        pairs = discs & (discs >> shift)
        found |= (pairs & (pairs >> (2 * shift))) != 0
    return found


@pytest.mark.slow
def test_shipped_book_entries_are_legal_positions_with_legal_moves(shipped: Book) -> None:
    # Millions of entries: checked as arrays (a Board per entry took a minute).
    position, mask, discs = _decoded(shipped.keys)
    assert decode_key(int(shipped.keys[-1])) == Board(int(position[-1]), int(mask[-1]), int(discs[-1]))
    assert not (_has_four(position) | _has_four(position ^ mask)).any()
    columns = shipped.columns.astype(np.int64)
    top = np.int64(1) << (columns * bits.H1 + bits.HEIGHT - 1)  # the column's top cell
    assert not (mask & top).any()
    scores = np.abs(shipped.scores.astype(np.int64))
    assert (scores <= (43 - discs) // 2).all()
    assert (shipped.exact.astype(bool) | (scores == 1)).all()


@pytest.mark.slow
def test_shipped_book_covers_the_first_players_early_positions(shipped: Book) -> None:
    """Every position the agent reaches as first player up to the full plies is in the book."""
    full = json.loads(SUMMARY_PATH.read_text())["path"]["first_full"]
    level = [Board()]
    while level and level[0].moves <= full:
        following = []
        for board in level:
            found = shipped.lookup(board)
            assert found is not None, board
            child = board.play(found.column)
            if child.is_over():
                continue
            following += [child.play(r) for r in child.legal_moves() if not child.play(r).is_over()]
        level = following


@pytest.mark.slow
@pytest.mark.parametrize("exact", [True, False])
def test_shipped_book_agrees_with_the_solver_on_a_sample(shipped: Book, exact: bool) -> None:
    """Deep entries only (the early ones take the solver minutes), exact ones (the agent's
    path) and outcome-only ones (the solved layer): the score, and the move keeps it."""
    solver = Solver()
    # Drawn by index, and only the drawn ones decoded: layer 12 alone has 5.8 million entries.
    deep = (discs_of(shipped.keys) >= 12) & (shipped.exact.astype(bool) == exact)
    indices = [int(i) for i in deep.nonzero()[0]]
    assert indices
    for i in random.Random(3).sample(indices, min(6, len(indices))):
        board = decode_key(int(shipped.keys[i]))
        entry = BookEntry(int(shipped.columns[i]), int(shipped.scores[i]), exact)
        solution = solver.solve(board, weak=not exact)
        assert solution is not None and solution.score == entry.score, board
        if board.is_winning_move(entry.column):
            continue
        child = board.play(entry.column)
        if exact:
            assert solver.is_at_most(child, -entry.score)
        else:
            after = solver.solve(child, weak=True)
            assert after is not None and after.score == -entry.outcome, board


def test_work_file_and_summary_describe_the_shipped_book(shipped: Book) -> None:
    summary = json.loads(SUMMARY_PATH.read_text())
    assert summary["positions"] == len(shipped)
    assert summary["solver_seconds"] > 0
    records = list(record_lines(DEFAULT_WORK_PATH))  # every part of the shipped copy
    assert len(records) == summary["path_positions"]
    for record in random.Random(4).sample(records, 50):
        found = shipped.lookup(record.board())
        assert found == BookEntry(record.column, record.score, True)


def test_generator_meets_mirror_images_without_new_work(tmp_path: Path,
                                                         here: BatchExecutor) -> None:
    """From a root's mirror image the generator walks the mirrored tree: nothing new to solve."""
    root = ("444444333333", Board.from_moves("444444333333"), 14)
    mirror = ("444444555555", Board.from_moves("444444555555"), 14)
    counts = []
    for name, roots in (("one", [root]), ("both", [root, mirror])):
        g = Generator(tmp_path / f"{name}.jsonl", first_full=20, second_full=20, max_ply=14,
                      easy_seconds=5.0, table_bits=24, executor=here,
                      stop_at=float("inf"))
        g.roots = lambda roots=roots: iter([(b, m, f) for m, b, f in roots])  # type: ignore[method-assign,misc]
        assert g.run()
        counts.append(g.new)
    assert counts[0] == counts[1] > 1


def test_a_fresh_clone_reads_the_shipped_work_file_and_a_generator_unpacks_it(
        tmp_path: Path) -> None:
    work = tmp_path / "work.jsonl"
    work.write_text('{"params": {"first_full": 4}}\n'
                    '{"moves": "4455", "column": 2, "score": 18, "nodes": 3, "seconds": 0.0,'
                    ' "easy": false}\n')
    build(tmp_path / "book.bin", tmp_path / "book.json", path_work=work, layers_work=None)
    work.unlink()
    records = read_records(work)  # from work.jsonl.gz, left packed
    assert not work.exists() and [r.moves for r in records.values()] == ["4455"]
    WorkFile(work).append([Record("44", 3, 1, True, 1, 0.0)])  # a generator's run unpacks it
    assert [r.moves for r in record_lines(work)] == ["4455", "44"]
    assert json.loads((tmp_path / "book.json").read_text())["path"]["first_full"] == 4


# --- the complete layers of the shipped book ---------------------------------------------------


def _outcome_after(book: Book, board: Board, col: int) -> int:
    """The outcome for the side to move of playing ``col``, from the book's entry of the child."""
    if board.is_winning_move(col):
        return 1
    child = board.play(col)
    if child.is_full():
        return 0
    found = book.lookup(child)
    assert found is not None, child
    return -found.outcome


@pytest.mark.slow
def test_shipped_book_has_every_position_of_its_complete_layers(shipped: Book) -> None:
    """Every position any play reaches with at most ``complete_discs`` discs: all of them up to
    7 discs, and those of 3,000 random games at the last layer."""
    summary = json.loads(SUMMARY_PATH.read_text())
    assert shipped.complete_discs == summary["complete_discs"] >= 8
    level = {Board().key: Board()}
    for _ in range(7):
        following: dict[int, Board] = {}
        for board in level.values():
            assert shipped.covers(board) and shipped.lookup(board) is not None, board
            for col in board.legal_moves():
                child = board.play_unchecked(col)
                if not child.is_over():
                    following.setdefault(child.key, child)
        level = following
    rng = random.Random(5)
    for _ in range(3000):
        board = Board()
        while board.moves < shipped.complete_discs and not board.is_over():
            board = board.play_unchecked(rng.choice(board.legal_moves()))
        if not board.is_over():
            assert shipped.lookup(board) is not None, board


def test_the_layers_above_the_solved_one_follow_from_their_children(shipped: Book) -> None:
    """A shallower entry was worked out from its children: its outcome is the best of theirs,
    and its column reaches it."""
    rng = random.Random(6)
    for _ in range(300):
        board = Board()
        for _ in range(rng.randint(0, shipped.complete_discs - 1)):
            board = board.play_unchecked(rng.choice(board.legal_moves()))
            if board.is_over():
                break
        if board.is_over():
            continue
        found = shipped.lookup(board)
        assert found is not None
        outcomes = {col: _outcome_after(shipped, board, col) for col in board.legal_moves()}
        assert found.outcome == max(outcomes.values()), board
        assert outcomes[found.column] == found.outcome, board


def test_the_solved_layer_agrees_with_fresh_solves_on_a_sample(shipped: Book) -> None:
    """Positions of the last complete layer against a fresh solver (the quick ones, by the
    solve times in the layer's work file): the outcome, and the column keeps it."""
    # The first lines only: the solved layer's work file has millions of them.
    first = itertools.islice(record_lines(LAYERS_WORK), 100_000)
    quick = sorted(r.moves for r in first if r.seconds < 0.05)
    solver = Solver(table_bits=24)
    for moves in random.Random(7).sample(quick, 8):
        board = Board.from_moves(moves)
        found = shipped.lookup(board)
        assert found is not None and board.moves == shipped.complete_discs
        solved = solver.solve(board, weak=True)
        assert solved is not None and solved.score == found.outcome, moves
        if not board.is_winning_move(found.column) and found.outcome >= 0:
            child = solver.solve(board.play(found.column), weak=True)
            assert child is not None and -child.score == found.outcome, moves
