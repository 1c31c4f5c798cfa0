"""Local games in the course environment (``gym_connect_four``), as the course skeleton plays them.

We are player +1 of the environment and the opponent -1, as on the server; the opponent
moves the skeleton's way: ``change_player(); step(column); change_player()``.  The
environment decides the game (with its full-board quirk) and gives the rewards; a ``Board``
mirror feeds the engine and the opponent and is checked against the environment after every
move, so a disagreement between the two models stops the game with ``LocalGameError``.

The record gets the game as it goes (who starts, then every move); a game cut short (Ctrl-C,
an error) is marked abandoned or stopped rather than left looking as if it were still running.
An outside opponent's fault (``outside.AgentFault``: late, crashed...) is a game we won, the
fault in the record's note; an outside opponent ended from outside its sandbox
(``outside.AgentStopped``) is no one's fault: the game is recorded as abandoned and the run
stops with one line saying so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from board import Board
from client.display import format_move, our_side, render_grid
from client.game import Decider, Output
from client.interrupt import to_stderr
from client.outcome import OurGame
from client.records import LOCAL, THEM, US, Records
from course.grid import as_grid
from course.protocol import DRAW, WIN, course_result
from engine.games import PlayedGame, PlayedMove, winner_of
from engine.players import Player
from outside import AgentFault, AgentStopped, end_game
from settings import UsageError
from timecontrol import Limit
from vocabulary import Ending, Outcome, column_label, side_words

ENV_NAME = "gym_connect_four"
OURS = "ours"  # our side's name in a local game
# A local game stops at the first Ctrl-C: unlike a ranked game, nothing is lost by it.
LOCAL_CTRL_C = ("interrupted (Ctrl-C): the local game in progress is given up (recorded as"
                " abandoned); nothing else is lost, no server's clock runs in a local game")


class CourseEnv(Protocol):
    """What a local game needs of the course environment (the env, or gym's wrapper of it)."""

    @property
    def board(self) -> np.ndarray: ...

    def reset(self, board: Any = None) -> np.ndarray: ...

    def step(self, action: int) -> tuple[np.ndarray, float, bool, dict[str, Any]]: ...

    def change_player(self) -> None: ...


class LocalGameError(RuntimeError):
    """The environment and our board model disagree: a bug in one of them, never a user error."""


def _check(env: CourseEnv, board: Board, our_turn: bool) -> None:
    expected = board.to_grid(1 if our_turn else -1)
    if not np.array_equal(env.board, expected):
        raise LocalGameError(
            "the environment's board differs from our board model:\n"
            + render_grid(as_grid(env.board), our_turn == board.first_player_to_move)
        )


def play_local_game(
    env: CourseEnv,
    engine: Decider,
    opponent: Player,
    *,
    we_start: bool,
    seconds: float,
    records: Records | None = None,
    out: Output = print,
    clock: Callable[[], float] = time.perf_counter,
) -> OurGame:
    """One game in ``env`` (the raw env or ``gym.make``'s wrapper) between ``engine`` and ``opponent``."""
    env.reset(board=None)
    engine.new_game()
    opponent.new_game()
    game_id = None
    if records is not None:
        game_id = records.begin(LOCAL, ENV_NAME, (), opponent.name)
        records.started(game_id, we_start, as_grid(env.board), None)
    board = Board()
    our_turn = we_start
    ours = 0 if we_start else 1  # our side
    moves: list[PlayedMove] = []
    result = None

    def ended(outcome: Outcome, ending: Ending, detail: str = "") -> OurGame:
        """The game over, with our ``outcome``: recorded, and as a value."""
        names = (OURS, opponent.name) if we_start else (opponent.name, OURS)
        game = PlayedGame(*names, tuple(moves), winner_of(ours, outcome), ending, detail)
        if records is not None and game_id is not None:
            records.finish(game_id, course_result(outcome, ending), detail or None,
                           as_grid(env.board), ending=ending)
        return OurGame(game, ours, game_id)

    out(("we start" if we_start else f"{opponent.name} starts") + f"; {our_side(we_start)},"
        f" {opponent.name} {side_words(not we_start)}; columns 1-7 as in move strings")
    try:
        while True:
            ply = board.moves + 1
            if our_turn:
                start = clock()
                decision = engine.decide(board, Limit(start + seconds))
                took = clock() - start
                column = decision.column
                _, reward, done, _ = env.step(column)
                moves.append(PlayedMove.of(ply, column, took, decision))
                if records is not None and game_id is not None:
                    records.played(game_id, ply, US, column, decision, took)
                out(format_move(ply, column, decision, took))
            else:
                try:
                    column = opponent.choose(board)
                except AgentStopped as stopped:  # no one's fault: no result
                    note = f"{opponent.name} was stopped: {stopped.detail}"
                    if records is not None and game_id is not None:
                        records.abandon(game_id, note, Ending.STOPPED)
                    result = DRAW  # not a result: only so that nothing else is recorded
                    raise UsageError(f"{note} (the game is recorded as abandoned)") from None
                except AgentFault as fault:  # an outside opponent's fault: our win
                    result = WIN
                    note = f"{opponent.name} lost by a fault, {fault.kind.value}: {fault.detail}"
                    outcome = ended(Outcome.WIN, fault.kind, note)
                    out(note)
                    return outcome
                env.change_player()
                _, reward, done, _ = env.step(column)
                env.change_player()
                moves.append(PlayedMove(ply, column))
                if records is not None and game_id is not None:
                    records.played(game_id, ply, THEM, column)
                out(f"{ply:3d}. {opponent.name} plays {column_label(column)}")
            board = board.play(column)
            we_moved, our_turn = our_turn, not our_turn
            _check(env, board, our_turn)
            grid = as_grid(env.board)
            if done:
                # The reward is the mover's: 1 a win, 0.5 a full board (the environment's verdict).
                result = reward
                draw = reward == DRAW
                outcome = ended(Outcome.DRAW if draw else Outcome.WIN if we_moved else Outcome.LOSS,
                                Ending.FULL if draw else Ending.FOUR)
                out(render_grid(grid, we_start))
                return outcome
            if our_turn:
                out(render_grid(grid, we_start))
    except BaseException as exc:
        if records is not None and game_id is not None and result is None:
            if isinstance(exc, KeyboardInterrupt):
                records.abandon(game_id, "interrupted")
            else:
                records.stop(game_id, f"stopped by an error: {type(exc).__name__}: {exc}")
        if isinstance(exc, KeyboardInterrupt) and result is None:
            # On stderr as online's Ctrl-C lines are, though nothing is lost here.
            to_stderr(LOCAL_CTRL_C)
        raise
    finally:
        end_game(opponent)  # an outside opponent's process does not wait for the next game
