"""Typed errors raised where outside input (move strings, course grids, columns) enters the board model."""


class BoardError(ValueError):
    """Base class: a position or a move given from outside is not valid."""


class InvalidMoveString(BoardError):
    """A move string (1-based columns, Pons' notation) is malformed or plays an impossible move."""


class IllegalMove(BoardError):
    """A column is out of range, full, or the game is already over."""


class InvalidGrid(BoardError):
    """A 6x7 course grid has the wrong shape or values, floating discs or impossible disc counts."""
