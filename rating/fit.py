"""Ratings on an Elo-like scale from game results: a Bradley-Terry model with draws (Davidson's)
and a first-mover term, fitted by maximum likelihood.

The model, for player ``i`` moving first against ``j``, with ratings in Elo points (a player
400 points stronger is 10 times as likely to win as to lose, draws aside)::

    w = 10 ** ((r_i + first_move) / 400)     l = 10 ** (r_j / 400)     d = draw * sqrt(w * l)
    P(i wins) = w / (w + l + d)   P(draw) = d / (w + l + d)   P(j wins) = l / (w + l + d)

``first_move`` is the first mover's advantage in points (one number for every pairing: between
weak players the first move is worth little, between perfect ones it decides the game; the
check of a fit, ``rating.ladder.check``, shows where one number is too few); ``draw`` is
Davidson's draw parameter (two equal players draw with probability ``draw / (2 + draw)``).

``fit(games)`` maximises the likelihood (``scipy.optimize``, analytic gradient) over the
ratings, ``first_move`` and ``log(draw)``, with the ``anchor`` (``random``) held at 0 and the
ratings of ``fixed`` held at their values (a new player rated against a shipped ladder without
refitting it; the ladder's ``first_move`` and ``draw`` can be held too).  Standard errors come
from the observed information: the inverse of the Hessian of the negative log-likelihood at
the optimum (a finite difference of the analytic gradient); the 95 % interval is the rating
+- 1.96 standard errors.

A player who won every game it played (or lost every one; draws count as neither) has no
finite maximum-likelihood rating.  ``fit`` then fits the others without it and reports a
one-sided 95 % bound for it: the rating at which winning (losing) all its games has a
probability of 5 %, against the fitted ratings of its opponents (``Fit.bounded``: ``above``
or ``below``; ``interval`` is (bound, inf) or (-inf, bound); its ``ratings`` entry is the
bound).  Results that leave some group of the others unbeaten by the rest are an error
(``RatingError``) naming the groups.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, stats
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

ELO = 400.0 / math.log(10.0)  # points per natural-log unit of odds
ABOVE = "above"
BELOW = "below"
_BOUND_LEVEL = 0.95
Array = NDArray[np.float64]


class RatingError(ValueError):
    """The games cannot be fitted (no games, a player without a link to the anchor, groups
    that never lost to the rest): the message says which players and why."""


class Played(Protocol):
    """A played game as the fit reads it (``engine.games.PlayedGame`` is one): the players'
    names, and the points of side 0 (first) or 1: 1 a win, 0.5 a draw, 0 a loss, None for a
    game without a result (stopped from outside, not over)."""

    @property
    def first(self) -> str: ...

    @property
    def second(self) -> str: ...

    def points(self, side: int) -> float | None: ...


Scored = tuple[str, str, float]
"""A game with a result as the fit counts it: the first player, the second, the first's score."""


def scored(games: Iterable[Played]) -> list[Scored]:
    """The games with a result, each with its first player's score: the one conversion of a
    played game into the rating's terms."""
    found = []
    for game in games:
        points = game.points(0)
        if points is not None:
            found.append((game.first, game.second, points))
    return found


@dataclass(frozen=True)
class Fit:
    """Fitted ratings (points, ``anchor`` at 0), their standard errors, the first mover's
    advantage (points) and Davidson's draw parameter.

    ``stderr`` is 0 for the anchor and held ratings, inf for a ``bounded`` player (whose
    ``ratings`` entry is its one-sided 95 % bound, ``above`` or ``below`` it).  ``games`` is
    how many games each player played.
    """

    ratings: Mapping[str, float]
    stderr: Mapping[str, float]
    first_move: float
    draw: float
    anchor: str = "random"
    first_move_stderr: float = 0.0
    draw_stderr: float = 0.0
    bounded: Mapping[str, str] = field(default_factory=dict)
    games: Mapping[str, int] = field(default_factory=dict)

    def interval(self, name: str, level: float = 0.95) -> tuple[float, float]:
        """The two-sided ``level`` interval of ``name``'s rating (a bounded player's is open
        on one side, from its 95 % bound)."""
        rating = self.ratings[name]
        side = self.bounded.get(name)
        if side == ABOVE:
            return rating, math.inf
        if side == BELOW:
            return -math.inf, rating
        half = float(stats.norm.ppf(0.5 + level / 2)) * self.stderr[name]
        return rating - half, rating + half

    def expected(self, a: str, b: str, a_first: bool | None = None) -> float:
        """``a``'s expected score against ``b``: moving first, second, or (None) the mean of
        both."""
        if a_first is None:
            return (self.expected(a, b, True) + self.expected(a, b, False)) / 2
        if a_first:
            win, draw, _ = probabilities(self.ratings[a], self.ratings[b], self.first_move,
                                         self.draw)
            return win + draw / 2
        win, draw, _ = probabilities(self.ratings[b], self.ratings[a], self.first_move, self.draw)
        return 1.0 - win - draw / 2


