"""The opening book's two files: the compressed form that is shipped, and the mapped form that
is used in place, with the cache that turns the first into the second once.

**The compressed form** (``C4BOOK03``, ``solver/data/book.bin``), little-endian, checked when
it is unpacked:

======  =====================  ===========================================================
offset  size                   content
======  =====================  ===========================================================
0       8                      magic ``C4BOOK03``
8       4                      ``count``: number of positions (uint32)
12      1                      ``complete``: every position with at most this many discs is in
                               the book (uint8; 255: none)
13      32                     SHA-256 of the payload (before compression)
45      to the end             the payload, compressed with zlib
======  =====================  ===========================================================

The payload: the keys, strictly increasing, as differences (the first key, then each key minus
the one before; int64, ``count`` of them), then ``count`` scores (int8: the exact score, or with
the flag 0 the outcome, 1 win, 0 draw, -1 loss), ``count`` columns (int8, 0-6, in the stored
orientation) and ``count`` flags (uint8: 1 = the score is exact).  The keys of a complete layer
lie close together, so their differences compress about tenfold (the book complete to 13
discs: 17 MB for 23 million positions).  Older books still read: ``C4BOOK02`` stores the
payload uncompressed with the keys themselves, ``C4BOOK01`` has neither the ``complete`` byte
nor the flags (every entry exact, no complete layer).

**The mapped form** (``C4BKMAP1``): the book's entries as the solver's core probes them
(``solver.core.pack_entries``: one int64 a position, sorted), behind a header of 64 bytes, so
that the file is the array.  Opening it maps it (``mmap``, read only): nothing is read or copied
up front, a lookup touches a few pages, and the pages are shared by every process that maps the
file (a process pool's workers, the board's server).

======  =====================  ===========================================================
0       8                      magic ``C4BKMAP1``
8       8                      ``count`` (uint64)
16      8                      ``complete`` (int64; -1: none)
24      32                     the SHA-256 of the compressed form's payload it was made from
56      4                      CRC-32 of the sampled entries (``_sampled``)
60      4                      CRC-32 of the 60 bytes before
64      8 * (count + 1)        the packed book (int64): ``complete``, then the entries
======  =====================  ===========================================================

**The cache.**  ``mapped_packed`` maps a mapped file as it is (the ConnectX archive ships one),
and unpacks a compressed one once into the cache folder (``cache_folder``: the environment
variable ``CONNECT4_AGENT_CACHE``, else ``$XDG_CACHE_HOME/connect4-agent``, else
``~/.cache/connect4-agent``; on Windows ``%LOCALAPPDATA%\\connect4-agent\\cache``), as
``book-<digest>.map``, named by the SHA-256 of the payload in its header, so a rebuilt book
gets a file of its own.  The unpacking writes a temporary file beside it and renames it: two
processes unpacking at once never see half a file (the last rename wins; a process keeps the
file it mapped).  Opening checks the header, the file's size and a sample of 1,024 entries
spread over it (their order and their CRC); a file that fails is unpacked again, never
trusted.  Where the cache folder cannot be written, the book is unpacked into memory instead.
Deleting the folder is safe at any time: the next process unpacks again.
"""

from __future__ import annotations

import contextlib
import hashlib
import mmap
import os
import struct
import sys
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
from numba import njit

from board import bits
from settings import ConfigError
from solver import core

MAGIC = b"C4BOOK03"
MAGIC_V2 = b"C4BOOK02"
MAGIC_V1 = b"C4BOOK01"
ENTRY_BYTES = 11  # in the payload: a key, a score, a column and a flag
_HEADER = struct.Struct("<8sIB32s")
_HEADER_V1 = struct.Struct("<8sI32s")
NO_COMPLETE_LAYER = 255

MAP_MAGIC = b"C4BKMAP1"
_MAP_HEADER = struct.Struct("<8sQq32sI")  # then the CRC-32 of these 60 bytes
MAP_HEADER_BYTES = _MAP_HEADER.size + 4
SAMPLES = 1024
CACHE_ENV = "CONNECT4_AGENT_CACHE"
_APP = "connect4-agent"


class BookError(ConfigError):
    """The opening book file is missing, damaged or not a book (a configuration problem)."""


# --- the compressed form ------------------------------------------------------------------


def compressed_bytes(keys: np.ndarray, scores: np.ndarray, columns: np.ndarray,
                     exact: np.ndarray, complete_discs: int) -> bytes:
    """The compressed form (``C4BOOK03``) of sorted canonical keys with their scores, columns
    and exact flags."""
    differences = np.diff(keys.astype(np.int64), prepend=np.int64(0))
    payload = (differences.astype("<i8").tobytes() + scores.astype("i1").tobytes()
               + columns.astype("i1").tobytes() + exact.astype("u1").tobytes())
    complete = NO_COMPLETE_LAYER if complete_discs < 0 else complete_discs
    header = _HEADER.pack(MAGIC, len(keys), complete, hashlib.sha256(payload).digest())
    return header + zlib.compress(payload, 9)


