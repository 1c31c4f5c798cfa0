"""The progress page: each player's record and recent games, as one self-contained HTML page.

Students check their standing on the course's page; this is the local equivalent.  Each player
gets a row (played / won / drawn / lost / streak / best streak / total reward, and the streak
against the course's goal of 20 games without a loss) and a section with their latest games
and the board each ended on.  Plain HTML and CSS, no script: it renders the same in any
browser and in a headless one.  Every value from the database is escaped.
"""

from __future__ import annotations

import time
from html import escape

from course.protocol import Stats
from localserver.service import CourseService
from localserver.store import StoredGame
from vocabulary import Ending

GOAL_STREAK = 20  # the course's bar: 20 games in a row without a loss
RECENT_GAMES = 10

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table.stats { border-collapse: collapse; }
table.stats th, table.stats td { border: 1px solid #ccc; padding: 0.3em 0.7em; text-align: right; }
table.stats th:first-child, table.stats td:first-child { text-align: left; }
section.player { margin-top: 2em; }
div.games { display: flex; flex-wrap: wrap; gap: 1.2em; }
div.game { border: 1px solid #ddd; border-radius: 6px; padding: 0.6em; }
div.game p { margin: 0 0 0.4em 0; font-size: 0.9em; }
table.board { border-collapse: separate; border-spacing: 2px; background: #1d4fa8;
              padding: 3px; border-radius: 4px; }
table.board td { width: 18px; height: 18px; border-radius: 50%; background: #fff; padding: 0; }
table.board td.student { background: #e53935; }
table.board td.bot { background: #fdd835; }
.won { color: #2e7d32; } .lost { color: #c62828; } .draw { color: #555; }
"""


def _board_html(game: StoredGame) -> str:
    cls = {1: "student", -1: "bot", 0: "empty"}
    rows = []
    for row in game.grid():
        cells = "".join(f'<td class="{cls[v]}"></td>' for v in row)
        rows.append(f"<tr>{cells}</tr>")
    return f'<table class="board" aria-label="final board">{"".join(rows)}</table>'


def _outcome(game: StoredGame) -> str:
    """The student's outcome in a word (``running`` for a game going on)."""
    outcome = game.game.outcome(game.student_side)
    return "running" if outcome is None else outcome.word


def _result_text(game: StoredGame) -> str:
    """The student's outcome, how a game lost off the board was lost, and the course's result."""
    ending, result = game.game.ending, game.result
    if ending is None or result is None:
        return "running"
    words = _outcome(game)
    if result < 0 and ending is not Ending.FOUR:
        words += f": {ending.words}"
    return f"{words} ({result:+g})"


def _game_html(game: StoredGame) -> str:
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(game.started))
    who = "you" if game.student_first else "the bot"
    outcome = _outcome(game)
    ending = game.game.ending
    css = {"win": "won", "loss": "lost"}.get(outcome, outcome)
    return (
        f'<div class="game" data-game="{game.id}" data-outcome="{outcome}"'
        f' data-ending="{"running" if ending is None else ending.value}">'
        f'<p>Game {game.id} &middot; {started} &middot; {escape(who)} started &middot; '
        f'{len(game.game.columns)} moves &middot; <span class="result {css}">'
        f"{escape(_result_text(game))}</span></p>"
        f"{_board_html(game)}</div>"
    )


def _stats_row(s: Stats) -> str:
    player = escape(s.player, quote=True)
    streak = min(s.streak, GOAL_STREAK)
    return (
        f'<tr class="player" data-player="{player}">'
        f'<td><a href="#player-{player}">{player}</a></td>'
        f'<td class="played">{s.played}</td><td class="won">{s.won}</td>'
        f'<td class="drawn">{s.drawn}</td><td class="lost">{s.lost}</td>'
        f'<td class="streak">{s.streak}</td><td class="streak_max">{s.streak_max}</td>'
        f'<td class="total_reward">{s.total_reward:g}</td>'
        f'<td><progress max="{GOAL_STREAK}" value="{streak}"></progress>'
        f" {streak}/{GOAL_STREAK}</td></tr>"
    )


def render_progress(service: CourseService, player: str | None = None) -> str:
    """The whole page; only ``player`` (a stored key) when given, else every player."""
    players = service.store.all_stats()
    if player is not None:
        players = [s for s in players if s.player == player] or [service.store.stats(player)]
    if players:
        rows = "".join(_stats_row(s) for s in players)
        table = (
            '<table class="stats" id="players"><thead><tr><th>player</th><th>played</th>'
            "<th>won</th><th>drawn</th><th>lost</th><th>streak</th><th>best streak</th>"
            f"<th>total reward</th><th>towards {GOAL_STREAK} without a loss</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )
    else:
        table = '<p id="no-players">No games played yet.</p>'
    sections = []
    for s in players:
        games = service.store.recent(s.player, RECENT_GAMES)
        name = escape(s.player, quote=True)
        body = "".join(_game_html(g) for g in games) or "<p>No games yet.</p>"
        sections.append(
            f'<section class="player" id="player-{name}" data-player="{name}">'
            f"<h2>{name}: latest games</h2><div class=\"games\">{body}</div></section>"
        )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        "<title>4 in a row: progress (local server)</title>"
        f"<style>{STYLE}</style></head><body>"
        "<h1>4 in a row: progress</h1>"
        f"<p>Local emulation of the course server. The goal: {GOAL_STREAK} games in a row"
        " without a loss (a draw keeps the streak). Red discs are yours, yellow the bot's.</p>"
        f"{table}{''.join(sections)}</body></html>"
    )


__all__ = ["GOAL_STREAK", "RECENT_GAMES", "render_progress"]
