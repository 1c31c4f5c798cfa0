"""An outside agent's process: started with limits, read with a deadline and a cap, and killed
with everything it started.

``Child`` runs a command in a session (and process group) of its own, with its standard input,
output and error on pipes:

- limits set in the child before it runs (``resource.setrlimit``, where the OS has them):
  processor time (``RLIMIT_CPU``: the soft limit sends SIGXCPU, the hard one, ``CPU_HARD_EXTRA``
  seconds later, SIGKILL), memory (``RLIMIT_DATA``, ``MEMORY_BYTES``: the heap and private
  mappings; not ``RLIMIT_AS``, which counts the address space that threads and JIT compilers
  reserve without using), files written (``RLIMIT_FSIZE``, ``FILE_BYTES``) and no core dumps.
  The number of processes is not limited: ``RLIMIT_NPROC`` counts every process of the user,
  ours included, so no number fits; what an agent starts is killed with it instead;
- ``read_line`` waits for one line of its output until a deadline, reading its error output
  meanwhile so that it never blocks on a full pipe; more than ``LINE_BYTES`` on its output or
  ``LOG_BYTES`` on its error output in one move is a fault (``FaultKind.FLOODED``), as is its
  end (``EXITED``, or ``CRASHED`` with the signal or status);
- ``kill`` ends the process group with SIGKILL, and every descendant found in ``/proc`` before
  (one that left the group with ``setsid`` included, while it is still a descendant), then
  reaps the process.  Every child still running when this process exits is killed then
  (``multiprocessing.util.Finalize``: it runs in the main process at exit and in the batch
  executor's worker processes as they end).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing import util as mp_util
from pathlib import Path

from outside.faults import AgentFault, FaultKind

LINE_BYTES = 64 * 1024  # of the answer channel per move (an answer is one short line)
LOG_BYTES = 1024 * 1024  # of error output (a log) per move
LOG_TAIL = 2000  # characters of the error output kept to explain a crash
MEMORY_BYTES = 2 * 1024**3  # RLIMIT_DATA of an outside agent
FILE_BYTES = 64 * 1024**2  # RLIMIT_FSIZE: the largest file it may write
CPU_HARD_EXTRA = 5  # seconds between the soft (SIGXCPU) and the hard (SIGKILL) CPU limit
EXIT_WAIT = 1.0  # seconds a process that closed its output gets to exit before it is killed


@dataclass(frozen=True)
class Limits:
    """What a child may use: ``cpu_seconds`` of processor time in all (its soft limit),
    ``memory_bytes`` of data, files of at most ``file_bytes``."""

    cpu_seconds: int
    memory_bytes: int = MEMORY_BYTES
    file_bytes: int = FILE_BYTES

    def describe(self) -> str:
        return (f"{self.cpu_seconds} s of processor time, {self.memory_bytes // 1024**2} MiB of"
                f" data, files up to {self.file_bytes // 1024**2} MiB")


def _set_limits(limits: Limits) -> Callable[[], None]:
    """The function the child runs before its program: each limit the OS has, set."""
    import resource

    wanted = [(resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + CPU_HARD_EXTRA),
              (resource.RLIMIT_DATA, limits.memory_bytes, limits.memory_bytes),
              (resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes),
              (resource.RLIMIT_CORE, 0, 0)]

    def apply() -> None:
        for which, soft, hard in wanted:
            with contextlib.suppress(ValueError, OSError):  # not lowered where not allowed
                _, current_hard = resource.getrlimit(which)
                if current_hard != resource.RLIM_INFINITY:
                    soft, hard = min(soft, current_hard), min(hard, current_hard)
                resource.setrlimit(which, (soft, hard))

    return apply


def descendants(pid: int) -> list[int]:
    """The processes below ``pid`` (children, their children...), from ``/proc``; [] where
    there is no ``/proc``."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue  # ended meanwhile
        # the command name (in parentheses) may hold spaces: the fields after its last ')'
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[1].isdigit():
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


_LIVE: weakref.WeakSet[Child] = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()
_finalizer: mp_util.Finalize | None = None


def _kill_all() -> None:
    with _LIVE_LOCK:
        live = list(_LIVE)
    for child in live:
        child.kill()


def _register(child: Child) -> None:
    global _finalizer
    with _LIVE_LOCK:
        _LIVE.add(child)
        if _finalizer is None:
            _finalizer = mp_util.Finalize(None, _kill_all, exitpriority=100)


def signal_words(number: int, limits: Limits) -> str:
    """A signal that ended a child, in words that say what likely sent it."""
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    if number == signal.SIGXCPU:
        return f"stopped by {name}: it used its {limits.cpu_seconds} s of processor time (RLIMIT_CPU)"
    if number == signal.SIGXFSZ:
        return (f"stopped by {name}: it wrote a file past {limits.file_bytes // 1024**2} MiB"
                " (RLIMIT_FSIZE)")
    if number == signal.SIGKILL:
        hard = limits.cpu_seconds + CPU_HARD_EXTRA
        return (f"killed by {name} (its processor-time hard limit, {hard} s, or the system out"
                " of memory)")
    return f"killed by {name}"


