"""The book generator: complete layers solved through an executor (a local process pool, a Dask
cluster on loopback), resumed from the work file after Ctrl-C, and the build's derivation of
the shallower layers."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from batch import open_executor
from board import Board
from board.keys import canonical_key
from settings import UsageError
from solver import Solver
from solver.book import BookEntry, BookError, load_book, read_book
from solver.make_book import cli
from solver.make_book.build import Entries, build, derive, read_layer
from solver.make_book.layers import (
    canonical_keys,
    generate,
    layer_positions,
    mirror_moves,
    pending,
    positions_after,
    recorded_keys,
    solve_chunk,
)
from solver.make_book.work import Record, WorkFile, read_records
from tests.helpers import default_ctrl_c, random_position
from vocabulary import ExitStatus

ROOT = Path(__file__).resolve().parent.parent
# Distinct positions after 0..6 discs (none is over yet), mirror images counted apart.
KNOWN_COUNTS = [1, 7, 49, 238, 1120, 4263, 16422]


def test_positions_after_lists_every_position_once_up_to_mirror_images() -> None:
    for discs, expected in enumerate(KNOWN_COUNTS):
        found = positions_after(discs)
        total = 0
        for key, moves in found.items():
            board = Board.from_moves(moves)
            assert board.key == key == canonical_key(board)[0] and board.moves == discs
            total += 1 if Board.from_moves(mirror_moves(moves)).key == key else 2
        assert total == expected


@pytest.mark.slow
def test_positions_after_leaves_out_finished_games() -> None:
    found = positions_after(7)
    assert all(not Board.from_moves(m).is_over() for m in found.values())
    # 54,859 positions after 7 discs, 728 of them won by the first player's 4th disc.
    total = sum(1 if Board.from_moves(mirror_moves(m)).key == k else 2 for k, m in found.items())
    assert total == 54_859 - 728


def test_layer_positions_reach_their_keys_and_count_as_the_mapping_does() -> None:
    layer = layer_positions(9)
    assert len(layer) == 269_531 and bool(np.all(np.diff(layer.keys) > 0))
    rows = np.array(random.Random(6).sample(range(len(layer)), 2000))
    for row, moves in zip(rows.tolist(), layer.move_strings(rows), strict=True):
        board = Board.from_moves(moves)
        assert board.key == canonical_key(board)[0] == int(layer.keys[row]) and not board.is_over()


def test_recorded_keys_read_whole_records_of_the_layer_only(tmp_path: Path) -> None:
    """The keys of a work file's records, canonical whichever orientation a record's moves are
    in; a line cut short, a params line and a record of another layer are not counted."""
    work = tmp_path / "work.jsonl"
    mirrored = Record("7753", 3, 1, False, 0, 0.0)  # the mirror image of 1135
    lines = [json.dumps({"params": {"layer": 4}}), Record("4453", 3, 1, False, 0, 0.0).to_json(),
             mirrored.to_json(), json.dumps({"column": 1, "moves": "2222", "score": 0}),
             Record("445", 3, 1, False, 0, 0.0).to_json(),
             Record("1234", 3, 1, False, 0, 0.0).to_json()[:25]]
    work.write_text("\n".join(lines))
    found = recorded_keys(work, 4)
    expected = [canonical_key(Board.from_moves(m))[0] for m in ("4453", "1135", "2222")]
    assert found.tolist() == expected


def test_canonical_keys_are_those_of_the_boards_and_refuse_what_is_not_a_game() -> None:
    strings = ["", "4", "4453", "7753", "1135", "44444", "1212121"]  # (the last: won at the end)
    keys, mirrored = canonical_keys(strings)
    for moves, key, flipped in zip(strings, keys.tolist(), mirrored.tolist(), strict=True):
        assert (key, flipped) == canonical_key(Board.from_moves(moves))
    for bad in ("4044", "448", "4a", "4\u0664", "4444444", "12121212"):
        with pytest.raises(ValueError, match=f"move string {bad!r}"):
            canonical_keys(["44", bad, "1"])


@pytest.mark.slow
def test_the_book_of_the_layer_below_gives_the_same_records_sooner() -> None:
    """Solved with the shipped book, complete to the layer below, a layer's positions get the
    same outcomes and columns as without it, in fewer nodes: a parent's booked column that leads
    to a position proves it lost or drawn at once, a lost parent proves it won."""
    book = load_book()
    discs = book.complete_discs + 1
    rng = random.Random(9)
    moves = ["".join(str(c + 1) for c in random_position(rng, discs, discs)[1]) for _ in range(40)]
    plain = solve_chunk(moves, 24, with_book=False)
    booked = solve_chunk(moves, 24, with_book=True)
    assert [(r.moves, r.column, r.score, r.exact) for r in booked] == [
        (r.moves, r.column, r.score, r.exact) for r in plain]
    assert sum(r.nodes for r in booked) < sum(r.nodes for r in plain)
    assert any(r.nodes == 0 < p.nodes and r.score == -1 for r, p in zip(booked, plain, strict=True))


def prefill(work: Path, discs: int, missing: int, seed: int = 1) -> list[str]:
    """A work file with every position of the layer but ``missing`` (returned) answered.

    The answers written are placeholders: only which positions are done matters here.
    """
    layer = positions_after(discs)
    left_out = set(random.Random(seed).sample(sorted(layer), missing))
    with work.open("w") as handle:
        for key, moves in layer.items():
            if key not in left_out:
                handle.write(Record(moves, 3, 0, True, 0, 0.0).to_json() + "\n")
    return [layer[key] for key in sorted(left_out)]


def check_solved(records: dict[int, Record], expected: list[str]) -> None:
    """Every position of ``expected`` has a record whose outcome and column the solver confirms."""
    solver = Solver(24)
    for moves in expected:
        board = Board.from_moves(moves)
        record = records[board.key]
        assert record.moves == moves
        truth = solver.solve(board, weak=True)
        assert truth is not None and (record.score > 0) - (record.score < 0) == truth.score
        if board.is_winning_move(record.column):
            assert truth.score == 1
        else:
            after = solver.solve(board.play(record.column), weak=True)
            assert after is not None and -after.score == truth.score  # the column keeps it


@pytest.mark.slow
def test_generate_solves_what_the_work_file_lacks_and_then_nothing(tmp_path: Path) -> None:
    work = tmp_path / "work.jsonl"
    missing = prefill(work, 8, 5)
    with open_executor(workers=1) as executor:
        run = generate(pending(8, work), work, executor, table_bits=24, chunk=2)
        assert (run.solved, run.complete) == (5, True)
        assert run.total == run.done + run.solved == len(positions_after(8))
        check_solved(read_records(work), missing)
        again = generate(pending(8, work), work, executor, table_bits=24)
    assert (again.solved, again.complete) == (0, True)


@pytest.mark.slow
def test_generate_sends_nothing_after_its_stop_time(tmp_path: Path) -> None:
    work = tmp_path / "work.jsonl"
    prefill(work, 8, 3)
    with open_executor(workers=1) as executor:
        run = generate(pending(8, work), work, executor, table_bits=24, stop_at=time.monotonic() - 1)
    assert (run.solved, run.complete) == (0, False)


@pytest.mark.slow
def test_ctrl_c_keeps_what_was_solved_and_a_second_run_finishes(tmp_path: Path) -> None:
    work = tmp_path / "work.jsonl"
    missing = prefill(work, 8, 40, seed=2)
    before = len(read_records(work))
    command = [sys.executable, "-m", "solver.make_book", "layers", "--work", str(work),
               "--workers", "1", "--chunk", "1", "--table-bits", "24", "--quiet"]
    proc = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=default_ctrl_c)
    try:
        # Watch for the second record appended (counting new lines only: parsing the whole
        # 91,000-line file each time let the run finish all 40 before the interrupt came).
        size = work.stat().st_size
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with work.open("rb") as handle:
                handle.seek(size)
                if handle.read().count(b"\n") >= 3:  # the run's params line, then 2 records
                    break
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C does: the whole process group
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == ExitStatus.INTERRUPTED, err
    assert "interrupted" in err and "Traceback" not in err
    for line in work.read_text().splitlines():
        json.loads(line)  # every line whole
    solved_then = len(read_records(work)) - before
    assert 2 <= solved_then < len(missing)
    assert cli.main(["layers", "--work", str(work), "--workers", "1", "--table-bits", "24",
                     "--quiet"]) == 0
    records = read_records(work)
    assert len(records) == len(positions_after(8))
    check_solved(records, random.Random(3).sample(missing, 10))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def dask_cluster(tmp_path: Path) -> Iterator[str]:
    """A Dask scheduler and one worker process on 127.0.0.1, started as a user would."""
    pytest.importorskip("distributed")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
         "--no-dashboard"], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1", "--nthreads", "1",
         "--host", "127.0.0.1", "--no-dashboard"], cwd=ROOT, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(1, timeout=60)
        yield address
    finally:
        for proc in (worker, scheduler):
            proc.terminate()
        for proc in (worker, scheduler):
            proc.wait(timeout=30)


@pytest.mark.slow
def test_layers_run_on_a_dask_cluster(tmp_path: Path, dask_cluster: str) -> None:
    work = tmp_path / "work.jsonl"
    missing = prefill(work, 8, 4, seed=4)
    code = cli.main(["layers", "--work", str(work), "--scheduler", dask_cluster,
                     "--table-bits", "24", "--chunk", "1", "--quiet"])
    assert code == 0
    check_solved(read_records(work), missing)


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_clear_error(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{_free_port()}"  # nobody listens there
    code = cli.main(["layers", "--work", str(tmp_path / "w.jsonl"), "--scheduler", address,
                     "--quiet"])
    err = capsys.readouterr().err
    assert code == ExitStatus.USAGE
    assert f"cannot reach the Dask scheduler at {address}" in err and "Traceback" not in err
    assert not (tmp_path / "w.jsonl").exists()


# --- the build -------------------------------------------------------------------------------


def _children_known(board: Board, solver: Solver, exact: bool) -> Entries:
    known = {}
    for col in board.legal_moves():
        child = board.play(col)
        if child.is_over():
            continue
        solution = solver.solve(child, weak=not exact)
        assert solution is not None
        known[canonical_key(child)[0]] = BookEntry(0, solution.score, exact or solution.score == 0)
    return Entries.of(known.items())


@pytest.mark.slow
@pytest.mark.parametrize("exact", [True, False])
def test_derive_gives_the_solvers_value_and_a_column_keeping_it(exact: bool) -> None:
    rng = random.Random(5)
    solver = Solver(24)
    for _ in range(25):
        board, _ = random_position(rng, 22, 34)
        entry = derive(board, _children_known(board, solver, exact))
        truth = solver.solve(board, weak=not exact)
        assert entry is not None and truth is not None
        wins_now = any(board.is_winning_move(c) for c in board.legal_moves())
        assert entry.exact == (exact or truth.score == 0 or wins_now)
        if entry.exact and not exact:
            assert entry.outcome == truth.score
        else:
            assert entry.score == truth.score
        if not board.is_winning_move(entry.column):
            after = solver.solve(board.play(entry.column), weak=not entry.exact)
            assert after is not None and -after.score == entry.score


def test_derive_needs_every_child() -> None:
    board = Board.from_moves("4444")
    assert derive(board, Entries.of([])) is None


@pytest.mark.slow
def test_the_build_derives_the_shipped_books_layers_from_its_layer_7(tmp_path: Path) -> None:
    """The shipped book's layer 7 as a solved layer (half of it written through the mirror
    image, some positions twice with a wrong value first): the build reads it back as it was
    and works out layers 0-6 exactly as the shipped book has them (made from its deepest layer
    by the same rule), with the shipped path."""
    from solver.make_book.path import DEFAULT_WORK_PATH

    shipped = load_book()
    rng = random.Random(9)
    records = []
    for key, moves in positions_after(7).items():
        entry = shipped.lookup(Board.from_moves(moves))
        assert entry is not None
        record = Record(moves, entry.column, entry.score, entry.exact, 1, 0.001)
        if rng.random() < 0.1:  # a repeat: the last record of a position wins
            records.append(Record(moves, (entry.column + 1) % 7, -entry.score, True, 1, 0.001))
        # (Not a position that is its own mirror image: its other column keeps it too.)
        if rng.random() < 0.5 and canonical_key(Board.from_moves(mirror_moves(moves)))[1]:
            record = Record(mirror_moves(moves), 6 - entry.column, entry.score, entry.exact, 1,
                            0.001)
        assert canonical_key(record.board())[0] == key
        records.append(record)
    work = tmp_path / "layer7.jsonl"
    with WorkFile(work) as out:
        out.params({"layer": 7})
        out.append(records)

    solved = read_layer(work)
    assert solved.nodes == len(records) and len(solved.entries) == len(positions_after(7))
    last = {record.canonical()[0]: record for record in records}
    for key, record in rng.sample(sorted(last.items()), 300):
        assert solved.entries.get(key) == BookEntry(record.canonical()[1], record.score,
                                                    record.exact or record.score == 0)

    info = build(tmp_path / "book.bin", tmp_path / "book.json", path_work=DEFAULT_WORK_PATH,
                 layers_work=work, pack_work=False)
    built = read_book(tmp_path / "book.bin")
    assert info["complete_discs"] == built.complete_discs == 7
    outcomes = np.sign([record.score for record in last.values()])
    assert info["layer_outcomes"] == {"won": int((outcomes > 0).sum()),
                                      "drawn": int((outcomes == 0).sum()),
                                      "lost": int((outcomes < 0).sum())}
    expected = shipped.up_to(7)
    assert np.array_equal(built.up_to(7).packed, expected.packed)


def _write(path: Path, lines: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_build_prefers_the_paths_exact_score_and_refuses_a_disagreement(tmp_path: Path) -> None:
    moves = "4444333322"  # not a position of the complete layers: merged as it is
    solver = Solver(24)
    solution = solver.solve(Board.from_moves(moves))
    move = solver.best_move(Board.from_moves(moves))
    assert solution is not None and move is not None and solution.score != 0
    sign = 1 if solution.score > 0 else -1
    layers = tmp_path / "layers.jsonl"
    path = tmp_path / "path.jsonl"
    _write(layers, [{"params": {"layer": 8}},
                    {"moves": moves, "column": move.column, "score": sign, "exact": False,
                     "nodes": 1, "seconds": 0.1}])
    _write(path, [{"moves": moves, "column": move.column, "score": solution.score,
                   "nodes": 1, "seconds": 0.1}])
    info = build(tmp_path / "book.bin", tmp_path / "book.json", path_work=path,
                 layers_work=layers, pack_work=False)
    book = read_book(tmp_path / "book.bin")
    assert book.lookup(Board.from_moves(moves)) == BookEntry(move.column, solution.score, True)
    assert info["complete_discs"] == -1 and not book.covers(Board())  # the layer is unfinished
    _write(path, [{"moves": moves, "column": move.column, "score": -solution.score,
                   "nodes": 1, "seconds": 0.1}])
    with pytest.raises(BookError, match=f"position {moves}: .* disagree"):
        build(tmp_path / "book.bin", tmp_path / "book.json", path_work=path, layers_work=layers,
              pack_work=False)


def test_build_refuses_a_missing_work_file_and_leaves_the_book(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A mistyped work file is not an empty one: the shipped book would be overwritten."""
    out = tmp_path / "book.bin"
    out.write_bytes(b"the book before")
    path_work = tmp_path / "path.jsonl"
    path_work.write_text("")
    code = cli.main(["build", "--layers-work", str(tmp_path / "typo.jsonl"), "--path-work",
                     str(path_work), "--out", str(out), "--summary", str(tmp_path / "s.json")])
    err = capsys.readouterr().err
    assert code == ExitStatus.USAGE and out.read_bytes() == b"the book before"
    assert "typo.jsonl: no such work file" in err and "Traceback" not in err


