"""An outside player built from its checked spec (``build_outside``), and its process ended
after a game (``end_game``): what ``ecosystems.players`` calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from board import Board
from outside.connectx import ConnectXPlayer
from outside.program import ProgramPlayer
from outside.specs import OutsideSpec

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


__all__ = ["OutsidePlayer", "build_outside", "end_game"]
