"""What a report measures: its plan (the time per move, the games, the budgets and positions of
depth and speed, the sequential tests of the evaluations), the opponents and the positions.
Light, so that ``agent.py report --help`` quotes them without loading what measures them
(``reporting.measure``)."""

from __future__ import annotations

from dataclasses import dataclass

OPPONENTS = ("bot:3", "seed", "random")
# Where depth and speed are measured: the empty board, and positions of Pascal Pons' Begin-Hard,
# Begin-Medium and Middle-Medium test sets (move strings, 1-based columns).
POSITIONS = ("", "54431", "6312416", "347216", "44215", "7644", "23156612526", "311436221",
             "2112736733644", "4674647321", "4642332434166445", "77271115171133744",
             "45776367631114767")
QUICK_SECONDS = 0.3
BUDGETS = (0.1, 0.3, 1.0, 3.0)  # seconds per move, for depth and speed against the budget


@dataclass(frozen=True)
class Plan:
    """How much a report measures."""

    seconds: float
    games: int  # per opponent, each side starting half
    budgets: tuple[float, ...]
    positions: tuple[str, ...]
    correctness_seconds: float  # to prove one position
    sprt_seconds: float  # per move, in the tests of the evaluations
    sprt_pairs: int  # at most, in each test of an evaluation


# The evaluations are compared by sequential tests of hundreds of games: at a short time per
# move (at most this, or the report's own when shorter), to at most this many pairs each.
SPRT_SECONDS = 0.1
QUICK_SPRT_PAIRS, FULL_SPRT_PAIRS = 20, 300


__all__ = ["BUDGETS", "FULL_SPRT_PAIRS", "OPPONENTS", "POSITIONS", "QUICK_SECONDS",
           "QUICK_SPRT_PAIRS", "SPRT_SECONDS", "Plan"]
