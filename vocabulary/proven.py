"""A proven result, ``Proven``, and its one way of being written for people.

Whatever proved it (the opening book, the exact solver on Pons' scale, or the heuristic search
finding a forced line), a proven result is an outcome for the side to move and, when known, how
far away the end of the game is.  The distance is kept as ``discs``: the discs still to be played
until the game ends, both sides' counted, the last one included (a win with the next disc is 1;
a draw's is the empty cells left, the board fills up).

People read it in **moves of the side to move**: ``moves`` is how many more moves the side to
move makes, the next one included, ``(discs + 1) // 2``:

- "win in 3 moves": the side to move's 3rd move from now completes four (``discs`` 5: its
  moves are the 1st, 3rd and 5th disc from now);
- "loss in 3 moves": the side to move makes 3 more moves and the opponent's answer to the 3rd
  completes four (``discs`` 6);
- "draw (the board fills up in 3 moves)": the side to move makes 3 more moves (``discs`` 5 or
  6, as the empty cells are odd or even);
- "win (distance not proven)": only the outcome is known;
- "draw or better (a win not ruled out)": only that the side to move holds the draw (``at_least``,
  a bound rather than an outcome: the engine's answer when "is it won?" was not settled in time).

Each scale converts itself into this one where it is defined (``solver.result`` for Pons'
score, ``engine.decision`` for the search's win scores); nothing else words a result.
"""

from __future__ import annotations

from dataclasses import dataclass

from vocabulary.names import Outcome


def moves_word(count: int) -> str:
    """``"1 move"``, ``"3 moves"``."""
    return f"{count} move{'' if count == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class Proven:
    """A proven result for the side to move: ``outcome``, and ``discs`` to the end of the game
    (both sides' discs, the last included; None when only the outcome is proven).  With
    ``at_least`` the outcome is a lower bound (only a held draw is: a win not ruled out)."""

    outcome: Outcome
    discs: int | None = None
    at_least: bool = False

    def __post_init__(self) -> None:
        if self.at_least and (self.outcome is not Outcome.DRAW or self.discs is not None):
            raise ValueError("only a draw without a distance can be a lower bound")
        if self.discs is not None and self.discs < 1:
            raise ValueError(f"a proven result ends at least one disc away, got {self.discs}")
        if self.discs is not None and self.outcome is not Outcome.DRAW and (
                self.discs % 2 != (1 if self.outcome is Outcome.WIN else 0)):
            # A win ends on one of the mover's discs (odd), a loss on the opponent's (even).
            raise ValueError(f"a {self.outcome.word} cannot end {self.discs} discs away")

    @property
    def moves(self) -> int | None:
        """How many more moves the side to move makes, the next included (None: not proven)."""
        return None if self.discs is None else (self.discs + 1) // 2

    @property
    def exact(self) -> bool:
        """The distance is proven, not only the outcome."""
        return self.discs is not None

    def words(self) -> str:
        """The result for people: "win in 3 moves", "loss in 1 move", "draw (the board fills up
        in 2 moves)", "win (distance not proven)"."""
        word = self.outcome.word
        if self.at_least:
            return "draw or better (a win not ruled out)"
        if self.moves is None:
            return f"{word} (distance not proven)"
        if self.outcome is Outcome.DRAW:
            return f"draw (the board fills up in {moves_word(self.moves)})"
        return f"{word} in {moves_word(self.moves)}"

    def short(self) -> str:
        """The result in a few characters, for a picture's row of columns: "+3" (win in 3
        moves), "\u22123" (loss in 3 moves), "=" (draw), "win" / "loss" (distance not
        proven), "\u2265=" (a draw held, a win not ruled out)."""
        if self.at_least:
            return "\u2265="
        if self.outcome is Outcome.DRAW:
            return "="
        if self.moves is None:
            return self.outcome.word
        return f"+{self.moves}" if self.outcome is Outcome.WIN else f"\u2212{self.moves}"

    def __str__(self) -> str:
        return self.words()


def scale_note(mover: str = "the side to move", other: str = "the opponent") -> str:
    """The scale of ``Proven.words`` in one line, for headers and captions, naming the side to
    move and the other side (``"X"``, ``"O"``) when known."""
    return (f"'win in 3 moves': {mover}'s 3rd move from now wins;"
            f" 'loss in 3 moves': {other} wins answering {mover}'s 3rd")


SCALE_NOTE = scale_note()
"""The scale of ``Proven.words`` in one line, for headers and captions."""
