"""A Kaggle ConnectX agent file as a player (``connectx:PATH``), in a process of its own and
judged by Kaggle's rules.

Each game starts a fresh worker process (``outside/connectx_worker.py``, under our Python or the
spec's ``python=``), as each Kaggle episode loads the file afresh.  A submission archive
(``submission.tar.gz``, ``main.py`` at its root) is unpacked once into a folder of its own (removed
when this process ends) and its ``main.py`` is the file.  The file is loaded inside the
first move and its time counts against that move, as on Kaggle.  Every move is called with the
ConnectX observation of our position (``observe``: ``ecosystems.connectx.observation_of``,
handed in by ``ecosystems.players``, which sits above this package) and a configuration of
rows 6, columns 7, inarow 4 and ``actTimeout`` the player's seconds per move.

Kaggle's verdicts, reproduced (``kaggle_verdict``; kaggle-environments 1.x, ``../shared/ARENAS.md``):

- a move longer than ``actTimeout`` is charged to the overage (60 s a game); a move that needs
  more than what is left loses on time (TIMEOUT: ``Ending.LATE``).  The move is timed here,
  on our clock, from sending the request to reading the answer (the load and the call, as
  Kaggle times them, and a pipe's round trip): never by the agent's process, whose clock the
  agent could change; a move is cut off once ``actTimeout`` and the overage have passed
  (Kaggle waits for it, with the same verdict);
- the action must pass the schema ``{"type": "integer", "minimum": 0}`` after a None is
  replaced by its default 0: a Python ``int`` (``True`` is no integer there), or a float
  with no fraction; anything else, a ``numpy.int64`` included, is INVALID (``NOT_A_COLUMN``);
  None plays column 0;
- then the column must be below 7 and not full (INVALID: ``ILLEGAL``); a float 0.0-6.0 that
  passed the schema then indexes the board and kaggle-environments' ``env.run`` stops with a
  TypeError (the episode has no result): a loss here (``NOT_A_COLUMN``), with those words;
- an exception from the agent, or from loading its file, is ERROR (``Ending.ERROR``).
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from multiprocessing import util as mp_util
from pathlib import Path
from typing import Any

from board import WIDTH, Board
from outside.faults import AgentFault, AgentStopped
from outside.player import ProcessPlayer
from outside.process import Child
from outside.sandbox import Limits, interpreter_paths, own_paths
from vocabulary import Ending, Sandbox

WORKER = Path(__file__).with_name("connectx_worker.py")
OVERAGE = 60.0  # seconds a game, as Kaggle gives each agent
STARTUP_SECONDS = 30.0  # for the interpreter to start (not charged to the agent)
CUTOFF_SLACK = 1.0  # seconds past actTimeout + overage before a move is cut off (the pipes' time)
MAX_MOVES = 21  # an agent's moves in one game
EPISODE_STEPS = 1000
RUN_TIMEOUT = 1200
ARCHIVES = (".tar.gz", ".tgz")  # a Kaggle submission archive, main.py at its root
MAIN = "main.py"

Observe = Callable[[Board, float], dict[str, Any]]


def configuration(seconds: float) -> dict[str, Any]:
    """The ConnectX configuration an agent is given: Connect Four, ``seconds`` per move."""
    return {"rows": 6, "columns": WIDTH, "inarow": 4, "actTimeout": seconds,
            "timeout": seconds, "agentTimeout": OVERAGE, "episodeSteps": EPISODE_STEPS,
            "runTimeout": RUN_TIMEOUT}


def connectx_limits(seconds: float) -> Limits:
    """A game's processor time: every move at ``actTimeout``, the whole overage, and 10 s for
    the interpreter's start."""
    return Limits(cpu_seconds=math.ceil(MAX_MOVES * seconds + OVERAGE + 10))


