"""A run of ranked games (``agent.py online``): game after game until the run's goal, a loss or
a stop, with what it adds up to.

``run_online`` takes its parts (a ``CourseServer``, an engine, a record), so the tests drive it
with the local server; ``client.cli`` builds the real parts.  Two things may stop a run between
games without costing one: a closed stdout (``SurvivingOutput``) and a first Ctrl-C
(``client.interrupt``); either way the game running then is played to its end and recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from client.game import Decider, OnlineGame, Output
from client.interrupt import GameInterrupts
from client.mirror import resume_problem
from client.outcome import OurGame, move_string_line, plural, slowest_move, tally
from client.records import ONLINE, Records
from course.errors import ClientError, ResumeUnsafe, StatsUnavailable
from course.protocol import RESULT_NAMES, CourseServer
from vocabulary import ExitStatus


@dataclass
class OnlineRun:
    """What ``run_online`` did: the games, the streak seen last (the server's, or our record's
    when the server keeps no stats: ``streak_from_record``), and why it stopped early
    (``interrupted``: a first Ctrl-C, after which the game running then was finished)."""

    outcomes: list[OurGame]
    streak: int | None
    stopped_by_loss: bool
    streak_from_record: bool = False
    streak_stalled: bool = False
    output_lost: bool = False
    interrupted: bool = False


def exit_code(run: OnlineRun) -> ExitStatus:
    """The exit status of ``agent.py online`` after ``run``.

    A lost game wins over a Ctrl-C: a script looping on ``online`` must see the loss.  Output
    that went away is a failure too: the games after it were not played.
    """
    if run.output_lost or run.stopped_by_loss:
        return ExitStatus.FAILURE
    if run.interrupted:
        return ExitStatus.INTERRUPTED
    return ExitStatus.STREAK_STALLED if run.streak_stalled else ExitStatus.OK


def run_closing_line(run: OnlineRun) -> str | None:
    """The line for stderr when a run stopped early without an error: its output went away, or
    a first Ctrl-C ended it after its game; None otherwise."""
    last = f"game #{run.outcomes[-1].game_id}" if run.outcomes else None
    if run.output_lost:
        played = (f"{last} was played to its end without output (it is in the record)"
                  if last else "no game was played")
        return f"output went away (stdout closed): {played}; no new game was started"
    if run.interrupted:
        return (f"interrupted (Ctrl-C): the game in progress (record #{run.outcomes[-1].game_id})"
                " was played to its end first; no new game was started")
    return None


class SurvivingOutput:
    """An ``Output`` that outlives its reader: after a ``BrokenPipeError`` (``online | head``)
    every line is discarded and ``lost`` is set, instead of the error ending the run.

    A closed stdout must never forfeit a ranked game: the loop plays the running game to its
    end (its record still written) and starts no new one.  ``on_lost`` runs once, at the first
    error (``online_command`` points stdout at ``os.devnull`` there).
    """

    def __init__(self, out: Output = print, on_lost: Callable[[], None] | None = None) -> None:
        self.out = out
        self.on_lost = on_lost
        self.lost = False

    def __call__(self, line: str) -> None:
        if self.lost:
            return
        try:
            self.out(line)
        except BrokenPipeError:
            self.lost = True
            if self.on_lost is not None:
                self.on_lost()


def run_online(
    server: CourseServer,
    engine: Decider,
    records: Records,
    stil_ids: Sequence[str],
    *,
    budget: float,
    games: int | None = 1,
    until_streak: int | None = None,
    new_game: bool = False,
    out: Output = print,
    interrupts: GameInterrupts | None = None,
) -> OnlineRun:
    """Play ``games`` games (or until the streak reaches ``until_streak``).

    Stops at the first lost game.  The streak is the server's (its stats); a server without a
    stats endpoint has it counted from our record instead (``Records.streak``).  When the
    server's streak does not grow after a game we did not lose, the goal cannot be reached by
    playing on (a server version books every new game as a loss): the run stops and says so.

    An unfinished game in the record is resumed first if that is safe; if not, ``ResumeUnsafe``
    is raised unless ``new_game`` says to give it up.  The record's lock is held throughout
    (``RecordBusy`` if another run holds it).

    Ctrl-C follows the rules of ``client.interrupt`` for the run (``interrupts``; by default
    one that writes to stderr): a first Ctrl-C during a game lets that game end and then stops
    the run (``interrupted``).
    """
    interrupts = interrupts or GameInterrupts()
    with records.exclusive(), interrupts.installed():
        return _run_online(server, engine, records, stil_ids, budget=budget, games=games,
                           until_streak=until_streak, new_game=new_game,
                           out=out if isinstance(out, SurvivingOutput) else SurvivingOutput(out),
                           interrupts=interrupts)


class _Streak:
    """The streak ``--until-streak`` counts: the server's, or our record's without stats."""

    def __init__(self, server: CourseServer, records: Records, stil_ids: Sequence[str],
                 out: Output) -> None:
        self.server = server
        self.records = records
        self.stil_ids = stil_ids
        self.out = out
        self.from_record = False

    def read(self) -> int:
        if not self.from_record:
            try:
                return self.server.stats().streak
            except StatsUnavailable as exc:
                self.from_record = True
                self.out(f"{exc}.")
                self.out("counting the streak from our record of the games played on this server"
                         " instead; the server's own count may differ (games played elsewhere,"
                         " or a server that books every new game as a loss)")
        return self.records.streak(ONLINE, self.server.name, self.stil_ids)


def _run_online(
    server: CourseServer,
    engine: Decider,
    records: Records,
    stil_ids: Sequence[str],
    *,
    budget: float,
    games: int | None,
    until_streak: int | None,
    new_game: bool,
    out: SurvivingOutput,
    interrupts: GameInterrupts,
) -> OnlineRun:
    run = OnlineRun([], None, False)
    streak = _Streak(server, records, stil_ids, out)
    if until_streak is not None:
        run.streak = streak.read()
        run.streak_from_record = streak.from_record
        whose = "our record's" if streak.from_record else "the server's"
        out(f"{whose} streak is {run.streak}; the goal is {until_streak}")
        if run.streak >= until_streak:
            out("the goal is reached already: no game played")
            return run
    unfinished = records.unfinished(ONLINE, server.name, stil_ids)
    playing = False  # a game is in progress (a Ctrl-C then leaves it unfinished)
    try:
        while True:
            if out.lost:
                break  # nobody reads any more: no new game (the one running then was played out)
            # The run's own count: the record's numbers (#N) are shared with local games.
            number = len(run.outcomes) + 1
            title = f"game {number}" + (f" of {games}" if games is not None else "")
            game = OnlineGame(server, engine, records, stil_ids, budget=budget, out=out,
                              title=title, checkpoint=interrupts.checkpoint)
            interrupts.checkpoint()  # a Ctrl-C between games that Python dropped
            playing = True
            with interrupts.game():
                if unfinished is not None:
                    record, unfinished = unfinished, None
                    problem = resume_problem(record)
                    if new_game:
                        records.abandon(record.id, "given up with --new-game")
                        out(f"giving up game #{record.id} (--new-game); the server counts it as"
                            " lost if it is still running there")
                        outcome = game.play_new()
                    elif problem is None:
                        outcome = game.resume(record)
                    else:
                        raise ResumeUnsafe(
                            f"cannot resume safely: {problem}. Nothing was sent. To give that game"
                            " up and start a new one, run `agent.py online --new-game` (if it is"
                            " still running on the server, the server counts it as lost)"
                        )
                else:
                    outcome = game.play_new()
                run.outcomes.append(outcome)
                name = RESULT_NAMES.get(outcome.result, f"{outcome.result:g}")
                out(f"{title} (record #{outcome.game_id}): {name} (result {outcome.result:g})"
                    f" after {plural(len(outcome.game.columns), 'disc')}"
                    + (" (resumed)" if outcome.resumed else ""))
                out(move_string_line(outcome.game))
            playing = False
            run.interrupted = interrupts.stop_asked
            if outcome.result < 0:
                run.stopped_by_loss = True
                out("stopping at the first lost game")
                break
            if run.interrupted:
                out(f"stopping after {title} as asked (Ctrl-C): no new game started")
                break
            if until_streak is not None:
                before = run.streak
                run.streak = streak.read()
                run.streak_from_record = streak.from_record
                whose = "our record's" if streak.from_record else "the server's"
                out(f"{whose} streak is {run.streak} of {until_streak}")
                if run.streak >= until_streak:
                    break
                if not streak.from_record and before is not None and run.streak <= before:
                    run.streak_stalled = True
                    out(f"stopping: the server's streak did not grow after game"
                        f" #{outcome.game_id}, which we did not lose (it was {before}, it is"
                        f" {run.streak}). This server seems to book every new game (-1) as a lost"
                        " game, as an older version of the course server did, so the goal cannot"
                        " be reached by playing on. Our games are in the record; `agent.py"
                        " stats` shows the server's count")
                    break
            if games is not None and len(run.outcomes) >= games:
                break
    except KeyboardInterrupt:
        if playing:
            out("interrupted during a game: the game so far is in the record; the next `online`"
                " run resumes it if that is safe and the server still allows it")
        else:
            out("interrupted between games: no game was in progress, nothing is lost")
        raise
    finally:
        if run.outcomes and not out.lost:
            _summary(run, server, records, stil_ids, out)
        run.output_lost = out.lost
    return run


def _summary(run: OnlineRun, server: CourseServer, records: Records, stil_ids: Sequence[str],
             out: Output) -> None:
    games = tally(run.outcomes)
    out(f"summary: {plural(games.games, 'game')}: {games.wins} won, {games.draws} drawn,"
        f" {games.losses} lost")
    slowest = slowest_move(run.outcomes)
    if slowest is not None:
        game, move = slowest
        out(f"slowest move: {move.seconds or 0.0:.3f} s (record #{game.game_id}, disc {move.ply},"
            f" depth {move.depth})")
    try:
        run.streak = server.stats().streak
        out(f"current streak on the server: {run.streak}")
    except StatsUnavailable:
        own = records.streak(ONLINE, server.name, stil_ids)
        out(f"current streak: {own} by our record (the server keeps no stats)")
    except ClientError as exc:
        out(f"current streak on the server: unknown ({exc})")


__all__ = ["OnlineRun", "SurvivingOutput", "exit_code", "run_closing_line", "run_online"]
