"""Ctrl-C never costs a ranked game by itself (``client.interrupt``): the first finishes the game in
progress and stops the run, the second stops at once, one between games stops at once.

In process against the local server's service (SIGINT raised from inside a request, so it lands
mid-game or between games for sure), and a real ``agent.py online`` process against the real
local server over loopback HTTP, with SIGINT sent while the server holds its reply to one of our
moves: the test waits for that request and for the lines the process prints, never for a time.
"""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import agent
from client.interrupt import FIRST_CTRL_C, SECOND_CTRL_C, GameInterrupts
from client.localgame import LOCAL_CTRL_C, play_local_game
from client.online import exit_code, run_online
from client.records import ONLINE, Records
from course.ids import player_key
from course.protocol import WIN
from gym_connect_four import ConnectFourEnv
from localserver.background import LocalCourseServer
from localserver.inprocess import InProcessCourseServer
from localserver.service import CourseService
from tests.batch_tasks import ctrl_c_lost_in_a_finalizer
from tests.helpers import default_ctrl_c
from vocabulary import Ending, ExitStatus

IDS = ("te-1234", "st-5678")
KEY = "nyckel"
BUDGET = 0.02
ENGINE_SETTINGS = {"seconds_per_move": BUDGET, "table_bits": 16, "min_depth": 3}  # conftest's engine
WAIT = 120.0  # seconds before a test gives up on a line that never comes (a hang, not a timing)


# --- the rules themselves ----------------------------------------------------------------------


def test_between_games_ctrl_c_stops_at_once() -> None:
    said: list[str] = []
    interrupts = GameInterrupts(said.append)
    with interrupts.installed(), pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
    assert said == [] and not interrupts.stop_asked
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # Python's again


def test_in_a_game_the_first_ctrl_c_asks_the_second_stops() -> None:
    said: list[str] = []
    interrupts = GameInterrupts(said.append)
    with interrupts.installed(), interrupts.game():
        signal.raise_signal(signal.SIGINT)  # no exception: the game goes on
        assert interrupts.stop_asked and said == [FIRST_CTRL_C]
        interrupts.checkpoint()  # nothing to raise yet
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
        assert said == [FIRST_CTRL_C, SECOND_CTRL_C]
        # Had Python dropped that KeyboardInterrupt (inside a __del__), the game raises it again.
        with pytest.raises(KeyboardInterrupt):
            interrupts.checkpoint()
    for words in ("finishing the game in progress", "no new game will start",
                  "most likely be lost", "clock keeps running"):
        assert words in FIRST_CTRL_C
    for words in ("stopping at once", "most likely be lost", "late", "The record keeps",
                  "resumes the game if the server still allows it"):
        assert words in SECOND_CTRL_C


def test_a_process_that_ignores_ctrl_c_goes_on_ignoring_it() -> None:
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with GameInterrupts(lambda line: None).installed():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


# --- a run in process --------------------------------------------------------------------------


class CtrlCServer(InProcessCourseServer):
    """The local server's service, and the user presses Ctrl-C while our move number
    ``at_move`` is on its way (``times`` times), or while the stats are asked for the
    ``at_stats``-th time."""

    def __init__(self, service: CourseService, *, at_move: int | None = None, times: int = 1,
                 at_stats: int | None = None) -> None:
        super().__init__(service, IDS, KEY)
        self.at_move, self.times, self.at_stats = at_move, times, at_stats
        self.moves = self.stats_asked = 0

    def _send_move(self, move: int) -> Any:
        if move != -1:
            self.moves += 1
            if self.moves == self.at_move:
                for _ in range(self.times):
                    signal.raise_signal(signal.SIGINT)
        return super()._send_move(move)

    def _send_stats(self) -> Any:
        self.stats_asked += 1
        if self.stats_asked == self.at_stats:
            signal.raise_signal(signal.SIGINT)
        return super()._send_stats()


def service(seed: int) -> CourseService:
    return CourseService(":memory:", api_key=KEY, first="student", rng=random.Random(seed),
                         time_limit=0)


