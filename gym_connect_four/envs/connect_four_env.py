"""``ConnectFourEnv``: the course's Connect Four environment with the old gym API.

The board is a ``board_shape`` array (6x7 by default), row 0 at the top, holding 1 and -1 for
the two players' discs and 0 for empty cells.  ``step`` drops a disc of the *current player*
and does not switch players: a two-player game calls ``change_player()`` between moves (the
course skeleton does ``change_player(); step(opponent); change_player()``).

Rewards are from the mover's view, as in the course: 1 if the move connects four, 0.5 if the
board is full after it, else 0; the full board is checked *before* the win, so a move that fills
the last cell and connects four scores 0.5 (the course server inherits this quirk).

Differences from the course's original, and why:

- ``reset(board=...)`` copies the array it is given (the original keeps a reference, so a
  caller's later changes to its array silently changed the environment), and checks its shape
  and values (``InvalidBoard``).
- ``step`` on a full column raises ``InvalidAction``; the original raises a bare ``Exception``.
  ``InvalidAction`` is a ``ValueError``, so ``except Exception`` code still catches it.  An
  action outside the board (e.g. -1, or 7) raises it too, where the original wrapped around
  (NumPy's negative indexing put -1 in the last column) or raised ``IndexError``;
  ``is_valid_action`` returns False for it.
- ``render(mode="human")`` draws in the terminal instead of opening a pygame window, so it
  needs no display and no pygame; ``mode="ansi"`` returns the text instead of printing it.
- ``reset`` also accepts gym 0.26's ``seed`` and ``options`` keywords, so gym's wrappers can
  call it; through ``gym.make`` the board must be passed by keyword (``reset(board=b)``),
  because gym's wrappers forward keywords only.
- ``current_player`` is readable (the original keeps it private).
"""

from __future__ import annotations

from enum import Enum
from typing import Any

import gym
import numpy as np
from gym import spaces

CONNECT = 4


class ResultType(float, Enum):
    """The rewards ``step`` gives, from the mover's view."""

    NONE = 0.0
    DRAW = 0.5
    WIN = 1.0


class InvalidAction(ValueError):
    """``step`` was asked to play a column that is full or not on the board."""


class InvalidBoard(ValueError):
    """``reset`` was given a board of the wrong shape or with values other than -1, 0, 1."""


def _four_in_a_row(board: np.ndarray) -> bool:
    """True if either player has ``CONNECT`` discs in a row, column or diagonal."""
    rows, cols = board.shape
    n = CONNECT
    # Sum every window of n cells in each direction; a sum of +-n means n equal discs.
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        r_stop = rows - (n - 1) * dr
        c_start = (n - 1) if dc < 0 else 0
        c_stop = cols - (n - 1) * max(dc, 0)
        if r_stop <= 0 or c_stop <= c_start:
            continue
        total = np.zeros((r_stop, c_stop - c_start), dtype=np.int64)
        for k in range(n):
            total += board[k * dr : k * dr + r_stop, c_start + k * dc : c_stop + k * dc]
        if (np.abs(total) == n).any():
            return True
    return False


