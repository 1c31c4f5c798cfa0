"""The one board value type: an immutable Connect Four position over two bitboards.

``Board`` is what every part of the project passes around.  Conversions happen at the edges
and validate their input: from/to Pons' move strings (``"4453"``, 1-based columns) and
from/to the course's 6x7 grid (row 0 at the top).  Inside, code trusts a ``Board``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from board import bits
from board.errors import IllegalMove, InvalidGrid, InvalidMoveString

WIDTH = bits.WIDTH
HEIGHT = bits.HEIGHT
COLUMN_DIGITS = frozenset("1234567")  # a move string's characters (Pons' 1-based columns)


def _python(function: Any) -> Any:
    """The plain-Python body of a compiled bitboard function.

    The board runs the same functions as the compiled search, but as Python: one call costs
    about the same, and a fresh process does not pay for loading each one from numba's cache.
    """
    return getattr(function, "py_func", function)


_can_play = _python(bits.can_play)
_drop_cell = _python(bits.drop_cell)
_has_four = _python(bits.has_four)
_bottom_mask_col = _python(bits.bottom_mask_col)

Bitboard = int


@dataclass(frozen=True, slots=True)
class Board:
    """A position: ``position`` holds the discs of the side to move, ``mask`` all discs.

    ``moves`` is the number of discs played, so the side to move is the first player when
    it is even.  ``play`` returns a new board; a board never changes.
    """

    position: Bitboard = 0
    mask: Bitboard = 0
    moves: int = 0

    # --- construction -------------------------------------------------------------------

    @classmethod
    def from_moves(cls, moves: str | Iterable[int], *, one_based: bool = True) -> Board:
        """The position after playing ``moves`` from the empty board.

        ``moves`` is either a string of 1-based column digits (Pons' notation, ``"4453"``) or
        an iterable of columns (1-based unless ``one_based=False``).  Raises
        ``InvalidMoveString`` naming the first bad move; a game that is won before the last
        move also counts as bad.
        """
        board = cls()
        offset = 1 if one_based else 0
        for index, item in enumerate(moves):
            if isinstance(item, str):
                # ASCII digits only: str.isdigit() also takes a fullwidth or an Arabic-Indic 4.
                if item not in COLUMN_DIGITS:
                    raise InvalidMoveString(
                        f"move {index + 1} is {item!r}: expected a column digit 1-{WIDTH}"
                    )
                col = int(item) - 1
            elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
                col = int(item) - offset
            else:
                raise InvalidMoveString(f"move {index + 1} is {item!r}: expected a column number")
            if board.is_over():
                raise InvalidMoveString(f"move {index + 1}: the game was already over")
            if not 0 <= col < WIDTH:
                raise InvalidMoveString(
                    f"move {index + 1} is column {col + offset}: out of range"
                )
            if not board.can_play(col):
                raise InvalidMoveString(f"move {index + 1}: column {col + offset} is full")
            board = board.play(col)
        return board

    @classmethod
    def from_grid(cls, grid: Any, to_move: int = 1) -> Board:
        """The position shown by a course grid (6x7, row 0 at the top).

        ``grid`` holds 1 and -1 for the two players' discs and 0 for empty cells; ``to_move``
        (1 or -1) says whose turn it is, and is checked against the disc counts: the side to
        move has as many discs as the other, or one fewer.  Raises ``InvalidGrid``.
        """
        if to_move not in (1, -1):
            raise InvalidGrid(f"to_move must be 1 or -1, not {to_move!r}")
        try:
            arr = np.asarray(grid)
        except (TypeError, ValueError) as exc:
            raise InvalidGrid(f"not a grid: {exc}") from exc
        if arr.shape != (HEIGHT, WIDTH):
            raise InvalidGrid(f"grid shape is {arr.shape}, expected ({HEIGHT}, {WIDTH})")
        if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
            raise InvalidGrid(f"grid values must be numbers, got dtype {arr.dtype}")
        if not np.isin(arr, (-1, 0, 1)).all():
            bad = sorted({v for v in arr.ravel().tolist() if v not in (-1, 0, 1)})
            raise InvalidGrid(f"grid values must be -1, 0 or 1, found {bad}")
        mover = 0
        mask = 0
        for col in range(WIDTH):
            seen_empty = False
            for row in range(HEIGHT):  # bottom to top
                value = int(arr[HEIGHT - 1 - row, col])
                if value == 0:
                    seen_empty = True
                    continue
                if seen_empty:
                    raise InvalidGrid(f"floating disc in column {col} (row {HEIGHT - 1 - row})")
                cell = 1 << (col * bits.H1 + row)
                mask |= cell
                if value == to_move:
                    mover |= cell
        n_mover = int((arr == to_move).sum())
        n_other = int((arr == -to_move).sum())
        if n_other - n_mover not in (0, 1):
            raise InvalidGrid(
                f"side to move ({to_move}) has {n_mover} discs and the other side {n_other}:"
                " the side to move must have as many discs as the other, or one fewer"
            )
        return cls(mover, mask, n_mover + n_other)

    # --- queries --------------------------------------------------------------------------

    @property
    def key(self) -> int:
        """A unique integer for this position (``position + mask``)."""
        return self.position + self.mask

    @property
    def opponent(self) -> Bitboard:
        """The discs of the side that just moved."""
        return self.position ^ self.mask

    @property
    def first_player_to_move(self) -> bool:
        return self.moves % 2 == 0

    @property
    def player_to_move(self) -> int:
        """1 when the first player is to move, 2 when the second is."""
        return 1 if self.first_player_to_move else 2

    def can_play(self, col: int) -> bool:
        """True if ``col`` (0-based) is on the board and not full."""
        return 0 <= col < WIDTH and bool(_can_play(self.mask, col))

    def legal_moves(self) -> list[int]:
        """Playable columns, left to right; empty once the game is over."""
        if self.is_over():
            return []
        return [c for c in range(WIDTH) if _can_play(self.mask, c)]

    def is_winning_move(self, col: int) -> bool:
        """True if the side to move wins by playing the playable column ``col``."""
        return bool(_has_four(self.position | _drop_cell(self.mask, col)))

    def last_mover_won(self) -> bool:
        """True if the side that just moved has four in a row."""
        return bool(_has_four(self.opponent))

    def four_cells(self) -> list[tuple[int, int]]:
        """The cells of the last mover's fours in a row as ``(row, col)``, row 0 at the top as
        in a course grid (empty unless the game was won)."""
        cells = bits.fours(self.opponent)
        return [(HEIGHT - 1 - row, col) for col in range(WIDTH) for row in range(HEIGHT)
                if cells >> (col * bits.H1 + row) & 1]

    def is_full(self) -> bool:
        return self.moves == bits.CELLS

    def is_over(self) -> bool:
        return self.last_mover_won() or self.is_full()

    # --- moves ----------------------------------------------------------------------------

    def play(self, col: int) -> Board:
        """The board after the side to move drops a disc in ``col`` (0-based).

        Raises ``IllegalMove`` if the column is out of range or full, or the game is over.
        """
        if not isinstance(col, (int, np.integer)) or isinstance(col, bool):
            raise IllegalMove(f"column must be an integer, not {col!r}")
        if not 0 <= col < WIDTH:
            raise IllegalMove(f"column {col} is out of range 0-{WIDTH - 1}")
        if not _can_play(self.mask, col):
            raise IllegalMove(f"column {col} is full")
        if self.is_over():
            raise IllegalMove("the game is over")
        return self.play_unchecked(int(col))

    def play_unchecked(self, col: int) -> Board:
        """``play`` for callers that already know the move is legal."""
        new_mask = self.mask | (self.mask + _bottom_mask_col(col))
        return Board(self.position ^ self.mask, new_mask, self.moves + 1)

    # --- conversions ----------------------------------------------------------------------

    def to_grid(self, to_move: int = 1) -> np.ndarray:
        """The course's 6x7 grid (row 0 at the top): the side to move's discs are ``to_move``."""
        grid = np.zeros((HEIGHT, WIDTH), dtype=np.int8)
        other = self.opponent
        for col in range(WIDTH):
            for row in range(HEIGHT):
                cell = 1 << (col * bits.H1 + row)
                if self.position & cell:
                    grid[HEIGHT - 1 - row, col] = to_move
                elif other & cell:
                    grid[HEIGHT - 1 - row, col] = -to_move
        return grid

    def grid_by_player(self) -> np.ndarray:
        """The 6x7 grid (row 0 at the top) with the first player's discs 1 and the second's -1,
        whoever is to move."""
        return self.to_grid(1 if self.first_player_to_move else -1)

    def render(self, to_move_symbol: str = "X", other_symbol: str = "O") -> str:
        """A text picture, top row first, with the column numbers 1-7 underneath."""
        from board.render import render_rows

        return render_rows(self.to_grid(1).tolist(), {1: to_move_symbol, -1: other_symbol, 0: "."})

    def __str__(self) -> str:
        # The first player is always X, whoever is to move.
        if self.first_player_to_move:
            return self.render("X", "O")
        return self.render("O", "X")


def moves_to_string(columns: Sequence[int]) -> str:
    """0-based columns as Pons' 1-based move string."""
    return "".join(str(c + 1) for c in columns)


def moves_from_string(text: str) -> tuple[int, ...]:
    """A move string's 0-based columns (``moves_to_string`` backwards); ``InvalidMoveString``
    for a character that is no column 1-7.  Whether the moves make a game is
    ``Board.from_moves``'s to check."""
    for index, char in enumerate(text):
        if char not in "1234567":
            raise InvalidMoveString(f"move {index + 1} is {char!r}: expected a column 1-7")
    return tuple(int(char) - 1 for char in text)


def moves_reaching(board: Board) -> str:
    """A move string (Pons' notation) of a game that reaches ``board``, such as a position read
    from a course grid, which has no history.

    Discs are taken off the top of the columns backwards, the side that moved last first,
    through positions where nobody has four in a row yet (only the last move may have made
    four).  Raises ``InvalidGrid`` when no game reaches ``board``: the side to move already has
    four, or the last mover's fours could not all have been made by its last disc.
    """
    if _has_four(board.position):
        raise InvalidGrid("the side to move has four in a row already: no game goes on after a win")
    dead_ends: set[tuple[int, int]] = set()

    def back(position: Bitboard, mask: Bitboard, moves: int) -> list[int] | None:
        if moves == 0:
            return []
        if (position, mask) in dead_ends:
            return None
        last_mover = position ^ mask
        for col in range(WIDTH):
            column = mask & bits.column_mask(col)
            if not column:
                continue
            top = 1 << (column.bit_length() - 1)
            if not last_mover & top:
                continue
            before = last_mover ^ top  # the last mover's discs before its last disc
            if _has_four(before):
                continue  # the game would have ended before that disc
            path = back(before, mask ^ top, moves - 1)
            if path is not None:
                path.append(col)
                return path
        dead_ends.add((position, mask))
        return None

    path = back(board.position, board.mask, board.moves)
    if path is None:
        raise InvalidGrid("no game reaches this position: the fours on the board could not all"
                          " have been made by the last disc played")
    return moves_to_string(path)


MAX_DISCS_TO_MOVE = bits.CELLS - 1  # a position with a move left holds at most this many discs


def disc_range(text: str) -> range | None:
    """The disc counts ``"A-B"`` (or ``"A"``) names, for the ``--discs`` options of the
    scripts that sample positions with a move left; None unless ``1 <= A <= B <= 41``."""
    low, _, high = text.partition("-")
    try:
        first, last = int(low), int(high or low)
    except ValueError:
        return None
    if not 1 <= first <= last <= MAX_DISCS_TO_MOVE:
        return None
    return range(first, last + 1)


def disc_range_problem(text: str) -> str:
    """The one-line refusal of ``--discs text`` when ``disc_range`` names no range."""
    return f"--discs must be A-B with 1 <= A <= B <= {MAX_DISCS_TO_MOVE}, not {text!r}"
