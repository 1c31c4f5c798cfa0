#!/usr/bin/env python3
"""A tiny engine speaking the ``program:`` line protocol (docs/outside-agents.md), for the tests.

It plays a win when it has one, blocks the opponent's, else the most central free column.
``--misbehave WAY`` makes it break the protocol on its second move, one way per test: ``late``
(sleeps), ``junk`` (answers a word), ``illegal`` (answers 9), ``flood`` (writes megabytes),
``exit`` (ends with status 0), ``crash`` (ends with status 3), ``fork-hang`` (starts a child
that sleeps, then sleeps itself).  ``--tag WORD`` is carried on its own command line and on its
child's, so that a test finds every process it started (``tests.helpers.tagged``): it runs in a
sandbox that no file of the test's can be written from.
"""

import subprocess
import sys
import time

ROWS, COLS = 6, 7


def board_of(moves):
    grid = [[0] * COLS for _ in range(ROWS)]
    heights = [0] * COLS
    for ply, char in enumerate(moves):
        col = int(char) - 1
        grid[heights[col]][col] = 1 + ply % 2
        heights[col] += 1
    return grid, heights


def wins(grid, row, col, mark):
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < ROWS and 0 <= c < COLS and grid[r][c] == mark:
                count += 1
                r, c = r + sign * dr, c + sign * dc
        if count >= 4:
            return True
    return False


def choose(moves):
    grid, heights = board_of(moves)
    me = 1 + len(moves) % 2
    free = [c for c in (3, 2, 4, 1, 5, 0, 6) if heights[c] < ROWS]
    for mark in (me, 3 - me):
        for col in free:
            row = heights[col]
            grid[row][col] = mark
            won = wins(grid, row, col, mark)
            grid[row][col] = 0
            if won:
                return col
    return free[0]


def misbehave(way):
    if way == "late":
        time.sleep(30)
    elif way == "junk":
        print("seven", flush=True)
    elif way == "illegal":
        print(9, flush=True)
    elif way == "flood":
        chunk = "# " + "x" * 1022 + "\n"  # comments are allowed, megabytes of them are not
        for _ in range(4096):
            sys.stdout.write(chunk)
        sys.stdout.flush()
    elif way == "exit":
        sys.exit(0)
    elif way == "crash":
        sys.exit(3)
    elif way == "fork-hang":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", *tag()])
        print(f"# started {child.pid}", flush=True)
        time.sleep(120)


def tag():
    """``--tag WORD`` of the command line, to pass on (or nothing)."""
    return sys.argv[sys.argv.index("--tag"):sys.argv.index("--tag") + 2] if "--tag" in sys.argv \
        else []


def main():
    way = sys.argv[sys.argv.index("--misbehave") + 1] if "--misbehave" in sys.argv else ""
    turns = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "connect4":
            print("ready tiny-engine", flush=True)
        elif words[0] == "position":
            turns += 1
            moves = "" if words[1] == "-" else words[1]
            if way and turns == 2:
                misbehave(way)
            print(f"# thinking about {moves or 'the empty board'}", flush=True)
            print(choose(moves) + 1, flush=True)
        elif words[0] == "quit":
            break


if __name__ == "__main__":
    main()
