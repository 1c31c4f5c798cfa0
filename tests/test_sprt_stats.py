"""The sequential test's statistics (``rating.sprt``) against the published formulas: fishtest's
generalised log-likelihood ratio in normalized and logistic Elo, for pairs (pentanomial) and
for games (trinomial), the Elo estimates, the test's error rates by simulation, and the length
of a test of a fixed number of games with the same errors.

The test vectors are computed here from the definitions, by other means than the module's: the
constrained maximum likelihood by a general optimiser (scipy's SLSQP over the whole
distribution), the binomial case in closed form, and fishtest's published approximation of the
normalized LLR for large samples.  One vector is published: a test's raw statistics page of a
fishtest instance (montytest, test 69d3c8dc7c5b3724e29d2712), whose counts and LLRs are quoted.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from rating.sprt import (
    NELO_PER_NT,
    Model,
    Sprt,
    SprtError,
    Tracker,
    Verdict,
    elo_of,
    estimate,
    fixed_games,
    llr,
    score_of,
    simulate,
    tilted,
)

PAIRS = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # the score per game of each pentanomial count
GAMES = np.array([0.0, 0.5, 1.0])
UNSEEN = 1e-3  # fishtest's count for an outcome never seen


def constrained_loglikelihood(counts: list[float], constraint: str, value: float) -> float:
    """The most ``sum c_i log p_i`` over distributions ``p`` whose mean score is ``value``
    (``constraint`` "mean") or whose ``(mu - 1/2) / sigma`` is ``value`` ("t"), by SLSQP from
    a few starts: the definition, solved without the module's Lagrange conditions."""
    c = np.maximum(np.asarray(counts, dtype=float), UNSEEN)
    scores = PAIRS if c.size == 5 else GAMES

    def mean(p: np.ndarray) -> float:
        return float(p @ scores)

    def t_value(p: np.ndarray) -> float:
        mu = mean(p)
        return (mu - 0.5) / math.sqrt(float(p @ (scores - mu) ** 2))

    measure = mean if constraint == "mean" else t_value
    best = -math.inf
    for start in (c / c.sum(), np.full(c.size, 1 / c.size)):
        found = optimize.minimize(
            lambda p: -float(c @ np.log(p)), start, method="SLSQP",
            bounds=[(1e-12, 1.0)] * c.size,
            constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1.0},
                         {"type": "eq", "fun": lambda p: measure(p) - value}],
            options={"ftol": 1e-15, "maxiter": 1000})
        if found.success:
            best = max(best, -found.fun)
    return best


def definition_llr(counts: list[float], elo0: float, elo1: float, model: Model) -> float:
    if model is Model.LOGISTIC:
        return (constrained_loglikelihood(counts, "mean", score_of(elo1))
                - constrained_loglikelihood(counts, "mean", score_of(elo0)))
    per_unit = math.sqrt(2) if len(counts) == 5 else 1.0  # a pair holds two games
    return (constrained_loglikelihood(counts, "t", elo1 / NELO_PER_NT * per_unit)
            - constrained_loglikelihood(counts, "t", elo0 / NELO_PER_NT * per_unit))


def test_the_published_statistics_page() -> None:
    # Raw statistics of a fishtest test: Results [0-2] [13, 37, 50, 25, 3], SPRT elo0 0,
    # elo1 4 normalized (2.716 logistic); "Normalized (exact) -0.54912", "Logistic (exact)
    # -0.53772" (its logistic bound is printed to 3 decimals), "Normalized Elo -63.97".
    counts = [13, 37, 50, 25, 3]
    assert llr(counts, 0, 4, Model.NORMALIZED) == pytest.approx(-0.54912, abs=1e-5)
    assert llr(counts, 0, 2.716, Model.LOGISTIC) == pytest.approx(-0.53772, abs=2e-4)
    assert estimate(counts, Model.NORMALIZED).elo == pytest.approx(-63.97, abs=0.01)
    # its score 0.43750: the logistic Elo of that mean
    assert estimate(counts, Model.LOGISTIC).elo == pytest.approx(elo_of(0.4375), abs=1e-9)


VECTORS = [
    [13, 37, 50, 25, 3],        # a published one (above)
    [2, 10, 30, 15, 7],         # a candidate ahead
    [5, 40, 120, 30, 4],        # draw-heavy, about even
    [0, 3, 12, 9, 6],           # an outcome never seen
    [1, 0, 0, 0, 4],            # few pairs, far apart
    [30, 20, 50],               # games: losses, draws, wins
    [44, 112, 40],              # games, many draws, behind
    [7, 0, 12],                 # games without a draw
]