@dataclass(frozen=True)
class Header:
    """What the header of a compressed book says."""

    magic: bytes
    count: int
    complete_discs: int
    digest: bytes  # the payload's SHA-256
    size: int  # bytes of the header

    @property
    def entry_bytes(self) -> int:
        return 10 if self.magic == MAGIC_V1 else ENTRY_BYTES


def read_header(data: bytes | memoryview, path: Path) -> Header:
    """The header at the start of a compressed book's ``data``; ``BookError`` if it is not one."""
    magic = bytes(data[:8])
    if magic == MAGIC_V1 and len(data) >= _HEADER_V1.size:
        _, count, digest = _HEADER_V1.unpack_from(data)
        return Header(magic, count, -1, digest, _HEADER_V1.size)
    if magic in (MAGIC, MAGIC_V2) and len(data) >= _HEADER.size:
        _, count, complete, digest = _HEADER.unpack_from(data)
        return Header(magic, count, -1 if complete == NO_COMPLETE_LAYER else complete, digest,
                      _HEADER.size)
    raise BookError(f"opening book {path}: not a book file (bad magic)")


def _read_source(path: Path) -> memoryview:
    try:
        return memoryview(path.read_bytes())
    except OSError as exc:
        raise BookError(f"opening book {path}: cannot read: {exc.strerror or exc}") from None


def read_packed(path: Path, data: memoryview | None = None) -> np.ndarray:
    """A compressed book (any format) read and checked into memory: the packed array
    (``data``: the file's bytes, if they are read already)."""
    if data is None:
        data = _read_source(path)
    header = read_header(data, path)
    packed = np.empty(header.count + 1, dtype=np.int64)
    unpack_into(data, header, packed, path)
    return packed


_INPUT_BLOCK = 1 << 20  # compressed bytes inflated at a time
_OUTPUT_BLOCK = 1 << 22  # and at most so many bytes of payload from them at a time


def _inflate_into(data: memoryview, targets: list[memoryview], path: Path) -> bytes:
    """Inflate a format-3 payload straight into ``targets`` (writable byte views, filled one
    after the other), a block at a time, without a copy of the whole payload; return its
    SHA-256.  Raises ``BookError`` when the data does not fill them exactly."""
    inflate = zlib.decompressobj()
    digest = hashlib.sha256()
    remaining = sum(len(target) for target in targets)
    spans = iter(targets)
    target, filled = next(spans, memoryview(bytearray())), 0
    leftover = False  # compressed data after the end of the stream
    try:
        for start in range(0, len(data), _INPUT_BLOCK):
            if inflate.eof:
                leftover = True
                break
            pending: bytes | memoryview = data[start:start + _INPUT_BLOCK]
            while pending and not inflate.eof:
                chunk = memoryview(inflate.decompress(pending,
                                                      min(remaining + 1, _OUTPUT_BLOCK)))
                pending = inflate.unconsumed_tail
                if len(chunk) > remaining:
                    raise BookError(f"opening book {path}: more data than its count of entries:"
                                    " a damaged file")
                remaining -= len(chunk)
                digest.update(chunk)
                while chunk:
                    if filled == len(target):
                        target, filled = next(spans), 0
                    part = chunk[:len(target) - filled]
                    target[filled:filled + len(part)] = part
                    filled += len(part)
                    chunk = chunk[len(part):]
    except zlib.error as exc:
        raise BookError(f"opening book {path}: the data does not decompress ({exc}):"
                        " a damaged or truncated file") from None
    if not inflate.eof or inflate.unused_data or leftover:
        raise BookError(f"opening book {path}: the compressed data is cut short or too long:"
                        " a damaged or truncated file")
    if remaining:
        raise BookError(f"opening book {path}: {remaining} bytes of data missing for its"
                        " count of entries (truncated?)")
    return digest.digest()


