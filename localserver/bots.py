"""The local server's opponents other than the course's bot: any player spec (``serve --bot
SPEC``), one player per running game.

``CourseService`` asks its ``Bots`` for a player when a game starts (``for_game``, given the
student's key, so a chooser can pick by student: the rating ladder's rung nearest the
student's rating) and hands it back when the game ends (``game_over``).  ``SpecBots`` builds
players from a spec chosen per game and keeps the finished ones for later games (building
``ours`` loads an engine; an outside agent starts its process per game anyway), so games of
several students at once each have a player of their own.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ecosystems.players import Spec, build_player
from engine.players import Player
from outside import end_game
from rating.ladder import Ladder, load_ladder, player_rating
from settings import AgentSettings, SolverSettings, UsageError


class Bots(Protocol):
    """Where the server's bots come from: one player for each game."""

    def for_game(self, student: str) -> Player:
        """The bot of a new game of ``student`` (its ``new_game`` is called by the server)."""
        ...

    def game_over(self, bot: Player) -> None:
        """``bot``'s game is over (won, lost, abandoned): it may play another."""
        ...

    def describe(self) -> str:
        """The bot in a few words, for the server's banner."""
        ...


class SpecBots:
    """Players of the spec ``choose(student)`` names, built by ``ecosystems.players`` with the
    configured ``agent`` and ``solver`` settings, kept per spec between games."""

    def __init__(self, choose: Callable[[str], Spec], *, agent: AgentSettings | None = None,
                 solver: SolverSettings | None = None, description: str | None = None) -> None:
        self._choose = choose
        self._agent = agent
        self._solver = solver
        self._description = description
        self._free: dict[str, list[tuple[Spec, Player]]] = {}
        self._specs: dict[int, Spec] = {}
        self._lock = threading.Lock()

    @classmethod
    def of(cls, spec: Spec, *, agent: AgentSettings | None = None,
           solver: SolverSettings | None = None) -> SpecBots:
        """The same spec for every game."""
        return cls(lambda _student: spec, agent=agent, solver=solver, description=spec.label)

    def describe(self) -> str:
        return self._description or "chosen per game"

    def for_game(self, student: str) -> Player:
        spec = self._choose(student)
        with self._lock:
            free = self._free.get(spec.label)
            if free:
                _, player = free.pop()
                self._specs[id(player)] = spec
                return player
        player = build_player(spec, rng=random.Random(), agent=self._agent, solver=self._solver)
        with self._lock:
            self._specs[id(player)] = spec
        return player

    def game_over(self, bot: Player) -> None:
        end_game(bot)
        with self._lock:
            spec = self._specs.pop(id(bot), None)
            if spec is not None:
                self._free.setdefault(spec.label, []).append((spec, bot))

    def warm_up(self, student: str = "") -> None:
        """Build a player now (an ``ours`` loads its engine), ready for the first game."""
        self.game_over(self.for_game(student))




COURSE_BOTS = ("minimax", "random")  # ``--bot`` values that keep the course's bot
LADDER = "ladder"  # ``--bot ladder``: the rating ladder's rung nearest each student's rating
STUDENT = "(student)"  # the student's name in the fit: no rung has it


def ladder_bots(db: str, *, seconds: float, agent: AgentSettings | None = None,
                solver: SolverSettings | None = None, ladder: Ladder | None = None) -> SpecBots:
    """The bots of ``serve --bot ladder``: for each new game, the rung of ``ladder`` (default:
    the shipped one) nearest the student's current rating, fitted from the student's finished
    games against rungs in the server's database ``db`` with the ladder's ratings held
    (``rating.ladder.player_rating``); a student without such games plays the middle rung.
    A game's bot is recorded by its player's name (the rung's spec), which maps back to its rung.
    """
    from ecosystems.players import parse_spec
    from localserver.store import GameStore

    ladder = ladder or load_ladder()
    specs = {rung.name: parse_spec(rung.spec, seconds=seconds) for rung in ladder.rungs}
    rung_of = {spec.label: name for name, spec in specs.items()} | {name: name for name in specs}

    def choose(student: str) -> Spec:
        stored = []
        # an in-memory database is the server's own: another connection sees none of its games
        if db != ":memory:" and Path(db).exists():
            store = GameStore(db, read_only=True)
            try:
                stored = [g for g in store.games() if g.player == student]
            finally:
                store.close()
        games = []
        for game in stored:
            rung = rung_of.get(game.bot or "")
            if rung is None or not game.game.over:
                continue
            names = (STUDENT, rung) if game.student_first else (rung, STUDENT)
            games.append(dataclasses.replace(game.game, first=names[0], second=names[1]))
        return specs[ladder.choose_for(player_rating(ladder, games, STUDENT)).name]

    return SpecBots(choose, agent=agent, solver=solver,
                    description="the rating ladder: the rung nearest each student's rating")


def bots_of_option(value: str | None, *, seconds: float, agent: AgentSettings | None = None,
                   solver: SolverSettings | None = None, db: str | None = None
                   ) -> SpecBots | None:
    """The bots of ``serve --bot VALUE``: None for the course's bot (no value, ``minimax``,
    ``random``), else the players of a spec (``ours:0.5``, ``kaggle:negamax``, ``bot:5``,
    ``connectx:PATH``, ``program:...``; ``ladder``: ``ladder_bots`` over the database ``db``),
    ``seconds`` the default time of the spec's player.
    Raises ``UsageError`` naming a bad spec."""
    from ecosystems.players import parse_spec

    if value is None or value.strip().lower() in COURSE_BOTS:
        return None
    if value.strip().lower() == LADDER:
        if db is None:
            raise ValueError("--bot ladder reads the students' games: give the database")
        return ladder_bots(db, seconds=seconds, agent=agent, solver=solver)
    spec = parse_spec(value, seconds=seconds)
    if spec.kind == "human":
        raise UsageError("--bot human: a person plays the local server through its client")
    return SpecBots.of(spec, agent=agent, solver=solver)


__all__ = ["COURSE_BOTS", "LADDER", "Bots", "SpecBots", "bots_of_option", "ladder_bots"]
