"""Parsing the course server's replies, and the game loop's mirror checks, without a network."""

from __future__ import annotations

import copy

import pytest

from board import Board
from client.display import render_grid, server_says
from client.game import move_budget
from client.mirror import Applied, Mirror
from course.errors import Desync, ImpossibleMove, LostOnServer, MalformedReply, ServerRefused, WrongApiKey
from course.protocol import (
    DRAW,
    RESULT_RUNNING,
    WIN,
    MoveReply,
    Refusal,
    Stats,
    last_move_result,
)
from settings import AgentSettings

EMPTY = [[0] * 7 for _ in range(6)]


def grid(*rows: str) -> list[list[int]]:
    """A board from readable rows, top first: X = ours (1), O = the bot's (-1), . = empty."""
    cells = {"X": 1, "O": -1, ".": 0}
    padded = ["......."] * (6 - len(rows)) + list(rows)
    return [[cells[c] for c in row] for row in padded]


def reply(result=0, botmove=-1, state="empty", status=True, msg="ok") -> dict:
    return {"status": status, "msg": msg, "result": result, "botmove": botmove,
            "state": EMPTY if state == "empty" else state}


def test_a_good_reply_becomes_a_move_reply():
    parsed = MoveReply.from_json(reply(botmove=3, state=grid("...O...")))
    assert parsed == MoveReply("ok", 0.0, 3, tuple(tuple(r) for r in grid("...O...")))
    assert not parsed.finished
    assert MoveReply.from_json(reply(result=0.5)).finished
    assert MoveReply.from_json({**reply(), "state": None}).state is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "not a JSON object"),
        (reply(result=0.3), "result is 0.3"),
        (reply(result=True), "result is True"),
        (reply(result="0"), "result is '0'"),
        (reply(botmove=7), "botmove is 7"),
        (reply(botmove=2.5), "botmove is 2.5"),
        (reply(botmove="3"), "botmove is '3'"),
        (reply(state=EMPTY[:5]), "not a list of 6 rows"),
        (reply(state=[[0] * 6, *EMPTY[1:]]), "row 0 is not a list of 7"),
        (reply(state=[[2, 0, 0, 0, 0, 0, 0], *EMPTY[1:]]), "holds 2"),
        (reply(state=[[0.5, 0, 0, 0, 0, 0, 0], *EMPTY[1:]]), "holds 0.5"),
        (reply(state=[[True, 0, 0, 0, 0, 0, 0], *EMPTY[1:]]), "holds True"),
        ({**reply(), "status": "yes"}, "status is 'yes'"),
    ],
)
def test_a_malformed_reply_is_a_typed_error(body, message):
    with pytest.raises(MalformedReply, match=message):
        MoveReply.from_json(body)