def unpack_into(data: memoryview, header: Header, packed: np.ndarray, path: Path) -> None:
    """Decode and check the compressed book ``data`` (its ``header`` read) into ``packed``
    (int64, ``count + 1``: in memory, or a file mapped for writing); ``BookError`` says what
    is wrong.

    The entries are filled in place: a format-3 payload is inflated straight into them (the
    keys' differences) and into one byte array (scores, columns, flags), then checked and
    packed in one pass, so unpacking holds 3 bytes a position beside the entries and the file,
    not the payload (a book complete to 13 discs: a payload of 256 MB)."""
    count = header.count
    packed[0] = header.complete_discs
    keys = packed[1:]
    if header.magic == MAGIC:
        values = np.empty((ENTRY_BYTES - 8) * count, dtype=np.uint8)
        payload_digest = _inflate_into(data[header.size:],
                                       [keys.view(np.uint8).data, values.data], path)
        if sys.byteorder == "big":
            keys.byteswap(inplace=True)  # the file's differences are little-endian
    else:
        payload = data[header.size:]
        width = header.entry_bytes
        if len(payload) != width * count:
            raise BookError(f"opening book {path}: {len(payload)} bytes of data for {count}"
                            f" entries, expected {width * count} (truncated?)")
        payload_digest = hashlib.sha256(payload).digest()
        keys[:] = np.frombuffer(payload, dtype="<i8", count=count)
        values = np.frombuffer(payload, dtype=np.uint8, offset=8 * count)
    if payload_digest != header.digest:
        raise BookError(f"opening book {path}: checksum mismatch (damaged file)")
    # ``values``: the scores, the columns, then (from format 2 on) the exact flags.
    scores, columns = values[:count].view(np.int8), values[count:2 * count].view(np.int8)
    exact = values[2 * count:] if header.entry_bytes == ENTRY_BYTES else np.ones(count, np.uint8)
    problem = _decode_entries(keys, scores, columns, exact, header.magic == MAGIC)
    if problem >= 0:
        raise BookError(f"opening book {path}: {_PROBLEMS[problem]}")


_PROBLEMS = ("keys are not strictly increasing", "a key is negative",
             "a key has bits beyond the board", f"a column is outside 0-{bits.WIDTH - 1}",
             "a score is outside the possible range", "a flag is neither 0 nor 1",
             "an outcome-only entry is not -1, 0 or 1")


@njit(cache=True)
def _decode_entries(keys: np.ndarray, scores: np.ndarray, columns: np.ndarray,
                    exact: np.ndarray, differences: bool) -> int:
    """Check the entries read and pack them into ``keys`` in place (``core.pack_entry``), in one
    pass without temporaries; ``differences``: ``keys`` holds each key minus the one before.
    Returns -1, or the first problem found (an index into ``_PROBLEMS``)."""
    limit = bits.CELLS // 2
    previous = np.int64(0)
    for i in range(keys.size):
        key = keys[i] + previous if differences else keys[i]
        if i > 0 and key <= previous:
            return 0
        if key < 0:
            return 1
        if key >> (bits.WIDTH * bits.H1):
            return 2
        if not 0 <= columns[i] < bits.WIDTH:
            return 3
        if not -limit <= scores[i] <= limit:
            return 4
        if exact[i] > 1:
            return 5
        if not exact[i] and not -1 <= scores[i] <= 1:
            return 6
        previous = key
        keys[i] = core.pack_entry(key, int(scores[i]), int(columns[i]), exact[i] != 0)
    return -1


# --- the mapped form ----------------------------------------------------------------------


def _sampled(count: int) -> np.ndarray:
    """The indices in the packed book (1 to ``count``) of the entries the opening check reads:
    ``SAMPLES`` spread evenly, the first and the last included (every one in a smaller book)."""
    if count <= SAMPLES:
        return np.arange(1, count + 1, dtype=np.int64)
    return np.linspace(1, count, SAMPLES).astype(np.int64)


def _map_header(packed: np.ndarray, digest: bytes) -> bytes:
    sample = packed[_sampled(packed.size - 1)].astype("<i8").tobytes()
    head = _MAP_HEADER.pack(MAP_MAGIC, packed.size - 1, int(packed[0]), digest,
                            zlib.crc32(sample))
    return head + struct.pack("<I", zlib.crc32(head))


def mapped_bytes(packed: np.ndarray, digest: bytes = bytes(32)) -> bytes:
    """The mapped form of a packed book (``digest``: of the compressed form it comes from)."""
    return _map_header(packed, digest) + packed.astype("<i8").tobytes()