def probabilities(first: float, second: float, first_move: float, draw: float
                  ) -> tuple[float, float, float]:
    """P(the first player wins), P(draw), P(the second wins) for these ratings (points)."""
    a, b = (first + first_move) / ELO, second / ELO
    c = math.log(draw) + (a + b) / 2 if draw > 0 else -math.inf
    top = max(a, b, c)
    win, loss, draw_ = math.exp(a - top), math.exp(b - top), math.exp(c - top)
    total = win + loss + draw_
    return win / total, draw_ / total, loss / total


@dataclass
class _Tallies:
    """The games counted per ordered pair: indices of first and second, wins, draws, losses."""

    first: NDArray[np.int64]
    second: NDArray[np.int64]
    wins: Array
    draws: Array
    losses: Array


def _tally(games: Sequence[Scored], index: Mapping[str, int]) -> _Tallies:
    counts: dict[tuple[int, int], list[float]] = {}
    for first, second, score in games:
        row = counts.setdefault((index[first], index[second]), [0.0, 0.0, 0.0])
        if score > 0.75:
            row[0] += 1
        elif score >= 0.25:
            row[1] += 1
        else:
            row[2] += 1
    keys = list(counts)
    values = np.array([counts[k] for k in keys], dtype=float).reshape(-1, 3)
    return _Tallies(np.array([k[0] for k in keys], dtype=np.int64),
                    np.array([k[1] for k in keys], dtype=np.int64),
                    values[:, 0], values[:, 1], values[:, 2])


class _Model:
    """The negative log-likelihood over the free parameters: the free ratings (natural-log
    units), then ``first_move`` and ``log(draw)`` unless held."""

    def __init__(self, tallies: _Tallies, count: int, held: Mapping[int, float],
                 first_move: float | None, draw: float | None) -> None:
        self.t = tallies
        self.count = count
        self.held = dict(held)
        self.free = [i for i in range(count) if i not in held]
        self.first_move = first_move
        self.draw = draw
        self.size = len(self.free) + (first_move is None) + (draw is None)

    def unpack(self, x: Array) -> tuple[Array, float, float]:
        ratings = np.zeros(self.count)
        for i, value in self.held.items():
            ratings[i] = value
        ratings[self.free] = x[:len(self.free)]
        at = len(self.free)
        if self.first_move is None:
            first_move = float(x[at])
            at += 1
        else:
            first_move = self.first_move
        log_draw = float(x[at]) if self.draw is None else math.log(max(self.draw, 1e-300))
        return ratings, first_move, log_draw

    def value_and_gradient(self, x: Array) -> tuple[float, Array]:
        ratings, first_move, log_draw = self.unpack(x)
        t = self.t
        a = ratings[t.first] + first_move
        b = ratings[t.second]
        c = log_draw + (a + b) / 2
        top = np.maximum(np.maximum(a, b), c)
        ea, eb, ec = np.exp(a - top), np.exp(b - top), np.exp(c - top)
        total = ea + eb + ec
        lse = top + np.log(total)
        pw, pl, pd = ea / total, eb / total, ec / total
        n = t.wins + t.draws + t.losses
        value = -float(np.sum(t.wins * (a - lse) + t.draws * (c - lse) + t.losses * (b - lse)))
        # d logL / d a = observed minus expected score of the first player (draws half)
        da = (t.wins + t.draws / 2) - n * (pw + pd / 2)
        db = (t.losses + t.draws / 2) - n * (pl + pd / 2)
        dc = t.draws - n * pd
        rating_gradient = (np.bincount(t.first, da, self.count)
                           + np.bincount(t.second, db, self.count))
        parts = [rating_gradient[self.free]]
        if self.first_move is None:
            parts.append(np.array([da.sum()]))
        if self.draw is None:
            parts.append(np.array([dc.sum()]))
        return value, -np.concatenate(parts)

    def hessian(self, x: Array) -> Array:
        """The Hessian of the negative log-likelihood, by central differences of its gradient."""
        h = np.zeros((self.size, self.size))
        step = 1e-5
        for k in range(self.size):
            up, down = x.copy(), x.copy()
            up[k] += step
            down[k] -= step
            h[:, k] = (self.value_and_gradient(up)[1] - self.value_and_gradient(down)[1]) / (2 * step)
        return (h + h.T) / 2


