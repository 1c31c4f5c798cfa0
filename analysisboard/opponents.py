"""The players of ``agent.py board --players``, and the page's games against them.

Beside our own engine (course or strongest mode, ``play``), the page can play any player spec
the person who started the board listed on its command line: an outside program
(``program:"CMD"``), a ConnectX file, the course's bot, another arena's bot, our engine with
options.  The list is fixed when the board starts (each spec checked then: a bad one stops the
start with one ``error:`` line), and the page picks a player from it by its name
(``GET /api/players``): a web page that reaches the board cannot name a command to run, only a
player already listed.

A game against a listed player keeps its player between the page's requests (an outside agent
keeps its process, and is told the moves as they come).  ``Matches`` holds one game per page:
it is ended when the player's move ends the game or is a fault, when the page says the game is
over (``/api/end``) or starts another (a position that does not continue the game kept), and
after ``IDLE_SECONDS`` without a move.  At most ``MAX_GAMES`` are kept at once; a new one ends
the game least recently played (that page's next move starts its player afresh from its
position).  Whatever a player does wrong (``outside.AgentFault``: late, illegal, a crash...,
or any exception of another kind of player) is its fault: the game is over and the person won,
and the answer says so in words (``program:... lost: late (1.73 s for a 0.5 s budget)``).
"""

from __future__ import annotations

import numbers
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from analysisboard.params import BadRequest
from board import WIDTH, Board
from ecosystems.players import Spec, build_player, is_ours, is_outside, parse_spec, split_specs
from engine.players import Player
from outside import AgentFault, AgentStopped, end_game
from settings import AgentSettings, SolverSettings, UsageError
from vocabulary import Ending

MAX_GAMES = 4  # games against listed players kept at once (each may hold a process or an engine)
IDLE_SECONDS = 300.0  # a game without a move for this long is ended
SWEEP_SECONDS = 5.0  # how often idle games are looked for, while there are any
# How long a move waits for the page's previous move on the same game (a player's move takes at
# most the board's longest time and an outside agent's grace; its start-up, a few seconds more).
WAIT_SECONDS = 30.0


class TooManyGames(Exception):
    """Every game kept is in the middle of a move, so no room is made for a new one."""


@dataclass(frozen=True)
class Listed:
    """A player of the board's list: ``name`` (the spec's label, what the page sends back),
    ``text`` (the spec as given: parsed again, with the page's time, for each game), ``kind``
    (``program``, ``connectx``, ``bot``, ``kaggle``, ``ours``...), ``seconds`` (the time per
    move the spec fixes; None: the page's time)."""

    name: str
    text: str
    kind: str
    seconds: float | None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "seconds": self.seconds}


def _seconds_of(spec: Spec) -> float | None:
    if is_outside(spec) or is_ours(spec):
        return spec.seconds
    return None


def listed_players(text: str | None) -> tuple[Listed, ...]:
    """The players of ``--players SPEC[,SPEC...]`` (none: no list), each spec checked.

    Raises ``UsageError`` (``--players: ...``) for a bad spec, ``human`` (the person plays on
    the page) and a player listed twice."""
    if text is None:
        return ()
    specs = split_specs(text)
    if not specs:
        raise UsageError("--players: no player given (a comma-separated list of specs)")
    players: list[Listed] = []
    for part in specs:
        try:
            spec = parse_spec(part)
        except UsageError as exc:
            raise UsageError(f"--players: {exc}") from None
        if spec.kind == "human":
            raise UsageError("--players: human is the person at the page; list the players it"
                             " may play against")
        if any(player.name == spec.label for player in players):
            raise UsageError(f"--players: {spec.label} is listed twice")
        players.append(Listed(spec.label, part, spec.kind, _seconds_of(spec)))
    return tuple(players)


def fault_words(name: str, fault: AgentFault, budget: float | None) -> str:
    """A fault as the page shows it: ``program:... lost: late (1.73 s for a 0.5 s budget)``,
    ``... lost: illegal (answered 9: out of range 1-7)``."""
    kind = fault.kind.value.replace("_", " ")
    if fault.kind == Ending.LATE and fault.seconds is not None and budget is not None:
        return f"{name} lost: {kind} ({fault.seconds:.2f} s for a {budget:g} s budget)"
    return f"{name} lost: {kind} ({fault.detail})"


