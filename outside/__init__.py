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

from collections.abc import Callable
from typing import Any

from board import Board
from outside.connectx import ConnectXPlayer
from outside.faults import AgentFault, AgentStopped
from outside.program import ProgramPlayer
from outside.sandbox import Layers, check_strictness, system_layers
from outside.specs import KINDS_HELP, SPEC_KINDS, OutsideSpec

OutsidePlayer = ConnectXPlayer | ProgramPlayer


def build_outside(spec: OutsideSpec, *,
                  observe: Callable[[Board, float], dict[str, Any]]) -> OutsidePlayer:
    """The player of a checked spec, called by its label.  ``observe(board, overage)`` is the
    ConnectX observation of a position (``ecosystems.connectx.observation_of``)."""
    if spec.kind == "connectx":
        return ConnectXPlayer(spec.target, seconds=spec.move_seconds(), observe=observe,
                              python=spec.python, name=spec.label, strictness=spec.sandbox)
    return ProgramPlayer(spec.target, seconds=spec.move_seconds(), name=spec.label,
                         strictness=spec.sandbox)


def end_game(player: object) -> None:
    """End an outside player's process after a game (nothing for any other player): call it
    when a game is over, so no process waits for the next one."""
    if isinstance(player, ConnectXPlayer | ProgramPlayer):
        player.end_game()


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
