"""Shared helpers for the tests: random positions on both the bitboard and the naive grid."""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from board import Board
from ecosystems.players import parse_spec
from engine.games import PlayedGame
from engine.specs import PlayerSpec
from tests import reference
from vocabulary import Ending

ROOT = Path(__file__).resolve().parent.parent

if TYPE_CHECKING:
    from client.http import HttpCourseServer


def random_position(rng: random.Random, min_plies: int, max_plies: int) -> tuple[Board, list[int]]:
    """A random position that is not over, after ``min_plies``..``max_plies`` random moves."""
    while True:
        target = rng.randint(min_plies, max_plies)
        board = Board()
        played: list[int] = []
        while len(played) < target and not board.is_over():
            col = rng.choice(board.legal_moves())
            board = board.play(col)
            played.append(col)
        if not board.is_over():
            return board, played


def engine_spec(text: str, seconds: float | None = None) -> PlayerSpec:
    """A spec of our engine's kinds (``ours``, ``bot``...), parsed by the one parser."""
    spec = parse_spec(text, seconds=seconds)
    assert isinstance(spec, PlayerSpec), spec
    return spec


def scored_game(first: str, second: str, score: float) -> PlayedGame:
    """A game without moves whose first player scored ``score`` (1, 0.5 or 0): a result for
    the rating's fit."""
    winner = None if score == 0.5 else 0 if score == 1.0 else 1
    return PlayedGame(first, second, (), winner, Ending.FULL if winner is None else Ending.FOUR)


def grid_of(played: list[int]) -> tuple[reference.Grid, int]:
    """The naive grid after ``played`` (0-based columns) and the player to move (1 or -1)."""
    grid = reference.empty_grid()
    player = 1
    for col in played:
        grid = reference.drop(grid, col, player)
        player = -player
    return grid, player


def assert_option_refused(err: str, command: str, option: str, message: str) -> None:
    """``err`` is the refusal of ``option`` as it is parsed: one line naming the command and the
    option, and where the options are listed."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"error: agent.py {command}: argument {option}: "), err
    assert lines[0].endswith(f"(agent.py {command} --help lists the options)"), err
    assert message in lines[0], err


def state_of(board: Board, first: str) -> list[list[int]]:
    """``board`` as a course reply's ``state`` when ``first`` ("student" or "bot") started."""
    student_to_move = board.first_player_to_move == (first == "student")
    grid: list[list[int]] = board.to_grid(1 if student_to_move else -1).tolist()
    return grid


def stream_lines(stream: IO[str]) -> queue.Queue[str]:
    """The stream's lines as they come, read by a thread (so a test can wait with a timeout);
    an empty string once the stream has ended."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:
            lines.put(line)
        lines.put("")

    threading.Thread(target=pump, daemon=True).start()
    return lines


def default_ctrl_c() -> None:
    """``preexec_fn`` for a child the test interrupts: Ctrl-C back to its default action.

    A shell starts a background job (``pytest ... &``) with SIGINT ignored, and a child inherits
    that; Python then keeps it ignored, and a test sending SIGINT would wait for nothing.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def ctrl_c_once_written(arguments: Sequence[str], file: Path, lines: int,
                       timeout: float = 180) -> tuple[int, str]:
    """Run ``agent.py ARGUMENTS`` in a session of its own, press Ctrl-C (SIGINT to the whole
    process group, as a terminal does) once ``file`` holds ``lines`` lines, and return its exit
    code and what it wrote to stderr."""
    process = subprocess.Popen([sys.executable, str(ROOT / "agent.py"), *arguments], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=default_ctrl_c)
    try:
        deadline = time.monotonic() + timeout
        while not (file.exists() and file.read_text().count("\n") >= lines):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    return process.returncode, err


def interrupt(process: subprocess.Popen[str], timeout: float = 30) -> int:
    """Send Ctrl-C (SIGINT) to ``process`` and return its exit code (killed if it hangs)."""
    process.send_signal(signal.SIGINT)
    try:
        return process.wait(timeout)
    finally:
        if process.poll() is None:
            process.kill()


def spawned_workers(pid: int) -> list[int]:
    """The multiprocessing workers (started with ``spawn``) among the children of process
    ``pid`` (Linux /proc)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in children:
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"spawn_main" in cmdline:
                found.append(int(child))
    return found


def cluster_workers(address: str) -> list[int]:
    """The process ids of the workers of the Dask cluster at ``address``, once two are up."""
    from distributed import Client

    with Client(address, timeout="30s") as client:
        client.wait_for_workers(2, timeout=60)
        return sorted(int(pid) for pid in client.run(os.getpid).values())


def course_client(url: str, stil_ids: Sequence[str], api_key: str) -> HttpCourseServer:
    """The HTTP client of the (local) course server at ``url``, for these ids and key."""
    # Imported here: most tests that use these helpers need no HTTP.
    from client.http import HttpCourseServer
    from settings import ServerSettings

    return HttpCourseServer(ServerSettings(url=url, stil_ids=tuple(stil_ids), api_key=api_key))


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its parent counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def tagged(tag: str) -> list[int]:
    """The live processes whose command line holds ``tag`` (the test engine's ``--tag``: it
    runs sandboxed, so it cannot tell us its processes any other way)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if tag.encode() in words and alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def new_tag() -> str:
    """A word no other process's command line holds: a test engine's ``--tag``."""
    return f"c4-test-{uuid.uuid4().hex[:12]}"


def gone(pids: Iterable[int], seconds: float) -> bool:
    """Whether every process of ``pids`` has ended, waiting up to ``seconds`` for them (an
    orphan killed with its group is reaped by init a moment later, later still on a loaded
    machine)."""
    pids = list(pids)
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# What a scratch copy of the checkout keeps of its own (the rest are links to the checkout).
SCRATCH_OWN = {"records", "report", "rated", ".git", ".venv", ".venv-ci", "config.toml",
               ".pytest_cache"}


def checkout_snapshot() -> dict[str, str]:
    """The content of this checkout's ``records/`` and of every tracked file, by path: what a
    test run from a copy of the checkout must leave as it was."""
    import hashlib

    root = Path(__file__).resolve().parent.parent
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True,
                             check=False).stdout.decode().split("\0")
    files = [root / name for name in tracked if name]
    records = root / "records"
    if records.is_dir():
        files += [path for path in records.rglob("*") if path.is_file()]
    return {str(path): hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "gone"
            for path in files}
