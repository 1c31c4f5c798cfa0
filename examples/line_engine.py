#!/usr/bin/env python3
"""A small engine speaking the line protocol of docs/outside-agents.md, so that an engine in any
language can play: read a line, answer a line.  It plays as examples/connectx_agent.py does.

    python agent.py tournament --players 'program:"python examples/line_engine.py",bot:3' --games 4
"""

import sys

ROWS, COLUMNS = 6, 7
CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)


def grid_of(moves):
    """Column lists (bottom first) of the players' marks, 1 first and 2 second."""
    columns: list[list[int]] = [[] for _ in range(COLUMNS)]
    for index, digit in enumerate(moves):
        columns[int(digit) - 1].append(1 + index % 2)
    return columns


def wins(columns, mark):
    def at(col, row):
        return columns[col][row] if 0 <= col < COLUMNS and 0 <= row < len(columns[col]) else 0

    return any(all(at(col + i * dc, row + i * dr) == mark for i in range(4))
               for col in range(COLUMNS) for row in range(ROWS)
               for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)))


def best_column(moves):
    columns = grid_of(moves)
    mark = 1 + len(moves) % 2
    other = 3 - mark
    legal = [c for c in CENTRE_FIRST if len(columns[c]) < ROWS]

    def played(col, who):
        after = [list(c) for c in columns]
        after[col].append(who)
        return after

    for col in legal:
        if wins(played(col, mark), mark):
            return col
    for col in legal:
        if wins(played(col, other), other):
            return col
    for col in legal:
        after = played(col, mark)
        if len(after[col]) == ROWS:
            return col
        after[col].append(other)
        if not wins(after, other):
            return col
    return legal[0]


for line in sys.stdin:
    words = line.split()
    if words[:1] == ["connect4"]:
        print("ready line-engine", flush=True)
    elif words[:1] == ["position"]:
        moves = "" if words[1] == "-" else words[1]
        print(best_column(moves) + 1, flush=True)  # columns 1-7
    elif words[:1] == ["quit"]:
        break
