"""Landlock, the Linux security module an unprivileged process uses to confine itself: which
files it may read, write or run, which TCP ports it may bind or connect, and whether it may
signal or reach processes outside its own domain.

A ``Ruleset`` is built in the parent (each rule opens its path there, so a path that is
missing or unreadable is found before the child exists) and enforced in the child between
``fork`` and ``exec`` with ``restrict_self``: two system calls, nothing imported or allocated.
Whatever the ruleset *handles* and no rule allows is denied to the child and everything it
starts, root included, for the rest of their lives.

The rights depend on the kernel's ABI version (``abi()``; 0 where there is no Landlock):

- 1 (Linux 5.13): files (run, read, write, list, create, remove...); 2: linking or renaming
  across folders (``REFER``); 3: truncating;
- 4 (6.7): TCP bind and connect; 5: ioctl on devices;
- 6 (6.12): scopes: signals to processes outside the domain, and abstract UNIX sockets;
- 7 (6.15): audit logging of denials (not used here).

Our own code over ``ctypes`` rather than a PyPI binding: the bindings seen (landlockpy and
py-landlock, both 0.x and months old when this was written, one maintainer each) build and
enforce in one object, while we need the rules opened in the parent and only the enforcement
in the forked child; what we use of Landlock is three system calls and two structures.
"""

from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass
from enum import IntFlag

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # the same on every arch
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1


class FS(IntFlag):
    """``LANDLOCK_ACCESS_FS_*``: what may be done to files below a folder, or to one file."""

    EXECUTE = 1 << 0
    WRITE_FILE = 1 << 1
    READ_FILE = 1 << 2
    READ_DIR = 1 << 3
    REMOVE_DIR = 1 << 4
    REMOVE_FILE = 1 << 5
    MAKE_CHAR = 1 << 6
    MAKE_DIR = 1 << 7
    MAKE_REG = 1 << 8
    MAKE_SOCK = 1 << 9
    MAKE_FIFO = 1 << 10
    MAKE_BLOCK = 1 << 11
    MAKE_SYM = 1 << 12
    REFER = 1 << 13  # ABI 2
    TRUNCATE = 1 << 14  # ABI 3
    IOCTL_DEV = 1 << 15  # ABI 5


class Net(IntFlag):
    """``LANDLOCK_ACCESS_NET_*`` (ABI 4)."""

    BIND_TCP = 1 << 0
    CONNECT_TCP = 1 << 1


class Scope(IntFlag):
    """``LANDLOCK_SCOPE_*`` (ABI 6)."""

    ABSTRACT_UNIX_SOCKET = 1 << 0
    SIGNAL = 1 << 1


# The rights a rule on a single file (not a folder) may carry.
FILE_RIGHTS = FS.EXECUTE | FS.WRITE_FILE | FS.READ_FILE | FS.TRUNCATE | FS.IOCTL_DEV
READ = FS.READ_FILE | FS.READ_DIR
RUN = READ | FS.EXECUTE
EVERYTHING = FS((1 << 16) - 1)


def fs_rights(abi: int) -> FS:
    """Every file right the kernel of ``abi`` knows."""
    if abi < 1:
        return FS(0)
    rights = FS((1 << 13) - 1)
    if abi >= 2:
        rights |= FS.REFER
    if abi >= 3:
        rights |= FS.TRUNCATE
    if abi >= 5:
        rights |= FS.IOCTL_DEV
    return rights


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in <linux/landlock.h>
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def _syscall(*args: object) -> int:
    assert _libc is not None
    result = int(_libc.syscall(*args))
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))
    return result


_ABI: int | None = None


def abi() -> int:
    """The Landlock ABI version this kernel offers, 0 without Landlock (not Linux, too old,
    or not enabled among the security modules)."""
    global _ABI
    if _ABI is None:
        try:
            _ABI = _syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                            ctypes.c_uint32(CREATE_RULESET_VERSION)) if _libc else 0
        except OSError:
            _ABI = 0
    return _ABI


@dataclass(frozen=True)
class Handled:
    """What a ruleset denies unless a rule allows it (only what the kernel knows)."""

    fs: FS
    net: Net
    scope: Scope


class Ruleset:
    """A ruleset being built in the parent: ``allow(path, rights)`` per folder or file, then
    ``restrict_self()`` in the child.  ``close()`` in the parent once the child runs."""

    def __init__(self, *, files: bool = True, tcp: bool = True, scopes: bool = True) -> None:
        version = abi()
        if version < 1:
            raise OSError(0, "this system has no Landlock")
        fs = fs_rights(version) if files else FS(0)
        net = Net.BIND_TCP | Net.CONNECT_TCP if tcp and version >= 4 else Net(0)
        scope = Scope.SIGNAL | Scope.ABSTRACT_UNIX_SOCKET if scopes and version >= 6 else Scope(0)
        self.handled = Handled(fs, net, scope)
        attr = _RulesetAttr(int(fs), int(net), int(scope))
        size = 24 if version >= 6 else 16 if version >= 4 else 8
        self.fd = _syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size),
                           ctypes.c_uint32(0))
        os.set_inheritable(self.fd, False)
        self._attr = _PathBeneathAttr()  # reused by allow(), also in the child

    def allow(self, path: str, rights: FS) -> None:
        """Allow ``rights`` (masked to what is handled; to a file's rights on a file) below
        ``path``.  Raises ``OSError`` when the path cannot be opened."""
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        try:
            self.allow_fd(fd, rights)
        finally:
            os.close(fd)

    def allow_fd(self, fd: int, rights: FS) -> None:
        """``allow`` for a path already opened (``O_PATH``); safe between fork and exec."""
        wanted = rights & self.handled.fs
        if not _is_folder(fd):
            wanted &= FILE_RIGHTS
        if not wanted:
            return
        self._attr.allowed_access = int(wanted)
        self._attr.parent_fd = fd
        _syscall(SYS_ADD_RULE, self.fd, RULE_PATH_BENEATH, ctypes.byref(self._attr),
                 ctypes.c_uint32(0))

    def restrict_self(self) -> None:
        """Enforce the ruleset on this process and all it starts (``no_new_privs`` must be
        set first).  Meant for the child between fork and exec."""
        _syscall(SYS_RESTRICT_SELF, self.fd, ctypes.c_uint32(0))

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _is_folder(fd: int) -> bool:
    import stat

    return stat.S_ISDIR(os.fstat(fd).st_mode)


__all__ = ["EVERYTHING", "FILE_RIGHTS", "FS", "READ", "RUN", "Handled", "Net", "Ruleset",
           "Scope", "abi", "fs_rights"]
