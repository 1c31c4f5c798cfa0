"""Is the candidate stronger than the base?  The sequential probability ratio test on pairs of
games, as engine developers decide it (fishtest, OpenBench, fastchess), over counts alone.

The games come in **pairs**: the same opening twice, the candidate with each colour.  A pair
scores 0, 1/2, 1, 3/2 or 2 points for the candidate, and the test counts how many pairs scored
each: the **pentanomial** (five counts, in that order).  The two games of a pair are not
independent (the opening favours one colour), the pairs are, so the pair is the unit of the
statistics.  Games counted one by one give the **trinomial** (losses, draws, wins), which the
functions below take too.

A score is used per game, ``x`` in [0, 1]: a pair's points over 2, a game's points.  ``mu`` is
its mean, ``var`` its variance over the units counted (pairs or games).

Two models say how strong the candidate is, and the test's bounds ``elo0`` and ``elo1`` are in
the model's unit:

- ``logistic``: the Elo difference of the mean score, ``mu = 1 / (1 + 10 ** (-elo / 400))``;
- ``normalized`` (fishtest's default): normalized Elo, ``nElo = (mu - 1/2) / sigma * 800 /
  ln 10``, where ``sigma`` is the standard deviation of one game's score (``sqrt(2 var)`` for
  pairs, ``sqrt(var)`` for games).  A test's expected length in games depends on its bounds in
  nElo alone, not on the draw rate or the openings; with no draws and small differences nElo
  and Elo agree, with many draws nElo is larger.

**The log-likelihood ratio** (the generalised SPRT): the counts are a sample of a multinomial
distribution ``p``; under each hypothesis ``p`` is replaced by its maximum-likelihood estimate
subject to the hypothesis (a mean score of ``mu(elo_k)`` for logistic; a normalized t-value
``(mu - 1/2) / sigma_unit = t_k`` for normalized, ``t_k = nt_k * sqrt(2)`` for pairs and ``nt_k``
for games, ``nt_k = elo_k / (800 / ln 10)``), and::

    LLR = N * (D(p^ || p0) - D(p^ || p1))          D: the Kullback-Leibler divergence

with ``p^`` the observed frequencies and ``N`` the number of units.  The constrained estimate
is ``p_i = p^_i / (1 + lambda * phi_i)``: for the mean, ``phi_i = x_i - mu_k``; for the t-value,
``phi_i = (x_i - 1/2) - (t sigma / 2) * (1 + ((x_i - mu) / sigma) ** 2)`` with ``mu`` and
``sigma`` those of ``p`` itself, found by iterating to the fixed point (the Lagrange conditions
of the constrained maximum).  ``lambda`` is the root of ``sum p^_i phi_i / (1 + lambda phi_i)``,
where ``D(p^ || p) = sum p^_i log(1 + lambda phi_i)``.  An outcome never seen counts as 0.001
(as fishtest does), so that the estimates exist from the first pair on.

The test stops at the first pair after which ``LLR >= log((1 - beta) / alpha)`` (H1 accepted:
the candidate is stronger by about ``elo1``) or ``LLR <= log(beta / (1 - alpha))`` (H0
accepted: it is not stronger than ``elo0``).  ``alpha`` is the chance of accepting H1 when the
truth is ``elo0``, ``beta`` that of accepting H0 when it is ``elo1``; ``simulate`` measures both.

**The Elo estimate** is the maximum-likelihood one (the sample's mean and spread) with a 95 %
interval: for Elo, the mean's normal interval mapped through the logistic curve; for nElo, the
t-value's interval by the delta method (its variance ``(1 - t m3 / sigma^3 + t^2 (m4 / sigma^4
- 1) / 4) / N``, ``m3`` and ``m4`` the central moments).  A sequential test stops when the
results ran high or low, so the estimate at its end leans that way; the interval is that of a
test of a fixed length.

These are fishtest's statistics, as published by Michel Van den Bergh (the GSPRT, normalized
Elo); this module is written from the mathematics above.  Pure numpy and scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, stats

from rating.sprt_params import DEFAULT_ALPHA, DEFAULT_BETA, DEFAULT_ELO0, DEFAULT_ELO1, Model

Array = NDArray[np.float64]

NELO_PER_NT = 800.0 / math.log(10.0)  # normalized Elo per unit of the normalized t-value
LOGISTIC_SCALE = 400.0  # Elo points per factor 10 of the odds
UNSEEN = 1e-3  # what an outcome never seen counts for, so that the estimates exist
Z95 = float(stats.norm.ppf(0.975))
# The score of one game for each count, in order: pairs (0, 1/2, 1, 3/2, 2 points over 2
# games), games (loss, draw, win).
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
GAME_SCORES = np.array([0.0, 0.5, 1.0])
PAIR_POINTS = ("0", "1/2", "1", "3/2", "2")  # a pair's points for the candidate, as counted
# Elo bounds beyond these are not a question a test of games answers (a mean score within
# 1e-6 of 0 or 1); refused as a user's mistake.
MAX_ELO = 2000.0
_TOLERANCE = 1e-12  # relative, of lambda and of the constrained estimate's probabilities
_ITERATIONS = 500


class SprtError(ValueError):
    """A test that cannot be run as asked (bounds, error rates): the message says what."""


class Verdict(StrEnum):
    """How a test ended: H0 or H1 accepted, or the maximum of pairs reached first."""

    H0 = "H0"
    H1 = "H1"
    MAXIMUM = "maximum"


# --- the scales -----------------------------------------------------------------------------

def score_of(elo: float) -> float:
    """The mean score per game of a player ``elo`` logistic Elo stronger."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / LOGISTIC_SCALE))


