"""A position as a picture for a report: SVG or PNG, drawn with matplotlib.

The board in the page's colours, each player's discs also marked (a cross on the first
player's, a ring on the second's) so that they differ without colour; the last disc played
outlined, a winning four ringed; a line above the board saying who is to move (X the first
player, O the second, or how the game ended), which the verdicts are about; the column numbers
1-7 under the board, as in move strings; and, optionally, a row of verdicts under them, each
``vocabulary.Proven.short`` ("+7" a win in 7 moves, "\u22127" a loss in 7 moves, both counted in
the side to move's moves as everywhere, "=" a draw, "win" / "loss" when only the outcome is
proven, "?" unproven).  The
page's "save" buttons and ``agent.py board-image`` both come here.  The figure is built without
pyplot, so pictures can be drawn from several threads of the board's server.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from board import Board, bits
from vocabulary import Outcome, column_label

FORMATS = ("svg", "png")
BOARD_BLUE = "#1d4fa8"
FIRST_COLOUR, SECOND_COLOUR = "#d7263d", "#f5c518"
FIRST_MARK, SECOND_MARK = "#ffffff", "#5c4400"
# Keyed by the API's outcome words (Outcome.word).
OUTCOME_COLOURS = {Outcome.WIN.word: "#1a7f37", Outcome.DRAW.word: "#555555",
                   Outcome.LOSS.word: "#b3261e"}
PNG_DPI = 150


def verdict_label(column: dict[str, Any]) -> str:
    """A column's verdict (an entry of the API's ``columns``) in a few characters: its
    ``short`` (``Proven.short``), "" for a full column."""
    if not column.get("legal"):
        return ""
    return str(column.get("short") or "?")


def _colours(flip: bool) -> tuple[tuple[str, str], tuple[str, str]]:
    """Each player's (disc, mark) colours; flipped, the players swap them, as on the page."""
    first, second = (FIRST_COLOUR, FIRST_MARK), (SECOND_COLOUR, SECOND_MARK)
    return (second, first) if flip else (first, second)


def caption(board: Board) -> str:
    """Who is to move, or how the game ended."""
    names = {1: "X (first player, cross)", 2: "O (second player, ring)"}
    if board.last_mover_won():
        return f"{names[3 - board.player_to_move]} won"
    if board.is_full():
        return "a draw"
    return f"{names[board.player_to_move]} to move"


def draw(moves: str, *, verdicts: Sequence[dict[str, Any]] | None = None, flip: bool = False,
         fmt: str = "svg") -> bytes:
    """The picture of the position after ``moves`` (Pons' move string) as ``fmt`` bytes.

    ``verdicts`` are the API's ``columns`` entries to write under the board (None: no row);
    ``flip`` swaps the players' colours (not their marks).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyBboxPatch

    if fmt not in FORMATS:
        raise ValueError(f"unknown picture format {fmt!r}; choose one of {', '.join(FORMATS)}")
    board = Board.from_moves(moves)
    grid = board.grid_by_player()
    last = (int(moves[-1]) - 1) if moves else None
    rows_below = 2 if verdicts is not None else 1
    figure = Figure(figsize=(3.6, 3.6 * (bits.HEIGHT + rows_below + 1.0) / (bits.WIDTH + 0.4)))
    FigureCanvasAgg(figure)
    axes = figure.add_axes((0, 0, 1, 1))
    axes.set_xlim(-0.2, bits.WIDTH + 0.2)
    axes.set_ylim(-rows_below - 0.2, bits.HEIGHT + 0.8)
    axes.text(bits.WIDTH / 2, bits.HEIGHT + 0.42, caption(board), ha="center", va="center",
              fontsize=10, color="#222222")
    fours = set(board.four_cells())
    axes.set_aspect("equal")
    axes.axis("off")
    axes.add_patch(FancyBboxPatch((0, 0), bits.WIDTH, bits.HEIGHT,
                                  boxstyle="round,pad=0.05,rounding_size=0.25",
                                  facecolor=BOARD_BLUE, edgecolor="none"))
    (first, first_mark), (second, second_mark) = _colours(flip)
    for row in range(bits.HEIGHT):  # grid row 0 is the top
        for col in range(bits.WIDTH):
            x, y = col + 0.5, bits.HEIGHT - row - 0.5
            value = int(grid[row, col])  # 1: the first player's disc
            face = {1: first, -1: second}.get(value, "#ffffff")
            top_of_last = last is not None and col == last and (
                row == 0 or grid[row - 1, col] == 0) and value != 0
            axes.add_patch(Circle((x, y), 0.4, facecolor=face,
                                  edgecolor="#111111" if top_of_last else "none",
                                  linewidth=2.6 if top_of_last else 0))
            if value == 1:
                for dx in (-0.17, 0.17):
                    axes.plot([x - 0.17, x + 0.17], [y - dx, y + dx], color=first_mark,
                              linewidth=2.2, solid_capstyle="round")
            elif value == -1:
                axes.add_patch(Circle((x, y), 0.19, facecolor="none", edgecolor=second_mark,
                                      linewidth=2.0))
            if (row, col) in fours:
                axes.add_patch(Circle((x, y), 0.46, facecolor="none", edgecolor="#ffffff",
                                      linewidth=2.0, linestyle=(0, (3, 2))))
    for col in range(bits.WIDTH):
        axes.text(col + 0.5, -0.45, column_label(col), ha="center", va="center", fontsize=10,
                  color="#333333")
        if verdicts is not None and col < len(verdicts):
            entry = verdicts[col]
            axes.text(col + 0.5, -1.4, verdict_label(entry), ha="center", va="center",
                      fontsize=10, fontweight="bold",
                      color=OUTCOME_COLOURS.get(entry.get("outcome") or "", "#777777"))
    out = io.BytesIO()
    figure.savefig(out, format=fmt, dpi=PNG_DPI, facecolor="white")
    return out.getvalue()
