"""seccomp: the system calls an outside agent may not make, and a record of those it tried.

Landlock (``outside.landlock``) confines files, TCP and signals; seccomp covers what it does
not: every socket (UDP, raw, netlink, packet, and the named UNIX sockets of the user's session
bus or of a Docker daemon, which Landlock does not see), another process's memory
(``process_vm_readv``, ``ptrace``), another process's limits (``prlimit64`` on a pid),
signals to a process that is not the agent's own (where Landlock's signal scope is missing, and
for the record where it is not), namespaces, mounts, kernel keys and modules, io_uring (whose
requests bypass seccomp), and memory that no process limit counts (``memfd_create``, System V
shared memory).  Threads and child processes stay allowed.

The filter is assembled here, in the parent, as classic BPF, and loaded in the child between
fork and exec (``load``): one ``prctl`` and one ``seccomp`` call.  A denied call either fails
with ``EPERM`` (``Mode.ERRNO``), or is handed to the parent (``Mode.NOTIFY``,
``SECCOMP_RET_USER_NOTIF``, Linux 5.5+): the child waits in the call while the parent's
``Listener`` reads what it was, answers ``EPERM`` and keeps a line saying what was denied,
so that a game the agent then loses names the denial.  A signal to another process is also
handed to the parent, which lets it through when the target belongs to the same agent.

Only x86_64 and aarch64 are known (their system call numbers differ); on another architecture
there is no filter.  A call made through another ABI (x86's 32-bit ``int 0x80``, x32) kills the
process, so the numbers cannot be dodged.

Our own code rather than a PyPI binding: libseccomp's bindings need the C library and its
headers, and seccompy (0.x, months old when this was written) builds and loads in one object,
while the filter must be built in the parent and loaded in the forked child with nothing
allocated; the user-notification protocol is two ``ioctl`` calls.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import platform
import select
import signal
import struct
from dataclasses import dataclass
from enum import Enum

PR_SET_NO_NEW_PRIVS = 38
PR_GET_SECCOMP = 21
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_GET_NOTIF_SIZES = 3
FLAG_NEW_LISTENER = 1 << 3

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_USER_NOTIF = 0x7FC00000
RET_ALLOW = 0x7FFF0000

LD_ABS_W = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RET = 0x06  # BPF_RET | BPF_K

NR_OFFSET, ARCH_OFFSET = 0, 4


def _arg(index: int) -> int:
    """Offset of the low 32 bits of argument ``index`` in ``struct seccomp_data``."""
    return 16 + 8 * index


# clone()'s namespace flags (CLONE_NEWTIME is not among them: in clone() that bit is part of
# the exit signal)
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 \
    | 0x40000000
AF_UNIX = 1
SELF = 0xC0FFEE00  # stands for the child's pid until ``load`` writes it in
MINUS_SELF = 0xC0FFEE01  # and for minus the pid (its process group)


@dataclass(frozen=True)
class Arch:
    """An architecture's ``AUDIT_ARCH_*`` value and its system call numbers."""

    audit: int
    numbers: dict[str, int]
    extra_abi_floor: int | None = None  # x32's numbers start here on x86_64


_X86_64 = Arch(0xC000003E, {
    "socket": 41, "socketpair": 53, "ptrace": 101, "process_vm_readv": 310,
    "process_vm_writev": 311, "pidfd_getfd": 438, "kcmp": 312, "prlimit64": 302, "kill": 62,
    "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297,
    "pidfd_open": 434, "pidfd_send_signal": 424, "unshare": 272, "setns": 308, "mount": 165, "umount2": 166,
    "pivot_root": 155, "chroot": 161, "bpf": 321, "perf_event_open": 298, "keyctl": 250,
    "add_key": 248, "request_key": 249, "init_module": 175, "finit_module": 313,
    "delete_module": 176, "kexec_load": 246, "kexec_file_load": 320, "reboot": 169, "swapon": 167,
    "swapoff": 168, "syslog": 103, "acct": 163, "quotactl": 179, "quotactl_fd": 443,
    "open_by_handle_at": 304, "name_to_handle_at": 303, "iopl": 172, "ioperm": 173,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "userfaultfd": 323,
    "fanotify_init": 300, "move_mount": 429, "open_tree": 428, "fsopen": 430, "fsconfig": 431,
    "fsmount": 432, "fspick": 433, "mount_setattr": 442, "sethostname": 170,
    "setdomainname": 171, "settimeofday": 164, "clock_settime": 227, "clock_adjtime": 305,
    "adjtimex": 159, "vhangup": 153, "memfd_create": 319, "memfd_secret": 447, "shmget": 29,
    "msgget": 68, "semget": 64, "clone": 56, "clone3": 435, "lookup_dcookie": 212,
    "process_madvise": 440, "migrate_pages": 256, "move_pages": 279,
}, extra_abi_floor=0x40000000)

