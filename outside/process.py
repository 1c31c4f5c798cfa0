"""An outside agent's process: started confined, read with a deadline and a cap, and ended
with everything it started.

``Child`` runs a command in its sandbox (``outside.sandbox``: its own environment and scratch
folder, Landlock, seccomp, its own user as root, limits), in a session (and process group) of
its own, with its standard input, output and error on pipes:

- ``read_line`` waits for one line of its output until a deadline, reading its error output
  meanwhile so that it never blocks on a full pipe; more than ``LINE_BYTES`` on its output or
  ``LOG_BYTES`` on its error output in one move is a fault (``Ending.FLOODED``), as is its
  end (``EXITED``, or ``CRASHED`` with the signal or status);
- ``blame`` turns a fault into what it was: the sandbox's (``Ending.SANDBOX``) when the
  agent passed a limit of the whole sandbox or was denied something before it failed, or no
  fault at all (``AgentStopped``) when its process was ended from outside;
- ``kill`` ends every process of its sandbox and removes its folder.  Every child still
  running when this process exits is killed then (``multiprocessing.util.Finalize``: it runs
  in the main process at exit and in the batch executor's worker processes as they end).
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
from collections.abc import Sequence
from multiprocessing import util as mp_util
from pathlib import Path

from outside.faults import AgentFault, AgentStopped
from outside.sandbox import CPU_HARD_EXTRA, Confinement, Limits, spawning
from vocabulary import Ending, Sandbox

LINE_BYTES = 64 * 1024  # of the answer channel per move (an answer is one short line)
LOG_BYTES = 1024 * 1024  # of error output (a log) per move
LOG_TAIL = 2000  # characters of the error output kept to explain a crash
EXIT_WAIT = 1.0  # seconds a process that closed its output gets to exit before it is killed
SHOWN_DENIALS = 8  # of what an agent was denied, named in its fault
# Signals that only the process itself or the kernel on its behalf sends: its own crash.
OWN_SIGNALS = {signal.SIGSEGV, signal.SIGBUS, signal.SIGILL, signal.SIGFPE, signal.SIGABRT,
               signal.SIGTRAP, signal.SIGPIPE, signal.SIGALRM, signal.SIGXCPU, signal.SIGXFSZ,
               signal.SIGSYS, signal.SIGVTALRM, signal.SIGPROF}
# The words of an error that a file or network rule of the sandbox denied, and of one that a
# memory limit caused.
DENIED_WORDS = ("PermissionError", "Permission denied", "Operation not permitted",
                "Errno 13", "Errno 1]")
MEMORY_WORDS = ("MemoryError", "Cannot allocate memory", "Errno 12]", "std::bad_alloc",
                "OutOfMemoryError", "out of memory")
# Faults that mean the agent did not move (after a denial, the sandbox's).
NO_MOVE = (Ending.ERROR, Ending.CRASHED, Ending.EXITED, Ending.LATE,
           Ending.FLOODED, Ending.PROTOCOL)


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
        return (f"killed by {name} at its processor-time hard limit"
                f" ({limits.cpu_seconds + CPU_HARD_EXTRA} s)")
    if number == signal.SIGSYS:
        return f"killed by {name}: a system call by another ABI, which the sandbox forbids"
    return f"killed by {name}"


class Child:
    """One outside agent's process in its sandbox (see the module's docstring).

    ``argv``: its command line (relative paths already made absolute: it runs in its scratch
    folder); ``run``: what it runs besides the system (its interpreter); ``own``: its own files
    and folders.  Not for two threads at once: one player uses it, one move at a time.
    """

    def __init__(self, argv: Sequence[str], *, limits: Limits, run: Sequence[str] = (),
                 own: Sequence[str] = (), strictness: Sandbox = Sandbox.AVAILABLE) -> None:
        self.argv = list(argv)
        self.limits = limits
        self._buffer = bytearray()
        self._log_tail = ""
        self._log_bytes = 0
        self._line_bytes = 0
        self._closed_output = False
        self._killed = False  # by us: its end is not its doing
        self._cpu_seconds: float | None = None  # what it had used when it ended
        self.sandbox = Confinement(run=run, own=own, limits=limits, strictness=strictness)
        try:
            with spawning():
                self.proc = subprocess.Popen(  # the program the user named to play
                    self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, cwd=self.sandbox.scratch, env=self.sandbox.env,
                    start_new_session=True, preexec_fn=self.sandbox.preexec, close_fds=True,
                    bufsize=0)
                self.sandbox.started(self.proc.pid)
        except subprocess.SubprocessError as exc:
            why = self.sandbox.failure() or str(exc)
            self.sandbox.close()
            raise OSError(0, f"its sandbox could not be set up: {why}") from None
        except BaseException:
            self.sandbox.close()
            raise
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
            raise AgentFault(Ending.FLOODED, f"wrote more than {LINE_BYTES // 1024} KiB to"
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
            raise AgentFault(Ending.FLOODED, f"wrote more than {LOG_BYTES // 1024**2} MiB to"
                             f" its error output {where}")
        return True

    def _wait(self, timeout: float) -> int:
        """Its exit status (``Popen.returncode``) within ``timeout`` seconds, its processor time
        read first (``subprocess.TimeoutExpired`` when it still runs)."""
        if self.proc.returncode is None and hasattr(os, "waitid"):
            with contextlib.suppress(ChildProcessError, OSError):
                if os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG):
                    self._cpu_seconds = _cpu_seconds(self.proc.pid)
        code = self.proc.wait(timeout)
        return code

    def _ended(self, where: str) -> AgentFault:
        """The fault of a process whose output ended (``where``: ``in its move``...)."""
        try:
            self._wait_ended(EXIT_WAIT)
            code = self._wait(0)
        except subprocess.TimeoutExpired:
            self.kill()
            return AgentFault(Ending.CRASHED, f"closed its output {where} and was killed")
        return self.exit_fault(code, where)

    def _wait_ended(self, timeout: float) -> None:
        """Wait up to ``timeout`` for it to end, without collecting it (so its processor time
        can still be read)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG):
                    return
            except (ChildProcessError, OSError, AttributeError):
                return
            time.sleep(0.005)
        raise subprocess.TimeoutExpired(self.argv, timeout)

    def exit_fault(self, code: int, where: str) -> AgentFault:
        """What a process that ended with ``code`` (``Popen.returncode``) did: its fault, or
        ``AgentStopped`` (raised) when it was ended from outside its sandbox."""
        if self.sandbox.violation is not None:
            return AgentFault(Ending.SANDBOX, f"{self.sandbox.violation} {where}")
        last = self._log_tail.strip().splitlines()[-1:] if self._log_tail.strip() else []
        said = f" (its last words: {last[0][:300]!r})" if last else ""
        if code == 0:
            return AgentFault(Ending.EXITED, f"ended with status 0 {where}{said}")
        if code > 0:
            return AgentFault(Ending.CRASHED, f"ended with status {code} {where}{said}")
        number = -code
        if number in OWN_SIGNALS or self._killed:
            return AgentFault(Ending.CRASHED, f"{signal_words(number, self.limits)} {where}{said}")
        if number == signal.SIGKILL and self._cpu_seconds is not None \
                and self._cpu_seconds >= self.limits.cpu_seconds:
            return AgentFault(Ending.CRASHED, f"{signal_words(number, self.limits)} {where}")
        name = signal_words(number, self.limits) if number != signal.SIGKILL else "killed by SIGKILL"
        if number in self.sandbox.signals:
            return AgentFault(Ending.CRASHED, f"{name}, which it sent itself, {where}{said}")
        if self.sandbox.layers.seccomp is not None and self.sandbox.layers.seccomp.value == "notify":
            raise AgentStopped(f"its process was {name} from outside its sandbox {where} (not by its"
                               " limits, not by itself): the game has no result")
        return AgentFault(Ending.CRASHED, f"{name} {where}, by itself or from outside (this"
                          f" system cannot tell){said}")

    def gone_fault(self, where: str) -> AgentFault:
        """The fault of a process that stopped reading its input (it ended, or is ending)."""
        try:
            self._wait_ended(EXIT_WAIT)
            code = self._wait(0)
        except subprocess.TimeoutExpired:  # still running but not reading: it is killed
            self.kill()
            return AgentFault(Ending.CRASHED, f"stopped reading its input {where}")
        return self.exit_fault(code, where)

    def blame(self, fault: AgentFault) -> AgentFault:
        """The fault as recorded: the sandbox's when it passed a limit of the whole sandbox, or
        when it failed to move after the sandbox denied it something (what it tried, then the
        fault's words)."""
        if fault.kind is Ending.SANDBOX or fault.kind not in NO_MOVE:
            return fault
        if self.sandbox.violation is not None:
            return AgentFault(Ending.SANDBOX, self.sandbox.violation, seconds=fault.seconds)
        denied = list(self.sandbox.denials)
        if not denied and any(words in fault.detail for words in DENIED_WORDS) \
                and self.sandbox.layers.landlock:
            denied = ["a file or the network (its rules)"]
        if not denied and any(words in fault.detail for words in MEMORY_WORDS):
            return AgentFault(Ending.SANDBOX, f"over its memory limit"
                              f" ({self.limits.memory_bytes // 1024**2} MiB a process); then it"
                              f" {fault.detail}", seconds=fault.seconds)
        if not denied:
            return fault
        more = f" and {len(denied) - SHOWN_DENIALS} more" if len(denied) > SHOWN_DENIALS else ""
        return AgentFault(Ending.SANDBOX, f"denied {'; '.join(denied[:SHOWN_DENIALS])}{more};"
                          f" then it {fault.detail}", seconds=fault.seconds)

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
        """Kill every process of its sandbox, reap it, close the pipes, remove its folder.
        Safe to call again."""
        self._killed = True
        self.sandbox.close()
        with contextlib.suppress(Exception):
            self.proc.kill()
        with contextlib.suppress(Exception):
            self.proc.wait(5)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        with _LIVE_LOCK:
            _LIVE.discard(self)


def _cpu_seconds(pid: int) -> float | None:
    """The processor time an ended (not yet collected) process used, from ``/proc``."""
    try:
        line = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = line[line.rfind(b")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


__all__ = ["LINE_BYTES", "LOG_BYTES", "Child", "Limits", "signal_words"]
