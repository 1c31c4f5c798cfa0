"""``njit``: numba's compiler when numba is installed, else the same functions left as Python.

The compiled code of the board, the evaluations and the search is written in the part of Python
that numba compiles, and it computes the same as plain Python (``NUMBA_DISABLE_JIT=1`` runs it
so).  The project needs numba for its speed; the assignment's hand-in (``agent.py handin``)
carries these modules to a machine that may have only the course's packages (gym, NumPy,
requests), where they run interpreted: the same moves, scores and node counts, fewer nodes a
second.  Every module of those packages takes ``njit`` from here, so that one import decides.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, Generic, ParamSpec, Protocol, TypeVar, overload


def _import_numba() -> ModuleType | None:
    """numba, or None when it is not installed.  Its array maths, which its first compile or
    cache load imports, looks for a BLAS by importing ``scipy.linalg`` (about 0.2 s of a move's
    start-up): nothing compiled here does linear algebra, so that import is refused while numba's
    array maths loads (numba then reports no BLAS), and ``scipy.linalg`` imports as usual after."""
    try:
        import numba as installed
    except ImportError:  # only the course's packages: the functions run as they are written
        return None
    refused = "scipy.linalg" not in sys.modules
    if refused:
        sys.modules["scipy.linalg"] = None  # type: ignore[assignment]  # an import of it fails
    try:
        import numba.np.arraymath
    finally:
        if refused:
            del sys.modules["scipy.linalg"]
    return installed


numba = _import_numba()

P = ParamSpec("P")
R = TypeVar("R")


class Compiled(Protocol, Generic[P, R]):
    """A function as ``njit`` returns it: called as the function it compiled, which it keeps as
    ``py_func`` (numba's name; the function itself when nothing was compiled)."""

    py_func: Callable[P, R]

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R: ...


@overload
def njit(function: Callable[P, R], /) -> Compiled[P, R]: ...


@overload
def njit(**options: Any) -> Callable[[Callable[P, R]], Compiled[P, R]]: ...


def njit(function: Any = None, /, **options: Any) -> Any:
    """numba's ``njit`` (``@njit`` or ``@njit(cache=True, ...)``); without numba, the function
    itself, its ``py_func`` the function too."""
    if numba is not None:
        return numba.njit(**options) if function is None else numba.njit(function, **options)
    if function is None:
        return _interpreted
    return _interpreted(function)


def _interpreted(function: Any) -> Any:
    function.py_func = function
    return function


__all__ = ["njit"]
