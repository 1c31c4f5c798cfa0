"""The arenas' packages, an optional extra: found, or refused in one line saying what to install."""

from __future__ import annotations

import importlib.util

from settings import UsageError

EXTRA = "arenas"
INSTALL = f'pip install -e ".[{EXTRA}]"'
# module to import -> the package that provides it
PACKAGES = {"kaggle_environments": "kaggle-environments", "pettingzoo": "pettingzoo[classic]",
            "pyspiel": "open_spiel"}


def require(module: str, who: str) -> None:
    """Nothing when ``module`` can be imported; else ``UsageError`` naming ``who`` needs it (a
    player spec, a command) and the extra that installs it.  Looks the module up without
    importing it (kaggle-environments takes a second to import)."""
    if importlib.util.find_spec(module) is None:
        raise UsageError(f"{who} needs {PACKAGES.get(module, module)}, which is not installed:"
                         f" install the {EXTRA} extra ({INSTALL})")
