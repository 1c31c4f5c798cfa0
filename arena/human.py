"""A person at the terminal as a player, and the board as the terminal shows it.

Columns are numbered 1-7 for people (as in Pons' move strings); the code inside works with
0-based columns as everywhere else.  The first player's discs are X (red), the second's O
(yellow).  Colours are ANSI escape codes, used only when the output is a terminal and neither
``NO_COLOR`` (https://no-color.org) is set nor ``TERM=dumb``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

from arena.match import GameAbandoned
from board import HEIGHT, WIDTH, Board

RED = "\x1b[1;31m"
YELLOW = "\x1b[1;33m"
DIM = "\x1b[2m"
RESET = "\x1b[0m"

QUIT_WORDS = ("q", "quit", "exit")


def use_colour(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """True when ``stream`` is a terminal and the user has not asked for plain output."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def disc(first_player: bool, colour: bool) -> str:
    symbol = "X" if first_player else "O"
    if not colour:
        return symbol
    return f"{RED if first_player else YELLOW}{symbol}{RESET}"


def render_board(board: Board, *, colour: bool, last: int | None = None) -> str:
    """The board framed, column numbers 1-7 on top, a ``^`` under the column last played."""
    # value 1 in this grid is always the first player's disc, whoever is to move
    grid = board.to_grid(1 if board.first_player_to_move else -1)
    empty = f"{DIM}.{RESET}" if colour else "."
    lines = [" " + " ".join(str(c + 1) for c in range(WIDTH))]
    for row in range(HEIGHT):
        cells = []
        for col in range(WIDTH):
            value = int(grid[row, col])
            cells.append(empty if value == 0 else disc(value == 1, colour))
        lines.append("|" + " ".join(cells) + "|")
    lines.append("+" + "-" * (2 * WIDTH - 1) + "+")
    if last is not None:
        lines.append(" " * (1 + 2 * last) + "^")
    return "\n".join(lines)


class HumanPlayer:
    """Asks a person for each move: shows the board, prompts, and asks again on bad input.

    End of input or ``q`` raises ``GameAbandoned``; Ctrl-C raises ``KeyboardInterrupt`` as
    usual.  Neither ever becomes a move.
    """

    name = "human"

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None,
                 colour: bool | None = None) -> None:
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.colour = use_colour(self.stdout) if colour is None else colour
        self._after_mine = Board()  # the board after our last move: shows the reply

    def new_game(self) -> None:
        self._after_mine = Board()

    def _reply_column(self, board: Board) -> int | None:
        """The column of the disc added since our last move, if exactly one was."""
        added = board.mask & ~self._after_mine.mask
        if added == 0 or added & (added - 1):
            return None
        return (added.bit_length() - 1) // (HEIGHT + 1)

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def choose(self, board: Board) -> int:
        me = disc(board.first_player_to_move, self.colour)
        self.say()
        self.say(render_board(board, colour=self.colour, last=self._reply_column(board)))
        while True:
            self.stdout.write(f"Your move {me} (column 1-{WIDTH}, q to quit): ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.say()
                raise GameAbandoned("end of input")
            if not self._echoed_by_terminal():
                self.stdout.write(line if line.endswith("\n") else line + "\n")
            text = line.strip().lower()
            if text in QUIT_WORDS:
                raise GameAbandoned("quit")
            problem = self._problem(board, text)
            if not problem:
                column = int(text) - 1
                self._after_mine = board.play(column)
                return column
            self.say(f"  {problem}; try again.")

    def _echoed_by_terminal(self) -> bool:
        """True when the person's typing shows on screen by itself; else (input from a file or
        a pipe) the answer is written after the prompt, so a transcript reads like a session."""
        isatty = getattr(self.stdin, "isatty", None)
        return bool(isatty and isatty())

    @staticmethod
    def _problem(board: Board, text: str) -> str:
        if not text:
            return "type a column number"
        shown = text if len(text) <= 20 else text[:20] + "..."
        if not (text.isascii() and text.isdigit()):
            return f"{shown!r} is not a column number"
        # compared as text first: int() of thousands of digits is refused by Python itself
        if len(text.lstrip("0")) != 1 or not 1 <= int(text) <= WIDTH:
            return f"column {shown} does not exist: columns are 1-{WIDTH}"
        if not board.can_play(int(text) - 1):
            return f"column {int(text)} is full"
        return ""


__all__ = ["HumanPlayer", "disc", "render_board", "use_colour"]