def test_build_of_an_unfinished_layer_says_it_has_no_complete_layers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    layers, path_work = tmp_path / "layers.jsonl", tmp_path / "path.jsonl"
    path_work.write_text("")
    with WorkFile(layers) as out:
        out.params({"layer": 2, "table_bits": 24, "chunk": 64})
        out.append([Record("44", 3, 1, False, 0, 0.0)])  # 1 of the layer's 25 positions
    code = cli.main(["build", "--layers-work", str(layers), "--path-work", str(path_work),
                     "--out", str(tmp_path / "book.bin"), "--summary", str(tmp_path / "s.json")])
    captured = capsys.readouterr()
    assert code == 0 and json.loads(captured.out)["complete_discs"] == -1
    assert "warning: layer 2 is not complete yet (1 positions solved)" in captured.err


def test_an_interrupt_while_numba_compiles_is_an_interrupt(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """numba turns Ctrl-C during a compilation into a RuntimeError: still exit 130, no
    traceback; another RuntimeError is not swallowed."""
    def compiling(*_args: object) -> int:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("no compiled object yet") from None

    monkeypatch.setattr(cli, "_run_layers", compiling)
    assert cli.main(["layers", "--discs", "2", "--quiet"]) == ExitStatus.INTERRUPTED
    assert "interrupted" in capsys.readouterr().err

    def failing(*_args: object) -> int:
        raise RuntimeError("a real failure")

    monkeypatch.setattr(cli, "_run_layers", failing)
    with pytest.raises(RuntimeError, match="a real failure"):
        cli.main(["layers", "--discs", "2", "--quiet"])


def test_the_work_file_keeps_records_written_after_it_was_replaced(tmp_path: Path) -> None:
    """A run lasts hours: if its work file is replaced meanwhile (say, by a checkout of an older
    committed copy), what it solves next still lands in the file, and a line an interruption
    cut short does not swallow the next one."""
    path = tmp_path / "work.jsonl"
    first, second, third = (Record(m, 0, 1, False, 5, 0.1) for m in ("4444", "4445", "4446"))
    with WorkFile(path) as out:
        out.append([first])
        older = tmp_path / "older.jsonl"
        older.write_text(first.to_json()[:20])  # an older copy whose last line was cut short
        older.replace(path)
        out.append([second])
        path.unlink()
        out.append([third])
        out.append([first])
    assert [r.moves for r in read_records(path).values()] == ["4446", "4444"]
    older.write_text(first.to_json()[:20])
    older.replace(path)
    with WorkFile(path) as out:
        out.append([second])
    assert [r.moves for r in read_records(path).values()] == ["4445"]


def test_layers_goes_on_with_the_work_files_layer_and_refuses_another(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without --discs a rerun goes on with the layer its work file holds; another --discs
    would mix two layers in one file, and is refused before anything is solved."""
    work = tmp_path / "layer1.jsonl"
    layer = positions_after(1)
    with WorkFile(work) as out:
        out.params({"layer": 1, "table_bits": 24, "chunk": 64})
        out.append(Record(str(moves), 3, 1, False, 0, 0.0) for moves in layer.values())
    assert cli.main(["layers", "--discs", "2", "--work", str(work), "--workers", "1",
                     "--quiet"]) == ExitStatus.USAGE
    err = capsys.readouterr().err
    assert f"{work} holds layer 1, not 2" in err and "Traceback" not in err
    assert cli.main(["layers", "--work", str(work), "--workers", "1", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"layer 1: {len(layer)} positions, {len(layer)} already in" in err
    assert len(read_records(work)) == len(layer)


def test_the_packed_copy_grows_by_parts_that_never_change(tmp_path: Path) -> None:
    import gzip

    from solver.make_book.work import pack, packed_parts, record_moves, unpack

    work = tmp_path / "w.jsonl"
    first_line = '{"moves":"4","column":3,"score":1,"exact":true,"nodes":1,"seconds":0.0}\n'
    second_line = first_line.replace('"4"', '"44"')
    work.write_text(first_line)
    first = pack(work)
    assert first == tmp_path / "w.jsonl.gz"
    first_bytes = first.read_bytes()
    work.write_text(first_line + second_line + '{"moves":"44')  # the last line is being written
    second = pack(work)
    assert second == tmp_path / "w.jsonl.2.gz"
    assert first.read_bytes() == first_bytes  # a part never changes
    assert gzip.decompress(second.read_bytes()) == second_line.encode()  # whole lines only
    assert pack(work) is None  # nothing new (the cut line is not a line yet)
    assert packed_parts(work) == [first, second]

    # Read and unpacked as one file, in order.
    work.write_text(first_line + second_line)
    copy = tmp_path / "copy" / "w.jsonl"
    copy.parent.mkdir()
    for part in packed_parts(work):
        (copy.parent / part.name).write_bytes(part.read_bytes())
    assert list(record_moves(copy)) == ["4", "44"]  # read packed: nothing unpacked
    assert not copy.exists()
    unpack(copy)
    assert copy.read_text() == work.read_text()
    assert not list(copy.parent.glob("*.unpacking"))

    # Not a continuation (a cut line was dropped, the file replaced): written anew, one part.
    work.write_text('{"c":3}\n')
    assert pack(work) == first
    assert packed_parts(work) == [first]
    assert gzip.decompress(first.read_bytes()) == b'{"c":3}\n'


def test_a_copy_that_is_not_the_files_beginning_is_replaced_whole_and_only_when_written(
        tmp_path: Path) -> None:
    import gzip

    from solver.make_book.work import pack, packed_parts

    work = tmp_path / "w.jsonl"
    lines = [f'{{"n":{n}}}\n' for n in range(4)]
    for count in (1, 2, 3):
        work.write_text("".join(lines[:count]))
        pack(work)
    first, second, third = packed_parts(work)
    stale = tmp_path / "w.jsonl.5.gz"  # after a gap: not read, but removed with the rest
    stale.write_bytes(gzip.compress(b'{"n":5}\n'))

    work.write_text("")  # nothing to pack: the copy is kept as it is
    assert pack(work) is None and packed_parts(work) == [first, second, third]

    second.write_bytes(second.read_bytes()[:-5])  # a part cut short: the copy is written anew
    work.write_text("".join(lines))
    assert pack(work) == first
    assert packed_parts(work) == [first] and not stale.exists() and not third.exists()
    assert gzip.decompress(first.read_bytes()).decode() == "".join(lines)

    first.write_bytes(b"\x1f\x8b\x08\x00" + bytes(20))  # damaged: the same
    assert pack(work) == first
    assert gzip.decompress(first.read_bytes()).decode() == "".join(lines)


def test_a_damaged_part_is_an_error_naming_it(tmp_path: Path) -> None:
    from solver.make_book.work import pack, packed_parts, record_moves, unpack

    work = tmp_path / "w.jsonl"
    work.write_text('{"moves":"4","column":3,"score":1,"exact":true,"nodes":1,"seconds":0.0}\n')
    pack(work)
    (part,) = packed_parts(work)
    work.unlink()
    part.write_bytes(part.read_bytes()[:-12])
    with pytest.raises(UsageError, match=f"{part}: a damaged or cut-short part"):
        list(record_moves(work))
    with pytest.raises(UsageError, match=f"{part}: a damaged or cut-short part"):
        unpack(work)
    assert not work.exists() and not list(tmp_path.glob("*.unpacking"))


def test_pack_command_says_what_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    work = tmp_path / "w.jsonl"
    assert cli.main(["pack", "--work", str(work)]) == ExitStatus.USAGE
    assert "w.jsonl: no such work file (nor w.jsonl.gz)" in capsys.readouterr().err
    work.write_text('{"params":{"layer":1}}\n')
    assert cli.main(["pack", "--work", str(work)]) == 0
    assert "wrote" in capsys.readouterr().err and (tmp_path / "w.jsonl.gz").exists()
    assert cli.main(["pack", "--work", str(work)]) == 0
    assert "up to date; 1 part(s)" in capsys.readouterr().err
    work.unlink()
    assert cli.main(["pack", "--work", str(work)]) == ExitStatus.USAGE
    assert "only its packed copy, which holds everything" in capsys.readouterr().err