@pytest.mark.parametrize("counts", VECTORS)
@pytest.mark.slow
@pytest.mark.parametrize(("model", "elo0", "elo1"), [(Model.NORMALIZED, 0, 20),
                                                      (Model.NORMALIZED, -10, 40),
                                                      (Model.LOGISTIC, 0, 20),
                                                      (Model.LOGISTIC, -5, 60)])
def test_llr_is_the_definition(counts: list[float], model: Model, elo0: float,
                               elo1: float) -> None:
    expected = definition_llr(counts, elo0, elo1, model)
    assert llr(counts, elo0, elo1, model) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(("wins", "losses"), [(12, 7), (40, 44), (3, 0)])
def test_logistic_llr_of_games_without_draws_in_closed_form(wins: int, losses: int) -> None:
    # Two outcomes: the mean fixes the distribution, P(win) = score.  The never-seen draws
    # count 0.001 (fishtest's rule), which moves the LLR by about that much.
    s0, s1 = score_of(0), score_of(30)
    closed = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert llr([losses, 0, wins], 0, 30, Model.LOGISTIC) == pytest.approx(closed, abs=5e-3)


@pytest.mark.parametrize("counts", [[400, 2000, 5500, 2300, 500], [3000, 5000, 3400]])
def test_normalized_llr_near_fishtests_large_sample_formula(counts: list[int]) -> None:
    # Published approximation for large samples: LLR = games / 2 * log((1 + (nt - nt0)^2) /
    # (1 + (nt - nt1)^2)), nt the sample's normalized t-value per game, sigma per game
    # sqrt(2 var) for pairs.  It checks the units: a pair is two games.
    c = np.asarray(counts, dtype=float)
    scores = PAIRS if c.size == 5 else GAMES
    p = c / c.sum()
    mu = p @ scores
    var = p @ (scores - mu) ** 2
    sigma = math.sqrt(2 * var) if c.size == 5 else math.sqrt(var)
    games = 2 * c.sum() if c.size == 5 else c.sum()
    nt = (mu - 0.5) / sigma
    nt0, nt1 = 0 / NELO_PER_NT, 5 / NELO_PER_NT
    approximate = games / 2 * math.log((1 + (nt - nt0) ** 2) / (1 + (nt - nt1) ** 2))
    assert abs(approximate) > 1  # a vector that tells something
    assert llr(counts, 0, 5, Model.NORMALIZED) == pytest.approx(approximate, rel=0.01)


def test_estimates_and_their_intervals() -> None:
    counts = [2, 10, 30, 15, 7]
    mu = (10 * 0.25 + 30 * 0.5 + 15 * 0.75 + 7) / 64
    logistic = estimate(counts, Model.LOGISTIC)
    assert logistic.elo == pytest.approx(elo_of(mu), abs=0.01)  # 0.001 counts move it a little
    var = sum(n * (x - mu) ** 2 for n, x in zip(counts, PAIRS, strict=True)) / 64
    half = 1.96 * math.sqrt(var / 64)
    assert logistic.low == pytest.approx(elo_of(mu - half), abs=0.05)
    assert logistic.high == pytest.approx(elo_of(mu + half), abs=0.05)
    normalized = estimate(counts, Model.NORMALIZED)
    assert normalized.elo == pytest.approx((mu - 0.5) / math.sqrt(2 * var) * NELO_PER_NT,
                                           abs=0.05)
    assert normalized.low < normalized.elo < normalized.high
    # the t-value's interval is about 1.96 / sqrt(games) wide on each side (delta method)
    assert (normalized.high - normalized.low) / 2 == pytest.approx(
        1.96 / math.sqrt(128) * NELO_PER_NT, rel=0.1)
    assert str(logistic).startswith(f"+{logistic.elo:.1f} Elo [")


def test_the_interval_covers_the_truth_95_percent_of_the_time() -> None:
    truth = tilted([0.05, 0.2, 0.5, 0.2, 0.05], 60.0)
    rng = np.random.default_rng(5)
    covered = 0
    for counts in rng.multinomial(200, truth, size=400):
        found = estimate(counts.tolist(), Model.NORMALIZED)
        covered += found.low <= 60.0 <= found.high
    assert 0.92 <= covered / 400 <= 0.98


