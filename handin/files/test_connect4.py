"""Tests of the hand-in: the evaluation and the search against plain versions written cell by cell,
the tactics, the time control, and whole games over HTTP.

    python -m pytest test_connect4.py      or, without pytest:      python test_connect4.py
"""

from __future__ import annotations

import io
import itertools
import json
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import connect4

from board import Board
from heuristics import heuristic_weights
from heuristics.windows import windows5000
from search import TranspositionTable
from search.negamax import INF, WIN, negamax, new_scratch
from timecontrol.counters import new_counters

KEY = "test-key"


def random_positions(count: int, seed: int, most_discs: int = 30) -> list[Board]:
    """Positions of random games, not over."""
    rng = random.Random(seed)
    found: list[Board] = []
    while len(found) < count:
        board = Board()
        for _ in range(rng.randrange(most_discs)):
            board = board.play(rng.choice(board.legal_moves()))
            if board.is_over():
                break
        if not board.is_over():
            found.append(board)
    return found


# --- the evaluation and the search against plain versions --------------------------------------

WINDOWS = [[(row + i * down, col + i * right) for i in range(4)]
           for row, col in itertools.product(range(6), range(7))
           for down, right in ((0, 1), (1, 0), (1, 1), (-1, 1))
           if 0 <= row + 3 * down < 6 and 0 <= col + 3 * right < 7]


def plain_windows5000(board: Board) -> int:
    """The course's evaluation as its rule reads, window by window on the grid (1: the side to
    move): 4 own +5,000,001, 3 own and an empty cell +5,000, 2 own and 2 empty +500, the same
    for the opponent negative and 1 more, and 1 per own disc in the centre column."""
    grid = board.to_grid(1)
    score = 0
    for window in WINDOWS:
        cells = [int(grid[row][col]) for row, col in window]
        own, opp, empty = cells.count(1), cells.count(-1), cells.count(0)
        score += {(4, 0): 5_000_001, (3, 1): 5_000, (2, 2): 500}.get((own, empty), 0)
        score += {(4, 0): -5_000_000, (3, 1): -5_001, (2, 2): -501}.get((opp, empty), 0)
    return score + sum(1 for row in range(6) if grid[row][3] == 1)


def plain_minimax(board: Board, depth: int) -> int:
    """Minimax without pruning nor table, as the search's contract states it without tactics: a
    win now scores WIN minus the discs at its end, a full board 0, depth 0 the evaluation."""
    if depth == 0:
        return windows5000(board.position, board.mask)
    if any(board.is_winning_move(col) for col in board.legal_moves()):
        return WIN - (board.moves + 1)
    return max(0 if board.moves + 1 == 42 else -plain_minimax(board.play(col), depth - 1)
               for col in board.legal_moves())


def test_the_evaluation_counts_the_windows_as_the_rule_says() -> None:
    for board in random_positions(60, seed=1):
        assert windows5000(board.position, board.mask) == plain_windows5000(board)


def test_alpha_beta_with_its_table_finds_the_minimax_value() -> None:
    weights = heuristic_weights("windows5000")
    for board in random_positions(25, seed=2):
        table = TranspositionTable(bits=12)
        found = negamax(board.position, board.mask, board.moves, 3, -INF, INF, 0, weights, False,
                        table.keys, table.data, new_scratch(), new_counters())
        assert found == plain_minimax(board, 3), str(board)


def test_it_takes_a_win_and_blocks_one() -> None:
    player = connect4.Player(table_bits=16)
    assert player.choose(Board.from_moves("1212125"), float("inf"), depth=5).column == 1  # 4 in column 2
    assert player.choose(Board.from_moves("12121"), float("inf"), depth=5).column == 0  # block column 1


