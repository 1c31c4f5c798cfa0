"""The evaluations' names and their numbers: what the command line and the settings check
against, without loading the compiled evaluations (``heuristics.evaluation``)."""

from __future__ import annotations

HEURISTICS: tuple[str, ...] = ("windows5000", "threats", "windows_tuned", "learned")
FITTED: tuple[str, ...] = ("windows_tuned", "learned")
DEFAULT_HEURISTIC = "windows5000"


class UnknownHeuristic(ValueError):
    """A heuristic name that is not in ``HEURISTICS``."""


def unknown_words(name: str) -> str:
    """Why ``name`` is no heuristic, with the known names."""
    return f"unknown heuristic {name!r}; choose one of {', '.join(HEURISTICS)}"


def heuristic_id(name: str) -> int:
    """The index of heuristic ``name``; raises ``UnknownHeuristic`` with the known names."""
    try:
        return HEURISTICS.index(name)
    except ValueError:
        raise UnknownHeuristic(unknown_words(name)) from None


__all__ = ["DEFAULT_HEURISTIC", "FITTED", "HEURISTICS", "UnknownHeuristic", "heuristic_id",
           "unknown_words"]
