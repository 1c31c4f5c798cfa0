"""A small Kaggle ConnectX agent, to try `agent.py rate` and `tournament` with an agent of your own.

It wins at once when it can, blocks the opponent's win when it must, and otherwise plays the
most central column that does not hand the opponent a win.  Kaggle (and `connectx:PATH`)
play the last function this file defines: `agent`.

    python agent.py rate connectx:examples/connectx_agent.py --time 0.1
"""

ROWS, COLUMNS = 6, 7
CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)


def _drop(board, column, mark):
    """The board after `mark` plays `column` (None when the column is full)."""
    for row in range(ROWS - 1, -1, -1):
        if board[row * COLUMNS + column] == 0:
            after = list(board)
            after[row * COLUMNS + column] = mark
            return after
    return None


def _wins(board, mark):
    """True when `mark` has four in a row on `board`."""
    for row in range(ROWS):
        for col in range(COLUMNS):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(row + i * d_row, col + i * d_col) for i in range(4)]
                if all(0 <= r < ROWS and 0 <= c < COLUMNS and board[r * COLUMNS + c] == mark
                       for r, c in cells):
                    return True
    return False


def agent(observation, configuration):
    board, mark = list(observation.board), observation.mark
    other = 3 - mark
    legal = [c for c in CENTRE_FIRST if board[c] == 0]
    for col in legal:  # a win now
        if _wins(_drop(board, col, mark), mark):
            return col
    for col in legal:  # the opponent's win now, blocked
        if _wins(_drop(board, col, other), other):
            return col
    for col in legal:  # a column that does not let the opponent win on top of it
        after = _drop(board, col, mark)
        reply = _drop(after, col, other)
        if reply is None or not _wins(reply, other):
            return col
    return legal[0]
