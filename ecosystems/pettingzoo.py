"""PettingZoo's ``connect_four_v3``: our engine as a policy of its AEC loop.

The environment gives the acting agent ``{"observation": planes, "action_mask": mask}``: the
planes are int8 of shape (6, 7, 2), row 0 on top, plane 0 the acting agent's own discs and
plane 1 its opponent's; the mask marks the columns it may play (all zeros when it is not that
agent's turn).  Agents ``player_0`` (who moves first) and ``player_1``.

    env = connect_four_v3.env()
    env.reset(seed=1)
    ours = Policy("course", seconds=0.5)
    for name in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        elif name == "player_0":
            action = ours(observation, name)
        else:
            action = ...  # the other player's
        env.step(action)

The planes are read as a course grid (own discs +1, the opponent's -1) through
``Board.from_grid``, which checks them like any other position.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np

from board import HEIGHT, WIDTH, Board, InvalidGrid
from ecosystems.session import EngineSession
from settings import AgentSettings, SolverSettings, revised
from vocabulary import Mode

PLANES_SHAPE = (HEIGHT, WIDTH, 2)


def board_from_planes(planes: Any) -> Board:
    """The position of an observation's planes, the observing agent to move.

    Raises ``InvalidGrid`` for planes of another shape, values other than 0 and 1, a cell in
    both planes, or a position the observer cannot be to move in."""
    array = np.asarray(planes)
    if array.shape != PLANES_SHAPE:
        raise InvalidGrid(f"observation planes have shape {array.shape}, expected {PLANES_SHAPE}")
    if not np.isin(array, (0, 1)).all():
        raise InvalidGrid("observation planes must hold only 0 and 1")
    own, theirs = array[:, :, 0].astype(np.int8), array[:, :, 1].astype(np.int8)
    if (own & theirs).any():
        raise InvalidGrid("a cell is in both observation planes")
    return Board.from_grid(own - theirs, to_move=1)


def board_from_observation(observation: Mapping[str, Any]) -> Board:
    """The position of an observation (``observation`` and ``action_mask``) of the agent to act.

    Raises ``InvalidGrid`` when it is not that agent's turn (an all-zero mask) or when the mask
    and the planes disagree on the columns that can be played."""
    board = board_from_planes(observation["observation"])
    mask = [int(value) for value in np.asarray(observation["action_mask"]).ravel()]
    if not any(mask):
        raise InvalidGrid("the action mask is all zeros: it is not this agent's turn")
    legal = [int(board.can_play(col) and not board.is_over()) for col in range(WIDTH)]
    if mask != legal:
        raise InvalidGrid(f"the action mask {mask} does not match the planes' playable columns {legal}")
    return board


class Policy:
    """Our engine as a policy: ``policy(observation, agent_name) -> column`` (a Python int).

    ``mode`` ``course`` or ``strongest``, ``seconds`` per move; ``agent`` and ``solver`` the
    settings to start from (default: the built-in ones).  A new game is noticed from the
    position (``EngineSession``), per agent name.
    """

    def __init__(self, mode: str = Mode.COURSE, *, seconds: float = 1.0,
                 agent: AgentSettings | None = None, solver: SolverSettings | None = None) -> None:
        self.session = EngineSession(revised(agent or AgentSettings(), {"mode": mode}),
                                     solver or SolverSettings(), seconds=seconds)

    def __call__(self, observation: Mapping[str, Any], agent_name: Hashable = None) -> int:
        return self.session.choose(board_from_observation(observation), side=agent_name)