def cells(board: list[list[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(row) for row in board)


# Every shape of a successful reply the client accepts: each example of the table in
# docs/protocol.md, in its order, then a few more.
ACCEPTED = [
    # today's server: a new game, we start; a new game, the bot started in column 3
    ({"status": True, "msg": "New game: you start.", "result": 0, "botmove": -1, "state": EMPTY},
     MoveReply("New game: you start.", 0.0, -1, cells(EMPTY))),
    ({"status": True, "msg": "...", "result": 0, "botmove": 3, "state": grid("...O...")},
     MoveReply("...", 0.0, 3, cells(grid("...O...")))),
    # the 2021 server's reply to -1: everything but the message null, the student starts
    ({"msg": "New game initiated, you start. Make your move", "status": True, "result": None,
      "botmove": None, "state": None},
     MoveReply("New game initiated, you start. Make your move", None, None, None)),
    # a new game whose board alone says that the bot started, and where
    ({"status": True, "result": None, "botmove": None, "state": grid("..O....")},
     MoveReply("", None, None, cells(grid("..O....")))),
    # floats where whole numbers are meant, as that server sends them
    ({"status": True, "result": 0.0, "botmove": 3.0,
      "state": [[float(c) for c in row] for row in grid("...O...")]},
     MoveReply("", 0.0, 3, cells(grid("...O...")))),
    ({"status": True, "msg": "", "result": 0.0, "botmove": 3.0, "state": None},
     MoveReply("", 0.0, 3, None)),
    ({"status": True, "msg": None, "result": -1.0, "botmove": -1.0,
      "state": [[float(c) for c in row] for row in grid("...O...", "...X...")]},
     MoveReply("", -1.0, -1, tuple(tuple(r) for r in grid("...O...", "...X...")))),
    # no board: the game goes on from our copy and the bot's reported move
    ({"status": True, "result": 0, "botmove": 4, "state": None}, MoveReply("", 0.0, 4, None)),
    # after our move: no result and no bot move, only the board (the mirror works them out)
    ({"status": True, "result": None, "botmove": None, "state": grid("...O...", "...X...")},
     MoveReply("", None, None, cells(grid("...O...", "...X...")))),
    # the game is over: the server's result, with or without the bot's move and the board
    ({"status": True, "result": 1, "botmove": -1, "state": grid("XXXXOOO")},
     MoveReply("", 1.0, -1, cells(grid("XXXXOOO")))),
    ({"status": True, "result": -1.0, "botmove": None, "state": None},
     MoveReply("", -1.0, None, None)),
    # fields left out are taken as null; fields we do not know are ignored
    ({"status": True}, MoveReply("", None, None, None)),
    ({"status": True, "msg": "hi", "result": 1, "botmove": -1, "state": None, "game_id": 7,
      "elapsed": 0.2}, MoveReply("hi", 1.0, -1, None)),
    # a null status is not a refusal (the stats reply has one)
    ({"status": None, "result": 0, "botmove": 2, "state": None}, MoveReply("", 0.0, 2, None)),
    # a message that is not text is shown as it came
    ({"status": True, "msg": 5, "result": 0}, MoveReply("5", 0.0, None, None)),
    # a status written as a number (a server building its JSON from integers)
    ({"status": 1, "result": 0, "botmove": 2, "state": None}, MoveReply("", 0.0, 2, None)),
]


@pytest.mark.parametrize(("body", "parsed"), ACCEPTED)
def test_every_accepted_reply_shape_parses(body, parsed):
    assert MoveReply.from_json(body) == parsed
    # and what a reply writes reads back as itself, in either server's numbers
    for floats in (False, True):
        assert MoveReply.from_json(parsed.to_json(float_results=floats)) == parsed


def test_a_refusal_and_stats_write_what_they_read():
    refusal = Refusal("Impossible move.", -10.0, cells(grid("...X...")))
    with pytest.raises(ImpossibleMove) as raised:
        MoveReply.from_json(refusal.to_json())
    assert (raised.value.msg, raised.value.result, raised.value.state) == (
        refusal.msg, refusal.result, refusal.state)
    assert Refusal.from_json(refusal.to_json(float_results=True)) == refusal
    stats = Stats("ab1234cd-s", 5, 3, 1, 2, 4, 1.5)
    assert Stats.from_json(stats.to_json()) == stats
    with pytest.raises(WrongApiKey):
        Stats.from_json(Refusal("Incorrect API key.").stats_json("ab1234cd-s"))


def test_a_false_status_becomes_the_matching_refusal():
    with pytest.raises(WrongApiKey, match="wrong API key") as info:
        MoveReply.from_json(reply(status=False, msg="Incorrect API key.", state=None))
    assert not info.value.in_doubt
    with pytest.raises(ImpossibleMove, match="lost with -10") as impossible:
        MoveReply.from_json(reply(status=False, msg="Impossible move.", result=-10))
    assert impossible.value.result == -10.0
    with pytest.raises(LostOnServer, match="Time limit") as late:
        MoveReply.from_json(reply(status=False, msg="Time limit exceeded.", result=-1))
    assert late.value.state is not None
    with pytest.raises(ServerRefused, match="No game is running") as other:
        MoveReply.from_json(reply(status=False, msg="No game is running.", state=None))
    assert type(other.value) is ServerRefused


def test_a_status_of_0_is_a_refusal_like_false():
    with pytest.raises(WrongApiKey):
        MoveReply.from_json(reply(status=0, msg="Incorrect API key.", state=None))
    with pytest.raises(ImpossibleMove):
        MoveReply.from_json(reply(status=0.0, msg="Impossible move.", result=-10))
    with pytest.raises(WrongApiKey):
        Stats.from_json({"msg": "Incorrect API key.", "status": 0, "stil_id": "ab"})
    with pytest.raises(MalformedReply, match="status is 2"):
        MoveReply.from_json(reply(status=2))


def test_stats_are_parsed_with_a_null_status():
    body = {"msg": None, "status": None, "stil_id": "ab+cd", "played": 96, "won": 81, "lost": 15,
            "streak": 40, "streak_max": 40, "total_reward": 12.0}
    stats = Stats.from_json(body)
    assert (stats.played, stats.won, stats.lost, stats.drawn) == (96, 81, 15, 0)
    assert stats.streak == 40 and stats.total_reward == 12.0
    with pytest.raises(MalformedReply, match="played"):
        Stats.from_json({**body, "played": -1})
    with pytest.raises(MalformedReply, match="81 won and 15 lost of 50"):
        Stats.from_json({**body, "played": 50})
    with pytest.raises(WrongApiKey):
        Stats.from_json({"msg": "Incorrect API key.", "status": False, "stil_id": "ab"})


# --- the mirror ------------------------------------------------------------------------------


def test_a_new_game_with_either_starter_or_a_null_state():
    ours = Mirror.start(MoveReply.from_json(reply()))
    nulls = Mirror.start(MoveReply("New game initiated, you start.", None, None, None))
    assert nulls.we_started and nulls.board == Board()
    # A null botmove with a board: the board says who started.
    told = Mirror.start(MoveReply("", None, None, tuple(tuple(r) for r in grid("....O.."))))
    assert not told.we_started and told.bot_opening == 4
    with pytest.raises(Desync, match="more than one bot disc"):
        Mirror.start(MoveReply("", None, None, tuple(tuple(r) for r in grid("...XO.."))))
    assert ours.we_started and ours.our_turn and ours.board.moves == 0
    theirs = Mirror.start(MoveReply.from_json(reply(botmove=2, state=grid("..O...."))))
    assert not theirs.we_started and theirs.our_turn
    assert theirs.grid() == tuple(tuple(r) for r in grid("..O...."))
    blind = Mirror.start(MoveReply.from_json(reply(botmove=2, state=None)))
    assert blind.board == Board.from_moves([2], one_based=False)
    with pytest.raises(Desync, match="row 5 column 2 is empty on the server but the bot's"):
        Mirror.start(MoveReply.from_json(reply(botmove=2, state=grid("...O..."))))


def test_each_reply_is_checked_against_the_mirror():
    mirror = Mirror.start(MoveReply.from_json(reply()))
    applied = mirror.apply(3, MoveReply.from_json(reply(botmove=3, state=grid("...O...", "...X..."))))
    assert applied == Applied(RESULT_RUNNING, 3, None)
    assert mirror.board.moves == 2 and mirror.our_turn
    # The server's board shows the bot's disc somewhere other than where it says it played.
    wrong = copy.deepcopy(mirror)
    with pytest.raises(Desync, match="row 4 column 2 is empty on the server but the bot's"):
        wrong.apply(2, MoveReply.from_json(reply(botmove=2, state=grid("...O...", "..XXO.."))))
    with pytest.raises(Desync, match="did not answer"):
        copy.deepcopy(mirror).apply(2, MoveReply.from_json(reply(botmove=-1, state=None)))
    # A null state: nothing to compare, the mirror goes on from the bot's reported move.
    mirror.apply(2, MoveReply.from_json(reply(botmove=4, state=None)))
    assert mirror.grid() == tuple(tuple(r) for r in grid("...O...", "..XXO.."))


def test_null_fields_of_a_reply_are_worked_out_from_the_board_in_hand():
    mirror = Mirror.start(MoveReply("", None, None, None))
    # A null botmove: the new bot disc on the server's board is its move.
    applied = mirror.apply(3, MoveReply("", None, None, tuple(tuple(r) for r in grid("..OX..."))))
    assert applied == Applied(RESULT_RUNNING, 2, None) and mirror.board.moves == 2
    # Our discs or two new ones cannot be explained by one bot move.
    with pytest.raises(Desync, match="more than one bot disc"):
        copy.deepcopy(mirror).apply(
            4, MoveReply("", None, None, tuple(tuple(r) for r in grid("..O.O..", "..OXX.."))))
    # Neither where the bot played nor the board, and the game goes on: cannot be followed.
    with pytest.raises(Desync, match="neither where the bot played nor what the board is"):
        copy.deepcopy(mirror).apply(4, MoveReply("", 0.0, None, None))
    # A null result while the board shows the game going on: it goes on.
    assert mirror.apply(4, MoveReply("", None, 4, None)).result == RESULT_RUNNING
    # A null result at the end: our rules score the board (we connect four in row 0).
    won = Mirror(Board.from_moves([0, 0, 1, 1, 2, 2], one_based=False), we_started=True)
    assert won.apply(3, MoveReply("", None, None, None)) == Applied(WIN, None, None)
    # The game is over by the server's word, the bot's last disc unknown: said in a note.
    lost = Mirror(Board.from_moves([0, 1, 0, 1, 6, 1], one_based=False), we_started=True)
    applied = lost.apply(5, MoveReply("", -1.0, None, None))
    assert applied.result == -1.0 and applied.bot is None
    assert applied.note == "the server did not say where the bot played its last disc"


def test_the_end_of_a_game_is_taken_from_the_result():
    # We have three in the bottom row; our fourth wins and the bot does not move.
    mirror = Mirror(Board.from_moves([0, 0, 1, 1, 2, 2], one_based=False), we_started=True)
    final = grid("OOO....", "XXXX...")
    assert mirror.apply(3, MoveReply.from_json(reply(result=1, state=final))) == Applied(WIN, None, None)
    assert mirror.expected_result() == 1.0
    # If the server scores it otherwise, its result counts and we say so.
    mirror = Mirror(Board.from_moves([0, 0, 1, 1, 2, 2], one_based=False), we_started=True)
    note = mirror.apply(3, MoveReply.from_json(reply(result=0.5, state=final))).note
    assert note is not None and "server's result counts" in note
    # A game our rules call over cannot go on.
    mirror = Mirror(Board.from_moves([0, 0, 1, 1, 2, 2], one_based=False), we_started=True)
    with pytest.raises(Desync, match="bot played 5 although our move 3 ended"):
        mirror.apply(3, MoveReply.from_json(reply(result=0, botmove=5, state=None)))


def test_the_budget_stays_under_the_servers_limit():
    assert move_budget(AgentSettings(seconds_per_move=3.0, safety_margin=1.0)) == 3.0
    assert move_budget(AgentSettings(seconds_per_move=10.0, safety_margin=1.5)) == 3.5


def test_render_grid_shows_the_first_player_as_x_and_columns_1_to_7():
    # The course grid's 1 is ours: X when we moved first, O when the bot did.
    ours_first = render_grid(tuple(tuple(r) for r in grid("...O...", "...X...")), True)
    assert ours_first.splitlines()[-2:] == [". . . X . . .", "1 2 3 4 5 6 7"]
    theirs_first = render_grid(tuple(tuple(r) for r in grid("...O...", "...X...")), False)
    assert theirs_first.splitlines()[-3:-1] == [". . . X . . .", ". . . O . . ."]


def test_quoted_text_from_a_reply_has_our_secrets_masked():
    secrets = ("course-key", "ab-1111", "cd-2222")
    said = "you are ab-1111+cd-2222 and sent course-key"
    with pytest.raises(ServerRefused) as refused:
        MoveReply.from_json(reply(status=False, msg=said), secrets)
    for text in (str(refused.value), refused.value.msg):
        assert "course-key" not in text and "ab-1111" not in text and "ab*****+cd*****" in text
    assert MoveReply.from_json(reply(msg=said), secrets).msg == "you are ab*****+cd***** and sent co********"
    with pytest.raises(MalformedReply) as bad:
        MoveReply.from_json({**reply(), "state": ["ab-1111"] * 6}, secrets)
    assert "ab-1111" not in str(bad.value)


# The 0-based columns of a game in which the 42nd disc fills the board and connects four.
LAST_CELL_WINS = [int(c) for c in "223200446205560034613343205243646156155111"]


def test_the_scoring_rule_checks_the_full_board_before_the_win():
    board = Board.from_moves(LAST_CELL_WINS, one_based=False)
    assert board.is_full() and board.last_mover_won()
    assert last_move_result(board) == DRAW  # the course environment's quirk
    assert last_move_result(board, full_board_win_is_draw=False) == WIN
    assert last_move_result(Board.from_moves(LAST_CELL_WINS[:-1], one_based=False)) == RESULT_RUNNING


def test_a_server_message_with_a_column_says_the_server_counts_0_to_6():
    assert server_says("You won!") == "server: You won!"
    assert server_says("The bot played column 3.") == (
        "server: The bot played column 3. [the server counts columns 0-6]")