def test_the_deadline_stops_the_search_after_the_depth_it_always_completes() -> None:
    readings = itertools.count()  # a clock that moves one second a reading, however fast the search
    player = connect4.Player(table_bits=16, clock=lambda: float(next(readings)))
    result = player.choose(Board(), deadline=3.0)
    assert connect4.MIN_DEPTH <= result.depth < 42
    assert next(readings) < 50  # it looked at the clock between slices, and stopped


def test_student_move_reads_the_course_grid() -> None:
    state = [[0] * 7 for _ in range(6)]
    state[5][2] = state[5][3] = state[5][4] = -1  # row 0 is the top: three at the bottom
    state[5][1] = state[4][3] = 1  # one end blocked: the other must be
    deadline = time.perf_counter() + 0.2
    assert connect4.student_move(state, connect4.Player(table_bits=16), deadline) == 5


# --- games over HTTP against a server that speaks the course's protocol --------------------------

class CourseLike(BaseHTTPRequestHandler):
    """The course's protocol with a bot that starts and plays the leftmost free column."""

    board = Board()

    def do_POST(self) -> None:
        form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        if form.get("api_key") != [KEY]:
            self.reply({"status": False, "msg": "Incorrect API key.", "result": None})
        elif self.path.endswith("/stats"):
            self.reply({"status": None, "stil_id": form["stil_id"][0], "played": 1})
        elif int(form["move"][0]) == -1:
            CourseLike.board = Board().play(0)
            self.reply({"status": True, "msg": "The bot starts.", "result": 0, "botmove": 0,
                        "state": CourseLike.board.to_grid(1).tolist()})
        else:
            self.reply(self.play(int(form["move"][0])))

    def play(self, column: int) -> dict[str, Any]:
        board = CourseLike.board
        if not board.can_play(column):
            return {"status": False, "msg": "Impossible move.", "result": -10}
        board = board.play(column)
        result, bot = (1 if board.last_mover_won() else 0.5 if board.is_full() else 0), -1
        if result == 0:
            bot = board.legal_moves()[0]
            board = board.play(bot)
            result = -1 if board.last_mover_won() else 0.5 if board.is_full() else 0
        CourseLike.board = board
        ours = 1 if board.moves % 2 == 1 else -1  # the bot started: ours are the even discs
        return {"status": True, "msg": None, "result": result, "botmove": bot,
                "state": board.to_grid(ours).tolist()}

    def reply(self, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def course_like_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), CourseLike)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def run(argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """``connect4.py ARGV`` with ``env`` as its environment: the exit code, what it printed on
    its output and on its errors."""
    lines: list[str] = []
    errors = io.StringIO()
    with redirect_stderr(errors):
        code = connect4.main(argv, out=lines.append, env=env)
    return code, "\n".join(lines), errors.getvalue()


def test_games_against_a_server_over_http() -> None:
    env = {connect4.IDS_VARIABLE: "ab1234cd-s", connect4.KEY_VARIABLE: KEY}
    with course_like_server() as url:
        code, printed, _ = run(["-o", "--games", "2", "--time", "0.1", "--server", url], env)
        assert code == 0
        assert "game 1: won" in printed and "game 2: won" in printed
        assert "2 game(s): 2 won, 0 drawn, 0 lost" in printed
        code, printed, _ = run(["-s", "--server", url], env)
        assert code == 0 and json.loads(printed) == {"status": None, "played": 1}
        code, printed, errors = run(["-o", "--server", url], {**env, connect4.KEY_VARIABLE: "wrong"})
        assert code == 1 and "Incorrect API key" in errors
    assert "ab1234cd-s" not in printed + errors and KEY not in printed + errors


def test_without_ids_nothing_is_sent() -> None:
    code, _, errors = run(["-o", "--server", "http://127.0.0.1:9/"],
                          {connect4.IDS_VARIABLE: "", connect4.KEY_VARIABLE: ""})
    assert code == 2 and connect4.IDS_VARIABLE in errors


if __name__ == "__main__":
    for name, test in list(globals().items()):
        if name.startswith("test_") and callable(test):
            test()
            print("passed:", name)
