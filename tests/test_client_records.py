"""The SQLite game record: written move by move, read back after a crash, judged for resuming."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from board import Board
from client.mirror import Mirror, resume_problem
from client.records import ONLINE, RecordError, Records, player_hash
from engine import Decision, SearchScore
from vocabulary import Ending, Source

IDS = ("ab-secret-1", "cd-secret-2")
SERVER = "http://127.0.0.1:1/"


def decision(column: int) -> Decision:
    return Decision(column=column, score=SearchScore(7), depth=9, nodes=1234, seconds=0.5,
                    pv=(column,), source=Source.SEARCH)


def grid_after(columns: list[int], we_started: bool) -> tuple[tuple[int, ...], ...]:
    mirror = Mirror(Board.from_moves(columns, one_based=False), we_started)
    return mirror.grid()


def test_a_game_is_readable_from_another_connection_after_every_step(tmp_path):
    path = tmp_path / "records" / "games.sqlite3"
    writer = Records(path)  # never closed: as if the process died
    game_id = writer.begin(ONLINE, SERVER, IDS, "server bot")
    assert Records(path).game(game_id).status == "starting"
    writer.started(game_id, False, grid_after([3], False), 3)
    writer.sent(game_id, 2, 4, decision(4), 0.25)
    seen = Records(path).game(game_id)
    assert seen.status == "running" and seen.we_started is False
    assert seen.game.columns == (3,) and seen.game.ending is None
    assert seen.pending is not None and seen.pending.column == 4 and seen.pending.depth == 9
    writer.replied(game_id, 2, 0.3, 2, grid_after([3, 4, 2], False), 0.0)
    seen = Records(path).game(game_id)
    assert seen.pending is None and seen.game.columns == (3, 4, 2)
    assert seen.last_state == grid_after([3, 4, 2], False)
    ours = [m for m in seen.game.moves if m.side == seen.our_side]
    assert [(m.column, m.seconds, m.nodes, m.depth, m.source) for m in ours] == [
        (4, 0.3, 1234, 9, "search")
    ]
    theirs = [m for m in seen.game.moves if m.side != seen.our_side]
    assert [(m.column, m.seconds) for m in theirs] == [(3, None), (2, None)]  # not timed
    writer.sent(game_id, 4, 5, decision(5), 0.1)
    writer.replied(game_id, 4, 0.1, None, grid_after([3, 4, 2, 5], False), 1.0)
    final = Records(path).game(game_id)
    assert final.status == "finished" and final.result == 1.0 and final.finished_at is not None
    # No ending was given: the last board tells (ours is not four in a row: the server ruled).
    assert final.game.winner == 1 and final.game.ending is Ending.RULED


def test_the_ids_themselves_are_not_stored(tmp_path):
    path = tmp_path / "games.sqlite3"
    with Records(path) as records:
        game_id = records.begin(ONLINE, SERVER, IDS, "server bot")
        assert records.game(game_id).game.first == "ab*********+cd*********"
        # The database and its write-ahead log, while the game is open.
        files = list(tmp_path.iterdir())
        data = b"".join(f.read_bytes() for f in files)
    assert b"server bot" in data
    assert b"secret" not in data


def test_unfinished_finds_only_this_server_and_these_ids(tmp_path):
    with Records(tmp_path / "games.sqlite3") as records:
        mine = records.begin(ONLINE, SERVER, IDS, "server bot")
        records.begin(ONLINE, "http://elsewhere/", IDS, "server bot")
        records.begin(ONLINE, SERVER, ("someone-else",), "server bot")
        found = records.unfinished(ONLINE, SERVER, tuple(reversed(IDS)))  # order does not matter
        assert found is not None and found.id == mine
        records.finish(mine, 0.5)
        assert records.unfinished(ONLINE, SERVER, IDS) is None
        records.discard(records.begin(ONLINE, SERVER, IDS, "server bot"))
        assert records.unfinished(ONLINE, SERVER, IDS) is None


def test_a_group_is_recorded_under_its_name_on_the_server(tmp_path: Path) -> None:
    # Distinct ids: the hash is the one records always had (sorted, joined with "+").
    legacy = hashlib.sha256("+".join(sorted(IDS)).encode()).hexdigest()[:24]
    assert player_hash(IDS) == player_hash(tuple(reversed(IDS))) == legacy
    # An id given twice counts once, as on the server: the same group, the same hash.
    assert player_hash((*IDS, IDS[0])) == player_hash(IDS)
    with Records(tmp_path / "games.sqlite3") as records:
        game_id = records.begin(ONLINE, SERVER, (*IDS, IDS[0]), "server bot")
        found = records.unfinished(ONLINE, SERVER, IDS)
        assert found is not None and found.id == game_id


def test_a_game_recorded_under_the_old_hash_of_repeated_ids_still_resumes(tmp_path: Path) -> None:
    ids = (IDS[0], IDS[0], IDS[1])
    old_hash = hashlib.sha256("+".join(sorted(ids)).encode()).hexdigest()[:24]
    assert old_hash != player_hash(ids)
    with Records(tmp_path / "games.sqlite3") as records:
        finished = records.begin(ONLINE, SERVER, ids, "server bot")
        records.finish(finished, 1.0)
        running = records.begin(ONLINE, SERVER, ids, "server bot")
        # As written by the earlier version, which hashed every id given.
        records.conn.execute("UPDATE games SET player = ?", (old_hash,))
        found = records.unfinished(ONLINE, SERVER, ids)
        assert found is not None and found.id == running
        assert records.streak(ONLINE, SERVER, ids) == 1


def test_resume_is_allowed_only_when_nothing_is_in_doubt(tmp_path):
    with Records(tmp_path / "games.sqlite3") as records:
        game_id = records.begin(ONLINE, SERVER, IDS, "server bot")
        assert "no reply was recorded" in str(resume_problem(records.game(game_id)))
        records.started(game_id, True, grid_after([], True), None)
        assert resume_problem(records.game(game_id)) is None
        records.sent(game_id, 1, 3, decision(3), 0.2)
        assert "may or may not have played it" in str(resume_problem(records.game(game_id)))
        records.unsent(game_id, 1)  # it never reached the server
        assert resume_problem(records.game(game_id)) is None
        records.sent(game_id, 1, 3, decision(3), 0.2)
        records.replied(game_id, 1, 0.2, 3, grid_after([3, 3], True), 0.0)
        assert resume_problem(records.game(game_id)) is None
        # A record whose last board does not follow from its moves is not trusted.
        records.conn.execute("UPDATE games SET last_state = ? WHERE id = ?",
                             (json.dumps([[0] * 7] * 6), game_id))
        assert "does not match its last board" in str(resume_problem(records.game(game_id)))
        records.stop(game_id, "desync: something")
        assert "stopped in an unknown state: desync: something" in str(resume_problem(records.game(game_id)))


def test_a_file_that_is_not_a_record_is_a_clear_error(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.write_text("not a database")
    with pytest.raises(RecordError, match=r"cannot use .* as the game record"):
        Records(path)


def test_local_games_are_recorded_with_every_move(tmp_path):
    with Records(tmp_path / "games.sqlite3") as records:
        game_id = records.begin("local", "gym_connect_four", (), "random")
        records.started(game_id, True, grid_after([], True), None)
        records.played(game_id, 1, "us", 3, decision(3), 0.1)
        records.played(game_id, 2, "them", 0)
        records.finish(game_id, -1.0)
        game = records.game(game_id)
        assert game.game.columns == (3, 0) and game.result == -1.0 and game.kind == "local"
        with pytest.raises(sqlite3.IntegrityError):
            records.played(game_id, 3, "us", 9)


# The record's layout before the engine had modes (record version 1: no user_version).
VERSION_1 = """
CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, server TEXT NOT NULL,
    player TEXT NOT NULL, player_masked TEXT NOT NULL, opponent TEXT NOT NULL,
    started_at TEXT NOT NULL, finished_at TEXT, we_started INTEGER, status TEXT NOT NULL,
    result REAL, last_state TEXT, note TEXT);
