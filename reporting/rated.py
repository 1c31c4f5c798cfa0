"""A rated player's games against the ladder, its rating from them, and the next rungs to play.

``agent.py rate`` (``reporting.rate``) plays a player against rungs of the calibrated ladder
(``rating.ladder``) chosen near its strength, and ``rate --db`` reads the games a course client
played against the local server's ladder bot; both end in the same ``RatedGame`` list, which
this module turns into a rating (``estimate``: the ladder's ratings held fixed, only the
player's fitted) and the rungs of the next batch (``next_rungs``).

The adaptive rule, in full:

- the first batch plays the rungs nearest the middle of the ladder (the median rung's rating);
- after each batch the player's rating is fitted again from all its games so far, the rungs'
  ratings fixed at the ladder's; the next batch plays the ``RUNGS_PER_BATCH`` rungs nearest
  that estimate, each once with each colour (more rounds of that when there are many workers);
- while the fit has no finite estimate (the player won, or lost, every game so far), the
  estimate is moved ``STEP`` points beyond the strongest rung it beat (or the weakest it lost
  to), so that the next rungs are harder (easier);
- the run stops after ``--games`` games, or sooner once ``MIN_GAMES`` are played and the 95 %
  interval of the rating is no wider than ``--width`` points (0: never sooner).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.games import PlayedGame
from rating.fit import Fit, fit
from rating.ladder import CLIMB, Ladder, Rung

RUNGS_PER_BATCH = 2
MIN_GAMES = 20  # before an interval may stop the run: a handful of games fits too well
GAMES_FOR_100_POINTS = 220  # measured: 212-224 games in bench/rate_bench.py's runs (docs/rate.md)
# Points: how far past the rungs played a one-sided record moves the estimate, as the local
# server's ladder bot moves a student's (``rating.ladder.player_rating``).
STEP = CLIMB
LEVEL = 0.95  # of every interval the rate report gives
# The rated player's name in the fit: no rung can have it (a rung is named by its spec).
PLAYER = "rated player"
NO_ANCHOR = "(the ladder's held ratings)"


@dataclass(frozen=True)
class RatedGame:
    """One game of the rated player against a rung: where the run had it, and the game.

    ``number`` counts the run's games from 1 in the order they were handed out (the board opens
    a rated game by it); ``player_first`` says whether the rated player moved first; ``record``
    the game (``first``/``second`` named by the players' labels, its random opening included);
    ``finished`` an ISO 8601 time, UTC.
    """

    number: int
    batch: int
    rung: str
    player_first: bool
    record: PlayedGame
    seeds: tuple[int, int] = (0, 0)
    finished: str = ""

    @property
    def player_side(self) -> int:
        """0 when the rated player moved first (``PlayedMove.side``), else 1."""
        return 0 if self.player_first else 1

    @property
    def score(self) -> float | None:
        """The rated player's points: 1 a win, 0.5 a draw, 0 a loss; None for a game stopped
        from outside (no result)."""
        return self.record.points(self.player_side)

    @property
    def fault(self) -> str | None:
        """How the rated player lost its game other than on the board (an illegal move, a
        crash, a late move...: the game's ending), or None."""
        fault = self.record.forfeited_by(self.player_side)
        return None if fault is None else fault.value

    def as_fit_game(self) -> PlayedGame:
        """The game as the fit sees it: the rated player is ``PLAYER``, the rung its rung."""
        first, second = (PLAYER, self.rung) if self.player_first else (self.rung, PLAYER)
        return dataclasses.replace(self.record, first=first, second=second)

    def to_line(self) -> dict[str, Any]:
        """The game as a line of ``games.jsonl`` (docs/rate.md has every field)."""
        return {"game": self.number, "batch": self.batch, "rung": self.rung,
                "player_first": self.player_first, "player_side": self.player_side + 1,
                "score": self.score, "seeds": list(self.seeds), "finished_at": self.finished,
                **self.record.to_dict()}

    @classmethod
    def from_line(cls, line: Mapping[str, Any]) -> RatedGame:
        """A game of ``to_line``, or of the lines of earlier versions."""
        return cls(int(line["game"]), int(line["batch"]), str(line["rung"]),
                   bool(line["player_first"]), PlayedGame.from_dict(line),
                   (int(line["seeds"][0]), int(line["seeds"][1])),
                   str(line.get("finished_at", "")))


@dataclass(frozen=True)
class Estimate:
    """The rated player's rating now: ``rating`` and its 95 % interval ``low``-``high``; the
    interval may be unbounded (``inf``) when every game went one way.  ``fitted`` is False when
    the fit had no finite answer and ``rating`` is the stepped guess of the module's rule."""

    rating: float
    low: float
    high: float
    fitted: bool
    fit: Fit | None = None

    @property
    def width(self) -> float:
        return self.high - self.low


def middle(ladder: Ladder) -> float:
    """The rating the first batch aims at: the median rung's."""
    return ladder.middle().rating


def estimate(games: Sequence[RatedGame], ladder: Ladder) -> Estimate:
    """The player's rating from ``games``, the ladder's ratings fixed (``rating.fit``)."""
    if not games:
        centre = middle(ladder)
        return Estimate(centre, -math.inf, math.inf, False)
    ratings = ladder.fixed()
    found: Fit | None = None
    try:
        # The ladder's first-move and draw terms are held too: a few games of one player
        # would fit them poorly, and the rungs' ratings were fitted with them.  Every rung is
        # held, so they set the scale's zero: the anchor named is one that plays no game (the
        # fit refuses games in which a playing anchor lost, or won, every one).
        found = fit([game.as_fit_game() for game in games], anchor=NO_ANCHOR,
                    fixed=ratings, first_move=ladder.first_move, draw=ladder.draw)
        rating = float(found.ratings[PLAYER])
        low, high = found.interval(PLAYER, LEVEL)
    except (ValueError, ArithmeticError, KeyError):  # rating.fit.RatingError is a ValueError
        rating, low, high = math.nan, -math.inf, math.inf
    if math.isfinite(rating) and math.isfinite(low) and math.isfinite(high):
        return Estimate(rating, low, high, True, found)
    # Every game one way: past the strongest rung beaten, or below the weakest that won.
    counted = [(game.rung, game.score) for game in games if game.score is not None]
    scores = [score for _, score in counted]
    played = [ratings[rung] for rung, _ in counted if rung in ratings]
    if not played:
        return Estimate(middle(ladder), -math.inf, math.inf, False, found)
    if sum(scores) >= len(scores) / 2:
        beaten = [ratings[rung] for rung, score in counted if rung in ratings and score > 0.5]
        return Estimate(max(beaten or played) + STEP, max(beaten or played), math.inf, False, found)
    lost_to = [ratings[rung] for rung, score in counted if rung in ratings and score < 0.5]
    return Estimate(min(lost_to or played) - STEP, -math.inf, min(lost_to or played), False, found)


def next_rungs(ladder: Ladder, current: Estimate) -> list[Rung]:
    """The rungs of the next batch: the ``RUNGS_PER_BATCH`` nearest the estimate."""
    return list(ladder.nearest(current.rating, RUNGS_PER_BATCH))


def done(played: int, games: int, current: Estimate, width: float) -> bool:
    """Whether the run stops: ``games`` played, or the interval narrow enough (module rule)."""
    if played >= games:
        return True
    return (width > 0 and played >= MIN_GAMES and current.fitted
            and current.width <= width)


def expected_games(games: int, width: float) -> int:
    """About how many games the rule plays: ``games``, or fewer when the interval reaches
    ``width`` points sooner (a 95 % interval narrows as one over the square root of the games,
    and was 100 points wide after about ``GAMES_FOR_100_POINTS`` in the measured runs)."""
    if width <= 0:
        return games
    return min(games, max(MIN_GAMES, math.ceil(GAMES_FOR_100_POINTS * (100 / width) ** 2)))


def batch_size(slots: int) -> int:
    """Games per batch: each rung once with each colour, in as many rounds as keep ``slots``
    workers busy."""
    rounds = max(1, math.ceil(slots / (2 * RUNGS_PER_BATCH)))
    return 2 * RUNGS_PER_BATCH * rounds
