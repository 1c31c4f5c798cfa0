"""The analysis board's HTTP face: the page, its assets, and the JSON API under it.

``GET /`` is the page (``static/index.html``; the position comes in the URL, ``/?moves=4453``),
``/static/...`` its script and style, shipped with the package: nothing is fetched from
elsewhere.  The API (docs/analysis-board.md has every field):

- ``GET /api/position?moves=``: the board after a move string: its cells, the legal columns,
  whether the game is over and the four that won it (the page draws what this says: it has no
  game rules of its own);
- ``GET /api/analyze?moves=&seconds=&parts=&exact=&page=``: a position's verdicts, search view
  and evaluations (``verdicts``);
- ``GET /api/move?moves=&mode=&seconds=&page=``: the agent's move in a game on the page (``play``),
  or with ``player=`` instead of ``mode=``, the move of a player of ``--players`` (``opponents``);
- ``GET /api/players``: the players of ``--players`` the page may pick (by name);
- ``GET /api/end?page=``: the page's game against a listed player is over (its player ended);
- ``GET /api/state?state=``: the move string of a course server ``state`` grid;
- ``GET /api/games?source=&server=&result=&since=&until=``: the games the review can open
  (``MAX_LISTED`` at most, newest first; ``total`` counts all that match);
- ``GET /api/review?source=&id=&seconds=&page=`` (or ``moves=&side=``): a game judged move by
  move (``review``);
- ``GET /api/diagram?moves=&format=svg|png&verdicts=&flip=``: the position as a picture.

Every answer to a request a browser can send is 2xx or 4xx: a bad parameter is 400 with one
sentence (``{"error": ...}``), work cancelled by a newer request from the same page is 409,
and a board whose analysts all stay busy (or whose games against listed players are all in a
move) answers 429.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from analysisboard import params
from analysisboard.analysts import Analysts, Busy, Cancelled
from analysisboard.diagram import FORMATS, draw
from analysisboard.games import MAX_LISTED, RESULTS, SOURCES, GameFiles, date, filtered
from analysisboard.opponents import Matches, TooManyGames
from analysisboard.play import agent_move
from analysisboard.review import review_game
from analysisboard.verdicts import PARTS, position_view
from board import Board, BoardError
from board.board import moves_reaching
from vocabulary import Mode

STATIC = Path(__file__).resolve().parent / "static"
REVIEW_SECONDS = 1.0  # the referee's time per move in a review, unless the request says
DIAGRAM_SECONDS = 1.0  # the verdicts' time for a picture whose position was not analysed
CACHED_ANALYSES = 64


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class _Columns:
    """The latest analyses' columns by move string, for pictures of a position just analysed
    (used from the server's threads, under a lock)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, moves: str, columns: list[dict[str, Any]]) -> None:
        with self._lock:
            self._kept[moves] = columns
            self._kept.move_to_end(moves)
            while len(self._kept) > CACHED_ANALYSES:
                self._kept.popitem(last=False)

    def get(self, moves: str) -> list[dict[str, Any]] | None:
        with self._lock:
            return self._kept.get(moves)


def create_app(analysts: Analysts, games: GameFiles, matches: Matches | None = None) -> FastAPI:
    """The board's app over ``analysts`` (the engines), ``games`` (what the review opens) and
    ``matches`` (the players of ``--players`` and the games against them; None: none listed)."""
    matches = matches or Matches(agent=analysts.settings.agent, solver=analysts.settings.solver)
    app = FastAPI(title="Connect Four analysis board", docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    columns_seen = _Columns()

    def answer(work: Callable[[], dict[str, Any] | Response]) -> Response:
        """``work``'s answer (a dict as JSON), or the error it raised as 400, 409 or 429."""
        try:
            result = work()
            return result if isinstance(result, Response) else JSONResponse(result)
        except params.BadRequest as exc:
            return _error(400, str(exc))
        except Cancelled:
            return _error(409, "cancelled: a newer request from the same page replaced it.")
        except Busy:
            return _error(429, "every analyst of the board is busy; try again in a moment.")
        except TooManyGames:
            return _error(429, "every game the board keeps against a listed player is in a move;"
                               " try again in a moment.")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @app.get("/api/position")
    def position(moves: str | None = None) -> Response:
        def work() -> dict[str, Any]:
            text, board = params.position(moves, playable=False)
            return position_json(text, board)

        return answer(work)

    @app.get("/api/analyze")
    def analyze(moves: str | None = None, seconds: str | None = None, parts: str | None = None,
                exact: str | None = None, page: str | None = None) -> Response:
        def work() -> dict[str, Any]:
            text, board = params.position(moves)
            budget = params.seconds(seconds)
            wanted = params.parts(parts, PARTS)
            exact_scores = params.choice(exact, "exact", ("0", "1"), "1") == "1"
            page_id = params.page(page)
            # Asking for the columns (and more) is proving them; else the search, if asked.
            with analysts.working(page_id, text, wanted[0]) as analyst:
                view = position_view(analyst, text, board, budget, wanted, exact=exact_scores)
            if "columns" in view:
                columns_seen.put(text, view["columns"])
            return view

        return answer(work)

    @app.get("/api/move")
    def move(moves: str | None = None, mode: str | None = None, seconds: str | None = None,
             page: str | None = None, player: str | None = None) -> Response:
        def work() -> dict[str, Any]:
            text, board = params.position(moves)
            budget = params.seconds(seconds)
            page_id = params.page(page)
            if player is not None:
                if mode:
                    raise params.BadRequest("give mode (our engine) or player (one of the"
                                            " board's --players), not both.")
                if page_id is None:
                    raise params.BadRequest("page is missing: a game against a listed player is"
                                            " kept for the page that plays it.")
                return matches.move(page_id, player, text, board, budget)
            chosen = Mode(params.choice(mode, "mode", params.MODES, Mode.COURSE))
            with analysts.working(page_id, text, "move") as analyst:
                return agent_move(analyst, board, chosen, budget)

        return answer(work)

    @app.get("/api/players")
    def players() -> Response:
        return answer(matches.listing)

    @app.get("/api/end")
    def end(page: str | None = None) -> Response:
        def work() -> dict[str, Any]:
            page_id = params.page(page)
            if page_id is None:
                raise params.BadRequest("page is missing: it names the game to end.")
            return {"ended": matches.end(page_id)}

        return answer(work)

    @app.get("/api/state")
    def state(state: str | None = None) -> Response:
        def work() -> dict[str, Any]:
            text = _moves_of_state(_grid(state))
            board = Board.from_moves(text)
            return {"moves": text, "to_move": board.player_to_move,
                    "over": board.is_over()}

        return answer(work)

    @app.get("/api/games")
    def list_games(source: str | None = None, server: str | None = None,
                   result: str | None = None, since: str | None = None,
                   until: str | None = None) -> Response:
        def work() -> dict[str, Any]:
            chosen = params.choice(source, "source", SOURCES, "") or None
            wanted = params.choice(result, "result", RESULTS, "") or None
            first, last = date(since, "since"), date(until, "until")
            every = games.listing()
            listed = filtered([g for g in every if chosen in (None, g.source)],
                              server=server or None, result=wanted, since=first, until=last)
            return {"games": [game.to_json() for game in listed[:MAX_LISTED]],
                    "total": len(listed), "sources": games.sources(),
                    "servers": sorted({game.server for game in every})}

        return answer(work)

    @app.get("/api/review")
    def review(source: str | None = None, id: str | None = None, moves: str | None = None,
               side: str | None = None, seconds: str | None = None,
               page: str | None = None) -> Response:
        def work() -> dict[str, Any]:
            budget = params.seconds(seconds, default=REVIEW_SECONDS)
            extra: dict[str, Any] = {}
            opening = 0
            if source is not None or id is not None:
                chosen = params.choice(source, "source", SOURCES, "record")
                game = games.game(chosen, params.whole(id, "id", low=1, high=2**53))
                extra = {"game": game.to_json()}
                text, our_side, opening = (extra["game"]["moves"], extra["game"]["our_side"],
                                           extra["game"]["opening"])
                params.position(text, playable=False)  # a stored game is checked like any other
            else:
                text, _ = params.position(moves, playable=False)
                our_side = int(params.choice(side, "side", ("1", "2"), "1"))
            with analysts.working(params.page(page), text, "review") as analyst:
                return {**review_game(analyst, text, our_side, budget, opening), **extra}

        return answer(work)

    @app.get("/api/diagram")
    def diagram(moves: str | None = None, format: str | None = None,
                verdicts: str | None = None, flip: str | None = None,
                page: str | None = None) -> Response:
        def work() -> Response:
            text, board = params.position(moves, playable=False)
            fmt = params.choice(format, "format", FORMATS, "svg")
            with_verdicts = params.choice(verdicts, "verdicts", ("0", "1"), "0") == "1"
            flipped = params.choice(flip, "flip", ("0", "1"), "0") == "1"
            columns = None
            if with_verdicts and not board.is_over():
                columns = columns_seen.get(text)
                if columns is None:
                    with analysts.working(params.page(page), text, "diagram") as analyst:
                        columns = position_view(analyst, text, board, DIAGRAM_SECONDS,
                                                ("columns",))["columns"]
                    columns_seen.put(text, columns)
            picture = draw(text, verdicts=columns, flip=flipped, fmt=fmt)
            name = f"connect4-{text or 'start'}.{fmt}"
            return Response(picture, media_type="image/svg+xml" if fmt == "svg" else "image/png",
                            headers={"Content-Disposition": f'inline; filename="{name}"'})

        return answer(work)

    return app


def position_json(moves: str, board: Board) -> dict[str, Any]:
    """The board after ``moves`` as the page draws it: ``grid`` rows from the top, 1 for the
    first player's discs and 2 for the second's; ``winner`` 1 or 2 when a four ended the game."""
    first = board.grid_by_player()
    won = board.last_mover_won()
    return {
        "moves": moves,
        "to_move": board.player_to_move,
        "discs": board.moves,
        "grid": [[{1: 1, -1: 2}.get(int(cell), 0) for cell in row] for row in first],
        "legal": board.legal_moves(),
        "over": board.is_over(),
        "winner": (2 if board.first_player_to_move else 1) if won else None,
        "four": [list(cell) for cell in board.four_cells()],
        "last": int(moves[-1]) - 1 if moves else None,
    }


def _grid(text: str | None) -> list[list[int]]:
    """A course server ``state``: JSON, 6 rows of 7 cells, each 1, -1 or 0 (row 0 on top)."""
    if text is None or text.strip() == "":
        raise params.BadRequest("state is missing: paste the server's 6x7 list of rows.")
    try:
        grid = json.loads(text[:2000])
    except json.JSONDecodeError:
        raise params.BadRequest("state is not JSON: paste the server's 6x7 list of rows, such as"
                                " [[0,0,0,0,0,0,0], ...].") from None
    if (not isinstance(grid, list) or len(grid) != 6
            or not all(isinstance(row, list) and len(row) == 7 for row in grid)
            or not all(type(cell) in (int, float) and cell in (-1, 0, 1)
                       for row in grid for cell in row)):
        raise params.BadRequest("state must be 6 rows of 7 cells, each 1 (the student's disc),"
                                " -1 (the bot's) or 0 (empty), row 0 on top.")
    return [[int(cell) for cell in row] for row in grid]


def _moves_of_state(grid: list[list[int]]) -> str:
    """A move string reaching the position a state shows.

    The server sends a state with the student (1) to move while the game runs; at the end of
    a game the bot may be "to move": the student has one disc more (the student started and
    won), or as many with a four of the student's on the board (the bot started and the
    student won).  Whichever reading a game can reach is taken, the student to move first.
    """
    ones = sum(row.count(1) for row in grid)
    others = sum(row.count(-1) for row in grid)
    readings = [1, -1] if ones == others else [-1] if ones == others + 1 else [1]
    problem: BoardError | None = None
    for to_move in readings:
        try:
            return moves_reaching(Board.from_grid(grid, to_move))
        except BoardError as exc:
            problem = problem or exc
    raise params.BadRequest(f"that state is not a position: {problem}.")