_AARCH64 = Arch(0xC00000B7, {
    "socket": 198, "socketpair": 199, "ptrace": 117, "process_vm_readv": 270,
    "process_vm_writev": 271, "pidfd_getfd": 438, "kcmp": 272, "prlimit64": 261, "kill": 129,
    "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138, "rt_tgsigqueueinfo": 240,
    "pidfd_open": 434, "pidfd_send_signal": 424, "unshare": 97, "setns": 268, "mount": 40,
    "umount2": 39, "pivot_root": 41,
    "chroot": 51, "bpf": 280, "perf_event_open": 241, "keyctl": 219, "add_key": 217,
    "request_key": 218, "init_module": 105, "finit_module": 273, "delete_module": 106,
    "kexec_load": 104, "kexec_file_load": 294, "reboot": 142, "swapon": 224, "swapoff": 225,
    "syslog": 116, "acct": 89, "quotactl": 60, "quotactl_fd": 443, "open_by_handle_at": 265,
    "name_to_handle_at": 264, "io_uring_setup": 425, "io_uring_enter": 426,
    "io_uring_register": 427, "userfaultfd": 282, "fanotify_init": 262, "move_mount": 429,
    "open_tree": 428, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "sethostname": 161, "setdomainname": 162, "settimeofday": 170,
    "clock_settime": 112, "clock_adjtime": 266, "adjtimex": 171, "vhangup": 58,
    "memfd_create": 279, "memfd_secret": 447, "shmget": 194, "msgget": 186, "semget": 190,
    "clone": 220, "clone3": 435, "lookup_dcookie": 18, "process_madvise": 440,
    "migrate_pages": 238, "move_pages": 239,
})

ARCHES = {"x86_64": _X86_64, "aarch64": _AARCH64}

# What each denied call is, in words (the record's reason); the groups name the layer's rules.
DENIED: dict[str, str] = {
    "socket": "opening a socket",
    "ptrace": "tracing a process (ptrace)",
    "process_vm_readv": "reading another process's memory",
    "process_vm_writev": "writing another process's memory",
    "pidfd_getfd": "taking another process's file",
    "kcmp": "comparing another process's files (kcmp)",
    "process_madvise": "advising another process's memory",
    "migrate_pages": "moving another process's memory",
    "move_pages": "moving another process's memory",
    "memfd_create": "memory outside its limits (memfd_create)",
    "memfd_secret": "memory outside its limits (memfd_secret)",
    "shmget": "System V shared memory",
    "msgget": "a System V message queue",
    "semget": "System V semaphores",
    "userfaultfd": "userfaultfd",
    "io_uring_setup": "io_uring", "io_uring_enter": "io_uring", "io_uring_register": "io_uring",
    "bpf": "loading BPF", "perf_event_open": "perf events",
    "keyctl": "kernel keys", "add_key": "kernel keys", "request_key": "kernel keys",
}
for _name in ("unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount",
              "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
              "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
              "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl", "quotactl_fd",
              "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm", "fanotify_init",
              "sethostname", "setdomainname", "settimeofday", "clock_settime", "clock_adjtime",
              "adjtimex", "vhangup", "lookup_dcookie"):
    DENIED[_name] = f"an administrator's call ({_name})"

