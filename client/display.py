"""What the online and the local games print: our moves and the course's board."""

from __future__ import annotations

from typing import TYPE_CHECKING

from board.render import render_rows
from course.grid import Grid

if TYPE_CHECKING:
    from engine import Decision


def format_move(ply: int, column: int, decision: Decision, seconds: float) -> str:
    """The line printed for one of our moves: column, depth, score, nodes and seconds."""
    return (f"{ply:3d}. we play {column}   depth {decision.depth:2d}  nodes {decision.nodes:>11,}"
            f"  {seconds:6.3f} s  score {decision.score.words(ply - 1)}"
            f" ({decision.source}, {decision.mode} mode)")


def render_grid(grid: Grid) -> str:
    """A course grid as text: X = our discs, O = the bot's, row 0 at the top."""
    return render_rows(grid, {1: "X", -1: "O", 0: "."})
