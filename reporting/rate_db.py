"""``agent.py rate --db FILE --student ID``: the rate report from the games a course client
played on the local server.

The local server records, for each game, the spec of the bot that played it (``serve --bot
SPEC``, or with ``serve --bot ladder`` the rung chosen for that game).  A game whose bot is a
rung of the ladder (by the rung's name or its spec) counts toward the rating; the others (the
course's bot of an unknown depth, a bot that is not on the ladder, a game still running) are
left out and counted in the report.  A game the student lost by an illegal move, a late move or
by starting another game over it is a fault of that kind.  The server records no time per move,
so the report has no time figure; the worst moves link into the board started with ``--db``.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
import time
from collections import Counter
from pathlib import Path

from batch import open_executor
from commandline import writable_folder
from ecosystems.players import parse_spec
from localserver.store import GameStore, StoredGame
from rating.ladder import Ladder, Rung
from reporting.rate import (
    REFEREE_SECONDS,
    RunFiles,
    judge_moves,
    read_ladder,
    review_address,
)
from reporting.rated import RatedGame
from settings import ConfigError, Settings, UsageError, mask_secret

BOT = "bot"  # the name of the server's side in the games, when no rung is known


def _label(spec: str) -> str | None:
    try:
        return parse_spec(spec).label
    except UsageError:
        return None


def rung_of(bot: str | None, ladder: Ladder) -> Rung | None:
    """The rung that played a game whose bot was ``bot`` (a spec, or a rung's name)."""
    if not bot:
        return None
    for rung in ladder.rungs:
        if bot in (rung.name, rung.spec):
            return rung
    label = _label(bot)
    for rung in ladder.rungs:
        if label is not None and label == _label(rung.spec):
            return rung
    return None


def is_students(game: StoredGame, student: str) -> bool:
    """Whether the game is the student's (alone, or in a group: ids joined by ``+``)."""
    return student in game.player.split("+")


def rated_game(game: StoredGame, rung: Rung) -> RatedGame:
    """A server's game as a game of the rate report: the student is the rated player."""
    names = ("student", rung.name) if game.student_first else (rung.name, "student")
    finished = game.finished if game.finished is not None else game.started
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(finished))
    record = dataclasses.replace(game.game, first=names[0], second=names[1])
    return RatedGame(game.id, 0, rung.name, game.student_first, record, finished=stamp)


def server_games(db: Path, student: str, ladder: Ladder
                 ) -> tuple[list[RatedGame], Counter[str]]:
    """The student's finished games against rungs of the ladder, oldest first, and the games
    left out by why."""
    if not db.is_file():
        raise UsageError(f"--db {db}: no such file (a local server's database, such as"
                         " records/local-server.sqlite3)")
    try:
        store = GameStore(str(db), read_only=True)
    except ConfigError as exc:
        raise UsageError(f"--db {db}: {exc}") from None
    try:
        stored = [g for g in store.games() if is_students(g, student)]
    finally:
        store.close()
    games: list[RatedGame] = []
    left: Counter[str] = Counter()
    for game in sorted(stored, key=lambda g: g.id):
        rung = rung_of(game.bot, ladder)
        if not game.game.over:
            left["still running"] += 1
        elif rung is None:
            left["against a bot not on the ladder" if game.bot
                 else "against the course's bot (no rung recorded)"] += 1
        else:
            games.append(rated_game(game, rung))
    return games, left


def rate_db(db: Path, student: str, out: Path, *, ladder: Path | None, workers: int | None,
            scheduler: str | None, settings: Settings, config: str | None) -> int:
    """The rate report of ``student``'s games in the local server's database ``db``."""
    from reporting.rate_document import Rated, print_summary, write_rated

    started = time.monotonic()
    if not db.is_file():
        raise UsageError(f"--db {db}: no such file (a local server's database, such as"
                         " records/local-server.sqlite3)")
    chosen = read_ladder(ladder)
    games, left = server_games(db, student, chosen)
    masked = mask_secret(student)
    if not games:
        why = "; ".join(f"{count} {reason}" for reason, count in left.items()) or "none at all"
        raise UsageError(f"--db {db}: no finished game of {masked} against a rung of the ladder"
                         f" ({why}); play with `agent.py serve --bot ladder`")
    writable_folder(out)
    parts = ["python", "agent.py", "rate", "--db", str(db), "--student", student, "--out",
             str(out)]
    if ladder is not None:
        parts += ["--ladder", str(ladder)]
    if config is not None:
        parts += ["--config", config]
    command = shlex.join(parts)
    print(f"rate: {len(games)} game(s) of {masked} on the local server ({db}), into {out}",
          file=sys.stderr)
    with open_executor(workers, scheduler) as executor:
        checks = judge_moves(games, RunFiles(out), executor, settings.solver.table_bits)
        slots = executor.slots
    notes = []
    if left:
        notes.append("Left out: " + ", ".join(f"{count} game(s) {reason}"
                                             for reason, count in sorted(left.items())) + ".")
    rated = Rated.of("student", f"student {masked}", games, checks, chosen,
                     command=command.replace(student, masked), budget=None, seed=None,
                     workers=slots, referee_seconds=REFEREE_SECONDS,
                     elapsed=time.monotonic() - started, review=review_address(settings),
                     review_command=f"python agent.py board --db {db}", review_source="server",
                     source_words=f"games of {masked} on the local server (`{db}`)",
                     timed=False, notes=notes)
    written = write_rated(rated, out)
    print_summary(rated)
    print(f"wrote {', '.join(str(p) for p in written)}", file=sys.stderr)
    return 0
