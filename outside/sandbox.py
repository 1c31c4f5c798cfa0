"""The sandbox an outside agent runs in: what it may read, write, reach and spend, set up in
its process before its code runs, watched while it plays, and removed with everything it
started at the end of each game.

An agent we did not write (a peer's solution, a ConnectX file from the internet, a program in
any language) is untrusted code.  It runs with (``Layers`` says which of these this system
offers, and ``line()`` says it in one line):

- **env**: an environment of its own: ``PATH``, the locale and the time zone, and ``HOME``,
  ``TMPDIR`` pointing into its scratch folder; never the course's key, the student ids or
  anything else of ours (``safe_environment``);
- **scratch**: a new folder per game as its working directory, removed after the game;
- **landlock** (``outside.landlock``): it may read and run the system's programs and
  libraries (``/usr``, ``/lib``..., ``/etc``; as root only what every user could read there),
  the interpreter it runs under, and its own file or folder; read and write only its scratch
  folder; ``/proc`` only for itself; no TCP at all (ABI 4); no signal and no abstract socket
  to a process outside its own (ABI 6), so it can neither stop nor trace our processes nor
  its opponent's;
- **seccomp** (``outside.seccomp``): no socket, no other process's memory or limits, no
  namespaces or mounts, no memory that the limits do not count, no io_uring; where the kernel
  can (Linux 5.5), every denied call and every signal is first shown to us, so the record
  can say what an agent tried and who sent a signal;
- **own user** (when we run as root): its processes run under a user id of their own with
  no privilege but reading (to reach an interpreter under ``/root``), so the kernel counts
  its processes and keeps it from ours;
- **limits**: processor time, an address space per process (shared mappings counted),
  files written, its processes and threads (``RLIMIT_NPROC``), and, watched here every
  ``WATCH_INTERVAL`` seconds, the resident memory of all its processes together and the
  size of its scratch folder: past one, everything of it is killed and the game recorded as
  its fault (``Ending.SANDBOX``);
- **cleanup**: every process it started, one that left its process group or double-forked
  included, is killed at the end of each game (we are the sub-reaper of what it orphans, and
  find the rest by user id or by parentage).

The parent (our process) keeps the clock of each move, never the agent.

On other systems only the environment, the scratch folder and the limits the system has are
applied, and ``line()`` says so.  ``--sandbox strict`` refuses to start an agent when a layer of
Linux's is missing (``Strictness``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import random
import resource
import shutil
import signal
import socket
import stat
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from outside import landlock, seccomp
from settings import UsageError
from vocabulary import Sandbox

MEMORY_BYTES = 4 * 1024**3  # an address space (RLIMIT_AS), and the resident total of all
FILE_BYTES = 64 * 1024**2  # the largest file it may write (RLIMIT_FSIZE)
DISK_BYTES = 256 * 1024**2  # its scratch folder's total size
DISK_ENTRIES = 10_000  # files and folders in its scratch folder
TASKS = 128  # processes and threads (RLIMIT_NPROC)
CPU_HARD_EXTRA = 5  # seconds between the soft (SIGXCPU) and the hard (SIGKILL) CPU limit
WATCH_INTERVAL = 0.1  # seconds between two looks at its memory and its folder
SANDBOX_UIDS = (1_500_000_000, 1_600_000_000)  # the user ids an agent may get, as root
CAP_DAC_READ_SEARCH = 2
MAX_DENIALS = 20  # kept of what an agent tried and was denied
# What an agent's environment keeps of ours: how to find programs, the locale, the time zone.
ENVIRONMENT = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME",
               "LC_COLLATE", "LC_MONETARY", "LC_MESSAGES", "TZ", "SYSTEMROOT")
# The system's programs and libraries (where they exist).
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What else a runtime reads: devices, facts about the machine.
SYSTEM_FILES = (("/dev/null", landlock.FS.READ_FILE | landlock.FS.WRITE_FILE),
                ("/dev/urandom", landlock.FS.READ_FILE), ("/dev/random", landlock.FS.READ_FILE),
                ("/proc/cpuinfo", landlock.FS.READ_FILE), ("/proc/meminfo", landlock.FS.READ_FILE),
                ("/proc/stat", landlock.FS.READ_FILE), ("/proc/sys", landlock.READ),
                ("/sys/devices/system/cpu", landlock.READ), ("/sys/fs/cgroup", landlock.READ))


@dataclass(frozen=True)
class Limits:
    """What an agent may use: ``cpu_seconds`` of processor time in all (the soft limit),
    ``memory_bytes`` of address space a process and of resident memory in all, files of at
    most ``file_bytes``, ``disk_bytes`` in its scratch folder, ``tasks`` processes and
    threads."""

    cpu_seconds: int
    memory_bytes: int = MEMORY_BYTES
    file_bytes: int = FILE_BYTES
    disk_bytes: int = DISK_BYTES
    tasks: int = TASKS

    def describe(self) -> str:
        return (f"{self.cpu_seconds} s of processor time, {self.memory_bytes // 1024**2} MiB of"
                f" memory, files up to {self.file_bytes // 1024**2} MiB,"
                f" {self.disk_bytes // 1024**2} MiB in its folder, {self.tasks} tasks")


# --- what this system offers ---------------------------------------------------------------


@dataclass(frozen=True)
class Layers:
    """The layers this system offers: ``landlock`` its ABI (0: none), ``seccomp`` its mode
    (None: none), ``own_user`` whether agents get a user id of their own (we run as root),
    ``proc`` whether ``/proc`` lets us find what an agent started."""

    linux: bool
    landlock: int
    seccomp: seccomp.Mode | None
    own_user: bool
    proc: bool

    def applied(self) -> list[str]:
        """The layers applied, in words: ``landlock 7 (files, tcp, signals)``..."""
        layers = []
        if self.landlock:
            parts = ["files"] + (["tcp"] if self.landlock >= 4 else []) + (
                ["signals"] if self.landlock >= 6 else [])
            layers.append(f"landlock {self.landlock} ({', '.join(parts)})")
        if self.seccomp is not None:
            recorded = "; denials recorded" if self.seccomp is seccomp.Mode.NOTIFY else ""
            layers.append(f"seccomp ({', '.join(seccomp.GROUPS)}{recorded})")
        if self.own_user:
            layers.append("own user")
        layers += ["env", "scratch"]
        limits = ["cpu", "files"]
        if self.linux:
            limits += ["memory", "tasks", "disk"]
        layers.append(f"limits ({', '.join(limits)})")
        return layers

    def missing(self) -> list[str]:
        """What a Linux machine could add here, in words (empty: nothing is missing)."""
        if not self.linux:
            return ["landlock, seccomp and the process and memory limits (Linux only)"]
        missing = []
        if self.landlock < 1:
            missing.append("landlock (Linux 5.13+, enabled among the security modules)")
        else:
            if self.landlock < 4:
                missing.append("landlock tcp (Linux 6.7+)")
            if self.landlock < 6:
                missing.append("landlock signals (Linux 6.12+)")
        if self.seccomp is None:
            missing.append(f"seccomp (not on this kernel, or {platform.machine()} unknown here)")
        if not self.proc:
            missing.append("/proc (what an agent starts cannot be found)")
        return missing

    def line(self) -> str:
        """``sandbox: landlock 7 (files, tcp, signals), seccomp (...), env, ...; missing: ...``"""
        text = "sandbox: " + ", ".join(self.applied())
        missing = self.missing()
        return text + (f"; missing: {', '.join(missing)}" if missing else "")

    def to_dict(self) -> dict[str, Any]:
        return {"applied": self.applied(), "missing": self.missing(), "landlock_abi": self.landlock,
                "seccomp": self.seccomp.value if self.seccomp else None,
                "own_user": self.own_user}


_LAYERS: Layers | None = None


def system_layers() -> Layers:
    """What this system offers (probed once a process)."""
    global _LAYERS
    if _LAYERS is None:
        linux = sys.platform.startswith("linux")
        mode = None
        if linux and seccomp.available():
            mode = seccomp.Mode.NOTIFY if seccomp.notify_available() else seccomp.Mode.ERRNO
        _LAYERS = Layers(linux=linux, landlock=landlock.abi() if linux else 0, seccomp=mode,
                         own_user=linux and os.geteuid() == 0, proc=os.path.isdir("/proc/self"))
    return _LAYERS


def check_strictness(strictness: Sandbox) -> None:
    """``UsageError`` when ``strict`` asks for a layer this system lacks."""
    if strictness is Sandbox.STRICT:
        missing = system_layers().missing()
        if missing:
            raise UsageError(f"--sandbox strict: this system lacks {'; '.join(missing)}: an outside"
                             " agent is not started (--sandbox available runs it with what there"
                             " is)")


# --- what an agent may read and run --------------------------------------------------------


def safe_environment(scratch: str) -> dict[str, str]:
    """The environment of an agent whose scratch folder is ``scratch``: ``ENVIRONMENT`` taken
    from ours, the rest its own."""
    env = {name: os.environ[name] for name in ENVIRONMENT if name in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(HOME=scratch, TMPDIR=scratch, TMP=scratch, TEMP=scratch,
               PYTHONDONTWRITEBYTECODE="1", PYTHONNOUSERSITE="1")
    return env


def protected() -> list[Path]:
    """Folders an agent's folder must not be or hold: ours, the user's home, where we run."""
    found = [Path("/"), Path(__file__).resolve().parent.parent, Path.cwd().resolve()]
    with contextlib.suppress(RuntimeError, KeyError):
        found.append(Path.home().resolve())
    return found


def own_folder(path: Path) -> bool:
    """Whether the folder ``path`` may be given to an agent whole: it is not one of
    ``protected()`` and holds none of them."""
    folder = path.resolve()
    return not any(folder == other or folder in other.parents for other in protected())


def interpreter_paths(executable: str) -> list[str]:
    """What running ``executable`` reads: the file, where its link leads, and for a Python
    its environment and installation (the folder above its ``bin``, and ``pyvenv.cfg``'s
    ``home``)."""
    paths = [executable]
    real = os.path.realpath(executable)
    paths.append(real)
    if Path(real).name.startswith("python") or Path(executable).name.startswith("python"):
        for candidate in (executable, real):
            bin_folder = Path(candidate).parent
            paths.append(str(bin_folder.parent))
            config = bin_folder.parent / "pyvenv.cfg"
            with contextlib.suppress(OSError):
                for line in config.read_text().splitlines():
                    key, _, value = line.partition("=")
                    if key.strip() == "home" and value.strip():
                        paths.append(str(Path(value.strip()).parent))
    return paths


def shebang(path: str) -> list[str]:
    """The interpreter line of a script (``#!/usr/bin/env python3`` -> its words), or []."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(256)
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    return first[2:].decode("utf-8", "replace").split()


def program_paths(argv: Sequence[str], search_path: str) -> tuple[list[str], list[str], list[str]]:
    """For a command line: the argv to run (relative paths made absolute, since the agent runs
    in its scratch folder), what it runs (its program, a script's interpreter, a Python's
    installation) and what is its own (files named on the line, and their folders when
    ``own_folder``)."""
    argv = list(argv)
    run: list[str] = []
    own: list[str] = []
    program = argv[0]
    if os.sep in program:
        found = os.path.abspath(program)
        argv[0] = found
        own += own_paths(found)
    else:
        found = shutil.which(program, path=search_path) or program
    if os.path.exists(found):
        run += interpreter_paths(found)
        words = shebang(found)
        if words:
            interpreter = words[0]
            if Path(interpreter).name == "env" and len(words) > 1:
                run.append(interpreter)
                interpreter = shutil.which(words[1], path=search_path) or words[1]
            if os.path.exists(interpreter):
                run += interpreter_paths(interpreter)
    for index, word in enumerate(argv[1:], start=1):
        if word.startswith("-") or not os.path.exists(word):
            continue
        absolute = os.path.abspath(word)
        argv[index] = absolute
        own += own_paths(absolute)
    return argv, run, own


def own_paths(path: str) -> list[str]:
    """What an agent's file or folder ``path`` gives it: the file, and its folder when that is
    ``own_folder``; a folder when it is ``own_folder`` (else nothing)."""
    target = Path(path)
    if target.is_dir():
        return [path] if own_folder(target) else []
    return [path, str(target.parent)] if own_folder(target.parent) else [path]


def _world_readable(path: str) -> Iterable[str]:
    """The files and folders below ``path`` that every user may read, as few as cover them
    (a folder whole when everything in it is): what an agent with our user's reading
    privilege may read of ``/etc`` when we run as root."""
    try:
        info = os.lstat(path)
    except OSError:
        return []
    if stat.S_ISLNK(info.st_mode):
        return []
    if stat.S_ISDIR(info.st_mode):
        if info.st_mode & 0o005 != 0o005:
            return []
        try:
            names = sorted(os.listdir(path))
        except OSError:
            return []
        below = [list(_world_readable(os.path.join(path, name))) for name in names]
        whole = all((len(found) == 1 and found[0] == os.path.join(path, name))
                    or _is_link(os.path.join(path, name))
                    for name, found in zip(names, below, strict=True))
        return [path] if whole else [item for found in below for item in found]
    return [path] if info.st_mode & 0o004 else []


def _is_link(path: str) -> bool:
    return os.path.islink(path)


def _reads_past_permissions() -> bool:
    """Whether this process (and so an agent that keeps its capabilities) may read files past
    their permissions: ``CAP_DAC_OVERRIDE`` or ``CAP_DAC_READ_SEARCH`` in effect."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) & 0b110)
    except (OSError, ValueError):
        pass
    return False


_SYSTEM_RULES: list[tuple[str, landlock.FS]] | None = None


def system_rules(layers: Layers) -> list[tuple[str, landlock.FS]]:
    """The system's part of every ruleset (found once a process)."""
    global _SYSTEM_RULES
    if _SYSTEM_RULES is None:
        rules = [(folder, landlock.RUN) for folder in SYSTEM_FOLDERS if os.path.isdir(folder)]
        if layers.own_user or _reads_past_permissions():
            rules += [(path, landlock.RUN) for path in _world_readable("/etc")]
        elif os.path.isdir("/etc"):
            rules.append(("/etc", landlock.RUN))
        rules += [(path, rights) for path, rights in SYSTEM_FILES if os.path.exists(path)]
        rules += [(path, landlock.RUN) for path in interpreter_paths(sys.executable)]
        rules += [(path, landlock.RUN) for path in {sys.prefix, sys.base_prefix, sys.exec_prefix}]
        _SYSTEM_RULES = rules
    return _SYSTEM_RULES


# --- one agent's sandbox -------------------------------------------------------------------


class _Capabilities(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


_SYS_CAPSET = {"x86_64": 126, "aarch64": 91}.get(platform.machine())
_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
PR_SET_KEEPCAPS, PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE = 8, 24, 47, 2
PR_SET_CHILD_SUBREAPER = 36


def _last_capability() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        return 40


class Confinement:
    """One agent process's sandbox (see the module's docstring): made in the parent with what
    the agent runs (``run``) and what is its own (``own``), applied in the child by
    ``preexec`` (handed to ``subprocess.Popen``), told the child's pid by ``started``, watched
    by the supervisor thread, and ended by ``close``.

    ``denials`` lists what it tried and was denied (seccomp's record); ``signals`` the signals
    its processes sent each other (so that a signal it sent itself is never taken for one from
    outside); ``violation`` the limit it passed, if it did.
    """

    def __init__(self, *, run: Sequence[str], own: Sequence[str], limits: Limits,
                 strictness: Sandbox = Sandbox.AVAILABLE) -> None:
        check_strictness(strictness)
        self.layers = system_layers()
        self.limits = limits
        self.scratch = tempfile.mkdtemp(prefix="c4-agent-")
        self.uid: int | None = random.randrange(*SANDBOX_UIDS) if self.layers.own_user else None
        self.denials: list[str] = []
        self.signals: set[int] = set()
        self.violation: str | None = None
        self.pid: int | None = None
        self.listener: seccomp.Listener | None = None
        self.ended = False
        self._lock = threading.RLock()
        self._ruleset: landlock.Ruleset | None = None
        self._filter: seccomp.Filter | None = None
        self._channel: tuple[socket.socket, socket.socket] | None = None
        self._tasks = limits.tasks
        self._last_cap = _last_capability()
        self._wanted = [(resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + CPU_HARD_EXTRA),
                        (resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes),
                        (resource.RLIMIT_CORE, 0, 0)]
        try:
            if self.uid is not None:
                os.chown(self.scratch, self.uid, self.uid)
            if self.layers.linux:
                self._wanted.append((resource.RLIMIT_AS, limits.memory_bytes, limits.memory_bytes))
                tasks = limits.tasks if self.uid is not None or os.geteuid() == 0 else \
                    user_tasks() + limits.tasks
                self._wanted.append((resource.RLIMIT_NPROC, tasks, tasks))
                _become_subreaper()
            self.env = safe_environment(self.scratch)
            if self.layers.landlock:
                self._ruleset = self._make_ruleset(run, own)
            if self.layers.seccomp is not None:
                self._filter = _filter(self.layers)
                self._channel = socket.socketpair()
        except BaseException:
            self.close()
            raise

    def _make_ruleset(self, run: Sequence[str], own: Sequence[str]) -> landlock.Ruleset:
        ruleset = landlock.Ruleset()
        try:
            for path, rights in system_rules(self.layers):
                with contextlib.suppress(OSError):  # a path that went away meanwhile
                    ruleset.allow(path, rights)
            for path in run:
                with contextlib.suppress(OSError):
                    ruleset.allow(path, landlock.RUN)
            for path in own:
                with contextlib.suppress(OSError):
                    ruleset.allow(path, landlock.RUN)
            ruleset.allow(self.scratch, landlock.EVERYTHING)
        except BaseException:
            ruleset.close()
            raise
        return ruleset

    # -- in the child, between fork and exec ----------------------------------------------

    def preexec(self) -> None:
        """Apply every layer to this process (the child): limits, its own user, Landlock,
        seccomp; the listener's descriptor goes to the parent over the channel."""
        try:
            for which, soft, hard in self._wanted:
                with contextlib.suppress(ValueError, OSError):  # not lowered where not allowed
                    _, current = resource.getrlimit(which)
                    if current != resource.RLIM_INFINITY:
                        soft, hard = min(soft, current), min(hard, current)
                    resource.setrlimit(which, (soft, hard))
            if self.uid is not None:
                self._become(self.uid)
            if self._ruleset is not None:
                assert _libc is not None
                if _libc.prctl(seccomp.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                    raise OSError(ctypes.get_errno(), "no_new_privs")
                proc = os.open("/proc/self", os.O_PATH | os.O_CLOEXEC)
                self._ruleset.allow_fd(proc, landlock.READ)
                self._ruleset.restrict_self()
            if self._filter is not None and self._channel is not None:
                fd = self._filter.load(os.getpid())
                if fd >= 0:
                    socket.send_fds(self._channel[1], [b"listener"], [fd])
                    os.close(fd)
        except BaseException as exc:
            if self._channel is not None:
                with contextlib.suppress(OSError):
                    self._channel[1].send(f"error: {type(exc).__name__}: {exc}".encode()[:500])
            raise

    def _become(self, uid: int) -> None:
        """Become ``uid`` with no privilege but reading (root only): every capability dropped
        from the bounding set but ``CAP_DAC_READ_SEARCH``, which stays, ambient, so that the
        programs it runs may read an interpreter under ``/root``; Landlock decides the rest."""
        assert _libc is not None and _SYS_CAPSET is not None
        for cap in range(self._last_cap + 1):
            if cap != CAP_DAC_READ_SEARCH:
                _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
        _libc.prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
        data = (_Capabilities * 2)()
        bit = 1 << CAP_DAC_READ_SEARCH
        data[0].effective = data[0].permitted = data[0].inheritable = bit
        if _libc.syscall(_SYS_CAPSET, ctypes.byref(header), ctypes.byref(data)) != 0:
            raise OSError(ctypes.get_errno(), "capset")
        if _libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_DAC_READ_SEARCH, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "ambient capability")

    # -- in the parent --------------------------------------------------------------------

    def failure(self) -> str | None:
        """Why ``preexec`` failed (after ``Popen`` raised), if the child said."""
        if self._channel is None:
            return None
        self._channel[0].setblocking(False)
        with contextlib.suppress(OSError):
            data = self._channel[0].recv(500)
            if data.startswith(b"error: "):
                return data[7:].decode("utf-8", "replace")
        return None

    def started(self, pid: int) -> None:
        """The child runs (it has exec'd): take the listener, let go of what only it needed,
        and start being watched."""
        self.pid = pid
        if self._ruleset is not None:
            self._ruleset.close()
        if self._channel is not None:
            parent, child = self._channel
            child.close()
            parent.setblocking(False)
            with contextlib.suppress(OSError):
                _, fds, _, _ = socket.recv_fds(parent, 64, 1)
                if fds:
                    self.listener = seccomp.Listener(fds[0])
            parent.close()
            self._channel = None
        if self.listener is not None:
            threading.Thread(target=self._listen, args=(self.listener,), daemon=True,
                             name=f"sandbox-{pid}").start()
        _SUPERVISOR.add(self)

    def _listen(self, listener: seccomp.Listener) -> None:
        """Answer the calls its filter hands over until no process of it is left (a thread of
        its own: waiting for a call blocks, and ends when its last process does)."""
        try:
            while True:
                call = listener.receive()
                if call is not None:
                    self.answer(listener, call)
                elif listener.gone():
                    return
        finally:
            listener.close()

    def members(self, table: dict[int, tuple[int, int, int]]) -> list[int]:
        """The live processes of this sandbox in ``table`` (``process_table``): its own user's
        (as root), or its first process and what descends from it."""
        if self.pid is None:
            return []
        if self.uid is not None:
            return [pid for pid, (_, uid, _) in table.items() if uid == self.uid]
        return [self.pid, *descendants(self.pid, table)] if self.pid in table else []

    def inside(self, pid: int) -> bool:
        """Whether ``pid`` (a process or a thread) is one of this sandbox's."""
        table = process_table()
        tgid = _thread_group(pid)
        return tgid in self.members(table)

    def answer(self, listener: seccomp.Listener, call: seccomp.Call) -> None:
        """Answer a call its filter handed over: a signal between its own processes passes
        (and is remembered); anything else is denied and recorded."""
        allow = False
        if call.name in seccomp.SIGNALS:
            if call.name == "pidfd_send_signal":
                call = replace(call, args=(_pidfd_target(call.pid, call.args[0]), *call.args[1:]))
            target = call.target
            allow = target == 0 or (target != -1 and self.inside(abs(target)))
            if allow and call.signal:
                self.signals.add(call.signal)
        listener.respond(call, allow=allow)
        if not allow:
            with self._lock:
                if len(self.denials) < MAX_DENIALS:
                    self.denials.append(call.words())

    def check(self, table: dict[int, tuple[int, int, int]]) -> None:
        """Its memory in all and its folder against the limits; past one, end it all."""
        if self.ended or self.pid is None:
            return
        resident = sum(table[pid][2] for pid in self.members(table)) * PAGE_SIZE
        if resident > self.limits.memory_bytes:
            self.violate(f"its processes held more than {self.limits.memory_bytes // 1024**2} MiB"
                         " of memory in all")
            return
        size, entries = folder_usage(self.scratch, self.limits.disk_bytes)
        if size > self.limits.disk_bytes or entries > DISK_ENTRIES:
            self.violate(f"it wrote more than {self.limits.disk_bytes // 1024**2} MiB (or"
                         f" {DISK_ENTRIES} files) in its folder")

    def violate(self, why: str) -> None:
        """It passed a limit: remember why, and kill everything of it."""
        with self._lock:
            if self.violation is None:
                self.violation = why
        self.kill_all()

    def kill_all(self) -> None:
        """Kill every process of this sandbox (and whatever they orphaned); its first process
        is left for its ``Popen`` to reap."""
        with self._lock:
            for _ in range(50):
                table = process_table()
                victims = set(self.members(table)) | set(orphans(table))
                if not victims:
                    break
                for pid in victims:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
                _reap(victims - {self.pid})
                time.sleep(0.001)

    def close(self) -> None:
        """End it: every process killed, the listener closed, the scratch folder removed."""
        with self._lock:
            if self.ended:
                return
            self.ended = True
        _SUPERVISOR.remove(self)
        if self.pid is not None:
            self.kill_all()
        if self._ruleset is not None:
            self._ruleset.close()
        if self._channel is not None:
            for end in self._channel:
                end.close()
            self._channel = None
        shutil.rmtree(self.scratch, ignore_errors=True)


_FILTERS: dict[tuple[seccomp.Mode, bool], seccomp.Filter] = {}


def _filter(layers: Layers) -> seccomp.Filter:
    assert layers.seccomp is not None
    key = (layers.seccomp, layers.landlock >= 6)
    if key not in _FILTERS:
        _FILTERS[key] = seccomp.build(layers.seccomp, signals_scoped=layers.landlock >= 6)
    return _FILTERS[key]


# --- processes -----------------------------------------------------------------------------

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_SUBREAPER = False


def spawning() -> contextlib.AbstractContextManager[None]:
    """``with spawning(): Popen(...)``: see ``_Supervisor.spawn``."""
    return _SUPERVISOR.spawn()


def _become_subreaper() -> None:
    """Make this process the one that orphans of its agents are handed to (Linux 3.4), so a
    daemon that double-forks is still found and killed."""
    global _SUBREAPER
    if not _SUBREAPER and _libc is not None:
        _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        _SUBREAPER = True


def process_table() -> dict[int, tuple[int, int, int]]:
    """Every live process (not a zombie): its parent, its (effective) user and its resident
    pages, from ``/proc`` ({} without ``/proc``)."""
    table: dict[int, tuple[int, int, int]] = {}
    try:
        entries = os.scandir("/proc")
    except OSError:
        return table
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as handle:
                    line = handle.read()
                uid = entry.stat().st_uid
            except OSError:
                continue  # ended meanwhile
            # the command name (in parentheses) may hold anything: the fields after the last ')'
            fields = line[line.rfind(b")") + 2:].split()
            if len(fields) > 21 and fields[0] not in (b"Z", b"X"):
                table[int(entry.name)] = (int(fields[1]), uid, int(fields[21]))
    return table


def descendants(pid: int, table: dict[int, tuple[int, int, int]] | None = None) -> list[int]:
    """The processes below ``pid`` (children, their children...) in ``table`` (default: now)."""
    children: dict[int, list[int]] = {}
    for child, (parent, _, _) in (process_table() if table is None else table).items():
        children.setdefault(parent, []).append(child)
    found: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children.get(child, [])
    return found


def _pidfd_target(pid: int, fd: int) -> int:
    """The process a pidfd of process ``pid`` stands for (-1 when unknown)."""
    try:
        for line in Path(f"/proc/{pid}/fdinfo/{fd & 0xFFFFFFFF}").read_text().splitlines():
            if line.startswith("Pid:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return -1


def _thread_group(pid: int) -> int:
    """The process a thread id belongs to (itself for a process)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Tgid:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return pid


def _filters(pid: int | str) -> int:
    """How many seccomp filters process ``pid`` runs under (-1 when unknown)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("Seccomp_filters:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return -1


def orphans(table: dict[int, tuple[int, int, int]]) -> list[int]:
    """Processes an agent left behind: our children under more seccomp filters than we are,
    that are no agent's first process (those are reaped by their ``Popen``); none while an
    agent is being started (its first process is not known yet)."""
    if _SUPERVISOR.spawning:
        return []
    me = os.getpid()
    ours = _filters("self")
    firsts = _SUPERVISOR.firsts()
    return [pid for pid, (ppid, _, _) in table.items()
            if ppid == me and pid not in firsts and ours >= 0 and _filters(pid) > ours]


def _reap(pids: Iterable[int]) -> None:
    """Collect the exit of those of ``pids`` that are our children."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def user_tasks() -> int:
    """How many processes and threads our real user runs (what ``RLIMIT_NPROC`` counts)."""
    me = os.getuid()
    count = 0
    try:
        entries = os.scandir("/proc")
    except OSError:
        return 0
    with entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            try:
                text = Path(f"/proc/{entry.name}/status").read_text()
            except OSError:
                continue
            real = threads = None
            for line in text.splitlines():
                if line.startswith("Uid:"):
                    real = int(line.split()[1])
                elif line.startswith("Threads:"):
                    threads = int(line.split()[1])
            if real == me and threads:
                count += threads
    return count


def folder_usage(folder: str, cap: int) -> tuple[int, int]:
    """The bytes on disk and the entries below ``folder`` (counting stops past ``cap`` bytes
    or ``DISK_ENTRIES`` entries)."""
    size, entries, todo = 0, 0, [folder]
    while todo and size <= cap and entries <= DISK_ENTRIES:
        try:
            scan = os.scandir(todo.pop())
        except OSError:
            continue
        with scan:
            for entry in scan:
                entries += 1
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                size += max(info.st_size, info.st_blocks * 512) if stat.S_ISREG(info.st_mode) \
                    else info.st_blocks * 512
                if entry.is_dir(follow_symlinks=False):
                    todo.append(entry.path)
    return size, entries


# --- the supervisor ------------------------------------------------------------------------


@dataclass
class _Supervisor:
    """One thread a process, while sandboxes live: every ``WATCH_INTERVAL`` it checks their
    memory and folders (``Confinement.check``) and kills what agents orphaned."""

    live: weakref.WeakSet[Confinement] = field(default_factory=weakref.WeakSet)
    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None
    spawning: int = 0  # agents being started: a child not yet told apart from an orphan

    @contextlib.contextmanager
    def spawn(self) -> Iterator[None]:
        """Around the start of an agent's process: until its pid is known (``Popen`` returns
        once it has exec'd), it looks like an orphan, so none is killed meanwhile."""
        with self.lock:
            self.spawning += 1
        try:
            yield
        finally:
            with self.lock:
                self.spawning -= 1

    def add(self, confinement: Confinement) -> None:
        with self.lock:
            self.live.add(confinement)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="sandbox-watch",
                                               daemon=True)
                self.thread.start()

    def remove(self, confinement: Confinement) -> None:
        with self.lock:
            self.live.discard(confinement)

    def firsts(self) -> set[int]:
        with self.lock:
            return {c.pid for c in self.live if c.pid is not None}

    def _run(self) -> None:
        while True:
            time.sleep(WATCH_INTERVAL)
            with self.lock:
                live = [c for c in self.live if not c.ended]
                if not live:
                    self.thread = None
                    return
            table = process_table()
            for confinement in live:
                with contextlib.suppress(Exception):  # the watch never stops on one sandbox
                    confinement.check(table)
            left = orphans(table)
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            _reap(left)


_SUPERVISOR = _Supervisor()


__all__ = [
    "CPU_HARD_EXTRA",
    "DISK_BYTES",
    "FILE_BYTES",
    "MEMORY_BYTES",
    "TASKS",
    "Confinement",
    "Layers",
    "Limits",
    "check_strictness",
    "descendants",
    "folder_usage",
    "orphans",
    "own_folder",
    "own_paths",
    "process_table",
    "program_paths",
    "safe_environment",
    "spawning",
    "system_layers",
]
