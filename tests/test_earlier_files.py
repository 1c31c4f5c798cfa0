"""Game files written by earlier versions (``tests/data/earlier``, the shipped ladder's games) are
read as the one played-game value: every store and view reads them, nothing is lost, and a
command given one goes on from it."""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

import agent
from analysisboard.games import GameFiles
from arena.calibration import fit_ladder, games_of, ladder_lines
from batch.lines import read_lines
from board import Board
from client.records import Records
from engine.games import PlayedGame
from localserver.service import CourseService
from localserver.store import GameStore
from rating.ladder import GAMES_FILE, load_ladder
from reporting.rate import RunFiles
from reporting.rated import RatedGame
from vocabulary import Ending

EARLIER = Path(__file__).resolve().parent / "data" / "earlier"
KEY = "nyckel"


def replays(game: PlayedGame) -> Board:
    """The game's board, checked: its moves are legal from the empty board, and an ending the
    board decided is on it."""
    board = Board.from_moves(game.columns, one_based=False)
    if game.ending is Ending.FOUR:
        assert board.last_mover_won() and game.winner == (board.moves - 1) % 2
    if game.ending is Ending.FULL:
        assert board.is_full() and game.winner is None
    return board


# --- tournaments and sequential tests -----------------------------------------------------------

def test_a_tournaments_games_of_earlier_versions_are_games() -> None:
    lines = list(read_lines(EARLIER / "tournament-games.jsonl"))
    games = [PlayedGame.from_dict(line) for line in lines]
    assert Counter(game.ending for game in games) == {
        Ending.FOUR: 6, Ending.ILLEGAL: 6, Ending.STOPPED: 1, Ending.LATE: 1, Ending.ERROR: 1}
    for line, game in zip(lines, games, strict=True):
        replays(game)
        # The opening was the line's (the task's): it is the game's now, and so is its string.
        assert game.opening == tuple(line["opening"]) and len(game.opening) == 2
        assert game.move_string.endswith(line["move_string"])
        assert game.moves[0].ply == len(game.opening) + 1
    stopped = next(game for game in games if game.ending is Ending.STOPPED)
    assert stopped.points(0) is None and stopped.outcome(1) is None and stopped.winner is None
    late = next(game for game in games if game.ending is Ending.LATE)
    assert late.forfeited_by(1) is Ending.LATE and late.forfeited_by(0) is None
    assert late.forfeit_seconds == 3.5
    # Our engine's scores on both scales come back as written.
    scores = [move.score for move in late.moves if move.score is not None]
    assert [score.proven for score in scores] == [False, True, True]
    # An older shape: moves without scores, the time they took kept.
    first_format = [PlayedGame.from_dict(line)
                    for line in read_lines(EARLIER / "tournament-games-first-format.jsonl")]
    assert len(first_format) == 3 and all(move.seconds is not None and move.score is None
                                          for game in first_format for move in game.moves)
    for game in first_format:
        replays(game)


