"""The command line that repeats a run, written into its report and its work file."""

from __future__ import annotations

import shlex


def repeat_command(command: str, *arguments: str, **flags: object) -> str:
    """``python agent.py COMMAND ARGUMENTS --FLAG VALUE ...``, quoted for a shell.

    A flag's keyword is its name with ``-`` as ``_`` (``opening_plies`` is ``--opening-plies``),
    in the order given; a flag whose value is None or False is left out, True stands alone, a
    float is written in its shortest form (``0.1``, not ``0.10000``).
    """
    parts = ["python", "agent.py", command, *arguments]
    for name, value in flags.items():
        if value is None or value is False:
            continue
        parts.append("--" + name.replace("_", "-"))
        if value is not True:
            parts.append(f"{value:g}" if isinstance(value, float) else str(value))
    return shlex.join(parts)
