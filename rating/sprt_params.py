"""The sequential test's parameters as the command line takes them: the unit of its bounds
(``Model``) and its defaults.  Light, so that ``agent.py sprt --help`` loads neither numpy nor
scipy; ``rating.sprt`` computes the test."""

from __future__ import annotations

from enum import StrEnum


class Model(StrEnum):
    """The unit of a test's bounds and of its estimate."""

    NORMALIZED = "normalized"
    LOGISTIC = "logistic"

    @property
    def unit(self) -> str:
        return "nElo" if self is Model.NORMALIZED else "Elo"


# alpha = beta = 0.05 as fishtest's; the bounds are wider than its <0, 2>: see docs/sprt.md
DEFAULT_ALPHA = DEFAULT_BETA = 0.05
DEFAULT_ELO0, DEFAULT_ELO1 = 0.0, 20.0  # nElo

__all__ = ["DEFAULT_ALPHA", "DEFAULT_BETA", "DEFAULT_ELO0", "DEFAULT_ELO1", "Model"]