def map_file(path: Path, digest: bytes | None = None) -> np.ndarray:
    """The packed book of the mapped file ``path``, mapped read only, after the opening check
    (and, given ``digest``, that it was made from that compressed book); ``BookError`` if it
    fails, ``OSError`` if the file cannot be opened.

    The sampled entries are read from the file, not through the mapping: a page fault on a
    mapped file maps the 16 pages around it that the system holds, and 1,024 of them would add
    64 MB to the process's resident memory (shared, but counted)."""
    with path.open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        head = handle.read(MAP_HEADER_BYTES)
        problem = _header_problem(head, size, digest)
        if problem:
            raise BookError(f"opening book {path}: {problem}")
        _, count, complete, _, sample_crc = _MAP_HEADER.unpack_from(head)
        read = handle.read(8)
        sample = b"".join(_read_at(handle, MAP_HEADER_BYTES + 8 * int(i), 8)
                          for i in _sampled(count))
        if (int.from_bytes(read, "little", signed=True) != complete
                or zlib.crc32(sample) != sample_crc or not _increasing(sample)):
            raise BookError(f"opening book {path}: its entries do not match its header"
                            " (damaged)")
        view = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    packed = np.frombuffer(view, dtype="<i8", offset=MAP_HEADER_BYTES, count=count + 1)
    if sys.byteorder == "big":  # pragma: no cover (the file is little-endian)
        packed = packed.astype(np.int64)
    return packed


def _read_at(handle: BinaryIO, offset: int, size: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(handle.fileno(), size, offset)
    handle.seek(offset)  # pragma: no cover (Windows)
    return handle.read(size)  # pragma: no cover


def _increasing(entries: bytes) -> bool:
    values = np.frombuffer(entries, dtype="<i8")
    return bool((values[1:] > values[:-1]).all())


def _header_problem(head: bytes, size: int, digest: bytes | None) -> str:
    """What is wrong with a mapped file's header (read: ``head``; the file's ``size``), or ''."""
    if len(head) < MAP_HEADER_BYTES or head[:8] != MAP_MAGIC:
        return "not a mapped book (bad magic, or cut short)"
    if struct.unpack_from("<I", head, _MAP_HEADER.size)[0] != zlib.crc32(head[:_MAP_HEADER.size]):
        return "its header is damaged"
    _, count, _, source, _ = _MAP_HEADER.unpack_from(head)
    if size != MAP_HEADER_BYTES + 8 * (count + 1):
        return f"{size} bytes for {count} entries (truncated?)"
    if digest is not None and source != digest:
        return "made from another book"
    return ""


# --- the cache ----------------------------------------------------------------------------


def cache_folder() -> Path:
    """Where compressed books are unpacked (see the module's docstring)."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen:
        return Path(chosen).expanduser()
    if os.name == "nt":  # pragma: no cover (Windows)
        local = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(local) / _APP / "cache"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / _APP


def cache_path(header: Header) -> Path:
    """The mapped file of the compressed book whose header is ``header``."""
    return cache_folder() / f"book-{header.digest.hex()[:32]}.map"


def unpack_to_file(data: memoryview, header: Header, source: Path, target: Path) -> None:
    """Unpack the compressed book ``data`` into the mapped file ``target``, atomically: written
    beside it under a temporary name, then renamed.  ``OSError`` if the folder cannot be
    written, ``BookError`` if the book is damaged."""
    target.parent.mkdir(parents=True, exist_ok=True)
    size = MAP_HEADER_BYTES + 8 * (header.count + 1)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                         suffix=".tmp")
    try:
        with os.fdopen(handle, "r+b") as file:
            os.fchmod(file.fileno(), 0o644)  # (mkstemp's file is its owner's alone)
            file.truncate(size)
            # Closed by hand, not by ``with``: after an error the traceback still holds views
            # of the mapping, and closing it then would raise in place of the error.
            view = mmap.mmap(file.fileno(), size)
            packed = np.frombuffer(view, dtype=np.int64, offset=MAP_HEADER_BYTES)
            unpack_into(data, header, packed, source)
            if sys.byteorder == "big":  # pragma: no cover (the file is little-endian)
                packed.byteswap(inplace=True)
            view[:MAP_HEADER_BYTES] = _map_header(packed, header.digest)
            del packed
            view.close()
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def mapped_packed(path: Path) -> np.ndarray:
    """The packed book of the file ``path``, mapped read only: a mapped file as it is, a
    compressed one through the cache (unpacked first if its mapped file is missing or fails
    the opening check; into memory where the cache cannot be written).  ``BookError`` says
    what is wrong with a file that is not a sound book."""
    try:
        with path.open("rb") as handle:
            head = handle.read(MAP_HEADER_BYTES)
    except OSError as exc:
        raise BookError(f"opening book {path}: cannot read: {exc.strerror or exc}") from None
    if head[:8] == MAP_MAGIC:
        return map_file(path)
    header = read_header(head, path)
    try:
        return map_file(cache_path(header), header.digest)
    except (OSError, BookError):
        pass  # not unpacked yet, or damaged: unpacked again below
    data = _read_source(path)
    header = read_header(data, path)  # (the file may have changed since its header was read)
    cached = cache_path(header)
    try:
        unpack_to_file(data, header, path, cached)
        return map_file(cached, header.digest)
    except OSError:
        return read_packed(path, data)  # the cache cannot be written: this process's own copy
