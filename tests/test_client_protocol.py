"""Parsing the course server's replies, and the game loop's mirror checks, without a network."""

from __future__ import annotations

import copy

import pytest

from board import Board
from client.game import Mirror, move_budget, render_grid
from client.protocol import (
    DRAW,
    RESULT_RUNNING,
    WIN,
    Desync,
    ImpossibleMove,
    LostOnServer,
    MalformedReply,
    MoveReply,
    ServerRefused,
    WrongApiKey,
    last_move_result,
    parse_move_reply,
    parse_stats,
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
    parsed = parse_move_reply(reply(botmove=3, state=grid("...O...")))
    assert parsed == MoveReply("ok", 0.0, 3, tuple(tuple(r) for r in grid("...O...")))
    assert not parsed.finished
    assert parse_move_reply(reply(result=0.5)).finished
    assert parse_move_reply({**reply(), "state": None}).state is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([], "not a JSON object"),
        ({"status": True, "msg": "", "result": 0, "botmove": -1}, "no 'state' field"),
        (reply(result=0.3), "result is 0.3"),
        (reply(result=True), "result is True"),
        (reply(botmove=7), "botmove is 7"),
        (reply(botmove=2.0), "botmove is 2.0"),
        (reply(state=EMPTY[:5]), "not a list of 6 rows"),
        (reply(state=[[0] * 6, *EMPTY[1:]]), "row 0 is not a list of 7"),
        (reply(state=[[2, 0, 0, 0, 0, 0, 0], *EMPTY[1:]]), "holds 2"),
        (reply(state=[[True, 0, 0, 0, 0, 0, 0], *EMPTY[1:]]), "holds True"),
        ({**reply(), "status": "yes"}, "status is 'yes'"),
        ({**reply(), "msg": 5}, "msg is 5"),
    ],
)
def test_a_malformed_reply_is_a_typed_error(body, message):
    with pytest.raises(MalformedReply, match=message):
        parse_move_reply(body)


def test_a_false_status_becomes_the_matching_refusal():
    with pytest.raises(WrongApiKey, match="wrong API key") as info:
        parse_move_reply(reply(status=False, msg="Incorrect API key.", state=None))
    assert not info.value.in_doubt
    with pytest.raises(ImpossibleMove, match="lost with -10") as impossible:
        parse_move_reply(reply(status=False, msg="Impossible move.", result=-10))
    assert impossible.value.result == -10.0
    with pytest.raises(LostOnServer, match="Time limit") as late:
        parse_move_reply(reply(status=False, msg="Time limit exceeded.", result=-1))
    assert late.value.state is not None
    with pytest.raises(ServerRefused, match="No game is running") as other:
        parse_move_reply(reply(status=False, msg="No game is running.", state=None))
    assert type(other.value) is ServerRefused


def test_stats_are_parsed_with_a_null_status():
    body = {"msg": None, "status": None, "stil_id": "ab+cd", "played": 96, "won": 81, "lost": 15,
            "streak": 40, "streak_max": 40, "total_reward": 12.0}
    stats = parse_stats(body)
    assert (stats.played, stats.won, stats.lost, stats.drawn) == (96, 81, 15, 0)
    assert stats.streak == 40 and stats.total_reward == 12.0
    with pytest.raises(MalformedReply, match="played"):
        parse_stats({**body, "played": -1})
    with pytest.raises(MalformedReply, match="81 won and 15 lost of 50"):
        parse_stats({**body, "played": 50})
    with pytest.raises(WrongApiKey):
        parse_stats({"msg": "Incorrect API key.", "status": False, "stil_id": "ab"})


# --- the mirror ------------------------------------------------------------------------------


def test_a_new_game_with_either_starter_or_a_null_state():
    ours = Mirror.start(parse_move_reply(reply()))
    assert ours.we_started and ours.our_turn and ours.board.moves == 0
    theirs = Mirror.start(parse_move_reply(reply(botmove=2, state=grid("..O...."))))
    assert not theirs.we_started and theirs.our_turn
    assert theirs.grid() == tuple(tuple(r) for r in grid("..O...."))
    blind = Mirror.start(parse_move_reply(reply(botmove=2, state=None)))
    assert blind.board == Board.from_moves([2], one_based=False)
    with pytest.raises(Desync, match="row 5 column 2 is empty on the server but the bot's"):
        Mirror.start(parse_move_reply(reply(botmove=2, state=grid("...O..."))))


