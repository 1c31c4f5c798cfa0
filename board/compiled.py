"""``njit``: numba's compiler when numba is installed, else the same functions left as Python.

The compiled code of the board, the evaluations and the search is written in the part of Python
that numba compiles, and it computes the same as plain Python (``NUMBA_DISABLE_JIT=1`` runs it
so).  The project needs numba for its speed; the assignment's hand-in (``agent.py handin``)
carries these modules to a machine that may have only the course's packages (gym, NumPy,
requests), where they run interpreted: the same moves, scores and node counts, fewer nodes a
second.  Every module of those packages takes ``njit`` from here, so that one import decides.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar, overload

try:
    import numba as installed

    numba: ModuleType | None = installed
except ImportError:  # only the course's packages: the functions run as they are written
    numba = None

Function = TypeVar("Function", bound=Callable[..., Any])


@overload
def njit(function: Function, /) -> Function: ...


@overload
def njit(**options: Any) -> Callable[[Function], Function]: ...


def njit(function: Any = None, /, **options: Any) -> Any:
    """numba's ``njit`` (``@njit`` or ``@njit(cache=True, ...)``); without numba, the function
    itself.  Typed as the function it decorates: a compiled function is called as that one."""
    if numba is not None:
        return numba.njit(**options) if function is None else numba.njit(function, **options)
    return (lambda undecorated: undecorated) if function is None else function


__all__ = ["njit"]