def test_a_sequential_test_of_an_earlier_version_says_its_verdict_again(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "sprt"
    out.mkdir()
    shutil.copy(EARLIER / "sprt-games-work.jsonl", out / "games-work.jsonl")
    code = agent.main(["sprt", "random", "bot:2", "--max-pairs", "4", "--seed", "3",
                       "--workers", "1", "--out", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    assert "resuming: 4 pairs already played" in err or "4 pairs" in stdout, (stdout, err)
    assert "No verdict on whether bot:2 is stronger than random: after 4 pairs (8 games)" in stdout
    assert (out / "games-work.jsonl").read_text() == (EARLIER / "sprt-games-work.jsonl").read_text()


# --- rate runs ------------------------------------------------------------------------------------

def test_a_rate_runs_games_of_an_earlier_version_are_read(tmp_path: Path) -> None:
    shutil.copy(EARLIER / "rate-games.jsonl", tmp_path / "games.jsonl")
    games = RunFiles(tmp_path).games()
    assert [game.number for game in games] == [1, 2, 3, 4, 5, 6]
    assert [game.fault for game in games] == ["illegal"] * 4 + [None, None]
    assert [game.score for game in games] == [0.0] * 4 + [None, 0.5]  # a stopped game: none
    for game in games:
        replays(game.record)
        assert len(game.record.opening) == 2
        assert RatedGame.from_line(game.to_line()) == game
    # The board's review lists them with the rated player's side.
    listed = GameFiles(tmp_path / "no-record.sqlite3", rated=tmp_path).listing("rated")
    assert sorted((game.id, game.result) for game in listed) == [
        (1, "lost"), (2, "lost"), (3, "lost"), (4, "lost"), (5, "unfinished"), (6, "draw")]
    assert all(game.to_json()["opening"] == 2 for game in listed)


# --- the client's record -------------------------------------------------------------------------

RECORD = {  # id: status, our side, ending, winner, the course's result
    1: ("finished", 0, Ending.FOUR, 0, 1.0),
    2: ("finished", 1, Ending.FOUR, 1, 1.0),
    3: ("finished", 0, Ending.ILLEGAL, 1, -10.0),
    4: ("finished", 1, Ending.FULL, None, 0.5),
    5: ("stopped", 0, None, None, None),
    6: ("stopped", None, None, None, None),
    7: ("finished", 1, Ending.FOUR, 0, -1.0),
    8: ("finished", 0, Ending.RULED, 0, 1.0),  # won by the opponent's fault: the number alone
    9: ("abandoned", 0, Ending.ABANDONED, 1, -1.0),
}


def check_record(records: Records) -> None:
    games = {game.id: game for game in records.games()}
    assert {number: (game.status, game.our_side, game.game.ending, game.game.winner, game.result)
            for number, game in games.items()} == RECORD
    for game in games.values():
        replays(game.game)
    assert games[5].pending is not None and games[5].pending.column == 3
    assert games[1].game.first == "ab********" and games[1].game.second == "server bot"
    assert "lost by a fault, late" in games[8].game.detail


def test_a_record_of_an_earlier_version_is_read_and_migrated(tmp_path: Path) -> None:
    with Records(EARLIER / "games.sqlite3", read_only=True) as records:
        check_record(records)
    path = tmp_path / "games.sqlite3"
    shutil.copy(EARLIER / "games.sqlite3", path)
    with Records(path) as records:  # migrated to this version's layout
        check_record(records)
        assert records.conn.execute("PRAGMA user_version").fetchone()[0] == 3


# --- the local server's database ------------------------------------------------------------------

SERVED = {  # id: the student first, ending, winner, the course's result
    1: (True, Ending.FOUR, 0, 1.0), 2: (False, Ending.FOUR, 1, 1.0),
    3: (True, Ending.FOUR, 1, -1.0), 4: (True, Ending.LATE, 1, -1.0),
    5: (True, Ending.ABANDONED, 1, -1.0), 6: (True, None, None, None),
    7: (False, Ending.FULL, None, 0.5), 8: (True, Ending.ILLEGAL, 1, -10.0),
    9: (True, Ending.RULED, 0, 1.0),  # won by the bot's late move: the earlier version said "won"
}


@pytest.mark.parametrize("name", ["local-server.sqlite3", "local-server-without-bot.sqlite3"])
def test_a_local_servers_database_of_an_earlier_version_is_read(name: str) -> None:
    store = GameStore(str(EARLIER / name), read_only=True)
    try:
        games = {game.id: game for game in store.games()}
        stats = {s.player: (s.played, s.won, s.lost, s.total_reward) for s in store.all_stats()}
    finally:
        store.close()
    assert {number: (game.student_first, game.game.ending, game.game.winner, game.result)
            for number, game in games.items()} == SERVED
    for game in games.values():
        replays(game.game)
        assert game.player in (game.game.first, game.game.second)
    assert games[9].bot == ("program:engine.py:0.5" if "without" not in name else None)
    assert stats == {"ab1234cd-s": (5, 2, 3, -1.0), "ab1234cd-s+ef5678gh-s": (3, 1, 1, -8.5)}
    # A game's result is the course's number its bookkeeping added: the totals agree.
    for player, (_played, _won, _lost, reward) in stats.items():
        assert sum(game.result or 0.0 for game in games.values() if game.player == player) == reward


def test_the_local_server_goes_on_with_a_database_of_an_earlier_version(tmp_path: Path) -> None:
    db = tmp_path / "server.sqlite3"
    shutil.copy(EARLIER / "local-server-without-bot.sqlite3", db)
    service = CourseService(str(db), api_key=KEY, bot="random", time_limit=0)
    try:
        # The running game of the earlier version goes on, and is kept as this version keeps one.
        reply = service.move(["ab1234cd-s"], 3, KEY)
        while reply["result"] == 0:
            column = next(c for c in range(7) if Board.from_moves(
                service.store.running("ab1234cd-s").game.columns,  # type: ignore[union-attr]
                one_based=False).can_play(c))
            reply = service.move(["ab1234cd-s"], column, KEY)
        game = service.store.recent("ab1234cd-s", 1)[0]
        assert game.id == 6 and game.game.ending in (Ending.FOUR, Ending.FULL)
        assert game.result == reply["result"]
        assert service.stats(["ab1234cd-s"], KEY)["played"] == 6
    finally:
        service.close()
    with sqlite3.connect(db) as conn:
        outcomes = [row[0] for row in conn.execute("SELECT outcome FROM games ORDER BY id")]
    assert outcomes[:5] == ["won", "won", "lost", "timeout", "abandoned"]  # as written then
    assert outcomes[5] in ("four", "full")  # as written now


# --- the ladder -------------------------------------------------------------------------------------

def test_the_shipped_ladders_games_load_and_fit_to_its_ratings(tmp_path: Path) -> None:
    lines = ladder_lines(tmp_path / "no-work.jsonl", GAMES_FILE)
    games = games_of(iter(lines))
    assert len(games) == len(lines) == load_ladder().games
    assert all(len(game.opening) == 2 and game.ending in (Ending.FOUR, Ending.FULL)
               for game in games)
    for game in games[:200]:
        replays(game)
    ladder, _, _ = fit_ladder(lines)
    shipped = {rung.name: rung.rating for rung in load_ladder().rungs}
    assert {rung.name: pytest.approx(rung.rating, abs=0.2) for rung in ladder.rungs} == shipped
