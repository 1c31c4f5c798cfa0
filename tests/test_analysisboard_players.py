"""The board's "play the agent" against the players of ``--players``, over real HTTP on
127.0.0.1: whole games against a ``program:`` engine (a real process, tests/data/outside) and
against ``bot:2``, a misbehaving program's fault shown as its loss with its process gone, a
player not on the list refused, and the games kept per page ended when over, when the page
says so, when idle, and when room is needed for another."""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from analysisboard.opponents import Matches, TooManyGames, fault_words, listed_players
from board import Board
from outside import AgentFault
from settings import UsageError
from tests.analysisboard_games import running_analysis_board
from tests.helpers import gone, new_tag, tagged
from vocabulary import Ending

ENGINE = Path(__file__).resolve().parent / "data" / "outside" / "engine.py"
TAG = new_tag()
PROGRAM = f'program:"{sys.executable} {ENGINE} --tag {TAG}"'
LATE = f'program:"{sys.executable} {ENGINE} --misbehave late --tag {TAG}":0.3'
CRASH = f'program:"{sys.executable} {ENGINE} --misbehave crash --tag {TAG}"'
ILLEGAL = f'program:"{sys.executable} {ENGINE} --misbehave illegal --tag {TAG}"'
PLAYERS = ",".join([PROGRAM, "bot:2", LATE, CRASH, ILLEGAL])


def all_gone(timeout: float = 20.0) -> bool:
    """Whether every process the test engines started has ended (waited for, up to
    ``timeout``): found by their ``--tag`` (they run sandboxed)."""
    return gone(tagged(TAG), timeout) and not tagged(TAG)


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("players")
    matches = Matches(listed_players(PLAYERS))
    with running_analysis_board(folder / "games.sqlite3", analysts=1, matches=matches) as url:
        yield {"url": url, "matches": matches}


def move(url: str, **params: Any) -> requests.Response:
    return requests.get(url + "api/move", params=params, timeout=60)


def play_whole_game(url: str, player: str, page: str, *, human_first: bool,
                    seed: int) -> tuple[str, dict[str, Any]]:
    """A game on the page against ``player``, the person playing random legal moves; the
    moves and the player's last answer."""
    rng = random.Random(seed)
    moves = ""
    board = Board()
    last: dict[str, Any] = {}
    human_turn = human_first
    while not board.is_over():
        if human_turn:
            column = rng.choice(board.legal_moves())
        else:
            reply = move(url, moves=moves, player=player, seconds=0.5, page=page)
            assert reply.status_code == 200, reply.text
            last = reply.json()
            assert last["fault"] is None, last
            assert last["player"] == player and last["column"] in board.legal_moves()
            column = last["column"]
        board = board.play(column)
        moves += str(column + 1)
        human_turn = not human_turn
    return moves, last


def test_the_players_are_listed_by_name_and_kind(board: dict[str, Any]) -> None:
    listing = requests.get(board["url"] + "api/players", timeout=30).json()
    assert [(p["name"], p["kind"]) for p in listing["players"]] == [
        (PROGRAM, "program"), ("bot:2", "bot"), (LATE, "program"), (CRASH, "program"),
        (ILLEGAL, "program")]
    assert [p["seconds"] for p in listing["players"]] == [None, None, 0.3, None, None]


@pytest.mark.parametrize("human_first", [True, False])
def test_a_whole_game_against_a_program(board: dict[str, Any], human_first: bool) -> None:
    page = f"program-{human_first}"
    moves, last = play_whole_game(board["url"], PROGRAM, page, human_first=human_first, seed=5)
    assert last["kind"] == "program" and last["budget"] == 0.5
    assert last["words"].startswith(PROGRAM)
    # The program (a process kept for the game) answered every move of it, and ended with it.
    assert len(moves) >= 7 and Board.from_moves(moves).is_over()
    requests.get(board["url"] + "api/end", params={"page": page}, timeout=30)
    assert all_gone()


