"""A person at the terminal as a player, and the board as the terminal shows it.

Columns are numbered 1-7, as in move strings (``vocabulary.columns``), in the picture and at the
prompt.  The first player's discs are X (red), the second's O (yellow).  Colours come from rich
(``terminal.console``): only on a terminal, never with ``NO_COLOR`` set or ``TERM=dumb``.
"""

from __future__ import annotations

import sys
from typing import TextIO

from rich.console import Console
from rich.markup import escape

from arena.match import GameAbandoned
from board import HEIGHT, WIDTH, Board
from board.render import render_rows
from terminal import console as terminal_console

QUIT_WORDS = ("q", "quit", "exit")
STYLES = {1: "bold red", -1: "bold yellow", 0: "dim"}


def disc(first_player: bool) -> str:
    """The rich markup of a player's disc: ``X`` for the first player, ``O`` for the second."""
    return f"[{STYLES[1 if first_player else -1]}]{'X' if first_player else 'O'}[/]"


def render_board(board: Board, *, last: int | None = None) -> str:
    """The board as rich markup (``board.render``), a ``^`` under the column last played."""
    # value 1 in this grid is always the first player's disc, whoever is to move
    grid = board.grid_by_player().tolist()
    return render_rows(grid, {1: "X", -1: "O", 0: "."}, last=last,
                       paint=lambda value, symbol: f"[{STYLES[value]}]{symbol}[/]")


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
        self.console: Console = terminal_console(self.stdout, colour=colour)
        self._after_mine = Board()  # the board after our last move: shows the reply

    def new_game(self) -> None:
        self._after_mine = Board()

    def _reply_column(self, board: Board) -> int | None:
        """The column of the disc added since our last move, if exactly one was."""
        added = board.mask & ~self._after_mine.mask
        if added == 0 or added & (added - 1):
            return None
        return (added.bit_length() - 1) // (HEIGHT + 1)

    def say(self, markup: str = "") -> None:
        self.console.print(markup)
        self.stdout.flush()

    def choose(self, board: Board) -> int:
        me = disc(board.first_player_to_move)
        self.say()
        self.say(render_board(board, last=self._reply_column(board)))
        while True:
            self.console.print(f"Your move {me} (column 1-{WIDTH}, q to quit): ", end="")
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
            self.say(f"  {escape(problem)}; try again.")

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
        if len(text) > 2 or not 1 <= int(text) <= WIDTH:
            return f"column {shown} does not exist: columns are 1-{WIDTH}"
        if not board.can_play(int(text) - 1):
            return f"column {int(text)} is full"
        return ""


__all__ = ["HumanPlayer", "disc", "render_board"]
