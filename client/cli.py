"""``agent.py online``, ``stats`` and ``local``: the course server and the course environment.

The work is in functions that take their parts (``run_online`` takes a ``CourseServer``, an
engine and a record), so the tests drive them with the local server; the ``*_command``
functions read the settings and build the real parts.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from arena.players import Player, PlayerSpecError, parse_player
from client.game import (
    Chooser,
    GameOutcome,
    OnlineGame,
    Output,
    move_budget,
    resume_problem,
    slowest_move,
    tally,
)
from client.localgame import CourseEnv, play_local_game
from client.protocol import RESULT_NAMES, ClientError, CourseServer, ResumeUnsafe, Stats
from client.records import ONLINE, RecordError, Records, masked_ids
from settings import (
    DEFAULT_CONFIG_PATH,
    ConfigError,
    Settings,
    config_relative,
    load_settings,
    require_credentials,
)


class UsageError(ValueError):
    """A command-line value out of range."""


# What the user can fix.  An engine or environment bug (EngineMoveError, LocalGameError) is
# not among them: it ends with a traceback for its report.
USER_ERRORS = (ClientError, RecordError, PlayerSpecError, UsageError)


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
    """What ``run_online`` did: the games and the streak the server reported last."""

    outcomes: list[GameOutcome]
    streak: int | None
    stopped_by_loss: bool


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
    """Play ``games`` games (or until the server's streak reaches ``until_streak``).

    Stops at the first lost game.  An unfinished game in the record is resumed first if that
    is safe; if not, ``ResumeUnsafe`` is raised unless ``new_game`` says to give it up.  The
    record's lock is held throughout (``RecordBusy`` if another run holds it).
    """
    with records.exclusive():
        return _run_online(server, engine, records, stil_ids, budget=budget, games=games,
                           until_streak=until_streak, new_game=new_game, out=out)


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
    out: Output,
) -> OnlineRun:
    run = OnlineRun([], None, False)
    if until_streak is not None:
        stats = server.stats()
        run.streak = stats.streak
        out(f"the server's streak is {stats.streak}; the goal is {until_streak}")
        if stats.streak >= until_streak:
            out("the goal is reached already: no game played")
            return run
    unfinished = records.unfinished(ONLINE, server.name, stil_ids)
    try:
        while True:
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
                run.streak = server.stats().streak
                out(f"the server's streak is {run.streak} of {until_streak}")
                if run.streak >= until_streak:
                    break
            if games is not None and len(run.outcomes) >= games:
                break
    except KeyboardInterrupt:
        out("interrupted: the game so far is in the record; the next `online` run resumes it if"
            " that is safe")
        raise
    finally:
        if run.outcomes:
            _summary(run, server, out)
    return run


def _summary(run: OnlineRun, server: CourseServer, out: Output) -> None:
    wins, draws, losses = tally(run.outcomes)
    out(f"summary: {len(run.outcomes)} games: {wins} won, {draws} drawn, {losses} lost")
    slowest = slowest_move(run.outcomes)
    if slowest is not None:
        game, move = slowest
        out(f"slowest move: {move.seconds:.3f} s (game #{game.game_id}, disc {move.ply},"
            f" depth {move.depth})")
    try:
        run.streak = server.stats().streak
        out(f"current streak on the server: {run.streak}")
    except ClientError as exc:
        out(f"current streak on the server: unknown ({exc})")


def online_command(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    require_credentials(settings.server, _config_name(args.config))
    if args.games is not None and args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.until_streak is not None and args.until_streak < 1:
        raise UsageError("--until-streak must be at least 1")
    games = args.games if args.games is not None else (None if args.until_streak else 1)

    from client.http import HttpCourseServer
    from engine import Engine  # loads the compiled search

    server = HttpCourseServer(settings.server, url=args.server)
    budget = move_budget(settings.agent)
    print(f"server {server.name}  ids {masked_ids(settings.server.stil_ids)}"
          f"  {budget:g} s per move")
    engine = Engine(settings.agent, solver=settings.solver)
    engine.warm_up()  # compile before the first game starts, not during its first move
    with closing(server), Records(records_path(settings, args.config)) as records:
        run = run_online(
            server, engine, records, settings.server.stil_ids, budget=budget, games=games,
            until_streak=args.until_streak, new_game=args.new_game,
        )
    return 1 if run.stopped_by_loss else 0


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


def stats_command(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    require_credentials(settings.server, _config_name(args.config))
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
    wins, draws, losses = tally(outcomes)
    out(f"summary: {games} games against {opponent.name}: {wins} won, {draws} drawn,"
        f" {losses} lost")
    slowest = slowest_move(outcomes)
    if slowest is not None:
        _, move = slowest
        out(f"slowest move: {move.seconds:.3f} s (depth {move.depth})")
    return outcomes


def local_command(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    seconds = settings.agent.seconds_per_move if args.time is None else args.time
    if not seconds > 0:
        raise UsageError("--time must be a positive number of seconds")
    rng = random.Random()
    opponent = parse_player(args.opponent, rng=rng, agent=settings.agent)
    from engine import Engine

    try:
        agent = replace(settings.agent, seconds_per_move=seconds)
    except ConfigError as exc:
        raise UsageError(f"--time: {exc}") from None
    engine = Engine(agent, solver=settings.solver)
    engine.warm_up()
    with Records(records_path(settings, args.config)) as records:
        run_local(engine, opponent, first=args.first, games=args.games, seconds=seconds,
                  records=records, rng=rng)
    return 0
