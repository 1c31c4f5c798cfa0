"""Any program as a player (``program:"COMMAND ARGS"``), speaking the line protocol of
``docs/outside-agents.md``, in a process of its own.

Each game starts the program afresh.  The exchange, one line each way (UTF-8, ``\\n``):

    > connect4 1 SECONDS        protocol version 1; the time per move, in seconds
    < ready [NAME]              within STARTUP_SECONDS (not charged to any move)
    > position MOVES SECONDS    each of its turns: the game so far as a move string (Pons'
                                notation, the 1-based columns, "-" for the empty board) and
                                the time it has for this move
    < COLUMN                    the column it plays, 1-7, within SECONDS + GRACE
    > quit                      at the end of the game; its input then ends

Lines it writes that begin with ``#`` are comments (ignored, counted in the output cap).  A
late answer (beyond ``SECONDS + GRACE``), an answer that is not a whole number, a column that is
out of range or full, its end, a crash, or more output than the caps (``outside.process``) is
a fault: the game is lost with that reason and the program is killed with what it started.
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import time

from board import WIDTH, Board, moves_to_string
from board.board import moves_reaching
from outside.faults import AgentFault, AgentStopped
from outside.player import ProcessPlayer
from outside.process import Child
from outside.sandbox import Limits, program_paths, safe_environment
from vocabulary import Ending, Sandbox

PROTOCOL_VERSION = 1
GRACE = 0.5  # seconds an answer may come after its budget
STARTUP_SECONDS = 10.0  # for the program to start and answer the handshake
MAX_MOVES = 21


def program_limits(seconds: float) -> Limits:
    """A game's processor time: every move at its budget and grace, and the start's time."""
    return Limits(cpu_seconds=math.ceil(MAX_MOVES * (seconds + GRACE) + STARTUP_SECONDS))


def command_problem(argv: list[str]) -> str | None:
    """Why ``argv`` cannot be started, or None: its program is found (on ``PATH``, or as a
    path) and executable."""
    if not argv:
        return "no command given"
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        if not os.path.isfile(program):
            return f"{program} is not a file"
        if not os.access(program, os.X_OK):
            return f"{program} is not executable (chmod +x, or name its interpreter first)"
        return None
    if shutil.which(program) is None:
        return f"{program} is not found on PATH"
    return None


def parse_answer(line: str, board: Board) -> int:
    """The 0-based column of an answer line (1-7), or ``AgentFault``."""
    text = line.strip()
    if not (text.isascii() and text.lstrip("+-").isdigit() and len(text) <= 6):
        raise AgentFault(Ending.NOT_A_COLUMN, f"answered {line[:200]!r}, not a column 1-{WIDTH}")
    number = int(text)
    if not 1 <= number <= WIDTH:
        raise AgentFault(Ending.ILLEGAL, f"answered {number}: out of range 1-{WIDTH}")
    if not board.can_play(number - 1):
        raise AgentFault(Ending.ILLEGAL, f"answered {number}: that column is full")
    return number - 1


class ProgramPlayer(ProcessPlayer):
    """A program speaking the line protocol (see the module's docstring).

    ``command``: its command line (split as a shell would, without a shell; paths on it are
    taken from where we run, as it runs in a folder of its own); ``seconds``: its time per
    move; ``name``: its label in tables; ``strictness``: whether a missing layer of its
    sandbox stops it from starting; ``limits``: what its sandbox lets it use (default:
    ``program_limits``).  ``said_name`` is the name it gave in its ``ready`` line.
    """

    QUIT = "quit"  # said at the end of a game; its input then ends

    def __init__(self, command: str, *, seconds: float, name: str | None = None,
                 strictness: Sandbox = Sandbox.AVAILABLE, limits: Limits | None = None) -> None:
        self.argv = shlex.split(command)
        self.strictness = strictness
        self.limits = limits or program_limits(seconds)
        self.seconds = seconds
        self.name = name or f"program:{command}"
        self.said_name = ""
        super().__init__()
        self._seen: tuple[Board, list[int]] | None = None  # the last board sent, its moves

    def new_game(self) -> None:
        """Start the program and shake hands (not charged to a move); a failure is the first
        move's fault."""
        self.end_game()
        self._pending = None
        self._seen = None
        argv, run, own = program_paths(self.argv, safe_environment("")["PATH"])
        try:
            child = Child(argv, limits=self.limits, run=run, own=own,
                          strictness=self.strictness)
        except OSError as exc:
            self._pending = AgentFault(Ending.CRASHED, f"could not be started:"
                                       f" {exc.strerror or exc}")
            return
        self._child = child
        try:
            self._handshake(child)
        except AgentFault as fault:
            self._pending = child.blame(fault)
            self.end_game()
        except AgentStopped as stopped:
            self._pending = stopped
            self.end_game()

    def _handshake(self, child: Child) -> None:
        child.begin_move()
        if not child.send(f"connect4 {PROTOCOL_VERSION} {self.seconds:g}"):
            raise child.gone_fault("at the handshake")
        deadline = time.monotonic() + STARTUP_SECONDS
        line = self._answer(child, deadline, "at the handshake")
        if line is None:
            raise AgentFault(Ending.LATE, f"did not answer the handshake within"
                             f" {STARTUP_SECONDS:g} s")
        words = line.split(maxsplit=1)
        if not words or words[0] != "ready":
            raise AgentFault(Ending.PROTOCOL, f"answered the handshake with {line[:200]!r},"
                             " not 'ready [NAME]'")
        self.said_name = words[1].strip() if len(words) > 1 else ""

    @staticmethod
    def _answer(child: Child, deadline: float, where: str) -> str | None:
        """The next line that is not a comment, or None at ``deadline``."""
        while True:
            line = child.read_line(deadline, where=where)
            if line is None or not line.lstrip().startswith("#"):
                return line


    def _history(self, board: Board) -> list[int]:
        """The columns of a game reaching ``board``: the last board sent and the moves since
        when it follows from it (the usual case), else one game that reaches it."""
        if self._seen is not None:
            before, columns = self._seen
            between = board.moves - before.moves
            if between in (1, 2):
                for path in _paths(between):
                    after = before
                    for col in path:
                        if not after.can_play(col):
                            break
                        after = after.play_unchecked(col)
                    else:
                        if after == board:
                            return [*columns, *path]
        return [int(c) - 1 for c in moves_reaching(board)]

    def _move(self, child: Child, board: Board) -> int:
        columns = self._history(board)
        moves = moves_to_string(columns) if columns else "-"
        child.begin_move()
        began = time.monotonic()
        if not child.send(f"position {moves} {self.seconds:g}"):
            raise child.gone_fault("before its move")
        line = self._answer(child, began + self.seconds + GRACE, "in its move")
        if line is None:
            raise AgentFault(Ending.LATE, f"no answer within its {self.seconds:g} s and the"
                             f" {GRACE:g} s grace", seconds=time.monotonic() - began)
        try:
            column = parse_answer(line, board)
        except AgentFault as fault:
            fault.seconds = time.monotonic() - began
            raise
        self._seen = (board.play_unchecked(column), [*columns, column])
        return column


def _paths(length: int) -> list[tuple[int, ...]]:
    """Every sequence of ``length`` columns (1 or 2)."""
    if length == 1:
        return [(col,) for col in range(WIDTH)]
    return [(a, b) for a in range(WIDTH) for b in range(WIDTH)]



__all__ = ["GRACE", "PROTOCOL_VERSION", "ProgramPlayer", "command_problem", "parse_answer",
           "program_limits"]