# Calls that signal a process (or open one to signal it), let through when it belongs to the
# same agent; the index of the target's and of the signal's argument.
SIGNALS = {"kill": (0, 1), "tkill": (0, 1), "tgkill": (0, 2), "rt_sigqueueinfo": (0, 1),
           "rt_tgsigqueueinfo": (0, 2), "pidfd_send_signal": (0, 1), "pidfd_open": (0, None)}
# The groups a layer line names.
GROUPS = ("sockets", "ptrace", "other processes' memory and limits", "namespaces and mounts",
          "uncounted memory", "io_uring")


class Mode(Enum):
    """How a denied call ends: with an error at once, or handed to the parent first."""

    ERRNO = "errno"
    NOTIFY = "notify"


def arch() -> Arch | None:
    """This machine's architecture, if its numbers are known."""
    return ARCHES.get(platform.machine())


_libc = ctypes.CDLL(None, use_errno=True) if hasattr(os, "fork") else None
_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}.get(platform.machine())


def _call(result: int) -> int:
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))
    return result


def available() -> bool:
    """Whether this kernel filters system calls (and we know this architecture)."""
    if _libc is None or _SYS_SECCOMP is None or arch() is None:
        return False
    try:
        return _call(_libc.prctl(PR_GET_SECCOMP, 0, 0, 0, 0)) == 0
    except OSError:
        return False


def notify_available() -> bool:
    """Whether this kernel hands denied calls to a listener (Linux 5.0; 5.5 for letting one
    through, which ``Listener`` degrades without)."""
    if not available() or _libc is None:
        return False
    sizes = (ctypes.c_uint16 * 3)()
    try:
        _call(_libc.syscall(_SYS_SECCOMP, SECCOMP_GET_NOTIF_SIZES, 0, ctypes.byref(sizes)))
    except OSError:
        return False
    return tuple(sizes) == (NOTIF_SIZE, RESPONSE_SIZE, 64)


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


