"""A game judged move by move (``GET /api/review``): which moves kept the game-theoretic
outcome, and the first of ours that threw it away.

Every move of the game, both sides', is judged by the referee (``engine.referee``: the book,
then the solver, within a time per move; a move it cannot prove in time is *unproven*, never
guessed).  Our moves are the record's player's, or the local server's student's; for a game
played on the board page, the side the page says.  The summary counts our moves that kept the
outcome, and names the first of ours that lost it.
"""

from __future__ import annotations

import time
from typing import Any

from analysisboard.analysts import Analyst
from analysisboard.verdicts import outcome_name
from board import moves_from_string
from engine.referee import Verdict, judge_game


def _ply_entry(verdict: Verdict, our_side: int | None, opening: int = 0) -> dict[str, Any]:
    side = 1 if verdict.ply % 2 == 1 else 2
    outcomes = verdict.outcomes
    return {
        "ply": verdict.ply,
        "column": verdict.column,
        "side": side,
        "ours": side == our_side and verdict.ply > opening,  # an opening's move is no one's
        "proven": verdict.proven,
        "kept": verdict.kept,
        "critical": verdict.critical,
        "outcome": outcome_name(verdict.outcome),
        "best": outcome_name(verdict.best),
        "outcomes": None if outcomes is None else
        {str(col): outcome_name(value) for col, value in sorted(outcomes.items())},
    }


def summary_text(entries: list[dict[str, Any]], our_side: int | None) -> tuple[dict[str, Any], str]:
    """The counts over our moves, and the line that says them."""
    ours = [e for e in entries if e["ours"]] if our_side else entries
    kept = [e for e in ours if e["kept"] is True]
    lost = [e for e in ours if e["kept"] is False]
    unproven = [e for e in ours if not e["proven"]]
    critical = [e for e in ours if e["critical"]]
    first_lost = lost[0]["ply"] if lost else None
    counts = {"moves": len(ours), "kept": len(kept), "lost": len(lost),
              "unproven": len(unproven), "critical": len(critical), "first_lost": first_lost}
    whose = "our" if our_side else "the"
    text = f"{len(kept)} of {whose} {len(ours)} moves kept the outcome"
    if critical:
        text += (f" ({len([e for e in critical if e['kept']])} of the {len(critical)} where a"
                 f" move could change it)")
    text += f"; the first that lost it: move {first_lost}." if first_lost else "; none lost it."
    if unproven:
        text += f" {len(unproven)} could not be proven in the time."
    return counts, text


def review_game(analyst: Analyst, moves: str, our_side: int | None,
                seconds: float, opening: int = 0) -> dict[str, Any]:
    """Every move of the game ``moves`` (Pons' move string) judged, ``seconds`` each at most;
    the first ``opening`` moves were played before the players took over (a rate run's random
    opening): judged, but no one's."""
    start = time.perf_counter()
    columns = list(moves_from_string(moves))
    verdicts = judge_game(columns, analyst.solver, analyst.book, seconds)
    entries = [_ply_entry(verdict, our_side, opening) for verdict in verdicts]
    counts, text = summary_text(entries, our_side)
    return {"moves": moves, "our_side": our_side, "plies": entries, "summary": counts,
            "text": text, "seconds_per_move": seconds,
            "seconds": round(time.perf_counter() - start, 3)}
