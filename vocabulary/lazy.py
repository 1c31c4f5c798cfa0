"""A package's names that are imported when first asked for (PEP 562), so that importing the
package, for its light parts or for a command's ``--help``, does not load its heavy ones.

A package lists where each such name lives and binds what ``lazy_names`` returns as its
module-level ``__getattr__``; the names are imported under ``TYPE_CHECKING`` as well, for the
type checker and the reader.  A name, once asked for, is kept in the package like any other.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping


def lazy_names(package: str, sources: Mapping[str, Iterable[str]]) -> Callable[[str], object]:
    """The ``__getattr__`` of ``package`` that imports each name of ``sources`` (module -> the
    names it holds) from its module on first use."""
    where = {name: module for module, names in sources.items() for name in names}
    namespace = vars(sys.modules[package])

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__


__all__ = ["lazy_names"]