class ConnectFourEnv(gym.Env[np.ndarray, int]):
    """Connect Four for two players, +1 and -1, who take turns by calling ``change_player``."""

    # gym declares ``metadata`` as an instance attribute, hence no ClassVar.
    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": ["console", "human", "ansi"],
        "render.modes": ["console", "human", "ansi"],  # the key older gym versions read
    }

    def __init__(self, board_shape: tuple[int, int] = (6, 7)) -> None:
        super().__init__()
        shape = tuple(int(v) for v in board_shape)
        if len(shape) != 2 or min(shape) < 1:
            raise ValueError(f"board_shape must be two positive integers, not {board_shape!r}")
        self.board_shape: tuple[int, int] = (shape[0], shape[1])
        self.observation_space = spaces.Box(low=-1, high=1, shape=self.board_shape, dtype=int)
        self.action_space = spaces.Discrete(self.board_shape[1])
        self._current_player = 1
        self._board = np.zeros(self.board_shape, dtype=int)

    # --- the gym API ------------------------------------------------------------------------

    # reset, step and render keep the course's old gym API (a board back from reset, four
    # values from step, a render mode argument), which gym 0.26's type hints do not describe.
    def reset(  # type: ignore[override]
        self,
        board: Any = None,
        *,
        seed: int | None = None,
        options: dict[str, Any] | None = None,
    ) -> np.ndarray:
        """Start again with player +1 to move, on an empty board or a copy of ``board``."""
        super().reset(seed=seed)
        self._current_player = 1
        if board is None:
            self._board = np.zeros(self.board_shape, dtype=int)
        else:
            try:
                arr = np.array(board)
            except (TypeError, ValueError) as exc:
                raise InvalidBoard(f"board is not an array: {exc}") from exc
            if arr.shape != self.board_shape:
                raise InvalidBoard(f"board shape is {arr.shape}, expected {self.board_shape}")
            if not np.issubdtype(arr.dtype, np.number) or not np.isin(arr, (-1, 0, 1)).all():
                raise InvalidBoard("board values must be -1, 0 or 1")
            self._board = arr.astype(int)  # a copy: the caller's array stays the caller's
        return self.board

    def step(self, action: int) -> tuple[np.ndarray, float, bool, dict[str, Any]]:  # type: ignore[override]
        """Drop a disc of the current player in column ``action``; players are not switched.

        Returns ``(board, reward, done, info)`` with the reward from the mover's view.  Raises
        ``InvalidAction`` for a full column or one not on the board.
        """
        column = self._column(action)
        if column is None or not self.is_valid_action(column):
            raise InvalidAction(
                f"cannot play column {action!r}: "
                + ("it is full" if column is not None else
                   f"the columns are 0-{self.board_shape[1] - 1}")
            )
        empty_rows = np.flatnonzero(self._board[:, column] == 0)
        self._board[empty_rows[-1], column] = self._current_player
        # The full board is checked before the win, as in the course: see the module docstring.
        if (self._board[0] != 0).all():
            return self.board, float(ResultType.DRAW), True, {}
        if self.is_win_state():
            return self.board, float(ResultType.WIN), True, {}
        return self.board, float(ResultType.NONE), False, {}

    def render(self, mode: str = "console", close: bool = False) -> str | None:  # type: ignore[override]
        """Draw the board: ``console`` prints 1/-1 as A/B, ``human`` prints discs, ``ansi`` returns text."""
        if close:
            return None
        if mode == "console":
            text = self._text({1: "A", -1: "B", 0: " "})
        elif mode in ("human", "ansi"):
            text = self._text({1: "\u25cf", -1: "\u25cb", 0: " "})  # filled / hollow disc
        else:
            raise ValueError(f"unknown render mode {mode!r}: use console, human or ansi")
        if mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    # --- the course's additions ---------------------------------------------------------------

    @property
    def board(self) -> np.ndarray:
        """A copy of the board: changing it does not change the environment."""
        return self._board.copy()

    @property
    def current_player(self) -> int:
        """The player whose disc the next ``step`` drops: 1 or -1."""
        return self._current_player

    def change_player(self) -> None:
        self._current_player = -self._current_player

    def is_valid_action(self, action: int) -> bool:
        """True if ``action`` is a column of the board with room for a disc."""
        column = self._column(action)
        return column is not None and bool(self._board[0, column] == 0)

    def available_moves(self) -> frozenset[int]:
        return frozenset(c for c in range(self.board_shape[1]) if self._board[0, c] == 0)

    def is_win_state(self) -> bool:
        """True if either player has four in a row (the course checks both, not only the mover)."""
        return _four_in_a_row(self._board)

    # --- helpers --------------------------------------------------------------------------

    def _column(self, action: Any) -> int | None:
        """``action`` as a column index, or None if it is not an integer column of the board."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            return None
        if not 0 <= action < self.board_shape[1]:
            return None
        return int(action)

    def _text(self, symbols: dict[int, str]) -> str:
        cols = self.board_shape[1]
        rule = "+" + "---+" * cols
        lines = [rule]
        for row in self._board:
            lines.append("|" + "|".join(f" {symbols[int(v)]} " for v in row) + "|")
        lines.append(rule)
        lines.append(" " + " ".join(f" {c} " for c in range(cols)))
        return "\n".join(lines)
