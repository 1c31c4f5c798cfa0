"""The analysis board's JSON API over real HTTP on 127.0.0.1: verdicts against Pons' solved
positions, every bad input refused with one sentence, concurrent clients, cancellation of an
analysis in flight, the games the review lists and opens, positions from a server state, and
the pictures."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from board import Board
from client.records import Records
from course.grid import course_grid
from solver import Solver
from solver import result as pons_result
from tests.analysisboard_games import blundering_game, record_online_game, running_analysis_board
from tests.test_localserver_http import play_game

PONS = Path(__file__).resolve().parent / "data" / "pons"
SERVER_A, SERVER_B = "http://127.0.0.1:8000/", "https://vilde.cs.lth.se/edap01-4inarow/"
BLUNDER_PLY = 5


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A client record with four online games on two servers (one with a known blunder, one
    dated last year) and a local server's database with two games played over HTTP."""
    folder = tmp_path_factory.mktemp("board")
    record = folder / "games.sqlite3"
    blunder = blundering_game(BLUNDER_PLY, seed=4)
    with Records(record) as records:
        ids = {
            "blunder": record_online_game(records, blunder, we_first=True, server=SERVER_A),
            "second": record_online_game(
                records, blundering_game(6, seed=5, we_first=False, blunder=False),
                we_first=False, server=SERVER_A),
            "other": record_online_game(records, blundering_game(7, seed=6, blunder=False),
                                        we_first=True, server=SERVER_B),
            "old": record_online_game(records, blundering_game(5, seed=7), we_first=True,
                                      server=SERVER_B),
        }
    with sqlite3.connect(record) as conn:
        conn.execute("UPDATE games SET started_at = '2025-03-01T10:00:00.000+00:00' WHERE id = ?",
                     (ids["old"],))
    from localserver.background import LocalCourseServer

    server_db = folder / "local-server.sqlite3"
    rng = random.Random(3)
    with LocalCourseServer(str(server_db), seed=2, time_limit=0) as server:
        served = [play_game(server.url, ["board-s"], rng)[0] for _ in range(2)]
    return {"record": record, "server_db": server_db, "ids": ids, "blunder": blunder,
            "served": served}


@pytest.fixture(scope="module")
def url(games: dict[str, Any]) -> Iterator[str]:
    with running_analysis_board(games["record"], games["server_db"]) as base:
        yield base


def get(url: str, path: str, **params: Any) -> requests.Response:
    return requests.get(url + path, params=params, timeout=60)


def ok(url: str, path: str, **params: Any) -> dict[str, Any]:
    reply = get(url, path, **params)
    assert reply.status_code == 200, reply.text
    body: dict[str, Any] = reply.json()
    return body


# --- verdicts -------------------------------------------------------------------------------


def _pons_lines(name: str, count: int) -> list[tuple[str, int]]:
    lines = (PONS / name).read_text().split("\n")
    step = max(1, len(lines) // count)
    picked = [line.split() for line in lines[::step] if line.strip()][:count]
    return [(moves, int(score)) for moves, score in picked]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "count"), [("Test_L3_R1", 6), ("Test_L2_R1", 6),
                                             ("Test_L1_R1", 4)])
def test_verdicts_agree_with_pons_scores(url: str, name: str, count: int) -> None:
    for moves, score in _pons_lines(name, count):
        view = ok(url, "api/analyze", moves=moves, seconds=5, parts="columns")
        board = Board.from_moves(moves)
        assert view["to_move"] == (1 if board.first_player_to_move else 2)
        legal = [c for c in view["columns"] if c["legal"]]
        assert [c["column"] for c in legal] == board.legal_moves()
        sign = {"win": 1, "draw": 0, "loss": -1}
        proven = [c for c in legal if c["proven"]]
        # No proven column is better than the position; every column proven here.
        assert all(sign[c["outcome"]] <= (score > 0) - (score < 0) for c in proven)
        assert view["all_proven"] and len(proven) == len(legal), (moves, view)
        assert max(sign[c["outcome"]] for c in legal) == (score > 0) - (score < 0)
        exact = [c["score"] for c in legal if c["score"] is not None]
        assert all(s <= score for s in exact)
        if len(exact) == len(legal):
            assert max(exact) == score, moves
        for column in legal:
            assert column["source"] in ("book", "solver") and column["estimate"] is None
            if column["score"] is not None:
                # The API's words are the one renderer's, of Pons' score on the one scale.
                said = pons_result(column["score"], board.moves)
                assert column["words"] == said.words() and column["short"] == said.short()
                assert column["moves_to_end"] == said.moves