def elo_of(score: float) -> float:
    """The logistic Elo difference of a mean score per game (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -LOGISTIC_SCALE * math.log10(1.0 / score - 1.0)


def _scores(counts: Array) -> Array:
    """The score per game of each count: five counts are pairs, three are games."""
    if counts.shape[-1] == 5:
        return PAIR_SCORES
    if counts.shape[-1] == 3:
        return GAME_SCORES
    raise SprtError(f"counts are five (pairs) or three (games), not {counts.shape[-1]}")


def _t_per_unit(nt: float, units: int) -> float:
    """The normalized t-value per unit counted (a pair holds two games)."""
    return nt * math.sqrt(2.0) if units == 5 else nt


# --- the constrained maximum-likelihood estimates, many samples at once ---------------------

def _root(p_hat: Array, phi: Array, start: Array | None = None) -> Array:
    """For each row, the ``lambda`` where ``sum p^ phi / (1 + lambda phi)`` is 0 (from
    ``start``, default 0).

    That sum falls from +inf to -inf between the ends where some ``1 + lambda phi`` reaches
    0; Newton's step is taken where it stays between the bounds found so far, else the
    middle of them.
    """
    high_phi, low_phi = phi.max(axis=-1), phi.min(axis=-1)
    if not (np.all(high_phi > 0) and np.all(low_phi < 0)):
        raise SprtError("a hypothesis outside what any results can show (bounds too far apart)")
    low, high = -1.0 / high_phi, -1.0 / low_phi
    lam = np.zeros(phi.shape[:-1]) if start is None else np.clip(start, low, high)
    lam = np.where((lam > low) & (lam < high), lam, 0.0)
    for _ in range(_ITERATIONS):
        denominator = 1.0 + lam[..., None] * phi
        value = (p_hat * phi / denominator).sum(axis=-1)
        slope = -(p_hat * phi**2 / denominator**2).sum(axis=-1)
        low = np.where(value > 0, lam, low)
        high = np.where(value <= 0, lam, high)
        newton = lam - value / slope
        inside = ((newton > low) & (newton < high)) | (newton == lam)
        new = np.where(inside, newton, (low + high) / 2)
        scale = _TOLERANCE * (1.0 + np.abs(lam))
        done = (np.abs(new - lam) <= scale) | (high - low <= scale)
        if np.all(done):
            return new
        lam = np.where(done, lam, new)  # a row at its root stays there while others go on
    return lam


def _divergence(p_hat: Array, phi: Array, lam: Array) -> Array:
    """``D(p^ || p)`` for ``p = p^ / (1 + lambda phi)``."""
    divergence: Array = (p_hat * np.log1p(lam[..., None] * phi)).sum(axis=-1)
    return divergence


def _mean_divergence(p_hat: Array, scores: Array, mean: float) -> Array:
    """The least ``D(p^ || p)`` over the ``p`` of mean score ``mean``."""
    phi = np.broadcast_to(scores - mean, p_hat.shape)
    return _divergence(p_hat, phi, _root(p_hat, phi))


def _t_divergence(p_hat: Array, scores: Array, t: float) -> Array:
    """The least ``D(p^ || p)`` over the ``p`` with ``(mu - 1/2) / sigma = t``."""
    p = np.full_like(p_hat, 1.0 / p_hat.shape[-1])  # from the uniform: p^ may have no spread
    lam: Array | None = None
    for _ in range(_ITERATIONS):
        mu = (p * scores).sum(axis=-1, keepdims=True)
        sigma = np.sqrt((p * (scores - mu) ** 2).sum(axis=-1, keepdims=True))
        phi = (scores - 0.5) - t * sigma / 2 * (1 + ((scores - mu) / sigma) ** 2)
        lam = _root(p_hat, phi, lam)
        new = p_hat / (1.0 + lam[..., None] * phi)
        converged = np.max(np.abs(new - p)) < _TOLERANCE
        p = new
        if converged:
            break
    assert lam is not None
    return _divergence(p_hat, phi, lam)


def _llr_rows(counts: Array, elo0: float, elo1: float, model: Model) -> Array:
    """The LLR of each row of ``counts`` (regularised, ``UNSEEN``)."""
    scores = _scores(counts)
    counts = np.maximum(counts, UNSEEN)
    total = counts.sum(axis=-1)
    p_hat = counts / total[..., None]
    if model is Model.LOGISTIC:
        d0 = _mean_divergence(p_hat, scores, score_of(elo0))
        d1 = _mean_divergence(p_hat, scores, score_of(elo1))
    else:
        units = counts.shape[-1]
        d0 = _t_divergence(p_hat, scores, _t_per_unit(elo0 / NELO_PER_NT, units))
        d1 = _t_divergence(p_hat, scores, _t_per_unit(elo1 / NELO_PER_NT, units))
    result: Array = total * (d0 - d1)
    return result


def llr(counts: Sequence[float], elo0: float, elo1: float,
        model: Model = Model.NORMALIZED) -> float:
    """The generalised log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for the
    ``counts``: five of pairs (0 ... 2 points) or three of games (loss, draw, win)."""
    return float(_llr_rows(np.asarray(counts, dtype=float)[None, :], elo0, elo1, model)[0])


# --- the estimate ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Estimate:
    """A strength difference in a model's unit, with its 95 % interval (``low``, ``high``)."""

    elo: float
    low: float
    high: float
    model: Model

    def __str__(self) -> str:
        return (f"{_signed(self.elo)} {self.model.unit} [{_signed(self.low)},"
                f" {_signed(self.high)}]")

    def to_dict(self) -> dict[str, float | str | None]:
        return {"elo": _finite(self.elo), "low": _finite(self.low), "high": _finite(self.high),
                "unit": self.model.unit}


