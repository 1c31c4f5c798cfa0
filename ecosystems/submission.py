"""A Kaggle ConnectX submission: ``submission.tar.gz`` with ``main.py`` at its root.

The archive holds our engine's packages as they are installed here (their ``.py`` files, the
fitted evaluations' weights, and in strongest mode the opening book) and a ``main.py`` whose
last callable is the agent (kaggle-environments plays the last callable a file defines).

kaggle-environments executes ``main.py`` with its folder on ``sys.path`` only while it runs
(and without a ``__file__``), so ``main.py`` puts its folder first on ``sys.path`` and leaves it
there: the engine imports modules in later calls too, and a package of the same name installed
where the agent runs must not be taken for ours.  numba caches the compiled engine beside its
sources (``__pycache__``); when the folder cannot be written, ``main.py`` points numba's cache to
the temporary folder instead (``NUMBA_CACHE_DIR``, unless it is set).  Loading imports and warms up the engine
(``ecosystems.connectx.archive_agent``): the load is charged to the first move, which counts
from the first line of ``main.py``.

The Python that runs it needs what the engine imports: numpy, numba and pydantic 2
(``REQUIRES``), on Python 3.11 or later.

The opening book goes in its mapped form (``solver.bookfile``), which the agent uses in place
where Kaggle unpacks the archive: nothing to unpack or read into memory when it loads.  It goes
in whole while it adds at most ``BOOK_LIMIT`` compressed bytes to the archive; a larger one is
cut to its deepest complete layer that fits (``Book.up_to``): submissions with data files over
about 5-10 MB have been reported to fail.  The shipped book (complete to 13 discs) is cut to 10
discs: 2.9 MB in the archive, 9.7 MB unpacked (to 11 discs it would add 7.8 MB).  The book's
summary (``book.json``) stays out: it describes the whole book.
"""

from __future__ import annotations

import importlib.util
import io
import json
import tarfile
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

from ecosystems.connectx import PACKAGES
from settings import AgentSettings, SolverSettings, UsageError
from vocabulary import Mode

ARCHIVE = "submission.tar.gz"
REQUIRES = "numpy, numba and pydantic 2, on Python 3.11 or later"
# Modules of ``ecosystems`` the agent needs (the other adapters import the arenas' packages).
ECOSYSTEMS_MODULES = ("__init__.py", "connectx.py", "session.py")
# Data files each package reads, beside its .py files (as pyproject.toml's package-data).
DATA = {"heuristics": ("data/*.json",)}
BOOK_FILE = "solver/data/book.bin"
BOOK_LIMIT = 5_000_000  # bytes the book adds to the compressed archive at most
# gzip's level for the archive: on the mapped book, level 6 compresses smaller than level 9
# (2.9 MB against 3.0 MB for the book to 10 discs) and 6 times faster (1.5 s against 8.4 s).
COMPRESS_LEVEL = 6

MAIN = '''\
"""Connect Four for Kaggle ConnectX: our engine in {mode} mode, written by `python agent.py kaggle`.

kaggle-environments plays the last callable this file defines: ``agent`` below.  Everything it
imports is in this archive, beside this file; it needs {requires}.
"""

import os
import sys
import tempfile
import time

LOADING_STARTED = time.perf_counter()  # the first move counts from here: loading is part of it
try:
    HERE = os.path.dirname(os.path.abspath(__file__))
except NameError:  # kaggle-environments executes this file without a __file__
    HERE = os.path.dirname(os.path.abspath(sys._getframe().f_code.co_filename))
# First on the path, and left there: later calls import too, and our packages must not be
# confused with packages of the same names installed elsewhere.
if sys.path[:1] != [HERE]:
    sys.path.insert(0, HERE)
# numba keeps the compiled engine beside its sources; where they cannot be written, elsewhere.
if "NUMBA_CACHE_DIR" not in os.environ and not os.access(HERE, os.W_OK):
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), "connectx-numba-cache")

from ecosystems.connectx import archive_agent  # noqa: E402

PLAY = archive_agent(HERE, {agent}, {solver}, seconds={seconds}, loading_started=LOADING_STARTED)


def agent(observation, configuration):
    """ConnectX's agent: our column (a Python int) for the observation."""
    return PLAY(observation, configuration)
'''