@pytest.mark.slow
def test_the_words_say_the_side_to_moves_moves(url: str) -> None:
    # "4455": X completes four with its 2nd move from now (Pons' +18), in column 3.
    view = ok(url, "api/analyze", moves="4455", seconds=2, parts="columns")
    third = view["columns"][2]
    assert third["words"] == "win in 2 moves" and third["short"] == "+2"
    assert third["moves_to_end"] == 2


def test_an_unproven_column_says_so_and_carries_the_estimate(url: str) -> None:
    # Eleven discs, outside the book: not all of it is proven in 0.05 s from a cold table.
    moves = "71255763773"
    view = ok(url, "api/analyze", moves=moves, seconds=0.05, parts="columns")
    solver = Solver()
    truth = solver.column_scores(Board.from_moves(moves))
    for column in view["columns"]:
        if not column["legal"]:
            continue
        if column["proven"]:
            true = truth[column["column"]]
            assert true is not None
            assert column["outcome"] == {1: "win", 0: "draw", -1: "loss"}[(true > 0) - (true < 0)]
            assert column["score"] in (None, true)
        else:
            assert column["outcome"] is None and column["score"] is None
            assert column["source"] == "search" and isinstance(column["estimate"], int)
            assert column["words"].startswith("not proven")


def test_search_view_and_evaluations(url: str) -> None:
    view = ok(url, "api/analyze", moves="4453", seconds=0.2)
    search = view["search"]
    assert search["column"] in range(7) and search["depth"] >= 5
    assert search["pv"][0] == search["column"] and search["nodes"] > 0
    assert search["heuristic"] == "windows5000"
    from heuristics import evaluate

    board = Board.from_moves("4453")
    assert view["evaluations"]["windows5000"] == evaluate(board, "windows5000")
    assert view["evaluations"]["learned"] == pytest.approx(evaluate(board, "learned") / 10_000,
                                                           abs=1e-4)
    assert len(view["columns"]) == 7
    only = ok(url, "api/analyze", moves="4453", seconds=0.1, parts="evaluations")
    assert "columns" not in only and "search" not in only and "evaluations" in only


def test_without_exact_the_analysis_ends_once_every_outcome_is_proven(url: str) -> None:
    # Six discs: every column's position is in the book, some only as an outcome; proving
    # their exact scores would take the whole budget.
    moves = "445566"
    quick = ok(url, "api/analyze", moves=moves, seconds=10, parts="columns", exact=0)
    assert quick["all_proven"] and quick["columns_seconds"] < 5
    assert {c["source"] for c in quick["columns"] if c["legal"]} == {"book"}


# --- bad input ------------------------------------------------------------------------------

