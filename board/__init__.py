"""The board model: one immutable bitboard position type and its conversions."""

from board.board import HEIGHT, WIDTH, Bitboard, Board, moves_from_string, moves_to_string
from board.errors import BoardError, IllegalMove, InvalidGrid, InvalidMoveString

__all__ = [
    "HEIGHT",
    "WIDTH",
    "Bitboard",
    "Board",
    "BoardError",
    "IllegalMove",
    "InvalidGrid",
    "InvalidMoveString",
    "moves_from_string",
    "moves_to_string",
]