def main_py(agent: AgentSettings, solver: SolverSettings, seconds: float | None) -> str:
    """The text of the archive's ``main.py`` for these settings."""
    return MAIN.format(mode=agent.mode, requires=REQUIRES,
                       agent=repr(json.loads(agent.model_dump_json())),
                       solver=repr(json.loads(solver.model_dump_json())), seconds=repr(seconds))


def _package_folder(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise UsageError(f"the package {name!r} is not installed: cannot write the archive")
    return Path(next(iter(spec.submodule_search_locations)))


def archive_files(mode: str) -> Iterator[tuple[str, Path]]:
    """(name in the archive, file here) of every file the agent needs in ``mode``."""
    for package in PACKAGES:
        folder = _package_folder(package)
        if package == "ecosystems":
            sources = [folder / name for name in ECOSYSTEMS_MODULES]
        else:
            sources = sorted(path for path in folder.rglob("*.py") if "__pycache__" not in path.parts)
        for pattern in DATA.get(package, ()):
            sources += sorted(folder.glob(pattern))
        for path in sources:
            yield f"{package}/{path.relative_to(folder).as_posix()}", path


def archive_book(limit: int = BOOK_LIMIT) -> tuple[bytes, int]:
    """The book file for the archive, in its mapped form, and the discs it is complete to: the
    shipped book if it compresses to at most ``limit`` bytes, else its deepest complete layers
    that do (tried from the first layer on: the smaller books cost little to compress, and
    the first that does not fit stops the search early)."""
    from solver.book import load_book
    from solver.bookfile import mapped_bytes

    book = load_book()
    fitting: tuple[bytes, int] | None = None
    for discs in range(book.complete_discs + 1):
        data = mapped_bytes((book if discs == book.complete_discs else book.up_to(discs)).packed)
        if not _compresses_within(data, limit):
            break
        fitting = data, discs
    if fitting is None:
        raise UsageError(f"not even the first layers of the opening book fit in {limit} bytes")
    return fitting


def _compresses_within(data: bytes, limit: int) -> bool:
    """Whether ``data`` compresses as the archive does (``COMPRESS_LEVEL``) to at most
    ``limit`` bytes; a block at a time, stopping once the output is over."""
    packer = zlib.compressobj(COMPRESS_LEVEL)
    size = 0
    view = memoryview(data)
    for start in range(0, len(view), 1 << 20):
        size += len(packer.compress(view[start:start + (1 << 20)]))
        if size > limit:
            return False
    return size + len(packer.flush()) <= limit


def _add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    info.mtime = int(time.time())
    archive.addfile(info, io.BytesIO(data))


def write_submission(out: Path, agent: AgentSettings, solver: SolverSettings,
                     seconds: float | None, *, book_limit: int = BOOK_LIMIT) -> tuple[Path, int | None]:
    """Write ``out/submission.tar.gz`` for our agent with these settings; return its path and
    the discs its opening book is complete to (None: no book, as in course mode).

    ``seconds`` caps the time per move (None: ``actTimeout`` less the safety margin).  The
    opening book of strongest mode is the one shipped in ``solver/data``, cut to its deepest
    complete layers that fit in ``book_limit`` bytes if it is larger.
    """
    if solver.book:
        raise UsageError(f"[solver] book = {solver.book!r}: a submission carries the opening book"
                         " shipped in solver/data; leave solver.book empty")
    out.mkdir(parents=True, exist_ok=True)
    path = out / ARCHIVE
    book_discs = None
    with tarfile.open(path, "w:gz", compresslevel=COMPRESS_LEVEL) as archive:
        _add_bytes(archive, "main.py", main_py(agent, solver, seconds).encode())
        for name, source in archive_files(agent.mode):
            archive.add(source, arcname=name, recursive=False)
        if agent.mode == Mode.STRONGEST:
            book, book_discs = archive_book(book_limit)
            _add_bytes(archive, BOOK_FILE, book)
    return path, book_discs