class Filter:
    """A filter's program, built in the parent (``build``), loaded in the child (``load``)."""

    def __init__(self, program: bytes, mode: Mode) -> None:
        self.mode = mode
        self._program = ctypes.create_string_buffer(program, len(program))
        self._count = len(program) // 8
        self._self_at = [i for i in range(self._count)
                         if struct.unpack_from("=I", program, i * 8 + 4)[0] in (SELF, MINUS_SELF)]
        # struct sock_fprog: unsigned short len; (padding) struct sock_filter *filter
        self._fprog = struct.pack("=HxxxxxxQ", self._count, ctypes.addressof(self._program))
        self._fprog_buffer = ctypes.create_string_buffer(self._fprog, len(self._fprog))

    def load(self, pid: int) -> int:
        """Install the filter on this process (``no_new_privs`` first), its pid written in;
        the listener's file descriptor in ``NOTIFY`` mode, else -1.  For the child between
        fork and exec."""
        assert _libc is not None
        for index in self._self_at:
            offset = index * 8 + 4
            marker = struct.unpack_from("=I", self._program, offset)[0]
            value = pid if marker == SELF else -pid
            struct.pack_into("=I", self._program, offset, value & 0xFFFFFFFF)
        _call(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
        flags = FLAG_NEW_LISTENER if self.mode is Mode.NOTIFY else 0
        result = _call(_libc.syscall(_SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, flags,
                                     self._fprog_buffer))
        return result if flags else -1


def build(mode: Mode, *, signals_scoped: bool) -> Filter:
    """The filter for this architecture.  In ``NOTIFY`` mode every signal goes by the parent,
    which lets through those between the agent's own processes and remembers them (so that a
    signal an agent sent itself is never taken for one from outside).  In ``ERRNO`` mode,
    which cannot tell another process of the agent from ours, a signal to itself or its
    group passes, and one to another process is left to Landlock when ``signals_scoped``
    (its ABI 6 keeps signals inside the agent's processes), else denied."""
    machine = arch()
    if machine is None:
        raise OSError(errno.ENOSYS, f"no system call table for {platform.machine()}")
    notify = mode is Mode.NOTIFY
    deny = RET_USER_NOTIF if notify else RET_ERRNO | errno.EPERM
    foreign = RET_ALLOW if signals_scoped else RET_ERRNO | errno.EPERM

    def returns(action: int) -> list[bytes]:
        return [_insn(RET, action)]

    def arg_is(index: int, values: tuple[int, ...], then: int, otherwise: int) -> list[bytes]:
        """``then`` when argument ``index`` (its low 32 bits: a pid or a family) is one of
        ``values``, else ``otherwise``."""
        body = [_insn(LD_ABS_W, _arg(index))]
        for position, value in enumerate(values):
            body.append(_insn(JEQ, value, jt=len(values) - position, jf=0))
        body += [_insn(RET, otherwise), _insn(RET, then)]
        return body

    numbers = machine.numbers
    blocks: list[tuple[int, list[bytes]]] = []
    for name in DENIED:
        if name in numbers:
            blocks.append((numbers[name], returns(deny)))
    blocks.append((numbers["socketpair"], arg_is(0, (AF_UNIX,), RET_ALLOW, deny)))
    blocks.append((numbers["prlimit64"], arg_is(0, (0,), RET_ALLOW, deny)))
    for name in SIGNALS:
        if notify:
            blocks.append((numbers[name], returns(RET_USER_NOTIF)))
        elif name in ("kill", "rt_sigqueueinfo", "pidfd_open"):
            blocks.append((numbers[name], arg_is(0, (SELF, 0, MINUS_SELF), RET_ALLOW, foreign)))
        elif name in ("tgkill", "rt_tgsigqueueinfo"):
            blocks.append((numbers[name], arg_is(0, (SELF,), RET_ALLOW, foreign)))
        else:
            blocks.append((numbers[name], returns(foreign)))
    blocks.append((numbers["clone"], [_insn(LD_ABS_W, _arg(0)),
                                      _insn(JSET, CLONE_NAMESPACES, jt=1, jf=0),
                                      _insn(RET, RET_ALLOW), _insn(RET, deny)]))
    # clone3's flags are behind a pointer, out of a filter's reach: ENOSYS makes the C library
    # fall back to clone(), whose flags are checked above.
    blocks.append((numbers["clone3"], returns(RET_ERRNO | errno.ENOSYS)))

    program = [_insn(LD_ABS_W, ARCH_OFFSET), _insn(JEQ, machine.audit, jt=1, jf=0),
               _insn(RET, RET_KILL_PROCESS), _insn(LD_ABS_W, NR_OFFSET)]
    if machine.extra_abi_floor is not None:
        program += [_insn(JGE, machine.extra_abi_floor, jt=0, jf=1), _insn(RET, RET_KILL_PROCESS)]
    for number, body in blocks:
        program.append(_insn(JEQ, number, jt=0, jf=len(body)))
        program += body
    program.append(_insn(RET, RET_ALLOW))
    return Filter(b"".join(program), mode)


# --- the parent's side of NOTIFY mode -----------------------------------------------------

NOTIF_SIZE, RESPONSE_SIZE = 80, 24  # struct seccomp_notif, struct seccomp_notif_resp


def _iowr(number: int, size: int) -> int:
    return (3 << 30) | (size << 16) | (ord("!") << 8) | number


NOTIF_RECV = _iowr(0, NOTIF_SIZE)
NOTIF_SEND = _iowr(1, RESPONSE_SIZE)
USER_NOTIF_FLAG_CONTINUE = 1


@dataclass(frozen=True)
class Call:
    """A call the filter handed over: the calling ``pid``, the call's name, its arguments."""

    id: int
    pid: int
    name: str
    args: tuple[int, ...]

    @property
    def target(self) -> int:
        """The pid a signal call aims at, as a signed number (0: its own group, -1: every
        process it may signal, below: a process group)."""
        value = self.args[0] & 0xFFFFFFFF
        return value - (1 << 32) if value >= 1 << 31 else value

    @property
    def signal(self) -> int | None:
        """The signal number of a signal call (None for another call)."""
        where = SIGNALS.get(self.name, (0, None))[1]
        return None if where is None else self.args[where] & 0xFF

    def words(self) -> str:
        """What it tried, for a person: ``SIGTERM to process 1234``."""
        if self.name == "pidfd_open":
            return f"opening process {self.target} to signal it (pidfd_open)"
        if self.signal is not None:
            try:
                name = signal.Signals(self.signal).name
            except ValueError:
                name = f"signal {self.signal}"
            target = self.target
            whom = ("every process it may signal" if target == -1 and self.name == "kill"
                    else f"process group {-target}" if target < 0 and self.name == "kill"
                    else f"process {target}")
            return f"{name} to {whom} (outside its sandbox)"
        if self.name == "socket":
            family = FAMILIES.get(self.args[0] & 0xFFFF, f"family {self.args[0] & 0xFFFF}")
            kind = KINDS.get(self.args[1] & 0xF, f"type {self.args[1] & 0xF}")
            return f"opening a socket ({family}, {kind})"
        if self.name == "socketpair":
            return f"a socket pair of family {self.args[0] & 0xFFFF}"
        if self.name == "prlimit64":
            return f"changing the limits of process {self.target}"
        if self.name == "clone":
            return "a process in new namespaces (clone)"
        if self.name == "ptrace":
            return f"tracing process {self.args[1] & 0xFFFFFFFF} (ptrace)"
        if self.name in ("process_vm_readv", "process_vm_writev"):
            return f"{DENIED[self.name]} (process {self.target})"
        return DENIED.get(self.name, self.name)


FAMILIES = {1: "UNIX", 2: "IPv4", 10: "IPv6", 16: "netlink", 17: "packet", 40: "vsock"}
KINDS = {1: "stream", 2: "datagram", 3: "raw", 5: "seqpacket"}


class Listener:
    """The parent's end of a child's filter in ``NOTIFY`` mode: ``receive`` a pending call,
    ``respond`` to it (let it through, or deny it: ``EACCES`` for a socket, else ``EPERM``)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        machine = arch()
        assert machine is not None
        self._names = {number: name for name, number in machine.numbers.items()}
        self._buffer = bytearray(NOTIF_SIZE)

    def fileno(self) -> int:
        return self.fd

    def receive(self) -> Call | None:
        """The next call, waiting for one (None when its caller was killed meanwhile, or when
        no process runs under the filter any more: ``gone``)."""
        self._buffer[:] = bytes(NOTIF_SIZE)
        try:
            fcntl.ioctl(self.fd, NOTIF_RECV, self._buffer, True)
        except OSError:
            return None
        ident, pid, _flags, nr, _arch, _ip = struct.unpack_from("=QIIiIQ", self._buffer)
        args = struct.unpack_from("=6Q", self._buffer, 32)
        return Call(ident, pid, self._names.get(nr, f"system call {nr}"), args)

    def respond(self, call: Call, *, allow: bool) -> None:
        if allow:
            response = struct.pack("=QqiI", call.id, 0, 0, USER_NOTIF_FLAG_CONTINUE)
        else:
            code = errno.EACCES if call.name == "socket" else errno.EPERM
            response = struct.pack("=QqiI", call.id, 0, -code, 0)
        buffer = bytearray(response)
        try:
            fcntl.ioctl(self.fd, NOTIF_SEND, buffer, True)
        except OSError as exc:
            if allow and exc.errno == errno.EINVAL:  # no CONTINUE before Linux 5.5: deny
                self.respond(call, allow=False)

    def gone(self) -> bool:
        """Whether no process runs under the filter any more."""
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        return any(events & (select.POLLHUP | select.POLLERR | select.POLLNVAL)
                   for _, events in poller.poll(0))

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


__all__ = ["ARCHES", "DENIED", "GROUPS", "SIGNALS", "Call", "Filter", "Listener", "Mode",
           "arch", "available", "build", "notify_available"]