def test_a_first_ctrl_c_finishes_the_game_and_starts_no_other(engine, tmp_path):
    said: list[str] = []
    lines: list[str] = []
    server = CtrlCServer(service(3), at_move=3)
    with Records(tmp_path / "r.sqlite3") as records:
        run = run_online(server, engine, records, IDS, budget=BUDGET, games=3,
                         out=lines.append, interrupts=GameInterrupts(said.append))
        (game,) = records.games(ONLINE)
    assert said == [FIRST_CTRL_C]
    assert run.interrupted and len(run.outcomes) == 1
    assert exit_code(run) == (ExitStatus.FAILURE if run.outcomes[0].result < 0
                              else ExitStatus.INTERRUPTED)
    # Played to its end, as the server counts it, and recorded so.
    assert game.status == "finished" and game.result == run.outcomes[0].result
    (played,) = server.service.store.recent(player_key(IDS), 10)
    assert played.game.ending in (Ending.FOUR, Ending.FULL)
    assert played.game.columns == game.game.columns
    assert any(line.startswith("stopping after game 1 of 3 as asked (Ctrl-C)") for line in lines)
    assert "summary: 1 game: " in "\n".join(lines)


def test_a_second_ctrl_c_stops_in_the_game(engine, tmp_path):
    said: list[str] = []
    lines: list[str] = []
    server = CtrlCServer(service(3), at_move=3, times=2)
    with Records(tmp_path / "r.sqlite3") as records:
        with pytest.raises(KeyboardInterrupt):
            run_online(server, engine, records, IDS, budget=BUDGET, games=3, out=lines.append,
                       interrupts=GameInterrupts(said.append))
        running = records.unfinished(ONLINE, server.name, IDS)
    assert said == [FIRST_CTRL_C, SECOND_CTRL_C]
    # Stopped at once, while our third move was on its way: the record keeps what was played,
    # and that move as sent with no reply (in doubt: the next run will not guess).
    assert running is not None and len(running.game.columns) == 4
    assert running.pending is not None and running.pending.ply == 5
    assert any(line.startswith("interrupted during a game: the game so far is in the record")
               for line in lines)


class LostCtrlCServer(CtrlCServer):
    """Ctrl-C while the stats are asked for the ``at_stats``-th time, landing in a ``__del__``
    where Python drops its ``KeyboardInterrupt`` (as when numba frees its compiled objects)."""

    def _send_stats(self) -> Any:
        self.stats_asked += 1
        if self.stats_asked == self.at_stats:
            ctrl_c_lost_in_a_finalizer(0)
        return InProcessCourseServer._send_stats(self)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("kind", [CtrlCServer, LostCtrlCServer], ids=["raised", "dropped"])
def test_ctrl_c_between_games_stops_at_once(kind, engine, tmp_path):
    said: list[str] = []
    lines: list[str] = []
    # With --until-streak the stats are asked for before the first game and after each.
    server = kind(service(5), at_stats=2)
    with Records(tmp_path / "r.sqlite3") as records:
        with pytest.raises(KeyboardInterrupt):
            run_online(server, engine, records, IDS, budget=BUDGET, games=3, until_streak=5,
                       out=lines.append, interrupts=GameInterrupts(said.append))
        (game,) = records.games(ONLINE)  # no second game was started
    assert said == []  # nothing to finish: no word of a game in progress
    assert game.status == "finished"
    assert "interrupted between games: no game was in progress, nothing is lost" in lines
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_interrupted_local_game_says_so_on_stderr(engine, tmp_path, capfd):
    class Interrupter:
        name = "interrupter"

        def new_game(self) -> None:
            pass

        def choose(self, board: Any) -> int:
            raise KeyboardInterrupt

    with Records(tmp_path / "r.sqlite3") as records, pytest.raises(KeyboardInterrupt):
        play_local_game(ConnectFourEnv(), engine, Interrupter(), we_start=True, seconds=BUDGET,
                        records=records, out=lambda line: None)
    assert capfd.readouterr().err == LOCAL_CTRL_C + "\n"


# --- a real agent.py online process over loopback HTTP -----------------------------------------


class HeldMove:
    """The local server holds its reply to our move number ``at`` until ``release``."""

    def __init__(self, server: LocalCourseServer, at: int) -> None:
        assert server.service is not None
        self.service = server.service
        self.original = server.service.move
        self.at = at
        self.moves = 0
        self.arrived = threading.Event()
        self.released = threading.Event()
        self.service.move = self.move  # type: ignore[method-assign]

    def move(self, stil_ids: list[str], move: int, api_key: str) -> Any:
        if move != -1:
            self.moves += 1
            if self.moves == self.at:
                self.arrived.set()
                self.released.wait(WAIT)
        return self.original(stil_ids, move, api_key)

    def release(self) -> None:
        self.released.set()