BAD_REQUESTS = [
    ("api/analyze", {"moves": "44x"}, "moves '44x' is not a game"),
    ("api/analyze", {"moves": "1212121"}, "is already over"),
    ("api/analyze", {"moves": "11111111"}, "column 1 is full"),
    ("api/analyze", {"moves": "4" * 300}, "a game has at most 42 moves"),
    ("api/analyze", {"moves": "44", "seconds": "0.01"}, "seconds must be from 0.05 to 10"),
    ("api/analyze", {"moves": "44", "seconds": "11"}, "seconds must be from 0.05 to 10"),
    ("api/analyze", {"moves": "44", "seconds": "nan"}, "seconds must be a number"),
    ("api/analyze", {"moves": "44", "seconds": "inf"}, "seconds must be a number"),
    ("api/analyze", {"moves": "44", "seconds": "1_0"}, "seconds must be a number"),
    ("api/analyze", {"moves": "4\uff14"}, "move 2 is '\uff14'"),
    ("api/analyze", {"moves": "44", "seconds": "soon"}, "seconds must be a number"),
    ("api/analyze", {"moves": "44", "parts": "columns,moves"}, "parts must be"),
    ("api/analyze", {"moves": "44", "page": "a b"}, "page must be"),
    ("api/analyze", {"moves": "44", "exact": "yes"}, "exact must be 0 or 1"),
    ("api/move", {"moves": "44", "mode": "best"}, "mode must be course or strongest"),
    ("api/move", {"moves": "1212121"}, "is already over"),
    ("api/move", {"moves": "44", "player": "bot:2", "page": "p"}, "this board lists no players"),
    ("api/move", {"moves": "44", "player": "bot:2", "mode": "course"}, "not both"),
    ("api/end", {}, "page is missing"),
    ("api/position", {"moves": "8"}, "expected a column digit 1-7"),
    ("api/state", {"state": "[[0]]"}, "state must be 6 rows of 7 cells"),
    ("api/state", {"state": "not json"}, "state is not JSON"),
    ("api/state", {}, "state is missing"),
    ("api/state", {"state": str([[0] * 7] * 4 + [[1, 0, 0, 0, 0, 0, 0], [0] * 7])},
     "floating disc"),
    ("api/games", {"result": "tie"}, "result must be"),
    ("api/games", {"since": "yesterday"}, "since must be a date"),
    ("api/review", {"source": "record", "id": "x"}, "id must be a whole number"),
    ("api/review", {"source": "record", "id": "999"}, "there is no game 999"),
    ("api/review", {"source": "disk", "id": "1"}, "source must be record or server"),
    ("api/review", {"moves": "4x"}, "is not a game"),
    ("api/review", {"moves": "44", "side": "3"}, "side must be 1 or 2"),
    ("api/diagram", {"moves": "44", "format": "gif"}, "format must be svg or png"),
]


@pytest.mark.parametrize(("path", "params", "says"), BAD_REQUESTS)
def test_bad_input_gets_400_with_one_sentence(url: str, path: str, params: dict[str, str],
                                              says: str) -> None:
    reply = get(url, path, **params)
    assert reply.status_code == 400, reply.text
    message = reply.json()["error"]
    assert says in message
    assert message.endswith(".") and "\n" not in message and len(message) < 300


@pytest.mark.slow
def test_nothing_a_browser_sends_gets_a_5xx(url: str) -> None:
    rng = random.Random(9)
    alphabet = "0123456789.-,:;[]{}\"' %&=?/\\abcxyz\u00e9\u4e2d\x00\uff14\u0664_"
    paths = ["api/analyze", "api/move", "api/position", "api/state", "api/games", "api/review",
             "api/diagram", "api/players", "api/end", "", "static/board.js", "static/../app.py",
             "api/nothing"]
    names = ["moves", "seconds", "parts", "page", "mode", "state", "source", "id", "side",
             "format", "verdicts", "flip", "since", "until", "result", "server", "player"]
    for _ in range(150):
        params = {rng.choice(names): "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
                  for _ in range(rng.randint(0, 4))}
        params.setdefault("seconds", "0.05")
        reply = get(url, rng.choice(paths), **params)
        assert reply.status_code < 500, (reply.url, reply.text)


# --- concurrency and cancellation -------------------------------------------------------------


