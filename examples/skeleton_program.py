#!/usr/bin/env python3
"""A course skeleton's ``student_move`` as a program of the line protocol (docs/outside-agents.md), so
that ``agent.py rate`` and ``tournament`` play a peer's solution in a process of its own, with limits.

    python agent.py rate 'program:"python examples/skeleton_program.py PEER/skeleton.py"' --time 1

The peer's file is loaded as a module (its ``if __name__ == "__main__":`` part does not run; its
folder is on the path for its own imports) and its ``student_move`` is called with the course's
6x7 grid as the skeleton's loop has it: row 0 at the top, 1 the discs of the side to move, -1
the opponent's; it answers a column 0-6.  If theirs takes other arguments (the environment, a
depth), change ``peer_move`` to call it their way.  What their code prints goes to the standard
error, which the arena keeps, so that it cannot be taken for an answer.
"""

import contextlib
import importlib.util
import sys
from pathlib import Path

import numpy as np

ROWS, COLUMNS = 6, 7


def load(path):
    """The peer's file as a module."""
    sys.path.insert(0, str(Path(path).resolve().parent))
    spec = importlib.util.spec_from_file_location("peer_solution", path)
    if spec is None or spec.loader is None:
        sys.exit(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    with contextlib.redirect_stdout(sys.stderr):
        spec.loader.exec_module(module)
    return module


def grid(moves):
    """The course grid after ``moves`` (1-based columns, first player first), 1 the side to move."""
    state = np.zeros((ROWS, COLUMNS), dtype=int)
    heights = [0] * COLUMNS
    for index, digit in enumerate(moves):
        column = int(digit) - 1
        state[ROWS - 1 - heights[column], column] = 1 if index % 2 == len(moves) % 2 else -1
        heights[column] += 1
    return state


def peer_move(peer, state, seconds):
    """The peer's column 0-6 for ``state``; ``seconds`` is the time it has (theirs may ignore it)."""
    with contextlib.redirect_stdout(sys.stderr):
        return int(peer.student_move(state))


def main():
    peer = load(sys.argv[1])
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["connect4"]:
            print("ready", Path(sys.argv[1]).name, flush=True)
        elif words[:1] == ["position"] and len(words) == 3:
            moves = "" if words[1] == "-" else words[1]
            print(peer_move(peer, grid(moves), float(words[2])) + 1, flush=True)
        elif words[:1] == ["quit"]:
            break


if __name__ == "__main__":
    main()
