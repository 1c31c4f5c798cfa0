"""Ratings on one Elo-like scale (``random`` = 0) and the calibrated ladder of reference players.

``rating.fit``: the maximum-likelihood fit of played games' results (Bradley-Terry with draws and a
first-mover term), with intervals.  ``rating.ladder``: the shipped ladder (``load_ladder``), its
rungs, the check of a fit against its own games, and the rung for a player's current rating
(``Ladder.choose_for``).  Pure numpy and scipy: the players themselves, and the games that made
the ladder, are the arena's (``arena.calibration``).
"""

from typing import TYPE_CHECKING

from vocabulary.lazy import lazy_names

if TYPE_CHECKING:
    from rating.fit import Fit, Played, RatingError, fit
    from rating.ladder import Ladder, Rung, load_ladder, save_ladder

# The fit loads numpy and scipy: imported when first asked for.
__getattr__ = lazy_names(__name__, {
    "rating.fit": ("Fit", "Played", "RatingError", "fit"),
    "rating.ladder": ("Ladder", "Rung", "load_ladder", "save_ladder"),
})


__all__ = ["Fit", "Ladder", "Played", "RatingError", "Rung", "fit", "load_ladder", "save_ladder"]
