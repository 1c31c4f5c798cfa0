"""A played game as every part of the program keeps it (``PlayedGame``), its moves
(``PlayedMove``) and the tally of results (``Tally``).

One value for a game, whoever played it and wherever it is kept (python-chess's ``Outcome``
with the game's moves around it): who played first and second, the columns of an opening
played before they took over, their moves, the winner and how the game ended
(``vocabulary.Ending``), and the words of its detail.  A tournament's and a rate run's games,
the sequential test's, the ladder's, the client's record, the local server's store and the
analysis board's review all read and write it; each store converts it to its own columns where it keeps
it (``client.records``, ``localserver.store``), the course's float result is converted in
``course.protocol``, and the rating reads its points (``rating.fit``).

A move is described the same way by every game loop: its disc number, its column, the seconds
the player took as the game loop measured them (None where nobody timed it: a local server's
game, the other side of a recorded one), and for our engine's moves what its decision said.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from board import Board, BoardError, moves_from_string, moves_to_string
from engine.decision import Decision, ProvenScore, Score, SearchScore
from vocabulary import Ending, Outcome


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """One move of a game.

    ``ply`` is the disc number (1-42; odd plies are the first player's), ``seconds``
    the wall-clock time the player took, as the game loop measured it (None: not timed);
    ``cpu_seconds`` the processor time this process spent meanwhile (much less than
    ``seconds``: the machine was busy and the player waited for a core).  ``depth``,
    ``source``, ``nodes``, ``score``, ``think`` (the engine's own seconds) and ``mode`` come
    from our engine's decision, None for other players.
    """

    ply: int
    column: int
    seconds: float | None = None
    cpu_seconds: float | None = None
    depth: int | None = None
    source: str | None = None
    nodes: int | None = None
    score: Score | None = None
    think: float | None = None
    mode: str | None = None

    @classmethod
    def of(cls, ply: int, column: int, seconds: float | None, decision: Decision | None = None, *,
           cpu_seconds: float | None = None) -> PlayedMove:
        """A move, with our engine's ``decision`` if it made it."""
        if decision is None:
            return cls(ply, column, seconds, cpu_seconds)
        return cls(ply, column, seconds, cpu_seconds, decision.depth, decision.source,
                   decision.nodes, decision.score, decision.seconds, decision.mode)

    @property
    def side(self) -> int:
        """0 for the game's first player, 1 for the second."""
        return (self.ply - 1) % 2

    @property
    def proven(self) -> bool | None:
        return None if self.score is None else self.score.proven

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"ply": self.ply, "side": self.side, "column": self.column,
                                "seconds": self.seconds, "cpu_seconds": self.cpu_seconds,
                                "depth": self.depth, "source": self.source,
                                "nodes": self.nodes, "proven": self.proven, "think": self.think,
                                "mode": self.mode}
        if isinstance(self.score, SearchScore):
            data["score"] = {"scale": "search", "value": self.score.value,
                             "proven": self.score.proven}
        elif isinstance(self.score, ProvenScore):
            data["score"] = {"scale": "pons", "value": self.score.value,
                             "exact": self.score.exact,
                             **({"held": True} if self.score.held else {})}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayedMove:
        score: Score | None = None
        raw = data.get("score")
        if isinstance(raw, dict):
            score = (SearchScore(raw["value"], raw["proven"]) if raw["scale"] == "search"
                     else ProvenScore(raw["value"], raw["exact"], bool(raw.get("held", False))))
        return cls(data["ply"], data["column"], data.get("seconds"), data.get("cpu_seconds"),
                   data.get("depth"), data.get("source"), data.get("nodes"), score,
                   data.get("think"), data.get("mode"))


@dataclass
class Tally:
    """Games won, drawn and lost."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @classmethod
    def of_points(cls, points: Iterable[float | None]) -> Tally:
        """A tally of results as points: 1 a win, 0.5 a draw, 0 a loss; None (a game without
        a result) is not counted."""
        tally = cls()
        for value in points:
            if value is not None:
                tally.add(value)
        return tally

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score_rate(self) -> float:
        """(wins + draws / 2) / games; 0 without games."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    def add(self, points: float) -> None:
        """One game's points: 1 a win, 0.5 a draw, 0 a loss."""
        if points == 1:
            self.wins += 1
        elif points == 0.5:
            self.draws += 1
        else:
            self.losses += 1

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def wdl(self) -> str:
        return f"{self.wins}-{self.draws}-{self.losses}"

    def to_dict(self) -> dict[str, int]:
        return {"wins": self.wins, "draws": self.draws, "losses": self.losses}


def winner_of(side: int, outcome: Outcome) -> int | None:
    """The winner (``PlayedGame.winner``) of a game that ended with ``outcome`` for ``side``."""
    if outcome is Outcome.DRAW:
        return None
    return side if outcome is Outcome.WIN else 1 - side


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A game: who played, the moves, how it ended.

    ``first`` and ``second`` name the players (X and O); ``opening`` holds the 0-based columns
    played before they took over (``moves``: theirs, each with its disc number from the empty
    board).  ``winner`` is 0 (the first player), 1 (the second) or None: a draw, a game
    ``STOPPED`` from outside (no result), or one not over.  ``ending`` is how it ended (None:
    it is not over, or its end is not known: a game still running on a server, one left in
    doubt); ``detail`` the words of it (what a forfeit's loser did, what a server said, why a
    game is unfinished), "" for none.  For a forfeit (``Ending.forfeit``) the loser's last
    answer is not among ``moves``; ``forfeit_seconds`` is how long it took.
    """

    first: str
    second: str
    moves: tuple[PlayedMove, ...] = ()
    winner: int | None = None
    ending: Ending | None = None
    detail: str = ""
    opening: tuple[int, ...] = ()
    forfeit_seconds: float | None = None

    @property
    def columns(self) -> tuple[int, ...]:
        """Every column played from the empty board, the opening's first."""
        return self.opening + tuple(move.column for move in self.moves)

    @property
    def move_string(self) -> str:
        """The game from the empty board in Pons' notation, as ``move`` and ``analyze`` take it."""
        return moves_to_string(self.columns)

    def each_move(self) -> Iterator[tuple[str, PlayedMove]]:
        """The players' moves, each with the move string of the position it was played in."""
        columns = self.columns
        for index, move in enumerate(self.moves):
            yield moves_to_string(columns[:len(self.opening) + index]), move

    @property
    def board(self) -> Board:
        """The position the game reached."""
        return Board.from_moves(self.columns, one_based=False)

    @property
    def won_on_board(self) -> bool:
        """Whether the game has a winner whose last move connected four (a game won otherwise
        was a forfeit or a ruling); False for moves that make no game."""
        if self.winner is None or not self.moves or self.moves[-1].side != self.winner:
            return False
        try:
            return self.board.last_mover_won()
        except BoardError:
            return False

    @property
    def over(self) -> bool:
        """Whether the game has ended (a game still running, or left in doubt, has not)."""
        return self.ending is not None

    @property
    def stopped(self) -> bool:
        """Whether the game was stopped from outside: it has no result."""
        return self.ending is Ending.STOPPED

    def name(self, side: int) -> str:
        """The name of side 0 (first) or 1."""
        return self.first if side == 0 else self.second

    def outcome(self, side: int) -> Outcome | None:
        """The result for side 0 (first) or 1; None for a game without one (not over, or
        stopped from outside)."""
        if self.ending is None or not self.ending.has_result:
            return None
        if self.winner is None:
            return Outcome.DRAW
        return Outcome.WIN if self.winner == side else Outcome.LOSS

    def points(self, side: int) -> float | None:
        """What side 0 (first) or 1 got: 1, 0.5 or 0; None for a game without a result."""
        outcome = self.outcome(side)
        return None if outcome is None else (outcome + 1) / 2

    def forfeited_by(self, side: int) -> Ending | None:
        """How side 0 (first) or 1 lost the game other than on the board (an illegal or a late
        move, a crash, a new game started over it...), or None."""
        if self.ending is not None and self.ending.forfeit and self.winner == 1 - side:
            return self.ending
        return None

    def to_dict(self, *, moves: bool = True) -> dict[str, Any]:
        """The game as JSON: the move string whole (1-7), every ``column`` 0-based.  Without
        ``moves`` the move string alone stands for them (the ladder's games: their moves'
        figures are not kept)."""
        data: dict[str, Any] = {"first": self.first, "second": self.second,
                                "opening": list(self.opening)}
        if moves:
            data["moves"] = [m.to_dict() for m in self.moves]
        return {**data, "move_string": self.move_string, "winner": self.winner,
                "ending": None if self.ending is None else self.ending.value,
                "detail": self.detail, "forfeit_seconds": self.forfeit_seconds}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlayedGame:
        """A game of ``to_dict``, or of the lines earlier versions wrote (their ``reason`` is
        the ending; their ``opening`` was the line's, beside the game).  Raises ``KeyError``,
        ``TypeError`` or ``ValueError`` (``BoardError`` is one) for what is not a game."""
        ending = data.get("ending", data.get("reason"))
        winner = data["winner"]
        if winner not in (0, 1, None) or isinstance(winner, bool):
            raise ValueError(f"winner {winner!r} is not 0, 1 or null")
        opening = tuple(int(c) for c in data.get("opening") or ())
        if "moves" in data:
            moves = tuple(PlayedMove.from_dict(m) for m in data["moves"])
        else:
            columns = moves_from_string(str(data["move_string"]))
            if columns[:len(opening)] != opening:
                raise ValueError(f"the move string {data['move_string']!r} does not begin with"
                                 f" the opening {moves_to_string(opening)!r}")
            moves = tuple(PlayedMove(ply, column) for ply, column
                          in enumerate(columns[len(opening):], start=len(opening) + 1))
        return cls(str(data["first"]), str(data["second"]), moves, winner,
                   None if ending is None else Ending(ending), str(data.get("detail") or ""),
                   opening, data.get("forfeit_seconds"))
