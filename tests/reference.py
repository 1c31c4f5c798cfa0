"""A deliberately naive Connect Four over the course's 6x7 grid: the oracle the tests compare to.

Nothing here shares code with the bitboard model: cells are looked at one by one, windows
are enumerated by coordinates, minimax has no pruning.  Slow, but obviously right.
"""

from __future__ import annotations

ROWS, COLS = 6, 7
WIN = 1_000_000_000

Grid = list[list[int]]


def empty_grid() -> Grid:
    return [[0] * COLS for _ in range(ROWS)]


def drop(grid: Grid, col: int, player: int) -> Grid:
    """A new grid with ``player``'s disc dropped in ``col`` (row 0 is the top)."""
    new = [row[:] for row in grid]
    for row in range(ROWS - 1, -1, -1):
        if new[row][col] == 0:
            new[row][col] = player
            return new
    raise ValueError(f"column {col} is full")


def legal(grid: Grid) -> list[int]:
    return [c for c in range(COLS) if grid[0][c] == 0]


def windows() -> list[list[tuple[int, int]]]:
    """The 69 four-cell windows as lists of (row, col)."""
    result = []
    for r in range(ROWS):
        for c in range(COLS):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (-1, 1)):
                cells = [(r + i * dr, c + i * dc) for i in range(4)]
                if all(0 <= rr < ROWS and 0 <= cc < COLS for rr, cc in cells):
                    result.append(cells)
    return result


WINDOWS = windows()


def has_four(grid: Grid, player: int) -> bool:
    return any(all(grid[r][c] == player for r, c in w) for w in WINDOWS)


def windows5000(grid: Grid, player: int) -> int:
    """The seed heuristic exactly as the course's seed solutions state it."""
    score = 0
    for w in WINDOWS:
        values = [grid[r][c] for r, c in w]
        own, opp, empty = values.count(player), values.count(-player), values.count(0)
        if own == 4:
            score += 5_000_001
        elif own == 3 and empty == 1:
            score += 5_000
        elif own == 2 and empty == 2:
            score += 500
        elif opp == 4:
            score -= 5_000_000
        elif opp == 3 and empty == 1:
            score -= 5_001
        elif opp == 2 and empty == 2:
            score -= 501
    score += sum(1 for r in range(ROWS) if grid[r][COLS // 2] == player)
    return score


def threat_cells(grid: Grid, player: int) -> set[tuple[int, int]]:
    """Empty cells (reachable or not) that would give ``player`` four in a row."""
    cells = set()
    for r in range(ROWS):
        for c in range(COLS):
            if grid[r][c] == 0:
                grid[r][c] = player
                if has_four(grid, player):
                    cells.add((r, c))
                grid[r][c] = 0
    return cells


def threats(grid: Grid, player: int, first_player_to_move: bool) -> int:
    """The ``threats`` heuristic as its docstring states it."""
    def good(cell: tuple[int, int], owner_is_first: bool) -> bool:
        row_from_bottom = ROWS - 1 - cell[0]  # 0-based
        return (row_from_bottom % 2 == 0) == owner_is_first

    own, opp = threat_cells(grid, player), threat_cells(grid, -player)
    open_twos = {1: 0, -1: 0}
    for w in WINDOWS:
        values = [grid[r][c] for r, c in w]
        for p in (1, -1):
            if values.count(p) == 2 and values.count(0) == 2:
                open_twos[p] += 1
    centre = {p: sum(1 for r in range(ROWS) if grid[r][COLS // 2] == p) for p in (1, -1)}
    return (
        40 * (len(own) - len(opp))
        + 60 * (sum(good(c, first_player_to_move) for c in own)
                - sum(good(c, not first_player_to_move) for c in opp))
        + 4 * (open_twos[player] - open_twos[-player])
        + 3 * (centre[player] - centre[-player])
    )


def minimax(grid: Grid, player: int, discs: int, depth: int) -> int:
    """Plain depth-limited negamax, scores as in ``search.negamax`` (``discs`` = discs played)."""
    if depth == 0:
        return windows5000(grid, player)
    best = -2 * WIN
    for col in legal(grid):
        child = drop(grid, col, player)
        if has_four(child, player):
            return WIN - (discs + 1)
        if discs + 1 == ROWS * COLS:
            score = 0
        else:
            score = -minimax(child, -player, discs + 1, depth - 1)
        best = max(best, score)
    return best


def minimax_with_tactics(grid: Grid, player: int, discs: int, depth: int) -> int:
    """``minimax`` as ``search.negamax`` with ``tactics``: a move after which the opponent wins
    at once is never played unless all are (then the position is lost), and a node left with a
    single move (a forced move) does not count as a ply."""
    for col in legal(grid):
        if has_four(drop(grid, col, player), player):
            return WIN - (discs + 1)
    safe = [col for col in legal(grid)
            if not any(has_four(drop(drop(grid, col, player), reply, -player), -player)
                       for reply in legal(drop(grid, col, player)))]
    if not safe:
        return -(WIN - (discs + 2))
    if len(safe) == 1:
        depth += 1
    if depth == 0:
        return windows5000(grid, player)
    best = -2 * WIN
    for col in safe:
        if discs + 1 == ROWS * COLS:
            score = 0
        else:
            score = -minimax_with_tactics(drop(grid, col, player), -player, discs + 1, depth - 1)
        best = max(best, score)
    return best