def test_a_whole_game_against_the_course_bot(board: dict[str, Any]) -> None:
    moves, last = play_whole_game(board["url"], "bot:2", "bot-page", human_first=True, seed=8)
    assert last["kind"] == "bot" and last["budget"] is None
    assert Board.from_moves(moves).is_over()
    # A game the bot's move ended is over on the server too; one the person's move ended is
    # kept until the page says it is over.
    bot_ended_it = len(moves) % 2 == 0  # the person moved first
    ended = requests.get(board["url"] + "api/end", params={"page": "bot-page"}, timeout=30)
    assert ended.status_code == 200 and ended.json() == {"ended": not bot_ended_it}
    assert board["matches"].games == 0


@pytest.mark.parametrize(("spec", "kind", "words"), [
    (LATE, Ending.LATE, " s for a 0.3 s budget)"),
    (CRASH, Ending.CRASHED, "status 3"),
    (ILLEGAL, Ending.ILLEGAL, "(answered 9: out of range 1-7)"),
])
@pytest.mark.slow
def test_a_misbehaving_program_loses_with_its_reason_and_its_process_ends(
        board: dict[str, Any], spec: str, kind: Ending, words: str) -> None:
    url, page = board["url"], f"fault-{kind.value}"
    first = move(url, moves="4", player=spec, seconds=0.5, page=page).json()
    assert first["fault"] is None  # it misbehaves in its second move
    moves = "4" + str(first["column"] + 1) + "1"
    reply = move(url, moves=moves, player=spec, seconds=0.5, page=page)
    assert reply.status_code == 200, reply.text  # the agent's fault, not the server's
    answer = reply.json()
    assert answer["column"] is None and answer["over"] is True
    assert answer["fault"]["kind"] == kind.value
    assert answer["words"].startswith(f"{spec} lost: {kind.value} (")
    assert answer["words"].endswith(words) or words in answer["words"], answer["words"]
    assert all_gone()
    # The game is over: nothing is kept for the page, and its next move starts afresh.
    assert requests.get(url + "api/end", params={"page": page}, timeout=30).json() == {
        "ended": False}


@pytest.mark.parametrize(("params", "message"), [
    ({"player": 'program:"rm -rf /"'}, "is not on the board's list"),
    ({"player": "bot:3"}, "only the players given to --players"),
    ({"player": "bot:2", "mode": "course"}, "give mode (our engine) or player"),
    ({"player": "bot:2", "page": ""}, "page is missing"),
])
def test_a_player_not_on_the_list_is_refused(board: dict[str, Any], params: dict[str, str],
                                             message: str) -> None:
    before = set(tagged(TAG))
    reply = move(board["url"], **{"moves": "44", "seconds": "0.5", "page": "refused", **params})
    assert reply.status_code == 400
    assert message in reply.json()["error"]
    assert set(tagged(TAG)) <= before  # nothing was started


def test_our_engine_still_plays_in_its_modes(board: dict[str, Any]) -> None:
    answer = move(board["url"], moves="4453", mode="course", seconds=0.1, page="ours").json()
    assert answer["column"] in range(7) and answer["mode"] == "course"


@pytest.mark.slow
def test_a_board_without_players_refuses_every_player(tmp_path: Path) -> None:
    with running_analysis_board(tmp_path / "games.sqlite3", analysts=1) as url:
        assert requests.get(url + "api/players", timeout=30).json() == {"players": []}
        reply = move(url, moves="", player="bot:2", seconds=0.5, page="p")
        assert reply.status_code == 400 and "lists no players" in reply.json()["error"]


# --- the games kept: without HTTP, the same real processes --------------------------------


def test_the_page_ending_its_game_ends_the_program() -> None:
    matches = Matches(listed_players(PROGRAM))
    try:
        matches.move("page", PROGRAM, "", Board(), 0.5)
        assert tagged(TAG) and matches.games == 1
        assert matches.end("page") and matches.games == 0
        assert all_gone()
    finally:
        matches.close()


def test_a_new_game_of_the_page_replaces_its_old_one() -> None:
    matches = Matches(listed_players(f"{PROGRAM},bot:2"))
    try:
        matches.move("page", PROGRAM, "", Board(), 0.5)
        assert tagged(TAG)
        matches.move("page", "bot:2", "4", Board.from_moves("4"), 0.5)  # another game
        assert matches.games == 1 and all_gone()
    finally:
        matches.close()