def _problem(board: Board, column: object) -> str:
    """Why a column a player returned cannot be played (the arena's rules), or ""."""
    if isinstance(column, bool) or not isinstance(column, numbers.Integral):
        return f"answered {column!r}, not a column"
    if not 0 <= int(column) < WIDTH:
        return f"answered column {int(column) + 1}: out of range 1-{WIDTH}"
    if not board.can_play(int(column)):
        return f"answered column {int(column) + 1}: that column is full"
    return ""


@dataclass(eq=False)
class _Game:
    """One page's game against a listed player: its player once built, the move string after
    the player's last move (the next request continues the game when it adds one move to it),
    and whether it is to be ended (by whoever holds its lock)."""

    listed: Listed
    seconds: float
    player: Player | None = None
    budget: float | None = None
    after: str | None = None
    used: float = field(default_factory=time.monotonic)
    ending: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def continues(self, listed: Listed, seconds: float, moves: str) -> bool:
        return (not self.ending and self.listed == listed and self.seconds == seconds
                and self.after is not None and len(moves) == len(self.after) + 1
                and moves.startswith(self.after))

    def finish(self) -> None:
        """End its player (an outside agent's process and what it started); under its lock."""
        player, self.player = self.player, None
        self.ending = True
        if player is not None:
            end_game(player)