class Lines:
    """A pipe's lines as they come, read by a thread (a blocked read never hangs the test)."""

    def __init__(self, stream: Any) -> None:
        self.seen: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, start: str) -> str:
        while True:
            line = self._queue.get(timeout=WAIT)
            if line is None:
                raise AssertionError(f"the stream ended before {start!r}: {self.seen}")
            self.seen.append(line)
            if line.startswith(start):
                return line

    def rest(self) -> list[str]:
        while (line := self._queue.get(timeout=WAIT)) is not None:
            self.seen.append(line)
        return self.seen


def write_config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    ids = ", ".join(f'"{i}"' for i in IDS)
    path.write_text(
        f'[server]\nstil_ids = [{ids}]\napi_key = "{KEY}"\nretries = 0\n'
        f'[agent]\nseconds_per_move = {BUDGET}\ntable_bits = 16\nmin_depth = 3\nmode = "course"\n'
        '[record]\npath = "rec/games.sqlite3"\n')
    return path


@contextmanager
def online_process(server: LocalCourseServer, tmp_path: Path) -> Iterator[
        tuple[subprocess.Popen[str], Lines, Lines]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDAP01_")}
    env["PYTHONUNBUFFERED"] = "1"  # each line reaches the pipe when printed, as on a terminal
    proc = subprocess.Popen(
        [sys.executable, "agent.py", "online", "--config", str(write_config(tmp_path)),
         "--server", server.url, "--games", "3"],
        cwd=Path(agent.__file__).parent, env=env, text=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, preexec_fn=default_ctrl_c)
    try:
        yield proc, Lines(proc.stdout), Lines(proc.stderr)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


@pytest.mark.slow
def test_one_ctrl_c_in_a_real_run_finishes_the_game_then_exits_130(course_server, tmp_path):
    with course_server(first="student", seed=3) as server:
        held = HeldMove(server, at=3)
        with online_process(server, tmp_path) as (proc, out, err):
            assert held.arrived.wait(WAIT), "our third move never reached the server"
            proc.send_signal(signal.SIGINT)  # while the server holds the reply to it
            err.wait_for("Ctrl-C: finishing the game in progress")  # said at once
            held.release()
            code = proc.wait(WAIT)
            stdout, stderr = out.rest(), err.rest()
        assert stderr == [FIRST_CTRL_C, "interrupted (Ctrl-C): the game in progress (record #1)"
                          " was played to its end first; no new game was started"], stderr
        # The game was played out: one game on the server, finished as played, no forfeit.
        (played,) = server.service.store.recent(player_key(IDS), 10)
        assert played.game.ending in (Ending.FOUR, Ending.FULL), played
        with Records(tmp_path / "rec" / "games.sqlite3") as records:
            (game,) = records.games(ONLINE)
        assert game.status == "finished" and game.game.columns == played.game.columns
        assert code == (ExitStatus.INTERRUPTED if game.result == WIN or game.result == 0.5
                        else ExitStatus.FAILURE), stdout
        assert "stopping after game 1 of 3 as asked (Ctrl-C): no new game started" in stdout
        assert any(line.startswith("summary: 1 game: ") for line in stdout)
        assert (f"move string for `agent.py analyze` (Pons' notation, 1-based):"
                f" {game.game.move_string}") in stdout


@pytest.mark.slow
def test_two_ctrl_c_in_a_real_run_stop_at_once(course_server, tmp_path):
    with course_server(first="student", seed=3) as server:
        held = HeldMove(server, at=3)
        with online_process(server, tmp_path) as (proc, out, err):
            assert held.arrived.wait(WAIT), "our third move never reached the server"
            proc.send_signal(signal.SIGINT)
            err.wait_for("Ctrl-C: finishing the game in progress")
            proc.send_signal(signal.SIGINT)
            # It ends while the server still holds its reply: at once, not after the game.
            code = proc.wait(WAIT)
            assert not held.released.is_set()
            held.release()
            stdout, stderr = out.rest(), err.rest()
        assert code == ExitStatus.INTERRUPTED
        assert stderr == [FIRST_CTRL_C, SECOND_CTRL_C, "interrupted"], stderr
        assert any(line.startswith("interrupted during a game") for line in stdout)
        with Records(tmp_path / "rec" / "games.sqlite3") as records:
            (game,) = records.games(ONLINE)
        # Left as it was: running, our third move sent and its reply never recorded.
        assert game.status == "running" and game.pending is not None and game.pending.ply == 5
