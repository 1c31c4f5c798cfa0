"""The opening suite of paired games (``arena.openings``): every shipped opening is a position
of 6 discs whose exact value is a draw, one of each mirror pair, all of them, and the file is
what its script writes."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from arena.openings import DEFAULT_SUITE, SUITE_PLIES, load_openings, main, make_suite
from board import Board
from board.keys import canonical_key
from settings import UsageError
from solver.book import Book, load_book


@pytest.fixture(scope="module")
def book() -> Book:
    return load_book()


@pytest.mark.slow
def test_every_opening_is_a_drawn_position_of_six_discs(book: Book) -> None:
    openings = load_openings()
    assert len(openings) > 900  # a test of up to 900 pairs repeats none
    for opening in openings:
        board = Board.from_moves(opening, one_based=False)
        assert board.moves == SUITE_PLIES and not board.is_over()
        entry = book.lookup(board)
        assert entry is not None and entry.exact and entry.score == 0


@pytest.mark.slow
def test_one_of_each_mirror_pair_and_every_one_there_is(book: Book) -> None:
    # Another way to find them than the script's (which reads the book's keys): play every
    # sequence of six columns and ask the book about the position reached.
    drawn = set()
    for columns in itertools.product(range(7), repeat=SUITE_PLIES):
        board = Board.from_moves(columns, one_based=False)
        entry = book.lookup(board)
        if entry is not None and entry.score == 0:
            drawn.add(canonical_key(board)[0])
    shipped = [canonical_key(Board.from_moves(o, one_based=False))[0] for o in load_openings()]
    assert len(shipped) == len(set(shipped))  # no position twice, nor with its mirror image
    assert set(shipped) == drawn


@pytest.mark.slow
def test_the_file_is_what_its_script_writes(tmp_path: Path, book: Book) -> None:
    out = tmp_path / "suite.txt"
    assert main(["--out", str(out)]) == 0
    assert out.read_text() == DEFAULT_SUITE.read_text()
    four = tmp_path / "four.txt"
    four.write_text(make_suite(4, 2, book))
    openings = load_openings(four)
    assert all(len(opening) == 4 for opening in openings) and len(openings) > 50
    assert "--plies 4 --seed 2" in four.read_text().splitlines()[2]


@pytest.mark.parametrize(("text", "message"), [
    ("44\n4\n", "line 2: '4' has an odd number of moves"),
    ("# nothing\n\n", "holds no opening"),
    ("4499\n", "line 1: "),
    ("4455667\n", "odd number"),
    ("44444444\n", "line 1: "),
])
def test_a_bad_suite_is_named_by_its_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "suite.txt"
    path.write_text(text)
    with pytest.raises(UsageError, match=message):
        load_openings(path)