class Child:
    """One outside agent's process (see the module's docstring).

    Not for two threads at once: one player uses it, one move at a time.
    """

    def __init__(self, argv: Sequence[str], *, limits: Limits, cwd: str | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.limits = limits
        self._buffer = bytearray()
        self._log_tail = ""
        self._log_bytes = 0
        self._line_bytes = 0
        self._closed_output = False
        self.proc = subprocess.Popen(  # the program the user named to play
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=cwd, env=env, start_new_session=True, preexec_fn=_set_limits(limits),
            close_fds=True, bufsize=0)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        for stream in (self.proc.stdout, self.proc.stderr):
            os.set_blocking(stream.fileno(), False)
        _register(self)

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def log_tail(self) -> str:
        """The last ``LOG_TAIL`` characters of its error output."""
        return self._log_tail

    def begin_move(self) -> None:
        """Start counting output for a new move (the caps are per move)."""
        self._log_bytes = 0
        self._line_bytes = 0

    def send(self, line: str) -> bool:
        """Write ``line`` and a newline to its input; False when it no longer reads (gone)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line.encode() + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            return False
        return True

    def read_line(self, deadline: float, *, where: str) -> str | None:
        """The next line of its output (without the newline), or None when ``deadline``
        (``time.monotonic``) passes first.

        Raises ``AgentFault`` (``FLOODED``, ``EXITED``, ``CRASHED``) naming ``where`` (``in
        its move``).  Its error output is read meanwhile, kept in ``log_tail``.
        """
        assert self.proc.stdout is not None and self.proc.stderr is not None
        out, err = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(out, selectors.EVENT_READ)
            if not self.proc.stderr.closed:
                selector.register(err, selectors.EVENT_READ)
            while True:
                line = self._take_line()
                if line is not None:
                    return line
                if self._closed_output:
                    raise self._ended(where)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                for key, _ in selector.select(left):
                    if key.fd == out:
                        self._read_output(out, where)
                    elif not self._read_log(err, where):
                        selector.unregister(err)

    def _take_line(self) -> str | None:
        end = self._buffer.find(b"\n")
        if end < 0:
            return None
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 1]
        return line.decode("utf-8", errors="replace").rstrip("\r")

    def _read_output(self, fd: int, where: str) -> None:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        if not data:
            self._closed_output = True
            return
        self._buffer += data
        self._line_bytes += len(data)
        if self._line_bytes > LINE_BYTES:
            raise AgentFault(FaultKind.FLOODED, f"wrote more than {LINE_BYTES // 1024} KiB to"
                             f" its output {where} (an answer is one short line)")

    def _read_log(self, fd: int, where: str) -> bool:
        """Read its error output; False at its end."""
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return True
        if not data:
            return False
        self._log_bytes += len(data)
        self._log_tail = (self._log_tail + data.decode("utf-8", errors="replace"))[-LOG_TAIL:]
        if self._log_bytes > LOG_BYTES:
            raise AgentFault(FaultKind.FLOODED, f"wrote more than {LOG_BYTES // 1024**2} MiB to"
                             f" its error output {where}")
        return True

    def _ended(self, where: str) -> AgentFault:
        """The fault of a process whose output ended (``where``: ``in its move``...)."""
        try:
            code = self.proc.wait(EXIT_WAIT)
        except subprocess.TimeoutExpired:
            self.kill()
            return AgentFault(FaultKind.CRASHED, f"closed its output {where} and was killed")
        return AgentFault(*self.exit_fault(code, where))

    def exit_fault(self, code: int, where: str) -> tuple[FaultKind, str]:
        """The kind and words of a process that ended with ``code`` (``Popen.returncode``)."""
        last = self._log_tail.strip().splitlines()[-1:] if self._log_tail.strip() else []
        said = f" (its last words: {last[0][:300]!r})" if last else ""
        if code == 0:
            return FaultKind.EXITED, f"ended with status 0 {where}{said}"
        if code < 0:
            return FaultKind.CRASHED, f"{signal_words(-code, self.limits)} {where}{said}"
        return FaultKind.CRASHED, f"ended with status {code} {where}{said}"

    def gone_fault(self, where: str) -> AgentFault:
        """The fault of a process that stopped reading its input (it ended, or is ending)."""
        try:
            code = self.proc.wait(EXIT_WAIT)
        except subprocess.TimeoutExpired:  # still running but not reading: it is killed
            self.kill()
            return AgentFault(FaultKind.CRASHED, f"stopped reading its input {where}")
        return AgentFault(*self.exit_fault(code, where))

    def finish(self, line: str | None = None, *, wait: float = 0.5) -> None:
        """End it politely: ``line`` (a ``quit``) and the end of its input, ``wait`` seconds
        to exit, then ``kill`` (which also ends whatever it started)."""
        if self.proc.poll() is None:
            if line is not None:
                self.send(line)
            with contextlib.suppress(OSError, ValueError):
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(wait)
        self.kill()

    def kill(self) -> None:
        """Kill its process group and its descendants, reap it, close the pipes.  Safe to call
        again."""
        pid = self.proc.pid
        if self.proc.returncode is None or self._group_alive():
            below = descendants(pid)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)  # the group's id is the leader's pid
            for other in below:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(other, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with _LIVE_LOCK:
            _LIVE.discard(self)

    def _group_alive(self) -> bool:
        try:
            os.killpg(self.proc.pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True


__all__ = ["CPU_HARD_EXTRA", "FILE_BYTES", "LINE_BYTES", "LOG_BYTES", "MEMORY_BYTES", "Child",
           "Limits", "descendants", "signal_words"]