CREATE TABLE moves (game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    ply INTEGER NOT NULL, side TEXT NOT NULL, col INTEGER NOT NULL, confirmed INTEGER NOT NULL,
    seconds REAL, depth INTEGER, score INTEGER, nodes INTEGER, source TEXT, at TEXT NOT NULL,
    PRIMARY KEY (game_id, ply));
INSERT INTO games VALUES (1, 'online', 'http://x/', 'h', 'ab**', 'server bot',
    '2026-01-01T00:00:00+00:00', '2026-01-01T00:01:00+00:00', 1, 'finished', 1.0, NULL, NULL);
INSERT INTO moves VALUES (1, 1, 'us', 3, 1, 0.5, 12, 7, 1000, 'search',
    '2026-01-01T00:00:01+00:00');
INSERT INTO moves VALUES (1, 2, 'them', 2, 1, NULL, NULL, NULL, NULL, NULL,
    '2026-01-01T00:00:02+00:00');
"""


def test_a_record_of_the_first_version_is_migrated_not_lost(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(VERSION_1)
    with Records(path) as records:
        (game,) = records.games()
        assert game.result == 1.0 and game.game.columns == (3, 2)
        assert game.game.moves[0].source == "search" and game.game.moves[0].mode is None
        game_id = records.begin(ONLINE, "http://x/", IDS, "server bot")
        records.started(game_id, True, grid_after([], True), None)
        records.sent(game_id, 1, 3, decision(3), 0.4)
        assert records.game(game_id).pending.mode == "course"  # type: ignore[union-attr]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3


def test_a_record_is_read_without_being_changed_when_opened_read_only(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as conn:
        conn.executescript(VERSION_1)
    before = path.read_bytes()
    with Records(path, read_only=True) as records:
        (game,) = records.games()
        assert game.game.columns == (3, 2) and game.game.moves[0].mode is None
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            records.begin(ONLINE, "http://x/", IDS, "server bot")
    assert path.read_bytes() == before  # not migrated, nothing written
    with pytest.raises(RecordError, match="cannot use"):
        Records(tmp_path / "missing.sqlite3", read_only=True)
    assert not (tmp_path / "missing.sqlite3").exists()


def test_a_record_of_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    Records(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 4")
    with pytest.raises(RecordError, match="written by a newer version"):
        Records(path)
