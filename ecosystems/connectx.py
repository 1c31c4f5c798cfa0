"""Kaggle ConnectX: our engine as ``agent(observation, configuration) -> int``.

ConnectX (the ``kaggle-environments`` package) calls an agent with two dict-like objects
(attribute access too): ``observation.board``, 42 cells row by row with row 0 on top, 0 empty,
1 and 2 the players' discs; ``observation.mark``, ours; ``observation.remainingOverageTime``;
and ``configuration`` with ``rows``, ``columns``, ``inarow`` and ``actTimeout``.  A move longer
than ``actTimeout`` is charged to the overage (60 s a game); past it the game is lost on time.
Anything but a Python ``int`` column that can be played loses at once (a NumPy integer
included), so every answer goes through ``int``.

Time: a move thinks ``actTimeout - SAFETY_MARGIN`` seconds at most (or less, ``seconds``; and
less when under the margin is left of the overage, ``move_seconds``).  The
first call after the file was loaded counts from the start of the load
(``loading_started``): kaggle-environments runs an agent's file inside its first move, so the
imports and the compiled code's loading (or compilation, on a first run) are charged to that
move, and the overage pays for them.  Garbage collection is held off during a move (reported to
cause random timeouts on Kaggle).

``make_agent`` builds the agent in this process (a notebook, ``env.run([make_agent(), "negamax"])``);
``archive_agent`` is what a submission's ``main.py`` calls (``ecosystems.submission``).
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from board import HEIGHT, WIDTH, Board, InvalidGrid
from ecosystems.session import EngineSession
from settings import AgentSettings, SolverSettings, revised
from vocabulary import Mode

SAFETY_MARGIN = 0.5  # seconds of actTimeout never used for thinking
DEFAULT_ACT_TIMEOUT = 2.0  # the competition's
INAROW = 4
# The packages a submission carries (ecosystems.submission), checked to be the ones loaded.
PACKAGES = ("vocabulary", "board", "heuristics", "timecontrol", "search", "solver", "engine",
            "settings", "ecosystems")


def _field(obj: Any, name: str, default: Any = None) -> Any:
    """``obj[name]`` or ``obj.name`` (kaggle-environments passes its ``Struct``, a dict with
    attribute access; a user may pass either), ``default`` when it has neither."""
    if isinstance(obj, dict) and name in obj:
        return obj[name]
    return getattr(obj, name, default)


def check_configuration(configuration: Any) -> None:
    """Nothing for Connect Four's configuration; ``ValueError`` naming what we support
    otherwise (ConnectX can be played on other boards and lines)."""
    asked = {key: _field(configuration, key, default) for key, default in
             (("rows", HEIGHT), ("columns", WIDTH), ("inarow", INAROW))}
    if asked != {"rows": HEIGHT, "columns": WIDTH, "inarow": INAROW}:
        raise ValueError(f"this agent plays Connect Four only: rows={HEIGHT}, columns={WIDTH},"
                         f" inarow={INAROW}; the configuration asks for rows={asked['rows']},"
                         f" columns={asked['columns']}, inarow={asked['inarow']}")


def board_from_observation(observation: Any) -> Board:
    """The position of a ConnectX observation, with its ``mark`` to move.

    Raises ``InvalidGrid`` (a ``ValueError``) for a board that is not 42 cells of 0, 1 and 2,
    a mark that is not 1 or 2, or a position that is not ours to play (``Board.from_grid``:
    floating discs, disc counts)."""
    cells = list(_field(observation, "board", ()))
    mark = _field(observation, "mark")
    if mark not in (1, 2):
        raise InvalidGrid(f"observation.mark must be 1 or 2, not {mark!r}")
    if len(cells) != HEIGHT * WIDTH or any(cell not in (0, 1, 2) for cell in cells):
        raise InvalidGrid(f"observation.board must be {HEIGHT * WIDTH} cells of 0, 1 and 2,"
                          f" got {len(cells)} cells: {cells!r}")
    # Row 0 is on top in both; our mark counts as the side to move (+1), the other as -1.
    sign = {0: 0, mark: 1, 3 - mark: -1}
    grid = [[sign[cells[row * WIDTH + col]] for col in range(WIDTH)] for row in range(HEIGHT)]
    return Board.from_grid(grid, to_move=1)


def observation_of(board: Board, *, overage: float = 60.0) -> dict[str, Any]:
    """A ConnectX observation of ``board`` for the side to move (the first player is mark 1):
    what the arena hands the ConnectX bots (``ecosystems.players``)."""
    mark = 1 if board.first_player_to_move else 2
    grid = board.to_grid(1)
    value = {0: 0, 1: mark, -1: 3 - mark}
    cells = [value[int(cell)] for row in grid for cell in row]
    return {"board": cells, "mark": mark, "step": board.moves, "remainingOverageTime": overage}


def move_seconds(configuration: Any, seconds: float | None, overage: float | None = None) -> float:
    """The thinking time of a move: ``actTimeout`` less the margin (half of it when that is
    less than the margin), and no more than ``seconds`` when given.

    The overage left (``observation.remainingOverageTime``) is not planned for: it pays for
    loading the agent.  When less than the margin is left of it, the move thinks that much
    less, so that the margin stays whole inside ``actTimeout``."""
    act = float(_field(configuration, "actTimeout", DEFAULT_ACT_TIMEOUT))
    budget = act - SAFETY_MARGIN if act > 2 * SAFETY_MARGIN else act / 2
    if overage is not None and overage < SAFETY_MARGIN:
        budget = max(budget - (SAFETY_MARGIN - max(overage, 0.0)), budget / 2)
    return budget if seconds is None else min(seconds, budget)


class ConnectXAgent:
    """ConnectX's agent over one ``EngineSession``: ``agent(observation, configuration)``.

    ``seconds`` caps the time per move below the configuration's (None: as long as
    ``actTimeout`` allows).
    """

    def __init__(self, session: EngineSession, *, seconds: float | None = None) -> None:
        self.session = session
        self.seconds = seconds
        self.loading_started: float | None = None

    def loaded(self, started: float) -> None:
        """The agent's file was loaded from ``started`` on (the ``perf_counter`` value at the top
        of a submission's ``main.py``; again for each episode): the next move counts from there,
        as kaggle-environments charges the load to it."""
        self.loading_started = started

    def __call__(self, observation: Any, configuration: Any) -> int:
        called = time.perf_counter()
        start = called if self.loading_started is None else min(called, self.loading_started)
        self.loading_started = None
        check_configuration(configuration)
        board = board_from_observation(observation)
        collecting = gc.isenabled()
        gc.disable()
        try:
            overage = _field(observation, "remainingOverageTime")
            seconds = move_seconds(configuration, self.seconds,
                                   None if overage is None else float(overage))
            return self.session.choose(board, side=_field(observation, "mark"), start=start,
                                       seconds=seconds)
        finally:
            if collecting:
                gc.enable()


def make_agent(mode: str = Mode.COURSE, *, seconds: float | None = None,
               agent: AgentSettings | None = None,
               solver: SolverSettings | None = None) -> ConnectXAgent:
    """Our agent for ConnectX in this process, its engine built and warmed up now.

    ``mode`` ``course`` or ``strongest``; ``agent`` and ``solver`` the settings to start from
    (default: the built-in ones); ``seconds`` caps the time per move.
    """
    settings = revised(agent or AgentSettings(), {"mode": mode})
    session = EngineSession(settings, solver or SolverSettings(),
                            seconds=move_seconds({}, seconds))
    return ConnectXAgent(session, seconds=seconds)


_archive_agents: dict[str, ConnectXAgent] = {}


def archive_agent(folder: str, agent: dict[str, Any], solver: dict[str, Any], *,
                  seconds: float | None, loading_started: float) -> ConnectXAgent:
    """The agent of a submission unpacked in ``folder`` (its ``main.py`` calls this while it is
    loaded); ``agent`` and ``solver`` are its settings as written into ``main.py``.

    kaggle-environments loads the file again for every episode: the agent (and its engine,
    its tables) built by the first load is kept for the process, each load is charged to the
    move that follows it.  Raises ``ImportError`` when one of our packages was loaded from
    elsewhere than ``folder`` (a package of the same name installed where the archive runs).
    """
    _check_packages(folder, PACKAGES)
    key = repr((agent, solver, seconds))
    if key not in _archive_agents:
        session = EngineSession(AgentSettings.model_validate(agent),
                                SolverSettings.model_validate(solver),
                                seconds=move_seconds({}, seconds))
        _archive_agents[key] = ConnectXAgent(session, seconds=seconds)
    found = _archive_agents[key]
    found.loaded(loading_started)
    return found


def _check_packages(folder: str, names: Sequence[str]) -> None:
    root = Path(folder).resolve()
    for name in names:
        module = sys.modules.get(name)
        location = getattr(module, "__file__", None)
        if module is not None and location is not None and root not in Path(location).resolve().parents:
            raise ImportError(f"the package {name!r} was loaded from {location}, not from the"
                              f" agent's folder {root}: another package has the same name")