def test_tilted_has_the_strength_asked() -> None:
    for model, elo in ((Model.NORMALIZED, 20.0), (Model.LOGISTIC, -35.0)):
        pdf = tilted([0.1, 0.2, 0.4, 0.2, 0.1], elo, model)
        assert pdf.sum() == pytest.approx(1.0)
        assert estimate((pdf * 1e9).tolist(), model).elo == pytest.approx(elo, abs=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("model", list(Model))
def test_error_rates_by_simulation(model: Model) -> None:
    # 2,000 tests with the default bounds at elo0 and at elo1, on a draw-heavy distribution of
    # pairs: the test accepts H1 at elo0 about alpha of the time and H0 at elo1 about beta.
    sprt = Sprt(model=model)
    shape = [0.04, 0.18, 0.56, 0.17, 0.05]
    at_elo0 = simulate(sprt, tilted(shape, sprt.elo0, model), tests=2000, seed=1)
    at_elo1 = simulate(sprt, tilted(shape, sprt.elo1, model), tests=2000, seed=2)
    assert at_elo0.undecided == at_elo1.undecided == 0
    assert abs(at_elo0.h1_rate - sprt.alpha) <= 0.02
    assert abs(at_elo1.h0_rate - sprt.beta) <= 0.02


def test_fixed_games_has_the_same_errors() -> None:
    sprt = Sprt()
    z = stats.norm.ppf(0.95)
    assert fixed_games(sprt) == math.ceil((2 * z / (20 / NELO_PER_NT)) ** 2) == 3266
    # Checked by simulation: that many games (in pairs), H1 when the sample's nElo is past the
    # middle of the bounds, is wrong about 5 % of the time at either bound.
    pairs = fixed_games(sprt) // 2
    rng = np.random.default_rng(3)
    for elo, wrong_side in ((0.0, 1), (20.0, -1)):
        samples = rng.multinomial(pairs, tilted([0.05, 0.2, 0.5, 0.2, 0.05], elo), size=4000)
        p = samples / pairs
        mu = p @ PAIRS
        nelo = (mu - 0.5) / np.sqrt(2 * (p @ PAIRS**2 - mu**2)) * NELO_PER_NT
        wrong = np.mean(np.sign(nelo - 10.0) == wrong_side)
        assert abs(wrong - 0.05) <= 0.015
    logistic = Sprt(0, 20, model=Model.LOGISTIC)
    width = (score_of(20) - score_of(0)) / 0.3
    assert fixed_games(logistic, 0.3) == math.ceil((2 * z / width) ** 2)
    with pytest.raises(SprtError):
        fixed_games(logistic)


def test_bounds_and_decisions() -> None:
    sprt = Sprt(alpha=0.05, beta=0.1)
    lower, upper = sprt.bounds
    assert lower == pytest.approx(math.log(0.1 / 0.95))
    assert upper == pytest.approx(math.log(0.9 / 0.05))
    assert sprt.decide(upper) is Verdict.H1 and sprt.decide(lower) is Verdict.H0
    assert sprt.decide(0.0) is None


@pytest.mark.parametrize(("arguments", "words"), [
    ({"elo0": 5, "elo1": 5}, "elo0 must be below elo1"),
    ({"alpha": 0.0}, "alpha is a chance of error between 0 and 0.5"),
    ({"beta": 0.7}, "beta is a chance"),
    ({"elo1": 5000}, "beyond"),
])
def test_a_test_that_cannot_run_is_refused(arguments: dict[str, float], words: str) -> None:
    with pytest.raises(SprtError, match=words):
        Sprt(**arguments)  # type: ignore[arg-type]


def test_tracker_decides_at_the_first_crossing_and_counts_later_pairs_apart() -> None:
    sprt = Sprt(0, 200)
    tracker = Tracker(sprt)
    verdicts = [tracker.add(4) for _ in range(30)]
    decided = verdicts.index(Verdict.H1)
    assert all(v is None for v in verdicts[:decided])
    assert tracker.pairs == decided + 1 == len(tracker.curve)
    assert tracker.counts == [0, 0, 0, 0, decided + 1]
    assert tracker.after == [0, 0, 0, 0, 30 - decided - 1]
    assert tracker.curve[-2] < sprt.bounds[1] <= tracker.curve[-1]
    assert tracker.llr == pytest.approx(sprt.llr(tracker.counts))
    assert Tracker(sprt).estimate() is None  # nothing counted yet