@pytest.mark.slow
def test_several_clients_are_served_at_once(url: str) -> None:
    positions = ["", "4", "44", "4453", "3344", "4455", "71255763773", "444"]
    replies: dict[str, dict[str, Any]] = {}

    def client(moves: str, page: str) -> None:
        replies[moves] = ok(url, "api/analyze", moves=moves, seconds=0.3, page=page)

    threads = [threading.Thread(target=client, args=(moves, f"page-{i}"))
               for i, moves in enumerate(positions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert sorted(replies) == sorted(positions)
    for moves, view in replies.items():
        assert view["moves"] == moves and view["search"]["column"] in Board.from_moves(moves).legal_moves()


@pytest.mark.slow
def test_a_newer_request_from_the_same_page_cancels_the_analysis_in_flight(url: str) -> None:
    results: dict[str, tuple[int, float]] = {}

    def long(page: str, key: str) -> None:
        start = time.monotonic()
        reply = get(url, "api/analyze", moves="44", seconds=5, parts="search", page=page)
        results[key] = (reply.status_code, time.monotonic() - start)

    stale = threading.Thread(target=long, args=("cancel-me", "stale"))
    other = threading.Thread(target=long, args=("another-page", "other"))
    stale.start()
    other.start()
    time.sleep(1.0)
    newer = ok(url, "api/analyze", moves="445", seconds=0.2, parts="search", page="cancel-me")
    assert newer["moves"] == "445"
    stale.join(30)
    other.join(30)
    status, elapsed = results["stale"]
    assert status == 409 and elapsed < 4.0, results
    # Another page's analysis of the same position ran its whole time.
    assert results["other"][0] == 200 and results["other"][1] >= 4.9


@pytest.mark.slow
def test_a_new_position_cancels_the_proofs_in_flight_but_not_a_review(url: str) -> None:
    results: dict[str, int] = {}

    def ask(key: str, path: str, **params: Any) -> None:
        results[key] = get(url, path, page="proofs", **params).status_code

    # The first disc on the edge: the book's deep layers hold outcomes, and its columns' exact
    # scores take the solver tens of seconds.
    proofs = threading.Thread(target=ask, args=("proofs", "api/analyze"),
                              kwargs={"moves": "1", "seconds": 10, "parts": "columns"})
    review = threading.Thread(target=ask, args=("review", "api/review"),
                              kwargs={"moves": "5554224333234511764415115", "side": 1,
                                      "seconds": 3})
    proofs.start()
    review.start()
    time.sleep(1.0)
    start = time.monotonic()
    assert ok(url, "api/analyze", moves="4", seconds=0.1, parts="columns,evaluations",
              page="proofs")["moves"] == "4"
    proofs.join(30)
    review.join(60)
    assert results["proofs"] == 409 and time.monotonic() - start < 8
    assert results["review"] == 200  # stepping through a game does not cancel its review


def test_a_new_position_cancels_only_that_pages_work_on_other_positions(url: str) -> None:
    # The verdicts and the search of one position, asked for at once, do not cancel each other.
    outcome: dict[str, int] = {}

    def ask(parts: str) -> None:
        outcome[parts] = get(url, "api/analyze", moves="4455", seconds=0.5, parts=parts,
                             page="two-parts").status_code

    threads = [threading.Thread(target=ask, args=(parts,)) for parts in ("columns", "search")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert outcome == {"columns": 200, "search": 200}


# --- playing --------------------------------------------------------------------------------


def test_the_agent_answers_a_legal_move_in_both_modes(url: str) -> None:
    course = ok(url, "api/move", moves="4453", mode="course", seconds=0.2)
    assert course["mode"] == "course" and course["source"] == "search"
    assert course["column"] in range(7) and course["depth"] >= 5
    strongest = ok(url, "api/move", moves="", mode="strongest", seconds=0.2)
    assert strongest["source"] == "book" and strongest["column"] == 3 and strongest["proven"]


# --- positions ------------------------------------------------------------------------------


def test_position_of_a_won_game_shows_the_four(url: str) -> None:
    view = ok(url, "api/position", moves="4455667")
    assert view["over"] and view["winner"] == 1 and view["legal"] == []
    assert sorted(map(tuple, view["four"])) == [(5, 3), (5, 4), (5, 5), (5, 6)]
    assert view["grid"][5] == [0, 0, 0, 1, 1, 1, 1] and view["grid"][4][3:6] == [2, 2, 2]
    assert view["last"] == 6


def test_the_last_state_of_a_game_the_student_won_reads_too(url: str) -> None:
    # The bot started (column 1), the student won with column 4: as many discs each, and the
    # student's four on the board, so the bot is "to move".
    board = Board.from_moves("14142474")
    assert board.last_mover_won()
    grid = [list(row) for row in course_grid(board, student_to_move=False)]
    found = ok(url, "api/state", state=str(grid))
    again = Board.from_moves(found["moves"])
    assert (again.position, again.mask) == (board.position, board.mask) and found["over"]


def test_a_server_state_becomes_a_move_string_of_the_same_position(url: str) -> None:
    rng = random.Random(5)
    for _ in range(20):
        board = Board()
        for _ in range(rng.randint(0, 30)):
            if board.is_over():
                break
            board = board.play(rng.choice(board.legal_moves()))
        if board.is_over():
            continue
        # The student is to move, whoever started: the state as the server sends it.
        grid = [list(row) for row in course_grid(board, student_to_move=True)]
        found = ok(url, "api/state", state=str(grid))
        again = Board.from_moves(found["moves"])
        assert (again.position, again.mask) == (board.position, board.mask)


# --- the review -----------------------------------------------------------------------------


def test_the_games_are_listed_newest_first_and_filtered(url: str, games: dict[str, Any]) -> None:
    listing = ok(url, "api/games")
    assert listing["sources"] == ["record", "server"]
    assert set(listing["servers"]) == {SERVER_A, SERVER_B, "local server database"}
    started = [game["started"] for game in listing["games"]]
    assert started == sorted(started, reverse=True) and len(started) == 6
    record_ids = [g["id"] for g in listing["games"] if g["source"] == "record"]
    ids = games["ids"]
    assert record_ids == [ids["other"], ids["second"], ids["blunder"], ids["old"]]
    on_a = ok(url, "api/games", server=SERVER_A)["games"]
    assert sorted(g["id"] for g in on_a) == sorted([ids["blunder"], ids["second"]])
    recent = ok(url, "api/games", source="record", since="2026-01-01")["games"]
    assert ids["old"] not in [g["id"] for g in recent] and len(recent) == 3
    old = ok(url, "api/games", source="record", until="2025-12-31")["games"]
    assert [g["id"] for g in old] == [ids["old"]]
    served = ok(url, "api/games", source="server")["games"]
    assert len(served) == 2 and all(g["player"] != "board-s" for g in served)  # masked
    for result in ("won", "draw", "lost"):
        for game in ok(url, "api/games", result=result)["games"]:
            assert game["result"] == result
    expected = {1: "won", 0.5: "draw", -1: "lost"}
    assert sorted(g["result"] for g in served) == sorted(expected[r] for r in games["served"])


def test_the_review_finds_the_first_move_that_lost_the_outcome(url: str, games: dict[str, Any]) -> None:
    review = ok(url, "api/review", source="record", id=games["ids"]["blunder"], seconds=5)
    moves = "".join(str(c + 1) for c in games["blunder"])
    assert review["moves"] == moves and review["our_side"] == 1
    plies = review["plies"]
    assert [p["column"] for p in plies] == games["blunder"]
    assert all(p["ours"] == (p["ply"] % 2 == 1) for p in plies)
    assert review["summary"]["first_lost"] == BLUNDER_PLY
    assert [p["kept"] for p in plies if p["ours"] and p["ply"] < BLUNDER_PLY] == [True, True]
    assert plies[BLUNDER_PLY - 1]["kept"] is False and plies[BLUNDER_PLY - 1]["critical"]
    lost = plies[BLUNDER_PLY - 1]
    assert lost["outcome"] != lost["best"] and lost["outcomes"][str(lost["column"])] == lost["outcome"]
    assert f"the first that lost it: move {BLUNDER_PLY}" in review["text"]
    summary = review["summary"]
    assert summary["moves"] == len([p for p in plies if p["ours"]])
    assert summary["kept"] + summary["lost"] + summary["unproven"] == summary["moves"]


def test_a_game_of_the_local_server_and_a_game_of_the_page_can_be_reviewed(
        url: str, games: dict[str, Any]) -> None:
    served = ok(url, "api/games", source="server")["games"][0]
    review = ok(url, "api/review", source="server", id=served["id"], seconds=5)
    assert review["moves"] == served["moves"] and review["game"]["id"] == served["id"]
    assert review["our_side"] == served["our_side"]
    page_game = ok(url, "api/review", moves="4453", side=2, seconds=2)
    assert [p["ours"] for p in page_game["plies"]] == [False, True, False, True]


@pytest.mark.slow
def test_the_server_games_cannot_be_opened_without_a_database(games: dict[str, Any]) -> None:
    with running_analysis_board(games["record"], None, analysts=1) as base:
        listing = ok(base, "api/games")
        assert listing["sources"] == ["record"] and len(listing["games"]) == 4
        reply = get(base, "api/review", source="server", id="1")
        assert reply.status_code == 400 and "no local server database" in reply.json()["error"]


@pytest.mark.slow
def test_files_that_are_not_what_they_should_be_are_refused_not_served_as_errors(
        games: dict[str, Any], tmp_path: Path) -> None:
    # The record and the server's database swapped: each is a database, but not the one meant.
    with running_analysis_board(games["server_db"], games["record"], analysts=1) as base:
        for path, params in (("api/games", {}), ("api/review", {"source": "server", "id": "1"}),
                             ("api/review", {"source": "record", "id": "1"})):
            reply = get(base, path, **params)
            assert reply.status_code == 400, (path, reply.text)
            assert "cannot be read" in reply.json()["error"]
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all\n" * 100)
    with running_analysis_board(text, text, analysts=1) as base:
        for path, params in (("api/games", {}), ("api/review", {"source": "server", "id": "1"})):
            reply = get(base, path, **params)
            assert reply.status_code == 400 and "cannot be read" in reply.json()["error"]


@pytest.mark.slow
def test_the_filters_see_every_game_and_the_list_says_how_many_matched(tmp_path: Path) -> None:
    from analysisboard.games import MAX_LISTED

    record = tmp_path / "many.sqlite3"
    quick_win = [3, 0, 3, 0, 3, 0, 3]
    with Records(record) as records:
        ids = [record_online_game(records, quick_win, we_first=True) for _ in range(MAX_LISTED + 30)]
    with sqlite3.connect(record) as conn:  # the oldest 100 games were played last winter
        conn.executemany("UPDATE games SET started_at = '2026-01-15T10:00:00.000+00:00' WHERE id = ?",
                         [(game_id,) for game_id in ids[:100]])
    with running_analysis_board(record, analysts=1) as base:
        listing = ok(base, "api/games")
        assert listing["total"] == MAX_LISTED + 30 and len(listing["games"]) == MAX_LISTED
        assert listing["games"][0]["id"] == ids[-1]  # newest first
        winter = ok(base, "api/games", until="2026-02-01")
        assert winter["total"] == 100 and sorted(g["id"] for g in winter["games"]) == ids[:100]


@pytest.mark.slow
def test_too_many_waiting_requests_are_told_at_once_that_the_board_is_busy(
        games: dict[str, Any]) -> None:
    from analysisboard.analysts import MAX_WAITING

    with running_analysis_board(games["record"], analysts=1) as base:
        codes: list[int] = []

        def ask(page: str, seconds: float) -> None:
            codes.append(get(base, "api/analyze", moves="44", seconds=seconds, parts="search",
                             page=page).status_code)

        # One search holds the only analyst for 3 s; four more wait for it.
        running = [threading.Thread(target=ask, args=(f"p{i}", 3 if i == 0 else 0.1))
                   for i in range(MAX_WAITING + 1)]
        for thread in running:
            thread.start()
            time.sleep(0.1)
        time.sleep(0.3)
        start = time.monotonic()
        reply = get(base, "api/analyze", moves="44", seconds=0.1, parts="search", page="late")
        assert reply.status_code == 429 and time.monotonic() - start < 1.5
        assert "busy" in reply.json()["error"]
        assert get(base, "api/position", moves="44").status_code == 200  # served meanwhile
        for thread in running:
            thread.join(60)
        assert codes == [200] * (MAX_WAITING + 1)


# --- pictures -------------------------------------------------------------------------------


def test_diagrams_as_svg_and_png(url: str) -> None:
    svg = get(url, "api/diagram", moves="4453", format="svg", verdicts="1")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert b"<svg" in svg.content[:400]
    png = get(url, "api/diagram", moves="4453", format="png", flip="1")
    assert png.status_code == 200 and png.content[:8] == b"\x89PNG\r\n\x1a\n"
    finished = get(url, "api/diagram", moves="4455667", format="svg", verdicts="1")
    assert finished.status_code == 200 and b"X (first player, cross) won" in finished.content
    assert b"O (second player, ring) to move" in get(url, "api/diagram", moves="4").content


def test_the_page_and_its_assets_are_served_from_the_package(url: str) -> None:
    page = get(url, "")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for asset in ("static/board.js", "static/board.css"):
        assert get(url, asset).status_code == 200
    assert "http://" not in page.text and "https://" not in page.text  # nothing from elsewhere
