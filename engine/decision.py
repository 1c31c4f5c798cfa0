"""What the engine answers: a column, and a ``Score`` whose scale is part of its type.

Two scales exist and are never mixed: the heuristic search's (``SearchScore``: a heuristic
estimate, or ``WIN - n`` for a win on the ``n``-th disc, found by the search) and Pons' exact
scale of the book and the solver (``ProvenScore``: 0 a draw, ``22 - k`` a win with the winner's
``k``-th disc, or only the outcome when the exact score was not found in time).  Both are from
the view of the side to move, and both say themselves in words (``words``).
"""

from __future__ import annotations

from dataclasses import dataclass

from search import WIN, is_loss_score, is_proven, is_win_score
from solver import discs_to_end, outcome


def plural(count: int, noun: str) -> str:
    """``"1 disc"``, ``"3 discs"``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"

@dataclass(frozen=True, slots=True)
class SearchScore:
    """The heuristic search's value: an estimate, unless ``proven`` (a forced win or loss was
    found, or the search saw every move to the end of the game)."""

    value: int
    proven: bool = False

    @classmethod
    def of(cls, value: int, exhausted: bool = False) -> SearchScore:
        return cls(value, exhausted or is_proven(value))

    @property
    def outcome(self) -> int | None:
        """1 win, 0 draw, -1 loss when proven; None for an estimate."""
        if not self.proven:
            return None
        return 1 if is_win_score(self.value) else -1 if is_loss_score(self.value) else 0

    def words(self, moves: int) -> str:
        if is_win_score(self.value):
            return f"win at disc {WIN - self.value}"
        if is_loss_score(self.value):
            return f"loss at disc {WIN + self.value}"
        if self.proven:
            return "draw"
        return f"{self.value:+d} (heuristic)"


@dataclass(frozen=True, slots=True)
class ProvenScore:
    """A proven value on Pons' scale: exact, or with ``exact`` False only its outcome (then
    ``value`` is 1 for a win kept, 0 a draw kept, -1 a loss)."""

    value: int
    exact: bool = True

    proven = True

    @property
    def outcome(self) -> int:
        return (self.value > 0) - (self.value < 0)

    def words(self, moves: int) -> str:
        kind = outcome(self.value)
        if not self.exact:
            return f"{kind} kept"
        if self.value == 0:
            return "draw"
        return f"{kind} in {plural(discs_to_end(self.value, moves), 'disc')} ({self.value:+d})"


Score = SearchScore | ProvenScore


@dataclass(frozen=True, slots=True)
class Decision:
    """A chosen move and how it was found.

    ``column`` is 0-based; ``source`` the stage that decided it: ``"book"``, ``"solver"`` or
    ``"search"``; ``mode`` the engine's mode (``course``: the search alone, ``strongest``).
    ``depth`` is the search's depth for a search decision, and for a book or
    solver decision with an exact score the discs left to play if both sides keep it (0 when
    only the outcome is known).  ``nodes`` and ``seconds`` count everything this move took.
    """

    column: int
    score: Score
    depth: int
    nodes: int
    seconds: float
    pv: tuple[int, ...]
    source: str
    mode: str = "course"

    @property
    def proven(self) -> bool:
        """The score is a proof (exact or an outcome), not a heuristic estimate."""
        return self.score.proven
