"""The analysis board under test: served on 127.0.0.1, and the games its review opens.

``running_analysis_board`` serves the real app (real engines, book and solver) in a thread.
``record_online_game`` writes a game into a client record the way the online client does
(``Records.begin``, ``started``, ``sent``, ``replied``); ``blundering_game`` makes a game in
which our side keeps the outcome and then, at a chosen move, throws it away, so the review has
a known first lost move.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from analysisboard.analysts import Analysts
from analysisboard.app import create_app
from analysisboard.games import GameFiles
from analysisboard.opponents import Matches
from board import Board
from client.records import Records
from course.grid import course_grid
from localserver.background import bind_socket, serve_in_thread
from settings import Settings
from solver.book import load_book


@contextmanager
def running_analysis_board(record: Path, server_db: Path | None = None, *,
                  analysts: int = 2, matches: Matches | None = None) -> Iterator[str]:
    """The board's URL (ending in ``/``) while it serves (``matches``: the players of its
    ``--players`` and the games against them, ended when it stops)."""
    pool = Analysts(Settings(), analysts)
    sock = bind_socket("127.0.0.1", 0)
    served = serve_in_thread(create_app(pool, GameFiles(record, server_db), matches), sock, 10.0,
                             "the analysis board")
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        served.stop()
        if matches is not None:
            matches.close()


def _result(board: Board, we_first: bool) -> float:
    if not board.last_mover_won():
        return 0.5
    last_mover_first = not board.first_player_to_move
    return 1.0 if last_mover_first == we_first else -1.0


def record_online_game(records: Records, columns: list[int], *, we_first: bool,
                       server: str = "http://127.0.0.1:8000/") -> int:
    """Write the finished game ``columns`` (0-based, from the first disc) as the online client
    records one; return its id."""
    game_id = records.begin("online", server, ["test-s"], "server")
    board = Board()
    first_bot = None
    if not we_first:
        first_bot = columns[0]
        board = board.play(first_bot)
    records.started(game_id, we_first, course_grid(board, student_to_move=True), first_bot)
    index = board.moves
    while index < len(columns):
        ours = columns[index]
        records.sent(game_id, index + 1, ours, None, 0.1)
        board = board.play(ours)
        bot = None
        if not board.is_over() and index + 1 < len(columns):
            bot = columns[index + 1]
            board = board.play(bot)
        result = _result(board, we_first) if board.is_over() else 0.0
        records.replied(game_id, index + 1, 0.1, bot, course_grid(board, student_to_move=True),
                        result)
        index += 2
    return game_id


def blundering_game(blunder_ply: int, seed: int, *, we_first: bool = True,
                    blunder: bool = True) -> list[int]:
    """A whole game where our side plays a move keeping the outcome (the book's) before
    ``blunder_ply`` and, with ``blunder``, a move losing it at ``blunder_ply`` (within the
    book's layers, so the referee can prove it), then random moves to the end."""
    book = load_book()
    rng = random.Random(seed)
    board = Board()
    columns: list[int] = []
    while not board.is_over():
        ours = board.first_player_to_move == we_first
        ply = board.moves + 1
        if ours and ply <= blunder_ply:
            outcomes = {}
            for col in board.legal_moves():
                entry = book.lookup(board.play(col))
                assert entry is not None
                outcomes[col] = -entry.outcome
            best = max(outcomes.values())
            losing = blunder and ply == blunder_ply
            pool = [c for c, o in outcomes.items() if (o == best) != losing]
            assert pool, f"no {'losing' if losing else 'keeping'} move at ply {ply}"
            col = rng.choice(pool)
        else:
            col = rng.choice(board.legal_moves())
        columns.append(col)
        board = board.play(col)
    return columns
