"""What the online and the local games print: our moves and the course's board, columns 1-7
and X for the player who moved first (``vocabulary.columns``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from board.render import render_rows
from course.grid import Grid
from vocabulary import column_label, side_words, symbol

if TYPE_CHECKING:
    from engine import Decision


def format_move(ply: int, column: int, decision: Decision, seconds: float) -> str:
    """The line printed for one of our moves: column (1-7, as in move strings), depth, score
    (``Proven``'s words when proven, for us), nodes and seconds."""
    return (f"{ply:3d}. we play {column_label(column)}   depth {decision.depth:2d}"
            f"  nodes {decision.nodes:>11,}"
            f"  {seconds:6.3f} s  score {decision.score.words(ply - 1)}"
            f" ({decision.source}, {decision.mode} mode)")


def render_grid(grid: Grid, we_started: bool) -> str:
    """A course grid (1 our discs, -1 the opponent's, row 0 at the top) as text: X the discs
    of whoever moved first, O the second's, as in every picture."""
    return render_rows(grid, {1: symbol(we_started), -1: symbol(not we_started), 0: "."})


def our_side(we_started: bool) -> str:
    """Which side we are, as every command says it: ``"we are X (first)"``."""
    return f"we are {side_words(we_started)}"


def server_says(message: str) -> str:
    """A message of the server, quoted as it came; its columns are 0-6 (the protocol's), so a
    message with a number says so beside the log's 1-7."""
    counted = any(c.isdigit() for c in message)
    return f"server: {message}" + (" [the server counts columns 0-6]" if counted else "")
