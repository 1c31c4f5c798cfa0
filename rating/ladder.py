"""The calibrated ladder: reference players with ratings on one scale (``random`` = 0), shipped as
``rating/data/ladder.json`` with the games behind them (``ladder-games.jsonl.gz``), made by
``python -m arena.calibration`` (docs/rating.md).

For the ``rate`` command and ``serve --bot ladder``:

- ``load_ladder()`` reads the shipped ladder (or a file given); ``save_ladder`` writes one;
- ``Ladder.fixed()`` is the ratings to hold in ``rating.fit.fit(games, fixed=...,
  first_move=ladder.first_move, draw=ladder.draw)`` to rate a new player without refitting
  the ladder;
- ``Ladder.nearest(rating, count)`` the rungs nearest a rating, ``Ladder.choose_for(rating)``
  the one rung to play next (None: a new player, the middle rung);
- ``check(fit, games)`` compares each pair's observed score with the fit's prediction
  (``check_table`` prints it).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rating.fit import ABOVE, Fit, Played, fit, probabilities, scored

DATA = Path(__file__).resolve().parent / "data"
LADDER_FILE = DATA / "ladder.json"
GAMES_FILE = DATA / "ladder-games.jsonl.gz"
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Rung:
    """One reference player: its name on the ladder, the player spec that builds it, its rating
    (points) and the 95 % interval, the standard error and the games behind it."""

    name: str
    spec: str
    rating: float
    low: float
    high: float
    stderr: float = 0.0
    games: int = 0


@dataclass(frozen=True)
class Ladder:
    """The rungs, weakest first, and the fit's first-mover advantage (points) and draw
    parameter (Davidson's, ``rating.fit``); where the ratings come from (``fitted``: the date,
    ``commit``, the ``games_file`` name and ``games`` count) and any ``notes``."""

    rungs: tuple[Rung, ...]
    first_move: float
    draw: float
    anchor: str = "random"
    first_move_stderr: float = 0.0
    draw_stderr: float = 0.0
    fitted: str = ""
    commit: str = ""
    games_file: str = GAMES_FILE.name
    games: int = 0
    notes: tuple[str, ...] = field(default_factory=tuple)

    def rung(self, name: str) -> Rung:
        """The rung called ``name``; ``KeyError`` naming the rungs when there is none."""
        for rung in self.rungs:
            if rung.name == name:
                return rung
        raise KeyError(f"no rung {name!r} on the ladder: {', '.join(r.name for r in self.rungs)}")

    def fixed(self) -> dict[str, float]:
        """Every rung's rating, to hold in a fit (``rating.fit.fit(..., fixed=...)``)."""
        return {rung.name: rung.rating for rung in self.rungs}

    def nearest(self, rating: float, count: int = 1) -> list[Rung]:
        """The ``count`` rungs whose ratings are nearest ``rating``, weakest first (ties: the
        weaker rung)."""
        by_distance = sorted(self.rungs, key=lambda r: (abs(r.rating - rating), r.rating))
        return sorted(by_distance[:max(0, count)], key=lambda r: r.rating)

    def middle(self) -> Rung:
        """The rung a new player starts against: the median rung by rating."""
        ordered = sorted(self.rungs, key=lambda r: r.rating)
        return ordered[(len(ordered) - 1) // 2]

    def choose_for(self, rating: float | None) -> Rung:
        """The rung to play next for a player of ``rating`` (its current estimate; None for a
        player without one: the middle rung)."""
        if rating is None or not math.isfinite(rating):
            return self.middle() if rating is None else self._end(rating)
        return self.nearest(rating, 1)[0]

    def _end(self, rating: float) -> Rung:
        ordered = sorted(self.rungs, key=lambda r: r.rating)
        return ordered[-1] if rating > 0 else ordered[0]

    def as_fit(self) -> Fit:
        """The ladder as a ``Fit`` (for ``Fit.expected`` between rungs)."""
        return Fit({r.name: r.rating for r in self.rungs}, {r.name: r.stderr for r in self.rungs},
                   self.first_move, self.draw, self.anchor, self.first_move_stderr,
                   self.draw_stderr, {}, {r.name: r.games for r in self.rungs})

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["rungs"] = [asdict(r) for r in self.rungs]
        data["notes"] = list(self.notes)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ladder:
        rungs = tuple(Rung(**r) for r in data["rungs"])
        rest = {k: v for k, v in data.items() if k not in ("rungs", "notes")}
        return cls(rungs=rungs, notes=tuple(data.get("notes", ())), **rest)


def ladder_from_fit(result: Fit, specs: Mapping[str, str], **where: Any) -> Ladder:
    """The ladder of a fit's players (``specs``: name -> player spec), weakest first;
    ``where`` sets ``fitted``, ``commit``, ``games_file``, ``games``, ``notes``."""
    rungs = []
    for name, spec in specs.items():
        low, high = result.interval(name)
        rungs.append(Rung(name, spec, round(result.ratings[name], 1), round(low, 1),
                          round(high, 1), round(result.stderr[name], 1),
                          int(result.games.get(name, 0))))
    rungs.sort(key=lambda r: r.rating)
    return Ladder(tuple(rungs), round(result.first_move, 1), round(result.draw, 4), result.anchor,
                  round(result.first_move_stderr, 1), round(result.draw_stderr, 4), **where)


def save_ladder(ladder: Ladder, path: Path | None = None) -> Path:
    """Write ``ladder`` as JSON to ``path`` (default: the shipped file)."""
    path = path or LADDER_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(ladder.to_dict(), indent=1) + "\n")
    return path


