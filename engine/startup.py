"""Start-up, told apart from thinking: the compiled code's first-run compile and the engine's
warm-up, announced before they start (with how long they take) and timed on their own.

A move's ``--time`` is its thinking time, counted from when its search starts; what a command
spends before that (imports, loading the book, compiling or loading the compiled code) is
start-up, reported beside the move, not taken out of it.  Where a server's clock runs
(``online``), the client's safety margin covers start-up instead.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, cast

from numba.core.event import Event, Listener, register, unregister

# numba's event functions are untyped: their types, as they are documented.
_register = cast(Callable[[str, Listener], None], register)
_unregister = cast(Callable[[str, Listener], None], unregister)

if TYPE_CHECKING:
    from engine.engine import Engine

ROOT = Path(__file__).resolve().parent.parent
# numba's cache files of the compiled code's entry points, by package: present once compiled.
COMPILED = {"search": "negamax.negamax-*.nbi", "solver": "core.solve-*.nbi"}
COMPILE_SECONDS = "about 5-20 s"  # the 2-core machine: 6.5 s the search, 16 s with the solver (load 1)


def _cache_folders(package: str) -> list[Path]:
    folders = [ROOT / package / "__pycache__"]
    if os.environ.get("NUMBA_CACHE_DIR"):
        folders.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    return folders


def compiled_code_cached(folders: Sequence[Path] | None = None) -> bool:
    """True if numba's on-disk cache (in ``folders``; default: where numba keeps it) holds the
    compiled search and solver: not a first run."""
    for package, pattern in COMPILED.items():
        where = _cache_folders(package) if folders is None else folders
        if not any(any(folder.rglob(pattern)) for folder in where if folder.exists()):
            return False
    return True


def say(line: str) -> None:
    """A start-up notice: on stderr, at once (stdout may be a pipe or JSON)."""
    print(line, file=sys.stderr, flush=True)


class _FirstCompile(Listener):
    """Says the notice when numba starts its first compilation (once)."""

    def __init__(self, notice: Callable[[str], None]) -> None:
        self.notice = notice
        self.said = False

    def on_start(self, event: Event) -> None:
        if not self.said:
            self.said = True
            self.notice(f"first run: compiling the search and the solver ({COMPILE_SECONDS},"
                        " once; not counted in any move's time)...")

    def on_end(self, event: Event) -> None:
        pass


@contextmanager
def compile_notice(notice: Callable[[str], None] = say) -> Iterator[None]:
    """Within the block, on a first run, say so when the compilation starts: at the first
    function numba compiles, not before (a command stopped by a bad input says nothing of it,
    and one that loads the compiled code from numba's cache says nothing at all)."""
    if compiled_code_cached():
        yield
        return
    listener = _FirstCompile(notice)
    _register("numba:compile", listener)
    try:
        yield
    finally:
        _unregister("numba:compile", listener)


def warm_up(engine: Engine, clock: Callable[[], float] = time.perf_counter) -> float:
    """Load (or compile) the engine's compiled code now; the seconds it took."""
    start = clock()
    engine.warm_up()
    return clock() - start