def kaggle_verdict(returned: dict[str, Any], board: Board) -> int:
    """The column Kaggle plays for what the agent returned (the worker's description), or
    ``AgentFault`` with Kaggle's verdict in words."""
    kind, name, text = returned.get("kind"), returned.get("type", "?"), returned.get("repr", "?")
    value = returned.get("value")
    if kind == "none":
        column = 0
        if not board.can_play(column):
            raise AgentFault(Ending.ILLEGAL, "returned None: Kaggle plays its default action,"
                             " column 0, which is full: an invalid action (INVALID)")
        return column
    if kind == "bool":
        raise AgentFault(Ending.NOT_A_COLUMN, f"returned {text} (bool): Kaggle's action schema"
                         " wants an integer and a bool is not one: an invalid action (INVALID)")
    if kind == "float":
        if value is None or not float(value).is_integer() or value < 0:
            raise AgentFault(Ending.NOT_A_COLUMN, f"returned {text} (float): Kaggle's action"
                             " schema wants a whole number from 0: an invalid action (INVALID)")
        if value >= WIDTH:
            raise AgentFault(Ending.ILLEGAL, f"returned {text} (float): column out of range"
                             f" 0-{WIDTH - 1}: an invalid action (INVALID)")
        raise AgentFault(Ending.NOT_A_COLUMN, f"returned {text} (float): Kaggle's schema lets"
                         " a whole float through, then its rules index the board with it and"
                         " env.run stops with a TypeError (no result for the episode); return an"
                         " int")
    if kind != "int":
        why = ("its action schema wants a Python int" if name.startswith("numpy.")
               else "its action schema wants an integer")
        raise AgentFault(Ending.NOT_A_COLUMN, f"returned {name} ({text}): Kaggle rejects it as"
                         f" an invalid action ({why}; INVALID)")
    column = int(value) if isinstance(value, int) else -1
    if not 0 <= column < WIDTH:
        raise AgentFault(Ending.ILLEGAL, f"returned {text}: column out of range 0-{WIDTH - 1}:"
                         " an invalid action (INVALID)")
    if not board.can_play(column):
        raise AgentFault(Ending.ILLEGAL, f"returned {column}, a full column: an invalid action"
                         " (INVALID)")
    return column