def load_ladder(path: Path | None = None) -> Ladder:
    """The ladder in ``path`` (default: the shipped ``rating/data/ladder.json``)."""
    return Ladder.from_dict(json.loads((path or LADDER_FILE).read_text()))


# --- a player's rating against the ladder ------------------------------------------------------

CLIMB = 200.0  # points past the rungs met, for a player who won (lost) every game so far


def player_rating(ladder: Ladder, games: Sequence[Played], player: str) -> float | None:
    """``player``'s rating from its ``games`` against rungs (named by the rungs' names), the
    ladder's ratings, first-move and draw terms held (None without a game against a rung).

    A player who won (lost) every game has only a bound: it is then placed ``CLIMB`` points
    above the strongest (below the weakest) rung it met, so that the next rung chosen for it
    (``Ladder.choose_for``) is harder (easier).
    """
    ratings = ladder.fixed()
    own = [g for g in games if player in (g.first, g.second)
           and (g.second if g.first == player else g.first) in ratings
           and g.points(0) is not None]
    if not own:
        return None
    result = fit(own, anchor="", fixed=ratings, first_move=ladder.first_move, draw=ladder.draw)
    side = result.bounded.get(player)
    if side is None:
        return result.ratings[player]
    met = [ratings[g.second if g.first == player else g.first] for g in own]
    return max(met) + CLIMB if side == ABOVE else min(met) - CLIMB


# --- the check of a fit against its games -----------------------------------------------------

@dataclass(frozen=True)
class PairCheck:
    """One pair's games: ``a``'s observed and predicted score (the mean over the games, each
    with the colours it was played with) and the 95 % interval of the observed mean under the
    fitted model (its sampling spread, not the fit's own uncertainty)."""

    a: str
    b: str
    games: int
    observed: float
    predicted: float
    low: float
    high: float

    @property
    def inside(self) -> bool:
        return self.low - 1e-9 <= self.observed <= self.high + 1e-9

    @property
    def why(self) -> str:
        """A one-line reading of a pair outside its interval ("" inside)."""
        if self.inside:
            return ""
        side = "more" if self.observed > self.predicted else "less"
        return f"{self.a} scored {side} than the ratings predict against {self.b}"


def check(result: Fit, games: Sequence[Played]) -> list[PairCheck]:
    """Each pair of players that met: observed against predicted score, weaker-rated first."""
    pairs: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    for first, second, first_score in scored(games):
        if first not in result.ratings or second not in result.ratings:
            continue
        a, b = sorted((first, second), key=lambda n: (result.ratings[n], n))
        a_first = first == a
        score = first_score if a_first else 1.0 - first_score
        if a_first:
            win, draw, _ = probabilities(result.ratings[a], result.ratings[b], result.first_move,
                                         result.draw)
        else:
            _loss, draw, win = probabilities(result.ratings[b], result.ratings[a],
                                            result.first_move, result.draw)
        mean = win + draw / 2
        variance = win + draw / 4 - mean * mean
        pairs.setdefault((a, b), []).append((score, mean, variance))
    checks = []
    for (a, b), rows in pairs.items():
        n = len(rows)
        observed = sum(r[0] for r in rows) / n
        predicted = sum(r[1] for r in rows) / n
        half = Z95 * math.sqrt(max(sum(r[2] for r in rows), 0.0)) / n
        checks.append(PairCheck(a, b, n, observed, predicted, max(0.0, predicted - half),
                                min(1.0, predicted + half)))
    checks.sort(key=lambda c: (result.ratings[c.a], result.ratings[c.b]))
    return checks


def check_table(checks: Sequence[PairCheck]) -> str:
    """The check as a Markdown table, the pairs outside their interval marked and counted."""
    lines = ["| pair | games | observed | predicted | 95 % interval | |",
             "|---|---:|---:|---:|---|---|"]
    for c in checks:
        mark = "" if c.inside else f"**out**: {c.why}"
        lines.append(f"| {c.a} - {c.b} | {c.games} | {c.observed:.3f} | {c.predicted:.3f} |"
                     f" {c.low:.3f}-{c.high:.3f} | {mark} |")
    out = sum(not c.inside for c in checks)
    lines.append("")
    lines.append(f"{len(checks) - out} of {len(checks)} pairs inside their 95 % interval"
                 f" ({out} outside; about {0.05 * len(checks):.1f} expected by chance).")
    return "\n".join(lines)