class Matches:
    """The board's listed players and the games the pages play against them (used from the
    server's threads: the table of games under one lock, each game under its own)."""

    def __init__(self, players: tuple[Listed, ...] = (), *, agent: AgentSettings | None = None,
                 solver: SolverSettings | None = None, max_games: int = MAX_GAMES,
                 idle_seconds: float = IDLE_SECONDS) -> None:
        self.players = players
        self.agent = agent
        self.solver = solver
        self.max_games = max_games
        self.idle_seconds = idle_seconds
        self._games: dict[str, _Game] = {}
        self._lock = threading.Lock()
        self._sweeper: threading.Thread | None = None

    def listing(self) -> dict[str, Any]:
        """What ``/api/players`` answers."""
        return {"players": [player.to_json() for player in self.players]}

    def find(self, name: str | None) -> Listed:
        """The listed player of that name; ``BadRequest`` for any other."""
        for player in self.players:
            if player.name == name:
                return player
        shown = repr(name if name is None or len(name) <= 60 else name[:60] + "...")
        if not self.players:
            raise BadRequest(f"player {shown} is not on the board's list: this board lists no"
                             " players (start it with --players SPEC,...).")
        names = ", ".join(player.name for player in self.players)
        if len(names) > 200:  # a long list is read at /api/players
            names = f"{len(self.players)} players, /api/players lists them"
        raise BadRequest(f"player {shown} is not on the board's list ({names}); only the"
                         " players given to --players when the board started can play.")

    @property
    def games(self) -> int:
        """The games kept now."""
        with self._lock:
            return len(self._games)

    def move(self, page: str, name: str | None, moves: str, board: Board,
             seconds: float) -> dict[str, Any]:
        """The listed player ``name``'s move on ``board`` (reached by ``moves``) in ``page``'s
        game, ``seconds`` its time unless its spec fixes one.  Raises ``BadRequest`` for a
        player not listed, ``TooManyGames`` when no game can be kept for it now."""
        listed = self.find(name)
        stale: list[_Game] = []
        try:
            with self._lock:
                game = self._games.get(page)
                if game is None or not game.continues(listed, seconds, moves):
                    if game is not None:
                        stale.append(self._games.pop(page))
                    if len(self._games) >= self.max_games:
                        stale.append(self._make_room())
                    game = _Game(listed, seconds)
                    self._games[page] = game
                game.used = time.monotonic()
                self._start_sweeper()
        finally:  # a game replaced is ended even when no room could be made for the new one
            for old in stale:
                self._end(old)
        if not game.lock.acquire(timeout=WAIT_SECONDS):
            raise TooManyGames()
        try:
            answer = self._play(game, board, moves)
            game.used = time.monotonic()
            if answer["fault"] is not None or answer["over"]:
                game.finish()
            if game.ending:
                game.finish()
                self._forget(page, game)
            return answer
        finally:
            game.lock.release()

    def busy(self, page: str) -> bool:
        """Whether ``page``'s game is in a move now."""
        with self._lock:
            game = self._games.get(page)
            return game is not None and game.lock.locked()

    def _make_room(self) -> _Game:
        """Take out the game least recently played that is not in a move (under ``_lock``)."""
        for page, game in sorted(self._games.items(), key=lambda item: item[1].used):
            if not game.lock.locked():
                del self._games[page]
                return game
        raise TooManyGames()

    def _play(self, game: _Game, board: Board, moves: str) -> dict[str, Any]:
        name = game.listed.name
        began = time.perf_counter()
        try:
            if game.player is None:
                spec = parse_spec(game.listed.text, seconds=game.seconds)
                game.budget = _seconds_of(spec)
                game.player = build_player(spec, agent=self.agent, solver=self.solver)
                game.player.new_game()
                began = time.perf_counter()  # its start is not charged to its move
            column = game.player.choose(board)
            problem = _problem(board, column)
            if problem:
                raise AgentFault(Ending.ILLEGAL, problem)
        except AgentFault as fault:
            return self._fault(game, fault, time.perf_counter() - began)
        except AgentStopped as stopped:  # no one's fault: the game ends without a result
            return {"column": None, "player": name, "kind": game.listed.kind,
                    "seconds": round(time.perf_counter() - began, 4), "budget": game.budget,
                    "fault": {"kind": Ending.STOPPED.value, "detail": stopped.detail},
                    "words": f"{name} was stopped: {stopped.detail}", "over": True}
        except Exception as exc:  # a broken player of another kind loses too (as in the arena)
            return self._fault(game, AgentFault(Ending.ERROR, f"{type(exc).__name__}: {exc}"),
                               time.perf_counter() - began)
        used = time.perf_counter() - began
        chosen = int(column)
        game.after = moves + str(chosen + 1)
        return {"column": chosen, "player": name, "kind": game.listed.kind,
                "seconds": round(used, 4), "budget": game.budget, "fault": None,
                "words": f"{name}, {used:.2f} s",
                "over": board.play_unchecked(chosen).is_over()}

    @staticmethod
    def _fault(game: _Game, fault: AgentFault, elapsed: float) -> dict[str, Any]:
        """The answer of a fault; ``elapsed`` the move's time when the fault has none of its
        own (a fault of its start, found at its first move, has none: no figure is shown)."""
        name = game.listed.name
        seconds = elapsed if fault.seconds is None else fault.seconds
        return {"column": None, "player": name, "kind": game.listed.kind,
                "seconds": round(seconds, 4),
                "budget": game.budget,
                "fault": {"kind": fault.kind.value, "detail": fault.detail},
                "words": fault_words(name, fault, game.budget), "over": True}

    def _forget(self, page: str, game: _Game) -> None:
        with self._lock:
            if self._games.get(page) is game:
                del self._games[page]

    @staticmethod
    def _end(game: _Game) -> None:
        """End a game taken out of the table: now if it is not in a move, else by the move
        in flight when it is over."""
        game.ending = True
        if game.lock.acquire(blocking=False):
            try:
                game.finish()
            finally:
                game.lock.release()

    def end(self, page: str) -> bool:
        """End ``page``'s game (the page says it is over); whether there was one."""
        with self._lock:
            game = self._games.pop(page, None)
        if game is None:
            return False
        self._end(game)
        return True

    def sweep(self, now: float | None = None) -> int:
        """End the games idle for ``idle_seconds``; how many."""
        now = time.monotonic() if now is None else now
        with self._lock:
            idle = [(page, game) for page, game in self._games.items()
                    if now - game.used >= self.idle_seconds and not game.lock.locked()]
            for page, _ in idle:
                del self._games[page]
        for _, game in idle:
            self._end(game)
        return len(idle)

    def close(self) -> None:
        """End every game (the board stops)."""
        with self._lock:
            games = list(self._games.values())
            self._games.clear()
        for game in games:
            self._end(game)

    def _start_sweeper(self) -> None:
        """A thread that ends idle games, running while there are any (under ``_lock``)."""
        if self._sweeper is not None and self._sweeper.is_alive():
            return
        self._sweeper = threading.Thread(target=self._sweep_while_kept, daemon=True,
                                         name="board-games-sweeper")
        self._sweeper.start()

    def _sweep_while_kept(self) -> None:
        while True:
            time.sleep(min(SWEEP_SECONDS, self.idle_seconds))
            self.sweep()
            with self._lock:
                if not self._games:
                    self._sweeper = None
                    return