class ConnectXPlayer(ProcessPlayer):
    """A ConnectX agent file in its own process (see the module's docstring).

    ``seconds``: its ``actTimeout``; ``python``: the interpreter (None: ours); ``name``: its
    label in tables; ``game_overage``: the overage of each game (Kaggle's 60 s; less in
    tests); ``strictness``: whether a missing layer of its sandbox stops it from starting;
    ``limits``: what its sandbox lets it use (default: ``connectx_limits``).
    ``overage`` is what is left of the current game's; ``log`` what the agent printed in its
    last move (the first 1,024 characters, as Kaggle keeps them).
    """

    def __init__(self, path: str, *, seconds: float, observe: Observe, python: str | None = None,
                 name: str | None = None, game_overage: float = OVERAGE,
                 strictness: Sandbox = Sandbox.AVAILABLE, limits: Limits | None = None) -> None:
        self.path = str(Path(path).resolve())
        self.seconds = seconds
        self.python = python or sys.executable
        self.name = name or f"connectx:{path}"
        self.game_overage = game_overage
        self.overage = game_overage
        self.strictness = strictness
        self.limits = limits or connectx_limits(seconds)
        self.log = ""
        self._observe = observe
        super().__init__()
        self._file: str | None = None  # the file to load (an archive's main.py, once unpacked)

    def new_game(self) -> None:
        """A fresh process for the new game (the last one's ended).  A process that cannot be
        started or does not say it is ready is the first move's fault."""
        self.end_game()
        self.overage = self.game_overage
        self._pending = None
        try:
            agent_file = self._agent_file()
        except AgentFault as fault:
            self._pending = fault
            return
        try:
            child = Child([self.python, "-u", str(WORKER), agent_file],
                          limits=self.limits,
                          run=interpreter_paths(self.python),
                          own=[str(WORKER), *own_paths(agent_file)], strictness=self.strictness)
        except OSError as exc:
            self._pending = AgentFault(Ending.CRASHED, f"could not start {self.python}:"
                                       f" {exc.strerror or exc}")
            return
        self._child = child
        try:
            line = child.read_line(time.monotonic() + STARTUP_SECONDS, where="while starting")
        except AgentFault as fault:
            self._pending = child.blame(fault)
            self.end_game()
            return
        except AgentStopped as stopped:
            self._pending = stopped
            self.end_game()
            return
        if line is None or not line.startswith("{"):
            self._pending = AgentFault(
                Ending.CRASHED if line is None else Ending.PROTOCOL,
                f"its worker did not start within {STARTUP_SECONDS:g} s" if line is None
                else f"its worker said {line[:200]!r} instead of being ready")
            self.end_game()

    def _agent_file(self) -> str:
        """The file to load: the path, or the ``main.py`` of the archive it names, unpacked into
        a folder of its own the first time (``AgentFault`` when it cannot be)."""
        if self._file is None:
            if not self.path.endswith(ARCHIVES):
                self._file = self.path
            else:
                folder = tempfile.mkdtemp(prefix="connectx-")
                # removed when this process ends (a batch worker too: multiprocessing's
                # finalizers run there, atexit's do not)
                mp_util.Finalize(self, shutil.rmtree, args=(folder,),
                                 kwargs={"ignore_errors": True}, exitpriority=10)
                try:
                    with tarfile.open(self.path) as archive:
                        archive.extractall(folder, filter="data")
                except (OSError, tarfile.TarError) as exc:
                    raise AgentFault(Ending.ERROR, f"the archive cannot be unpacked: {exc}"
                                     " (Kaggle: ERROR)") from None
                main = Path(folder) / MAIN
                if not main.is_file():
                    raise AgentFault(Ending.ERROR, f"the archive has no {MAIN} at its root"
                                     " (Kaggle: ERROR)")
                self._file = str(main)
        return self._file


    def _move(self, child: Child, board: Board) -> int:
        request = {"observation": self._observe(board, self.overage),
                   "configuration": configuration(self.seconds)}
        child.begin_move()
        began = time.monotonic()
        if not child.send(json.dumps(request)):
            raise child.gone_fault("before its move")
        cutoff = began + self.seconds + max(self.overage, 0.0) + CUTOFF_SLACK
        line = child.read_line(cutoff, where="in its move")
        if line is None:
            raise AgentFault(Ending.LATE, f"no answer within actTimeout {self.seconds:g} s and"
                             f" the {self.overage:.1f} s of overage left: Kaggle ends the game"
                             " with TIMEOUT", seconds=time.monotonic() - began)
        duration = time.monotonic() - began
        try:
            reply = json.loads(line)
            if not isinstance(reply, dict):
                raise TypeError
        except (ValueError, TypeError):
            raise AgentFault(Ending.PROTOCOL, f"its worker answered {line[:200]!r}") from None
        self.log = str(reply.get("log", ""))
        over = duration - self.seconds
        if over > self.overage:
            raise AgentFault(Ending.LATE, f"took {duration:.2f} s, past actTimeout"
                             f" {self.seconds:g} s and the {self.overage:.1f} s of overage left:"
                             " Kaggle ends the game with TIMEOUT", seconds=duration)
        self.overage -= max(0.0, over)
        if "load_failed" in reply:
            raise AgentFault(Ending.ERROR, f"loading the file failed: {reply['load_failed']}"
                             " (Kaggle: ERROR)", seconds=duration)
        if "raised" in reply:
            raise AgentFault(Ending.ERROR, f"raised {reply['raised']} (Kaggle: ERROR)",
                             seconds=duration)
        returned = reply.get("returned")
        if not isinstance(returned, dict):
            raise AgentFault(Ending.PROTOCOL, f"its worker answered {line[:200]!r}")
        try:
            return kaggle_verdict(returned, board)
        except AgentFault as fault:
            fault.seconds = duration
            raise



__all__ = ["OVERAGE", "ConnectXPlayer", "configuration", "connectx_limits", "kaggle_verdict"]
