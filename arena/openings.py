"""The opening suite of paired games (``agent.py sprt``): positions after a few moves whose
exact value is a draw, one of each mirror pair, and how the suite was made.

Connect Four is a first-player win from the empty board, so a pair of games from the empty
board (or from a random opening, mostly won for one side) tells less than it could: the side
with the won position wins both games whoever is stronger.  From a position whose exact value
is a draw, neither side is ahead: a win is a mistake of the loser.  The suite holds every such
position of ``SUITE_PLIES`` discs, as the opening book proves them (the book holds every
position up to 13 discs with its outcome, and a draw always exactly), one of each position and
its mirror image (both have the same value, and the book stores one), in an order shuffled
with a fixed seed so that the first pairs of a test already spread over the whole suite.

The file (``arena/data/openings.txt``) is text: comment lines beginning with ``#`` that say how
it was made, then one move string a line (Pons' notation: the columns 1-7 played from the empty
board, an even number of them so that the first player of a game moves first from it).  Made
by::

    python -m arena.openings --plies 6 --seed 1 --out arena/data/openings.txt

Any file of that form is a suite for ``agent.py sprt --openings FILE``.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from board import Board, BoardError, moves_from_string
from board.board import moves_reaching
from settings import UsageError

if TYPE_CHECKING:
    from solver.book import Book

DEFAULT_SUITE = Path(__file__).resolve().parent / "data" / "openings.txt"
SUITE_PLIES = 6
SUITE_SEED = 1
MAX_PLIES = 12  # the book proves every position up to 13 discs

Opening = tuple[int, ...]  # 0-based columns from the empty board


def balanced_positions(plies: int, book: Book | None = None) -> list[str]:
    """Every position of ``plies`` discs whose exact value is a draw, one of each mirror pair
    (the book's orientation), as a move string reaching it; sorted.  ``book``: the shipped one
    unless given."""
    from solver.book import decode_key, discs_of, load_book  # the solver's data: only here

    book = book or load_book()
    if plies > book.complete_discs:
        raise UsageError(f"the book proves every position up to {book.complete_discs} discs,"
                         f" not {plies}")
    keys = book.keys
    drawn = (discs_of(keys) == plies) & (book.scores == 0) & (book.exact == 1)
    return sorted(moves_reaching(decode_key(int(key))) for key in keys[drawn])


def suite_text(openings: Sequence[str], plies: int, seed: int) -> str:
    """The suite's file: how it was made, then the move strings."""
    header = [
        f"# {len(openings)} openings for paired games (agent.py sprt): every position of {plies}"
        " discs whose exact value is a draw,",
        "# as the opening book proves it, one of each mirror pair, shuffled with seed"
        f" {seed}. Made by:",
        f"#   python -m arena.openings --plies {plies} --seed {seed} --out"
        " arena/data/openings.txt",
        "# One move string a line: the columns 1-7 played from the empty board.",
    ]
    return "\n".join([*header, *openings]) + "\n"


def make_suite(plies: int = SUITE_PLIES, seed: int = SUITE_SEED, book: Book | None = None) -> str:
    """The suite's file for ``plies`` discs, shuffled with ``seed``."""
    openings = balanced_positions(plies, book)
    random.Random(seed).shuffle(openings)
    return suite_text(openings, plies, seed)


def load_openings(path: Path | None = None) -> tuple[Opening, ...]:
    """The openings of a suite file (default: the shipped one), as 0-based columns.

    Raises ``UsageError`` naming the file and line of a move string that is not one, an odd
    one (the first player of a game must move first from it) or one already decided, and
    for a file without openings.
    """
    where = path or DEFAULT_SUITE
    try:
        lines = where.read_text().splitlines()
    except OSError as error:
        raise UsageError(f"cannot read the openings {where}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{where} is not a text file of move strings") from None
    openings = []
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            board = Board.from_moves(text)
        except BoardError as error:
            raise UsageError(f"{where}, line {number}: {error}") from None
        if board.moves % 2:
            raise UsageError(f"{where}, line {number}: {text!r} has an odd number of moves; an"
                             " opening of a pair needs an even number (the first player moves"
                             " first from it)")
        if board.is_over() or not board.legal_moves():
            raise UsageError(f"{where}, line {number}: {text!r} is already decided")
        openings.append(moves_from_string(text))
    if not openings:
        raise UsageError(f"{where} holds no opening (one move string a line)")
    return tuple(openings)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.openings", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plies", type=int, default=SUITE_PLIES,
                        help=f"discs of each opening, even, 2-{MAX_PLIES} (default {SUITE_PLIES})")
    parser.add_argument("--seed", type=int, default=SUITE_SEED,
                        help=f"the seed of the order (default {SUITE_SEED})")
    parser.add_argument("--out", type=Path, default=DEFAULT_SUITE,
                        help="the file to write (default: the shipped suite)")
    args = parser.parse_args(argv)
    if args.plies % 2 or not 2 <= args.plies <= MAX_PLIES:
        parser.error(f"--plies must be even, 2-{MAX_PLIES}, not {args.plies}")
    text = make_suite(args.plies, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    count = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
    print(f"wrote {count} openings to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
