"""OpenSpiel's ``connect_four``: our engine as a ``pyspiel.Bot``, and its states as our boards.

OpenSpiel's action is the column, 0-6 from the left, as ours; player 0 (``x``) moves first.
``observation_tensor(player)`` is 3 planes of 6 x 7 with **row 0 at the bottom** (while
``str(state)`` prints the top row first): by default ``x``'s discs, ``o``'s, the empty cells;
with the game parameter ``egocentric_obs_tensor`` the opponent's discs, the observer's own,
the empty cells.

- ``board_from_observation(tensor)``: the position of a tensor (flipped to a course grid, top
  row first, and read by ``Board.from_grid``);
- ``board_from_state(state)``: the position of a state, from its observation;
- ``state_from_board(game, board)``: a state of ``game`` at our position (OpenSpiel 2 makes one
  from the state's JSON), for OpenSpiel's bots in our arena (``ecosystems.players``);
- ``OurBot``: a ``pyspiel.Bot`` playing our engine, for OpenSpiel's loops
  (``evaluate_bots``) and anything else that takes a bot.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from board import HEIGHT, WIDTH, Board, InvalidGrid
from ecosystems.session import EngineSession
from settings import AgentSettings, SolverSettings

GAME = "connect_four"
PARAMETERS = {"rows": HEIGHT, "columns": WIDTH, "x_in_row": 4}
SYMBOLS = {1: "x", -1: "o", 0: "."}  # a grid of the first player (+1) and the second (-1)


def check_game(game: Any) -> None:
    """Nothing for OpenSpiel's Connect Four; ``ValueError`` naming what we play otherwise."""
    name = game.get_type().short_name
    parameters = game.get_parameters()
    asked = {key: parameters.get(key, value) for key, value in PARAMETERS.items()}
    if name != GAME or asked != PARAMETERS:
        raise ValueError(f"our bot plays {GAME} with {PARAMETERS}; this game is {name} with"
                         f" {parameters}")


def board_from_observation(tensor: Any, *, egocentric: bool = False) -> Board:
    """The position an observation tensor (3 x 6 x 7, or its 126 numbers) shows.

    ``egocentric``: the tensor of a game with ``egocentric_obs_tensor`` (planes: the opponent
    of the observer, the observer), observed by the player to move.  Raises ``InvalidGrid``.
    """
    array = np.asarray(tensor, dtype=float)
    if array.size != 3 * HEIGHT * WIDTH:
        raise InvalidGrid(f"an observation of {GAME} has {3 * HEIGHT * WIDTH} numbers,"
                          f" not {array.size}")
    planes = array.reshape(3, HEIGHT, WIDTH)[:, ::-1, :]  # top row first, as a course grid
    if not np.isin(planes, (0.0, 1.0)).all() or not (planes.sum(axis=0) == 1).all():
        raise InvalidGrid("each cell of the observation must be in exactly one plane")
    if egocentric:  # the observer is to move: +1 for its discs
        return Board.from_grid(planes[1] - planes[0], to_move=1)
    grid = planes[0] - planes[1]  # x +1, o -1
    x_to_move = int(planes[0].sum()) == int(planes[1].sum())
    return Board.from_grid(grid, to_move=1 if x_to_move else -1)


def board_from_state(state: Any) -> Board:
    """The position of an OpenSpiel ``connect_four`` state (not a finished one)."""
    egocentric = bool(state.get_game().get_parameters().get("egocentric_obs_tensor", False))
    board = board_from_observation(state.observation_tensor(state.current_player()),
                                   egocentric=egocentric)
    if state.current_player() != board.moves % 2:
        raise InvalidGrid(f"player {state.current_player()} is to move in the state, but the"
                          f" disc counts say player {board.moves % 2}")
    return board


def state_from_board(game: Any, board: Board) -> Any:
    """A state of ``game`` (OpenSpiel's ``connect_four``) at ``board``, a position with a move
    left.  Its history is empty: OpenSpiel makes it from the board, as the state's JSON."""
    grid = board.to_grid(1 if board.first_player_to_move else -1)  # x +1, o -1
    rows = [[SYMBOLS[int(cell)] for cell in row] for row in grid[::-1]]  # bottom row first
    struct = {"board": rows, "current_player": "x" if board.first_player_to_move else "o",
              "is_terminal": False, "winner": ""}
    return game.new_initial_state(json.dumps(struct))


class OurBot(pyspiel.Bot):  # type: ignore[misc,unused-ignore]  # (Any under --strict)
    """Our engine as a ``pyspiel.Bot`` for ``connect_four``: ``step(state)`` is our column.

    ``agent`` and ``solver`` are the engine's settings, ``seconds`` its time per move.
    ``restart_at`` starts a new game; a state that does not follow from our last move starts
    one too (``EngineSession``).
    """

    def __init__(self, game: Any, agent: AgentSettings | None = None,
                 solver: SolverSettings | None = None, *, seconds: float = 1.0) -> None:
        pyspiel.Bot.__init__(self)
        check_game(game)
        self.session = EngineSession(agent or AgentSettings(), solver or SolverSettings(),
                                     seconds=seconds)

    def restart_at(self, state: Any) -> None:
        self.session.new_game()

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass  # the next state says it all

    def step(self, state: Any) -> int:
        return self.session.choose(board_from_state(state))

    def provides_policy(self) -> bool:
        return False

    def is_clonable(self) -> bool:
        return False
