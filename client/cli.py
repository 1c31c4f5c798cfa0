"""``agent.py online``, ``stats`` and ``local``: the course server and the course environment.

The work is in functions that take their parts (``run_online`` takes a ``CourseServer``, an
engine and a record), so the tests drive them with the local server; the ``*_command``
functions read the settings and build the real parts.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from client.game import Chooser, OnlineGame, Output, move_budget
from client.localgame import CourseEnv, play_local_game
from client.mirror import resume_problem
from client.outcome import GameOutcome, slowest_move, tally
from client.records import ONLINE, Records, masked_ids
from course.errors import ClientError, ResumeUnsafe, StatsUnavailable
from course.ids import stil_ids_problem
from course.protocol import RESULT_NAMES, CourseServer, Stats
from ecosystems.players import parse_player
from engine.cli import opponent_model, with_mode
from engine.players import Player
from settings import (
    DEFAULT_CONFIG_PATH,
    ConfigError,
    Settings,
    config_relative,
    load_settings,
    mask_secret,
    require_credentials,
)
from terminal import stdout_to_devnull

EXIT_LOST = 1  # the run stopped at a lost game
EXIT_STREAK_STALLED = 3  # --until-streak cannot be reached: the server's streak does not grow
EXIT_OUTPUT_LOST = 1  # stdout went away: the game running then was finished, no new one started


def records_path(settings: Settings, config: str | None) -> Path:
    """The record file; a relative path is relative to the config file's folder.

    So the same file is found whatever folder the command runs from, which the resume of a
    running game depends on.
    """
    return config_relative(settings.record.path, config)


def _config_name(config: str | None) -> str:
    return str(Path(config)) if config else str(DEFAULT_CONFIG_PATH)


# --- online ----------------------------------------------------------------------------------


@dataclass
class OnlineRun:
    """What ``run_online`` did: the games, the streak seen last (the server's, or our record's
    when the server keeps no stats: ``streak_from_record``), and why it stopped early."""

    outcomes: list[GameOutcome]
    streak: int | None
    stopped_by_loss: bool
    streak_from_record: bool = False
    streak_stalled: bool = False
    output_lost: bool = False


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
    engine: Chooser,
    records: Records,
    stil_ids: Sequence[str],
    *,
    budget: float,
    games: int | None = 1,
    until_streak: int | None = None,
    new_game: bool = False,
    out: Output = print,
) -> OnlineRun:
    """Play ``games`` games (or until the streak reaches ``until_streak``).

    Stops at the first lost game.  The streak is the server's (its stats); a server without a
    stats endpoint has it counted from our record instead (``Records.streak``).  When the
    server's streak does not grow after a game we did not lose, the goal cannot be reached by
    playing on (a server version books every new game as a loss): the run stops and says so.

    An unfinished game in the record is resumed first if that is safe; if not, ``ResumeUnsafe``
    is raised unless ``new_game`` says to give it up.  The record's lock is held throughout
    (``RecordBusy`` if another run holds it).
    """
    with records.exclusive():
        return _run_online(server, engine, records, stil_ids, budget=budget, games=games,
                           until_streak=until_streak, new_game=new_game,
                           out=out if isinstance(out, SurvivingOutput) else SurvivingOutput(out))


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
    engine: Chooser,
    records: Records,
    stil_ids: Sequence[str],
    *,
    budget: float,
    games: int | None,
    until_streak: int | None,
    new_game: bool,
    out: SurvivingOutput,
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
    try:
        while True:
            if out.lost:
                break  # nobody reads any more: no new game (the one running then was played out)
            game = OnlineGame(server, engine, records, stil_ids, budget=budget, out=out)
            if unfinished is not None:
                record, unfinished = unfinished, None
                problem = resume_problem(record)
                if new_game:
                    records.abandon(record.id, "given up with --new-game")
                    out(f"giving up game #{record.id} (--new-game); the server counts it as lost"
                        " if it is still running there")
                    outcome = game.play_new()
                elif problem is None:
                    outcome = game.resume(record)
                else:
                    raise ResumeUnsafe(
                        f"cannot resume safely: {problem}. Nothing was sent. To give that game up"
                        " and start a new one, run `agent.py online --new-game` (if it is still"
                        " running on the server, the server counts it as lost)"
                    )
            else:
                outcome = game.play_new()
            run.outcomes.append(outcome)
            name = RESULT_NAMES.get(outcome.result, f"{outcome.result:g}")
            out(f"game #{outcome.game_id}: {name} (result {outcome.result:g}) after"
                f" {len(outcome.columns)} discs" + (" (resumed)" if outcome.resumed else ""))
            if outcome.result < 0:
                run.stopped_by_loss = True
                out("stopping at the first lost game")
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
        out("interrupted: the game so far is in the record; the next `online` run resumes it if"
            " that is safe")
        raise
    finally:
        if run.outcomes and not out.lost:
            _summary(run, server, records, stil_ids, out)
        run.output_lost = out.lost
    return run


def _summary(run: OnlineRun, server: CourseServer, records: Records, stil_ids: Sequence[str],
             out: Output) -> None:
    games = tally(run.outcomes)
    out(f"summary: {games.games} games: {games.wins} won, {games.draws} drawn,"
        f" {games.losses} lost")
    slowest = slowest_move(run.outcomes)
    if slowest is not None:
        game, move = slowest
        out(f"slowest move: {move.seconds:.3f} s (game #{game.game_id}, disc {move.ply},"
            f" depth {move.depth})")
    try:
        run.streak = server.stats().streak
        out(f"current streak on the server: {run.streak}")
    except StatsUnavailable:
        own = records.streak(ONLINE, server.name, stil_ids)
        out(f"current streak: {own} by our record (the server keeps no stats)")
    except ClientError as exc:
        out(f"current streak on the server: unknown ({exc})")


def _credentials(settings: Settings, config: str | None) -> None:
    """Stop before anything is sent while the key or an id is a placeholder or not an id the
    server takes (``course.ids``)."""
    require_credentials(settings.server, _config_name(config))
    problem = stil_ids_problem(settings.server.stil_ids)
    if problem is not None:
        index, what = problem
        shown = mask_secret(settings.server.stil_ids[index]) if index >= 0 else ""
        raise ConfigError(f"{_config_name(config)}: server.stil_ids[{index}] ({shown}): {what}")


def online_command(args: argparse.Namespace, started: float) -> int:
    settings = load_settings(args.config)
    _credentials(settings, args.config)
    games = args.games if args.games is not None else (None if args.until_streak else 1)

    from client.http import HttpCourseServer
    from engine import Engine  # loads the compiled search

    server = HttpCourseServer(settings.server, url=args.server)
    agent = with_mode(settings.agent, args.mode)
    model = opponent_model(agent, getattr(args, "opponent_model", None))
    budget = move_budget(agent, args.time)  # the one budget of the run: OnlineGame's Limit
    out = SurvivingOutput(print, on_lost=stdout_to_devnull)
    out(f"server {server.name}  ids {masked_ids(settings.server.stil_ids)}"
        f"  {agent.mode} mode, {budget:g} s per move"
        + ("  (expectimax: the bot taken for a random mover)" if model == "random" else ""))
    engine = Engine(agent, solver=settings.solver, opponent_model=model)
    engine.warm_up()  # compile before the first game starts, not during its first move
    with closing(server), Records(records_path(settings, args.config)) as records:
        run = run_online(
            server, engine, records, settings.server.stil_ids, budget=budget, games=games,
            until_streak=args.until_streak, new_game=args.new_game, out=out,
        )
    if run.output_lost:
        played = (f"game #{run.outcomes[-1].game_id} was played to its end without output (it is"
                  " in the record)" if run.outcomes else "no game was played")
        print(f"output went away (stdout closed): {played}; no new game was started",
              file=sys.stderr)
        return EXIT_OUTPUT_LOST
    if run.stopped_by_loss:
        return EXIT_LOST
    return EXIT_STREAK_STALLED if run.streak_stalled else 0


# --- stats -----------------------------------------------------------------------------------


def format_stats(stats: Stats, server: str, ids: str) -> str:
    lines = [
        f"server        {server}",
        f"ids           {ids}",
        f"played        {stats.played}  (won {stats.won}, drawn {stats.drawn}, lost {stats.lost})",
        f"streak        {stats.streak}  (best {stats.streak_max}; the course asks for 20)",
        f"total reward  {stats.total_reward:g}",
    ]
    return "\n".join(lines)


def stats_command(args: argparse.Namespace, started: float) -> int:
    settings = load_settings(args.config)
    _credentials(settings, args.config)
    from client.http import HttpCourseServer

    with closing(HttpCourseServer(settings.server, url=args.server)) as server:
        stats = server.stats()
    print(format_stats(stats, server.name, masked_ids(settings.server.stil_ids)))
    return 0


# --- local -----------------------------------------------------------------------------------


def run_local(
    engine: Chooser,
    opponent: Player,
    *,
    first: str,
    games: int,
    seconds: float,
    records: Records | None,
    rng: random.Random | None = None,
    out: Output = print,
) -> list[GameOutcome]:
    """``games`` games against ``opponent`` in ``gym.make("ConnectFour-v0")``.

    ``first`` is ``me``, ``them`` or ``random`` (drawn for each game).
    """
    from gym_connect_four import ENV_ID, gym

    rng = rng or random.Random()
    # gym's wrappers forward the course environment's own methods (change_player, board).
    env = cast(CourseEnv, gym.make(ENV_ID))
    outcomes = []
    for index in range(games):
        we_start = first == "me" or (first == "random" and rng.random() < 0.5)
        out(f"local game {index + 1} of {games} against {opponent.name}")
        outcome = play_local_game(env, engine, opponent, we_start=we_start, seconds=seconds,
                                  records=records, out=out)
        out(f"result: {RESULT_NAMES[outcome.result]} after {len(outcome.columns)} discs")
        outcomes.append(outcome)
    result = tally(outcomes)
    out(f"summary: {games} games against {opponent.name}: {result.wins} won,"
        f" {result.draws} drawn, {result.losses} lost")
    slowest = slowest_move(outcomes)
    if slowest is not None:
        _, move = slowest
        out(f"slowest move: {move.seconds:.3f} s (depth {move.depth})")
    return outcomes


def local_command(args: argparse.Namespace, started: float) -> int:
    settings = load_settings(args.config)
    agent = with_mode(settings.agent, args.mode)
    model = opponent_model(agent, getattr(args, "opponent_model", None))
    seconds = agent.seconds_per_move if args.time is None else args.time
    rng = random.Random()
    # An ``ours`` opponent given without a time plays the configured one (--time is ours).
    opponent = parse_player(args.opponent, seconds=settings.agent.seconds_per_move, rng=rng,
                            agent=settings.agent, solver=settings.solver)
    from engine import Engine

    engine = Engine(agent, solver=settings.solver, opponent_model=model)
    engine.warm_up()
    if model == "random":
        print(f"opponent model: random (expectimax, the best expected result against a uniformly"
              f" random mover){'' if opponent.name == 'random' else f'; {opponent.name} is not one'}")
    with Records(records_path(settings, args.config)) as records:
        run_local(engine, opponent, first=args.first, games=args.games, seconds=seconds,
                  records=records, rng=rng)
    return 0