def _signed(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def _finite(value: float) -> float | None:
    return None if math.isinf(value) or math.isnan(value) else round(value, 2)


def _frequencies(counts: Sequence[float]) -> tuple[Array, Array]:
    """The observed frequencies of ``counts`` (regularised as for the LLR, ``UNSEEN``) and the
    score per game of each."""
    array = np.asarray(counts, dtype=float)
    regular = np.maximum(array, UNSEEN)
    return regular / regular.sum(), _scores(array)


def moments(counts: Sequence[float]) -> tuple[float, float]:
    """The mean score per game and its variance over the units counted."""
    p, scores = _frequencies(counts)
    mu = float((p * scores).sum())
    return mu, float((p * (scores - mu) ** 2).sum())


def estimate(counts: Sequence[float], model: Model = Model.NORMALIZED) -> Estimate:
    """The strength difference the ``counts`` show, with its 95 % interval (the module's
    docstring says how).  Needs at least one unit counted."""
    units = float(np.sum(counts))
    if units < 1:
        raise SprtError("no results to estimate from")
    mu, var = moments(counts)
    if model is Model.LOGISTIC:
        half = Z95 * math.sqrt(var / units)
        return Estimate(elo_of(mu), elo_of(mu - half), elo_of(mu + half), model)
    p, scores = _frequencies(counts)
    sigma = math.sqrt(var)
    t = (mu - 0.5) / sigma
    m3 = float((p * (scores - mu) ** 3).sum())
    m4 = float((p * (scores - mu) ** 4).sum())
    spread = math.sqrt(max(0.0, 1 - t * m3 / sigma**3 + t**2 * (m4 / sigma**4 - 1) / 4) / units)
    per_game = math.sqrt(2.0) if p.size == 5 else 1.0
    return Estimate(NELO_PER_NT * t / per_game, NELO_PER_NT * (t - Z95 * spread) / per_game,
                    NELO_PER_NT * (t + Z95 * spread) / per_game, model)


# --- the test -------------------------------------------------------------------------------



@dataclass(frozen=True)
class Sprt:
    """A test: H0 ``elo0`` against H1 ``elo1`` (in ``model``'s unit), with the chances of a
    wrong verdict ``alpha`` (H1 accepted at ``elo0``) and ``beta`` (H0 accepted at
    ``elo1``)."""

    elo0: float = DEFAULT_ELO0
    elo1: float = DEFAULT_ELO1
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    model: Model = Model.NORMALIZED

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise SprtError(f"{name} is a chance of error between 0 and 0.5, not {value:g}")
        if not self.elo0 < self.elo1:
            raise SprtError(f"elo0 must be below elo1, not {self.elo0:g} and {self.elo1:g}")
        for name in ("elo0", "elo1"):
            if abs(getattr(self, name)) > MAX_ELO:
                raise SprtError(f"{name} {getattr(self, name):g} is beyond +-{MAX_ELO:g}"
                                f" {self.model.unit}: no test of games tells that apart")

    @property
    def bounds(self) -> tuple[float, float]:
        """The LLR at which H0 is accepted (below) and H1 (above)."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, counts: Sequence[float]) -> float:
        return llr(counts, self.elo0, self.elo1, self.model)

    def decide(self, value: float) -> Verdict | None:
        """H0 or H1 once the LLR ``value`` reaches a bound, else None (play on)."""
        lower, upper = self.bounds
        if value >= upper:
            return Verdict.H1
        if value <= lower:
            return Verdict.H0
        return None

    def describe(self) -> str:
        """The test in one line: ``H0 0 nElo, H1 20 nElo, alpha 0.05, beta 0.05``."""
        return (f"H0 {self.elo0:g} {self.model.unit}, H1 {self.elo1:g} {self.model.unit},"
                f" alpha {self.alpha:g}, beta {self.beta:g}")

    def to_dict(self) -> dict[str, object]:
        lower, upper = self.bounds
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
                "model": str(self.model), "bounds": [round(lower, 4), round(upper, 4)]}


def fixed_games(sprt: Sprt, sigma_per_game: float | None = None) -> int:
    """The games a test of a fixed length needs for the same errors: a one-sided test of
    ``elo0`` against ``elo1`` on the mean of that many games, wrong with chance ``alpha`` at
    ``elo0`` and ``beta`` at ``elo1``.

    In nElo the spread of a game's score is the unit, so the count depends on the bounds
    alone; in Elo it needs ``sigma_per_game``, the standard deviation of one game's score (a
    run's own: ``sqrt(2 var)`` of its pairs).
    """
    z = float(stats.norm.ppf(1 - sprt.alpha) + stats.norm.ppf(1 - sprt.beta))
    if sprt.model is Model.NORMALIZED:
        width = (sprt.elo1 - sprt.elo0) / NELO_PER_NT
    else:
        if sigma_per_game is None or sigma_per_game <= 0:
            raise SprtError("a fixed-length test in Elo needs the spread of a game's score")
        width = (score_of(sprt.elo1) - score_of(sprt.elo0)) / sigma_per_game
    return math.ceil((z / width) ** 2)


# --- a test as it runs -----------------------------------------------------------------------

@dataclass
class Tracker:
    """A test over its pairs in the order they finished: the counts, the LLR after each pair,
    and the verdict once a bound is reached.  Pairs after the verdict (those already being
    played when it came) are counted apart, in ``after``: the test decided without them."""

    sprt: Sprt
    counts: list[int] = field(default_factory=lambda: [0] * 5)
    curve: list[float] = field(default_factory=list)
    verdict: Verdict | None = None
    after: list[int] = field(default_factory=lambda: [0] * 5)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def llr(self) -> float:
        return self.curve[-1] if self.curve else 0.0

    def add(self, half_points: int) -> Verdict | None:
        """One pair, ``half_points`` (0-4) for the candidate; the verdict if it is now
        decided."""
        if self.verdict is not None:
            self.after[half_points] += 1
            return self.verdict
        self.counts[half_points] += 1
        self.curve.append(self.sprt.llr(self.counts))
        self.verdict = self.sprt.decide(self.curve[-1])
        return self.verdict

    def stop_at_maximum(self) -> None:
        """The maximum of pairs is reached without a verdict."""
        if self.verdict is None:
            self.verdict = Verdict.MAXIMUM

    def estimate(self, model: Model | None = None) -> Estimate | None:
        """The estimate of the pairs counted, once they differ (before, it says nothing)."""
        if sum(1 for count in self.counts if count) < 2:
            return None
        return estimate(self.counts, model or self.sprt.model)


def verdict_short(verdict: Verdict | None) -> str:
    """How a test ended, in a few words (a figure's legend, a table's cell)."""
    if verdict is None:
        return "not decided yet"
    return {Verdict.H1: "H1 accepted: stronger", Verdict.H0: "H0 accepted: not stronger",
            Verdict.MAXIMUM: "no verdict at the maximum"}[verdict]


def verdict_words(verdict: Verdict | None, base: str, candidate: str, sprt: Sprt, pairs: int,
                  llr_value: float) -> str:
    """The result in a sentence a report can quote."""
    lower, upper = sprt.bounds
    unit = sprt.model.unit
    played = f"{pairs:,} pair{'s' if pairs != 1 else ''} ({2 * pairs:,} games)"
    test = (f"SPRT H0 {sprt.elo0:g} {unit} against H1 {sprt.elo1:g} {unit},"
            f" alpha {sprt.alpha:g}, beta {sprt.beta:g}")
    if verdict is Verdict.H1:
        return (f"H1 accepted: {candidate} is stronger than {base}. After {played} the"
                f" log-likelihood ratio reached {llr_value:.2f}, above {upper:.2f} ({test}:"
                f" a candidate no stronger than {sprt.elo0:g} {unit} passes with a chance of about"
                f" {_percent(sprt.alpha)}).")
    if verdict is Verdict.H0:
        return (f"H0 accepted: {candidate} is not stronger than {base} by {sprt.elo1:g} {unit}."
                f" After {played} the log-likelihood ratio fell to {llr_value:.2f}, below"
                f" {lower:.2f} ({test}: a candidate {sprt.elo1:g} {unit} stronger fails with a"
                f" chance of about {_percent(sprt.beta)}).")
    question = f"whether {candidate} is stronger than {base}"
    if verdict is Verdict.MAXIMUM:
        return (f"No verdict on {question}: after {played}, the maximum, the log-likelihood"
                f" ratio is {llr_value:.2f}, between {lower:.2f} and {upper:.2f} ({test}).")
    return (f"Not decided yet {question}: after {played} the log-likelihood ratio is"
            f" {llr_value:.2f}, between {lower:.2f} and {upper:.2f} ({test}).")


def _percent(chance: float) -> str:
    return f"{100 * chance:g} %"


# --- simulation ------------------------------------------------------------------------------

def tilted(pdf: Sequence[float], elo: float, model: Model = Model.NORMALIZED) -> Array:
    """The pentanomial (or trinomial) distribution ``pdf`` reweighted by ``exp(theta x)`` so
    that its strength is exactly ``elo`` in ``model``'s unit: the same shape, a given
    strength."""
    base = np.asarray(pdf, dtype=float)
    base = base / base.sum()
    scores = _scores(base)

    def reweighted(theta: float) -> Array:
        weights = base * np.exp(theta * (scores - 0.5))
        result: Array = weights / weights.sum()
        return result

    def strength(theta: float) -> float:
        p = reweighted(theta)
        mu = float((p * scores).sum())
        if model is Model.LOGISTIC:
            return elo_of(mu)
        sigma = math.sqrt(float((p * (scores - mu) ** 2).sum()))
        per_game = math.sqrt(2.0) if base.size == 5 else 1.0
        return NELO_PER_NT * (mu - 0.5) / sigma / per_game

    return reweighted(optimize.brentq(lambda th: strength(th) - elo, -50.0, 50.0, xtol=1e-14))


@dataclass(frozen=True)
class Simulated:
    """How ``tests`` simulated tests ended: accepted H0, H1, neither by ``max_pairs``; and the
    mean number of pairs they played."""

    tests: int
    h0: int
    h1: int
    undecided: int
    mean_pairs: float

    @property
    def h1_rate(self) -> float:
        return self.h1 / self.tests

    @property
    def h0_rate(self) -> float:
        return self.h0 / self.tests


def simulate(sprt: Sprt, pdf: Sequence[float] | Array, tests: int, seed: int,
             max_pairs: int = 100_000) -> Simulated:
    """Run ``tests`` tests on pairs drawn from the pentanomial ``pdf`` (each pair's chances of
    0 ... 2 points), all at once, each to its verdict or ``max_pairs``."""
    p = np.asarray(pdf, dtype=float)
    p = p / p.sum()
    rng = np.random.default_rng(seed)
    counts = np.zeros((tests, p.size))
    active = np.arange(tests)
    lower, upper = sprt.bounds
    h0 = h1 = 0
    lengths = np.full(tests, max_pairs)
    for pair in range(1, max_pairs + 1):
        drawn = rng.choice(p.size, size=active.size, p=p)
        counts[active, drawn] += 1
        value = _llr_rows(counts[active], sprt.elo0, sprt.elo1, sprt.model)
        up, down = value >= upper, value <= lower
        h1 += int(up.sum())
        h0 += int(down.sum())
        lengths[active[up | down]] = pair
        active = active[~(up | down)]
        if active.size == 0:
            break
    return Simulated(tests, h0, h1, int(active.size), float(lengths.mean()))


__all__ = [
    "NELO_PER_NT",
    "PAIR_POINTS",
    "Estimate",
    "Model",
    "Simulated",
    "Sprt",
    "SprtError",
    "Tracker",
    "Verdict",
    "elo_of",
    "estimate",
    "fixed_games",
    "llr",
    "moments",
    "score_of",
    "simulate",
    "tilted",
    "verdict_short",
    "verdict_words",
]
