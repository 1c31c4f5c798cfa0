"""Players from outside: agents we did not write, each in a process of its own, confined.

- ``connectx:PATH``: a Kaggle ConnectX agent file, loaded and judged as Kaggle does
  (``outside.connectx``, run by ``outside/connectx_worker.py`` under any Python);
- ``program:COMMAND``: any executable speaking our line protocol (``outside.program``,
  ``docs/outside-agents.md``).

Each runs in a sandbox (``outside.sandbox``: its own environment and folder, Landlock and
seccomp on Linux, limits that hold for all its processes): it sees no key, file or process of
the user's.  Whatever such an agent does wrong (late, illegal, not a column, a crash, its end, a
flood of output, what the sandbox stopped) is an ``AgentFault`` of a typed kind (a
``vocabulary.Ending``) raised from its ``choose``: the arena records the game as its loss
with that ending
(``arena.match``); an agent ended from outside its sandbox raises ``AgentStopped`` instead,
and the game has no result.  Its process and whatever it started are killed at once
(``outside.process``), at the end of each game (``end_game``), and at the latest when our
process exits.  ``ecosystems.players``, the one parser of every kind of spec, parses these
with the parsers this package contributes (``outside.specs.SPEC_KINDS``) and builds them
(``build_outside``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from outside.faults import AgentFault, AgentStopped
from outside.specs import KINDS_HELP, SPEC_KINDS, OutsideSpec
from vocabulary.lazy import lazy_names

if TYPE_CHECKING:
    from outside.build import OutsidePlayer, build_outside, end_game
    from outside.connectx import ConnectXPlayer
    from outside.program import ProgramPlayer
    from outside.sandbox import Layers, check_strictness, system_layers

# The players run our board's compiled code, and the sandbox loads the kernel's interfaces:
# imported when first asked for, so that the specs (and the command line's help) do not pay.
__getattr__ = lazy_names(__name__, {
    "outside.build": ("OutsidePlayer", "build_outside", "end_game"),
    "outside.connectx": ("ConnectXPlayer",),
    "outside.program": ("ProgramPlayer",),
    "outside.sandbox": ("Layers", "check_strictness", "system_layers"),
})


__all__ = [
    "KINDS_HELP",
    "SPEC_KINDS",
    "AgentFault",
    "AgentStopped",
    "ConnectXPlayer",
    "Layers",
    "OutsidePlayer",
    "OutsideSpec",
    "ProgramPlayer",
    "build_outside",
    "check_strictness",
    "end_game",
    "system_layers",
]