def test_each_reply_is_checked_against_the_mirror():
    mirror = Mirror.start(parse_move_reply(reply()))
    note = mirror.apply(3, parse_move_reply(reply(botmove=3, state=grid("...O...", "...X..."))))
    assert note is None and mirror.board.moves == 2 and mirror.our_turn
    # The server's board shows the bot's disc somewhere other than where it says it played.
    wrong = copy.deepcopy(mirror)
    with pytest.raises(Desync, match="row 4 column 2 is empty on the server but the bot's"):
        wrong.apply(2, parse_move_reply(reply(botmove=2, state=grid("...O...", "..XXO.."))))
    with pytest.raises(Desync, match="did not answer"):
        copy.deepcopy(mirror).apply(2, parse_move_reply(reply(botmove=-1, state=None)))
    # A null state: nothing to compare, the mirror goes on from the bot's reported move.
    mirror.apply(2, parse_move_reply(reply(botmove=4, state=None)))
    assert mirror.grid() == tuple(tuple(r) for r in grid("...O...", "..XXO.."))


def test_the_end_of_a_game_is_taken_from_the_result():
    # We have three in the bottom row; our fourth wins and the bot does not move.
    mirror = Mirror(Board.from_moves([0, 0, 1, 1, 2, 2], one_based=False), we_started=True)
    final = grid("OOO....", "XXXX...")
    assert mirror.apply(3, parse_move_reply(reply(result=1, state=final))) is None
    assert mirror.expected_result() == 1.0
    # If the server scores it otherwise, its result counts and we say so.
    mirror = Mirror(Board.from_moves([0, 0, 1, 1, 2, 2], one_based=False), we_started=True)
    note = mirror.apply(3, parse_move_reply(reply(result=0.5, state=final)))
    assert note is not None and "server's result counts" in note
    # A game our rules call over cannot go on.
    mirror = Mirror(Board.from_moves([0, 0, 1, 1, 2, 2], one_based=False), we_started=True)
    with pytest.raises(Desync, match="bot played 5 although our move 3 ended"):
        mirror.apply(3, parse_move_reply(reply(result=0, botmove=5, state=None)))


def test_the_budget_stays_under_the_servers_limit():
    assert move_budget(AgentSettings(seconds_per_move=3.0, safety_margin=1.0)) == 3.0
    assert move_budget(AgentSettings(seconds_per_move=10.0, safety_margin=1.5)) == 3.5


def test_render_grid_shows_ours_as_x():
    text = render_grid(tuple(tuple(r) for r in grid("...O...", "...X...")))
    assert text.splitlines()[-2:] == [". . . X . . .", "0 1 2 3 4 5 6"]


def test_quoted_text_from_a_reply_has_our_secrets_masked():
    secrets = ("course-key", "ab-1111", "cd-2222")
    said = "you are ab-1111+cd-2222 and sent course-key"
    with pytest.raises(ServerRefused) as refused:
        parse_move_reply(reply(status=False, msg=said), secrets)
    for text in (str(refused.value), refused.value.msg):
        assert "course-key" not in text and "ab-1111" not in text and "ab*****+cd*****" in text
    assert parse_move_reply(reply(msg=said), secrets).msg == "you are ab*****+cd***** and sent co********"
    with pytest.raises(MalformedReply) as bad:
        parse_move_reply({**reply(), "state": ["ab-1111"] * 6}, secrets)
    assert "ab-1111" not in str(bad.value)


# The 0-based columns of a game in which the 42nd disc fills the board and connects four.
LAST_CELL_WINS = [int(c) for c in "223200446205560034613343205243646156155111"]


def test_the_scoring_rule_checks_the_full_board_before_the_win():
    board = Board.from_moves(LAST_CELL_WINS, one_based=False)
    assert board.is_full() and board.last_mover_won()
    assert last_move_result(board) == DRAW  # the course environment's quirk
    assert last_move_result(board, full_board_win_is_draw=False) == WIN
    assert last_move_result(Board.from_moves(LAST_CELL_WINS[:-1], one_based=False)) == RESULT_RUNNING
