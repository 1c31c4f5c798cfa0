"""The local course server's game logic (``CourseService``), called directly.

Positions the bot would never play into are written into the database with a second SQLite
connection, the way a game survives a restart: that is how a win, a loss and the full-board
quirk are reached deterministically.
"""

from __future__ import annotations

import random
import sqlite3
import time
from pathlib import Path

import pytest

from board import Board
from course.errors import WrongApiKey
from course.grid import as_grid
from course.protocol import MSG_IMPOSSIBLE, MSG_WRONG_KEY, MoveReply, Refusal, Stats
from localserver.service import (
    MAX_IDS,
    CorruptRecord,
    CourseService,
    NoStatsEndpoint,
    RequestError,
    request_player,
)
from localserver.variants import START_MESSAGE_2021
from settings import ConfigError
from tests.helpers import state_of
from vocabulary import Ending

KEY = "nyckel"

# A game (0-based columns) in which nobody connects four before the 42nd move, and the 42nd
# move, the only one left, fills the board and connects four for the second player.
LAST_CELL_WINS = "223200446205560034613343205243646156155111"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_service(db: str = ":memory:", **options: object) -> CourseService:
    opts: dict[str, object] = {"api_key": KEY, "time_limit": 0, "rng": random.Random(7)}
    opts.update(options)
    return CourseService(db, **opts)  # type: ignore[arg-type]


def inject_game(db: Path, player: str, first: str, moves: str) -> None:
    """Store a running game as if it had been played up to ``moves``."""
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO games (player, first, moves, started) VALUES (?, ?, ?, ?)",
                     (player, first, moves, time.time()))


def legal_columns(state: list[list[int]]) -> list[int]:
    return [c for c in range(7) if state[0][c] == 0]


def play_random_game(service: CourseService, ids: list[str], rng: random.Random) -> dict:
    reply = service.move(ids, -1, KEY)
    assert reply["status"] is True
    while reply["result"] == 0:
        reply = service.move(ids, rng.choice(legal_columns(reply["state"])), KEY)
    return reply


def test_the_known_sequence_really_wins_on_the_last_cell() -> None:
    before = Board.from_moves([int(c) for c in LAST_CELL_WINS[:-1]], one_based=False)
    assert not before.is_over()
    after = before.play(int(LAST_CELL_WINS[-1]))
    assert after.is_full() and after.last_mover_won()


def test_new_game_student_first_gives_an_empty_board() -> None:
    service = make_service(first="student")
    reply = service.move(["ab1234cd-s"], -1, KEY)
    assert reply == {"status": True, "msg": "New game: you start.", "result": 0, "botmove": -1,
                     "state": [[0] * 7 for _ in range(6)]}


def test_new_game_bot_first_shows_the_bots_disc() -> None:
    service = make_service(first="bot")
    reply = service.move(["ab1234cd-s"], -1, KEY)
    col = reply["botmove"]
    assert reply["status"] is True and reply["result"] == 0 and 0 <= col <= 6
    expected = [[0] * 7 for _ in range(6)]
    expected[5][col] = -1
    assert reply["state"] == expected
    assert f"column {col}" in reply["msg"]


def test_random_first_uses_both_orders() -> None:
    service = make_service(first="random", bot="random")
    starters = {service.move(["x"], -1, KEY)["botmove"] == -1 for _ in range(40)}
    assert starters == {True, False}


def test_every_reply_matches_a_replay_of_the_moves() -> None:
    service = make_service(first="random")
    rng = random.Random(3)
    for _ in range(6):
        reply = service.move(["replay"], -1, KEY)
        first = "bot" if reply["botmove"] >= 0 else "student"
        board = Board() if first == "student" else Board().play(reply["botmove"])
        assert reply["state"] == state_of(board, first)
        while reply["result"] == 0:
            col = rng.choice(legal_columns(reply["state"]))
            reply = service.move(["replay"], col, KEY)
            board = board.play(col)
            if reply["botmove"] >= 0:
                board = board.play(reply["botmove"])
            assert reply["state"] == state_of(board, first)
        assert reply["status"] is True
        assert board.is_over()
        # The student's discs are 1 in every reply, whoever started.
        counts = (sum(row.count(1) for row in reply["state"]),
                  sum(row.count(-1) for row in reply["state"]))
        assert counts[0] - counts[1] == (1 if first == "student" else -1) * (board.moves % 2)
        game = service.store.recent("replay", 1)[0]
        assert game.grid() == as_grid(reply["state"])