def test_an_idle_game_is_ended() -> None:
    matches = Matches(listed_players(PROGRAM), idle_seconds=0.3)
    try:
        matches.move("page", PROGRAM, "", Board(), 0.5)
        assert matches.games == 1
        assert all_gone()  # ended by the sweeper thread, with nothing asked of it
        deadline = time.monotonic() + 20
        while matches.games and time.monotonic() < deadline:
            time.sleep(0.05)
        assert matches.games == 0
    finally:
        matches.close()


def test_at_most_max_games_are_kept_the_least_recent_one_ended() -> None:
    matches = Matches(listed_players(PROGRAM), max_games=2)
    try:
        before = set(tagged(TAG))
        matches.move("a", PROGRAM, "", Board(), 0.5)
        first = [pid for pid in tagged(TAG) if pid not in before]
        matches.move("b", PROGRAM, "", Board(), 0.5)
        matches.move("c", PROGRAM, "", Board(), 0.5)  # "a" played least recently: ended
        assert matches.games == 2
        assert gone(first, 20)
        # Its page's next move starts a player afresh from the position.
        answer = matches.move("a", PROGRAM, "41", Board.from_moves("41"), 0.5)
        assert answer["fault"] is None and answer["column"] in range(7)
    finally:
        matches.close()
    assert all_gone()


def test_a_connectx_file_plays_and_its_kaggle_fault_is_its_loss() -> None:
    agents = Path(__file__).resolve().parent / "data" / "outside" / "connectx"
    good, numpy = f"connectx:{agents / 'good.py'}", f"connectx:{agents / 'numpy_int.py'}"
    matches = Matches(listed_players(f"{good},{numpy}"))
    try:
        answer = matches.move("good", good, "44", Board.from_moves("44"), 0.5)
        assert answer["fault"] is None and answer["column"] in range(7)
        assert answer["kind"] == "connectx" and answer["budget"] == 0.5
        lost = matches.move("numpy", numpy, "44", Board.from_moves("44"), 0.5)
        assert lost["fault"]["kind"] == Ending.NOT_A_COLUMN.value
        assert lost["words"].startswith(f"{numpy} lost: not a column (returned numpy.int64")
        assert matches.games == 1  # the faulty one's game is over
    finally:
        matches.close()
    assert matches.games == 0


@pytest.mark.slow
def test_no_room_is_taken_from_a_game_in_a_move() -> None:
    matches = Matches(listed_players(LATE), max_games=1)
    try:
        first = matches.move("a", LATE, "", Board(), 0.5)
        moves = str(first["column"] + 1) + "1"
        answers: list[dict[str, Any]] = []
        # Its second move is late: the game is in a move for its budget and grace.
        slow = threading.Thread(target=lambda: answers.append(
            matches.move("a", LATE, moves, Board.from_moves(moves), 0.5)))
        slow.start()
        deadline = time.monotonic() + 20
        while not matches.busy("a") and slow.is_alive() and time.monotonic() < deadline:
            time.sleep(0.005)
        assert matches.busy("a")
        with pytest.raises(TooManyGames):
            matches.move("b", LATE, "", Board(), 0.5)
        slow.join()
        assert answers[0]["fault"]["kind"] == "late"
        assert matches.move("b", LATE, "", Board(), 0.5)["fault"] is None  # room now
    finally:
        matches.close()
    assert all_gone()


# --- the list -------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "message"), [
    ("bot:99", "--players: player 'bot:99'"),
    ("human", "--players: human is the person at the page"),
    ("bot:2,bot:2", "--players: bot:2 is listed twice"),
    ('program:"/nonexistent/engine"', "/nonexistent/engine is not a file"),
    (" , ", "--players: no player given"),
])
def test_a_bad_list_is_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(UsageError) as refused:
        listed_players(text)
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_a_fault_in_words() -> None:
    late = AgentFault(Ending.LATE, "no answer within its 0.5 s and the 0.5 s grace",
                      seconds=1.734)
    assert fault_words("program:x", late, 0.5) == "program:x lost: late (1.73 s for a 0.5 s budget)"
    junk = AgentFault(Ending.NOT_A_COLUMN, "answered 'seven', not a column 1-7")
    assert fault_words("program:x", junk, 0.5) == (
        "program:x lost: not a column (answered 'seven', not a column 1-7)")