def _unbeaten(games: Sequence[Scored]) -> dict[str, str]:
    """Players who won every game they played (``above``) or lost every one (``below``)."""
    record: dict[str, set[str]] = {}
    for first, second, score in games:
        kind = "win" if score > 0.75 else "loss" if score < 0.25 else "draw"
        record.setdefault(first, set()).add(kind)
        record.setdefault(second, set()).add({"win": "loss", "loss": "win", "draw": "draw"}[kind])
    return {name: ABOVE if kinds == {"win"} else BELOW
            for name, kinds in record.items() if kinds in ({"win"}, {"loss"})}


def _check_connected(names: Sequence[str], tallies: _Tallies) -> None:
    """``RatingError`` unless every player scored (won or drew) against some player of every
    group: otherwise the ratings of a group that never lost to the rest run off to infinity."""
    n = len(names)
    scored = (tallies.wins + tallies.draws > 0, tallies.losses + tallies.draws > 0)
    # an edge u -> v: u scored against v (a win or a draw)
    rows = np.concatenate([tallies.first[scored[0]], tallies.second[scored[1]]])
    cols = np.concatenate([tallies.second[scored[0]], tallies.first[scored[1]]])
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    groups, labels = connected_components(graph, directed=True, connection="strong")
    if groups > 1:
        parts = ["{" + ", ".join(names[i] for i in range(n) if labels[i] == g) + "}"
                 for g in range(groups)]
        raise RatingError("the results do not link every player both ways (some group never lost"
                          f" to the rest, or never scored against it): {' '.join(parts)};"
                          " play games across these groups")


def _bound(name: str, side: str, games: Sequence[Scored], ratings: Mapping[str, float],
           first_move: float, draw: float) -> float:
    """The rating at which ``name`` wins (``above``) or loses (``below``) all its games with
    probability 5 %: a one-sided 95 % bound."""
    own = [(first == name, second if first == name else first) for first, second, _ in games
           if name in (first, second)]

    def log_all(rating: float) -> float:
        total = 0.0
        for is_first, other in own:
            if is_first:
                win, _, loss = probabilities(rating, ratings[other], first_move, draw)
                total += math.log(win if side == ABOVE else loss)
            else:
                win, _, loss = probabilities(ratings[other], rating, first_move, draw)
                total += math.log(loss if side == ABOVE else win)
        return total - math.log(1 - _BOUND_LEVEL)

    centre = float(np.mean([ratings[o] for _, o in own]))
    span = 100.0
    sign = 1.0 if side == ABOVE else -1.0
    far = centre + sign * span
    while log_all(far) < 0 and span < 1e5:
        span *= 2
        far = centre + sign * span
    near = centre - sign * 4000.0
    return float(optimize.brentq(log_all, min(near, far), max(near, far)))


