"""The rating fit (rating.fit): it recovers ratings, the first-mover term and the draw parameter
from games simulated from chosen values, holds fixed ratings, and answers degenerate data with a
bound or a clear error, never NaN."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import pytest

from engine.games import PlayedGame
from rating.fit import ABOVE, BELOW, Fit, RatingError, fit, probabilities
from tests.helpers import scored_game

TRUE = {"random": 0.0, "a": 150.0, "b": 380.0, "c": 600.0, "d": 900.0, "e": 1150.0}
FIRST_MOVE = 80.0
DRAW = 0.25


def simulate(ratings: dict[str, float], pairs: list[tuple[str, str]], games: int,
             rng: random.Random, first_move: float = FIRST_MOVE, draw: float = DRAW) -> list[PlayedGame]:
    """``games`` games of each pair, half with each player first, drawn from the model."""
    out = []
    for a, b in pairs:
        for k in range(games):
            first, second = (a, b) if k % 2 == 0 else (b, a)
            win, drawn, _ = probabilities(ratings[first], ratings[second], first_move, draw)
            u = rng.random()
            out.append(scored_game(first, second, 1.0 if u < win else 0.5 if u < win + drawn else 0.0))
    return out


def neighbours(names: list[str], distance: int = 2) -> list[tuple[str, str]]:
    return [(names[i], names[j]) for i in range(len(names))
            for j in range(i + 1, min(len(names), i + distance + 1))]


@pytest.fixture(scope="module")
def ladder_fit() -> Fit:
    games = simulate(TRUE, neighbours(list(TRUE)), 200, random.Random(2026))
    return fit(games)


def test_the_anchor_is_zero_with_no_error(ladder_fit: Fit) -> None:
    assert ladder_fit.ratings["random"] == 0.0
    assert ladder_fit.stderr["random"] == 0.0
    assert ladder_fit.interval("random") == (0.0, 0.0)


def test_every_true_rating_is_inside_its_95_percent_interval(ladder_fit: Fit) -> None:
    for name, true in TRUE.items():
        low, high = ladder_fit.interval(name)
        assert low <= true <= high, (name, true, low, high)
        if name != "random":
            assert 0 < high - low < 250  # 200 games a pair: a usefully narrow interval


def test_the_first_move_and_draw_terms_are_recovered(ladder_fit: Fit) -> None:
    assert abs(ladder_fit.first_move - FIRST_MOVE) <= 1.96 * ladder_fit.first_move_stderr
    assert abs(ladder_fit.draw - DRAW) <= 1.96 * ladder_fit.draw_stderr
    assert ladder_fit.first_move_stderr > 0 and ladder_fit.draw_stderr > 0


def test_no_first_move_advantage_is_found_where_there_is_none() -> None:
    games = simulate(TRUE, neighbours(list(TRUE)), 200, random.Random(7), first_move=0.0)
    result = fit(games)
    assert abs(result.first_move) <= 1.96 * result.first_move_stderr


def test_a_wider_interval_is_wider(ladder_fit: Fit) -> None:
    low95, high95 = ladder_fit.interval("c")
    low99, high99 = ladder_fit.interval("c", 0.99)
    assert low99 < low95 < ladder_fit.ratings["c"] < high95 < high99


def test_expected_scores_follow_the_model(ladder_fit: Fit) -> None:
    first = ladder_fit.expected("b", "c", a_first=True)
    second = ladder_fit.expected("b", "c", a_first=False)
    assert second < ladder_fit.expected("b", "c") < first  # the first move is worth something
    assert ladder_fit.expected("b", "c") == pytest.approx(1 - ladder_fit.expected("c", "b"))
    assert ladder_fit.expected("e", "random") > 0.95


def test_fixed_ratings_stay_and_a_new_player_is_placed(ladder_fit: Fit) -> None:
    held = {name: ladder_fit.ratings[name] for name in TRUE}
    newcomer = {**TRUE, "new": 700.0}
    games = simulate(newcomer, [("new", "c"), ("new", "d"), ("b", "new")], 100, random.Random(5))
    result = fit(games, fixed=held, first_move=ladder_fit.first_move, draw=ladder_fit.draw)
    for name in ("b", "c", "d"):
        assert result.ratings[name] == held[name]
        assert result.stderr[name] == 0.0
    assert result.first_move == ladder_fit.first_move
    assert result.draw == ladder_fit.draw
    low, high = result.interval("new")
    assert low <= 700.0 <= high
    assert "random" not in result.ratings  # the anchor did not play: the held ratings set the scale


def test_a_player_who_won_every_game_gets_a_lower_bound() -> None:
    rng = random.Random(3)
    games = simulate(TRUE, neighbours(list(TRUE)), 60, rng)
    games += [scored_game("champion", "e", 1.0), scored_game("e", "champion", 0.0)] * 5
    result = fit(games)
    assert result.bounded == {"champion": ABOVE}
    bound = result.ratings["champion"]
    assert math.isfinite(bound) and bound > result.ratings["e"] - 200
    assert result.interval("champion") == (bound, math.inf)
    # the bound is where winning all ten games has a 5 % chance
    e = result.ratings["e"]
    win_first = probabilities(bound, e, result.first_move, result.draw)[0]
    win_second = probabilities(e, bound, result.first_move, result.draw)[2]
    assert (win_first * win_second) ** 5 == pytest.approx(0.05, rel=1e-3)
    assert not any(math.isnan(v) for v in result.ratings.values())


def test_a_player_who_lost_every_game_gets_an_upper_bound() -> None:
    games = simulate(TRUE, neighbours(list(TRUE)), 60, random.Random(4))
    games += [scored_game("hopeless", "random", 0.0), scored_game("random", "hopeless", 1.0)] * 4
    result = fit(games)
    assert result.bounded == {"hopeless": BELOW}
    assert result.interval("hopeless")[0] == -math.inf
    assert result.ratings["hopeless"] < 0


def test_an_anchor_that_lost_every_game_is_a_clear_error() -> None:
    games = [scored_game("random", "a", 0.0), scored_game("a", "random", 1.0), scored_game("a", "b", 0.5)]
    with pytest.raises(RatingError, match="anchor 'random' lost every game"):
        fit(games)


def test_groups_that_never_lost_to_each_other_are_named() -> None:
    games = [scored_game("random", "a", 0.0), scored_game("a", "random", 0.0),  # both score
             scored_game("b", "c", 1.0), scored_game("c", "b", 1.0),
             scored_game("b", "a", 1.0), scored_game("a", "b", 0.0),
             scored_game("c", "a", 1.0), scored_game("a", "c", 0.0)]
    with pytest.raises(RatingError, match=r"\{a, random\}"):
        fit(games)


@dataclass(frozen=True)
class OddScore:
    """A game whose first player claims two points: what no played game gives."""

    first: str
    second: str

    def points(self, side: int) -> float | None:
        return 2.0 if side == 0 else -1.0


def test_bad_input_is_refused() -> None:
    with pytest.raises(RatingError, match="no games"):
        fit([])
    with pytest.raises(RatingError, match="anchor 'random' played no game"):
        fit([scored_game("a", "b", 1.0), scored_game("b", "a", 1.0)])
    with pytest.raises(RatingError, match="against itself"):
        fit([scored_game("a", "a", 1.0)])
    with pytest.raises(RatingError, match="score of 2"):
        fit([OddScore("random", "a")])


def test_draws_only_between_equal_players() -> None:
    games = [scored_game("random", "twin", 0.5), scored_game("twin", "random", 0.5)] * 20
    result = fit(games)
    assert result.ratings["twin"] == pytest.approx(0.0, abs=1e-3)
    assert result.draw > 100  # nothing but draws: a very large draw parameter, finite
    assert math.isfinite(result.stderr["twin"])