def test_bookkeeping_of_wins_draws_losses_and_illegal_moves(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    quirk = make_service(str(db), full_board_win_is_draw=True)
    plain = make_service(str(db), full_board_win_is_draw=False)
    ids = ["kalle"]
    expected = {"played": 0, "won": 0, "lost": 0, "streak": 0, "streak_max": 0, "reward": 0.0}

    def check() -> None:
        stats = quirk.stats(ids, KEY)
        assert stats == {"msg": None, "status": None, "stil_id": "kalle",
                         "played": expected["played"], "won": expected["won"],
                         "lost": expected["lost"], "streak": expected["streak"],
                         "streak_max": expected["streak_max"],
                         "total_reward": expected["reward"]}

    # A win: the student's last disc connects four on a full board (no quirk).
    inject_game(db, "kalle", "bot", LAST_CELL_WINS[:-1])
    reply = plain.move(ids, int(LAST_CELL_WINS[-1]), KEY)
    assert (reply["status"], reply["result"], reply["botmove"]) == (True, 1, -1)
    expected.update(played=1, won=1, streak=1, streak_max=1, reward=1.0)
    check()
    # A draw: the same move with the course environment's quirk.
    inject_game(db, "kalle", "bot", LAST_CELL_WINS[:-1])
    reply = quirk.move(ids, int(LAST_CELL_WINS[-1]), KEY)
    assert (reply["status"], reply["result"]) == (True, 0.5)
    expected.update(played=2, streak=2, streak_max=2, reward=1.5)
    check()
    # A loss: the bot's forced last disc connects four (no quirk).
    inject_game(db, "kalle", "student", LAST_CELL_WINS[:-2])
    reply = plain.move(ids, int(LAST_CELL_WINS[-2]), KEY)
    assert (reply["status"], reply["result"], reply["botmove"]) == (True, -1,
                                                                    int(LAST_CELL_WINS[-1]))
    expected.update(played=3, lost=1, streak=0, reward=0.5)
    check()
    # A new game over a running one counts the running one as lost.
    assert quirk.move(ids, -1, KEY)["status"] is True
    reply = quirk.move(ids, -1, KEY)
    assert reply["status"] is True and "counted as a loss" in reply["msg"]
    expected.update(played=4, lost=2, reward=-0.5)
    check()
    quirk.move(ids, -1, KEY)  # and another: the second one is abandoned too
    expected.update(played=5, lost=3, reward=-1.5)
    check()
    # Bot's last disc on a full board with the quirk: a draw, the streak grows again.
    quirk.move(ids, -1, KEY)
    expected.update(played=6, lost=4, reward=-2.5)
    with sqlite3.connect(db) as conn:  # replace the running game by a prepared one
        conn.execute("UPDATE games SET moves = ?, first = 'student' WHERE outcome = 'running'",
                     (LAST_CELL_WINS[:-2],))
    reply = quirk.move(ids, int(LAST_CELL_WINS[-2]), KEY)
    assert (reply["result"], reply["botmove"]) == (0.5, int(LAST_CELL_WINS[-1]))
    assert "full" in reply["msg"]
    expected.update(played=7, streak=1, reward=-2.0)
    check()
    # An illegal move: column 0 is full.
    inject_game(db, "kalle", "student", "000000")
    reply = quirk.move(ids, 0, KEY)
    assert reply["status"] is False and reply["msg"] == MSG_IMPOSSIBLE
    assert reply["result"] == -10 and reply["botmove"] == -1
    assert [row[0] for row in reply["state"]] == [-1, 1, -1, 1, -1, 1]
    expected.update(played=8, lost=5, streak=0, reward=-12.0)
    check()
    # The game is over: the next move has no game to go to, and counts nothing.
    reply = quirk.move(ids, 3, KEY)
    assert reply["status"] is False and reply["state"] is None
    check()
    ends = [(g.game.ending, g.result) for g in quirk.store.recent("kalle", 20)]
    assert ends == [(Ending.ILLEGAL, -10), (Ending.FULL, 0.5), (Ending.ABANDONED, -1),
                    (Ending.ABANDONED, -1), (Ending.ABANDONED, -1), (Ending.FOUR, -1),
                    (Ending.FULL, 0.5), (Ending.FOUR, 1)]


def test_the_bot_takes_an_immediate_win(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    service = make_service(str(db), bot_depth=3)
    # The bot (first player) has three in column 3; the student plays elsewhere.
    inject_game(db, "p", "bot", "36363")
    reply = service.move(["p"], 0, KEY)
    assert (reply["botmove"], reply["result"]) == (3, -1)


def test_time_limit_with_an_injected_clock() -> None:
    clock = FakeClock()
    service = make_service(first="student", time_limit=5.0, clock=clock)
    service.move(["t"], -1, KEY)
    clock.now += 4.9
    assert service.move(["t"], 3, KEY)["result"] == 0  # in time
    clock.now += 5.2
    reply = service.move(["t"], 3, KEY)
    assert reply["status"] is False and reply["result"] == -1
    assert "Time limit" in reply["msg"] and "5.20 s" in reply["msg"]
    assert sum(row.count(1) for row in reply["state"]) == 1  # the late move was not played
    stats = service.stats(["t"], KEY)
    assert (stats["played"], stats["lost"], stats["total_reward"]) == (1, 1, -1.0)
    assert service.move(["t"], 3, KEY)["status"] is False  # no game any more
    late = service.store.recent("t", 1)[0]
    assert (late.game.ending, late.result, late.game.winner) == (Ending.LATE, -1, 1)


def test_no_time_limit_when_zero() -> None:
    clock = FakeClock()
    service = make_service(first="student", time_limit=0, clock=clock)
    service.move(["t"], -1, KEY)
    clock.now += 1e6
    assert service.move(["t"], 3, KEY)["status"] is True


def test_wrong_key_changes_nothing() -> None:
    service = make_service()
    for move in (-1, 3):
        reply = service.move(["k"], move, "wrong")
        assert reply == {"status": False, "msg": MSG_WRONG_KEY, "result": 0, "botmove": -1,
                         "state": None}
    assert service.stats(["k"], "wrong") == {"msg": MSG_WRONG_KEY, "status": False, "stil_id": "k"}
    assert service.store.recent("k") == []


@pytest.mark.parametrize(
    ("ids", "move", "field"),
    [
        (["ok"], 7, "move"),
        (["ok"], -2, "move"),
        (["ok"], True, "move"),
        (["ok"], "3", "move"),
        ([], 1, "stil_id"),
        ([""], 1, "stil_id"),
        (["a b"], 1, "stil_id"),
        (["x" * 51], 1, "stil_id"),
        (["a';DROP TABLE games;--"], 1, "stil_id"),
        ([f"id{i}" for i in range(MAX_IDS + 1)], 1, "stil_id"),
        ([3], 1, "stil_id"),
    ],
)
def test_out_of_range_input_is_a_request_error(ids: list, move: object, field: str) -> None:
    service = make_service()
    with pytest.raises(RequestError) as info:
        service.move(ids, move, KEY)  # type: ignore[arg-type]
    assert info.value.field == field


def test_group_ids_are_sorted_and_joined() -> None:
    assert request_player(["zz-s", "aa_1", "zz-s"]) == "aa_1+zz-s"
    assert request_player("solo") == "solo"
    assert request_player(["x" * 50, "åsa"]) == "x" * 50 + "+åsa"
    service = make_service(first="student")
    service.move(["b", "a"], -1, KEY)
    assert service.move(["a", "b"], 3, KEY)["status"] is True  # the same running game
    assert service.stats(["b", "a"], KEY)["stil_id"] == "a+b"


def test_running_games_and_stats_survive_a_restart(tmp_path: Path) -> None:
    db = str(tmp_path / "restart.sqlite3")
    rng = random.Random(11)
    service = make_service(db, first="student")
    play_random_game(service, ["r"], rng)
    reply = service.move(["r"], -1, KEY)
    reply = service.move(["r"], 3, KEY)
    state_before, stats_before = reply["state"], service.stats(["r"], KEY)
    service.close()

    service = make_service(db, first="student")
    assert service.stats(["r"], KEY) == stats_before
    col = legal_columns(state_before)[0]
    reply = service.move(["r"], col, KEY)
    assert reply["status"] is True
    before = sum(v != 0 for row in state_before for v in row)
    after = sum(v != 0 for row in reply["state"] for v in row)
    assert after in (before + 1, before + 2)
    assert all(
        old == new for row_old, row_new in zip(state_before, reply["state"], strict=True)
        for old, new in zip(row_old, row_new, strict=True) if old != 0
    )


def test_the_same_seed_plays_the_same_games() -> None:
    def moves(seed: int) -> list[int]:
        service = make_service(first="random", rng=random.Random(seed))
        reply = play_random_game(service, ["s"], random.Random(1))
        return [v for row in reply["state"] for v in row]

    assert moves(5) == moves(5)


@pytest.mark.parametrize(
    "options",
    [{"bot": "alphazero"}, {"bot_depth": 0}, {"bot_depth": 99}, {"first": "me"},
     {"time_limit": -1.0}, {"time_limit": float("nan")}, {"api_key": ""}],
)
def test_bad_settings_are_config_errors(options: dict) -> None:
    with pytest.raises(ConfigError):
        make_service(**options)


def test_a_record_with_the_wrong_side_to_move_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    service = make_service(str(db))
    inject_game(db, "p", "bot", "3636")  # the bot started, yet it would be the bot's turn
    with pytest.raises(CorruptRecord):
        service.move(["p"], 0, KEY)
    assert service.stats(["p"], KEY)["played"] == 0


def test_a_database_that_is_not_sqlite_is_a_config_error(tmp_path: Path) -> None:
    bogus = tmp_path / "not.sqlite3"
    bogus.write_text("this is not a database, " * 100)
    with pytest.raises(ConfigError, match="database"):
        make_service(str(bogus))


def test_the_bot_picks_at_random_among_its_equally_good_moves() -> None:
    from search.bot import move_values

    values = move_values(Board(), 4)
    best = {col for col, value in values.items() if value == max(values.values())}
    assert len(best) > 1  # at depth 4 the empty board has several best columns
    service = make_service(first="bot", bot_depth=4, rng=random.Random(3))
    chosen = [service.move(["tie"], -1, KEY)["botmove"] for _ in range(30)]
    assert set(chosen) == best  # never a worse column, and every best one in turn


def test_the_time_limit_counts_from_arrival_not_from_the_end_of_the_wait() -> None:
    """A move that waited for its player's lock (another request of the same player being
    served) arrived in time: the wait is the server's, not the student's."""
    import threading

    clock = FakeClock()
    reads = threading.Event()

    def watched_clock() -> float:
        reads.set()
        return clock()

    service = make_service(first="student", time_limit=5.0, clock=watched_clock)
    service.move(["w"], -1, KEY)
    replies: list[dict] = []
    lock = service._player_lock("w")  # as if another request of "w" were being served
    with lock:
        reads.clear()
        clock.now += 1.0
        worker = threading.Thread(target=lambda: replies.append(service.move(["w"], 3, KEY)))
        worker.start()
        reads.wait(2.0)  # the move has arrived and read the clock (at once, with the fix)
        clock.now += 10.0  # the other request takes long
    worker.join(10)
    assert replies and replies[0]["status"] is True and replies[0]["result"] == 0


def test_a_bad_setting_names_its_key() -> None:
    with pytest.raises(ConfigError, match=r"local_server\.bot_depth: must be at least 1, got 0"):
        make_service(bot_depth=0)


# --- the server versions ---------------------------------------------------------------------


def test_the_2021_variant_answers_as_that_server_did() -> None:
    service = make_service(variant="2021")
    ids = ["ab1234cd-s"]
    start = service.move(ids, -1, KEY)
    assert start == {"msg": "New game initiated, you start. Make your move", "status": True,
                     "result": None, "botmove": None, "state": None}
    reply = service.move(ids, 3, KEY)
    assert reply["status"] is True and isinstance(reply["result"], float) and reply["result"] == 0
    assert isinstance(reply["botmove"], int) and 0 <= reply["botmove"] <= 6
    assert sum(cell != 0 for row in reply["state"] for cell in row) == 2
    rng = random.Random(2)
    while reply["result"] == 0:
        reply = service.move(ids, rng.choice(legal_columns(reply["state"])), KEY)
    assert type(reply["result"]) is float and reply["result"] in (1.0, 0.5, -1.0)
    from localserver.service import NoStatsEndpoint

    with pytest.raises(NoStatsEndpoint):
        service.stats(ids, KEY)


def test_the_2021_bot_plays_uniformly_at_random() -> None:
    service = make_service(variant="2021")
    seen: dict[int, int] = {}
    for index in range(140):  # the bot's first reply to our centre, over many games
        reply = service.move([f"p{index}"], -1, KEY)
        reply = service.move([f"p{index}"], 3, KEY)
        seen[reply["botmove"]] = seen.get(reply["botmove"], 0) + 1
    assert set(seen) == set(range(7)) and min(seen.values()) >= 8  # 20 expected each


def test_every_start_lost_books_each_new_game_as_a_loss() -> None:
    service = make_service(first="student", every_start_lost=True)
    ids = ["ab1234cd-s"]
    service.move(ids, -1, KEY)  # no game was running: booked as a loss all the same
    stats = service.stats(ids, KEY)
    assert (stats["played"], stats["lost"], stats["streak"], stats["total_reward"]) == (1, 1, 0, -1.0)
    play_random_game_from_start(service, ids)
    after = service.stats(ids, KEY)
    assert after["played"] == 2
    service.move(ids, -1, KEY)
    assert service.stats(ids, KEY)["lost"] == after["lost"] + 1 and service.stats(ids, KEY)["streak"] == 0


def play_random_game_from_start(service: CourseService, ids: list[str]) -> dict:
    """Finish the running game (just started, the student to move) with random moves."""
    rng = random.Random(3)
    reply = service.move(ids, 3, KEY)
    while reply["result"] == 0:
        reply = service.move(ids, rng.choice(legal_columns(reply["state"])), KEY)
    return reply


def test_a_switch_against_the_variant_is_a_config_error_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"local_server\.first bot contradicts"):
        make_service(variant="2021", first="bot")
    with pytest.raises(ConfigError, match="unknown variant '1999'"):
        make_service(variant="1999")


@pytest.mark.parametrize("variant", ["current", "2021"])
def test_every_reply_is_written_by_the_type_the_client_reads_it_with(variant: str) -> None:
    """Each body the local server sends reads back (``MoveReply``, ``Refusal``, ``Stats``) into
    a value that writes the same body, with this version's numbers: ``result`` a float
    throughout in 2021's replies, a whole number (or 0.5) in today's."""
    floats = variant == "2021"
    service = make_service(variant=variant, first="student")
    rng = random.Random(5)
    bodies = [service.move(["w"], 3, KEY), service.move(["w"], -1, "wrong key")]
    for _ in range(6):  # games ended every way the board ends them, and refusals of each kind
        bodies.append(service.move(["w"], -1, KEY))
        while bodies[-1]["result"] in (0, None):
            state = bodies[-1]["state"] or [[0] * 7 for _ in range(6)]
            bodies.append(service.move(["w"], rng.choice(legal_columns(state)), KEY))
    bodies.append(service.move(["i"], -1, KEY))
    for _ in range(6):  # column 0 until it is full or the game ends
        bodies.append(service.move(["i"], 0, KEY))
        if bodies[-1]["result"] not in (0, None):
            break
    kinds = set()
    for body in bodies:
        if body["status"] is False:
            refusal = Refusal.from_json(body)
            assert refusal.to_json(float_results=floats) == body
            kinds.add(refusal.msg.split(":")[0])
        else:
            reply = MoveReply.from_json(body)
            assert reply.to_json(float_results=floats) == body
            kinds.add("running" if not reply.finished else f"over {reply.result}")
        if body["result"] is not None:
            assert type(body["result"]) is (float if floats else float if body["result"] == 0.5
                                            else int)
    assert {"No game is running", MSG_WRONG_KEY, "running"} <= kinds
    assert any(kind.startswith("over") for kind in kinds)
    if floats:
        assert bodies[2] == MoveReply(START_MESSAGE_2021, None, None, None).to_json()
        with pytest.raises(NoStatsEndpoint):
            service.stats(["w"], KEY)
    else:
        stats = service.stats(["w"], KEY)
        assert Stats.from_json(stats).to_json() == stats and stats["status"] is None
        refused = service.stats(["w"], "wrong key")
        assert refused == Refusal(MSG_WRONG_KEY).stats_json("w")
        with pytest.raises(WrongApiKey):
            Stats.from_json(refused)