def fit(played_games: Iterable[Played], *, anchor: str = "random",
        fixed: Mapping[str, float] | None = None, first_move: float | None = None,
        draw: float | None = None) -> Fit:
    """The maximum-likelihood ratings of the players of ``played_games`` (points; ``anchor``
    = 0); a game without a result is left out.

    ``fixed`` holds some ratings at their values (the anchor need not play then); ``first_move``
    and ``draw`` given are held too (a player rated against a ladder takes the ladder's).
    Raises ``RatingError`` when there is nothing to fit or the results cannot be fitted.
    """
    fixed = dict(fixed or {})
    games = scored(played_games)
    if not games:
        raise RatingError("no games to fit")
    for first, second, score in games:
        if first == second:
            raise RatingError(f"a game of {first!r} against itself")
        if not 0.0 <= score <= 1.0:
            raise RatingError(f"a score of {score} ({first} - {second}): 0, 0.5 or 1")
    played = sorted({g[0] for g in games} | {g[1] for g in games})
    if anchor not in played and not fixed:
        raise RatingError(f"the anchor {anchor!r} played no game: nothing sets the scale's zero")
    if anchor not in fixed and anchor in played:
        fixed[anchor] = 0.0
    bounded = {name: side for name, side in _unbeaten(games).items() if name not in fixed}
    if anchor in _unbeaten(games) and not set(played) - {anchor} <= set(fixed):
        side = _unbeaten(games)[anchor]
        raise RatingError(f"the anchor {anchor!r} {'won' if side == ABOVE else 'lost'} every game:"
                          " the others' ratings are unbounded against it")
    kept = [g for g in games if g[0] not in bounded and g[1] not in bounded]
    names = sorted({g[0] for g in kept} | {g[1] for g in kept})
    if not kept and not fixed:
        raise RatingError(f"{', '.join(sorted(bounded))}: every game won or lost, nothing to fit")
    index = {name: i for i, name in enumerate(names)}
    tallies = _tally(kept, index) if kept else None
    ratings: dict[str, float] = {}
    stderr: dict[str, float] = {}
    fm, dr, fm_se, dr_se = first_move or 0.0, draw if draw is not None else 0.0, 0.0, 0.0
    if tallies is not None:
        held = {index[name]: value / ELO for name, value in fixed.items() if name in index}
        if not held:
            raise RatingError(f"none of {', '.join(names)} is the anchor or held: nothing sets"
                              " the scale's zero")
        if len(held) == 1:
            _check_connected(names, tallies)
        else:
            _check_links(names, tallies, held)
        model = _Model(tallies, len(names), held,
                       None if first_move is None else first_move / ELO, draw)
        if model.size:
            start = np.zeros(model.size)
            if draw is None:
                start[-1] = math.log(0.1)
            result = optimize.minimize(model.value_and_gradient, start, jac=True, method="BFGS",
                                       options={"gtol": 1e-9, "maxiter": 5000})
            x = np.asarray(result.x, dtype=float)
            covariance = _inverse(model.hessian(x))
            errors = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
        else:
            x, errors = np.zeros(0), np.zeros(0)
        values, fm_units, log_draw = model.unpack(x)
        for i, name in enumerate(names):
            ratings[name] = float(values[i] * ELO)
            stderr[name] = 0.0
        for k, i in enumerate(model.free):
            stderr[names[i]] = float(errors[k] * ELO)
        at = len(model.free)
        fm = fm_units * ELO
        if first_move is None:
            fm_se = float(errors[at] * ELO)
            at += 1
        dr = math.exp(log_draw)
        if draw is None:
            dr_se = float(errors[at] * dr)  # the delta method: d(draw) = draw d(log draw)
    for name, value in fixed.items():
        if name in played:
            ratings[name], stderr[name] = value, 0.0
    known = {**fixed, **ratings}
    for name, side in bounded.items():
        missing = [(first, second) for first, second, _ in games if name in (first, second)
                   and (second if first == name else first) not in known]
        if missing:
            raise RatingError(f"{name!r} won or lost every game, against players not otherwise"
                              " rated: nothing bounds it")
        ratings[name] = _bound(name, side, games, known, fm, dr)
        stderr[name] = math.inf
    counts: dict[str, int] = {}
    for first, second, _ in games:
        counts[first] = counts.get(first, 0) + 1
        counts[second] = counts.get(second, 0) + 1
    return Fit(ratings, stderr, fm, dr, anchor, fm_se, dr_se, bounded, counts)


def _check_links(names: Sequence[str], tallies: _Tallies, held: Mapping[int, float]) -> None:
    """With several held ratings, each free player needs only to be tied to the held ones in
    both directions (it scored against one of them, or one scored against it)."""
    n = len(names)
    merged = np.arange(n)
    anchor = min(held)
    merged[list(held)] = anchor  # the held players act as one fixed point
    t = _Tallies(merged[tallies.first], merged[tallies.second], tallies.wins, tallies.draws,
                 tallies.losses)
    keep = t.first != t.second
    t = _Tallies(t.first[keep], t.second[keep], t.wins[keep], t.draws[keep], t.losses[keep])
    present = sorted(set(range(n)) - (set(held) - {anchor}))
    remap = {old: new for new, old in enumerate(present)}
    _check_connected([names[i] for i in present],
                     _Tallies(np.array([remap[i] for i in t.first], dtype=np.int64),
                              np.array([remap[i] for i in t.second], dtype=np.int64),
                              t.wins, t.draws, t.losses))


def _inverse(matrix: Array) -> Array:
    """The inverse of the observed information (a pseudo-inverse if it is singular)."""
    try:
        return np.asarray(np.linalg.inv(matrix), dtype=float)
    except np.linalg.LinAlgError:
        return np.asarray(np.linalg.pinv(matrix), dtype=float)
