"""``agent.py online``, ``stats`` and ``local``: the course server and the course environment.

The work is in functions that take their parts (``run_online`` takes a ``CourseServer``, an
engine and a record), so the tests drive them with the local server; the ``*_command``
functions read the settings and build the real parts, importing them when they run (so that
``--help`` loads no compiled code).
"""

from __future__ import annotations

import random
import sys
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from commandline import (
    Command,
    Context,
    flag,
    mode_option,
    opponent_model_option,
    option,
    time_option,
    whole,
)
from ecosystems.players import SPEC_HELP
from settings import ConfigError, mask_secret, require_credentials
from vocabulary import ExitStatus, Mode, OpponentModel

if TYPE_CHECKING:
    from client.game import Decider, Output
    from client.outcome import OurGame
    from client.records import Records
    from course.protocol import Stats
    from engine.players import Player
    from settings import Settings


def records_path(settings: Settings, config: str | None) -> Path:
    """The record file; a relative path is relative to the config file's folder.

    So the same file is found whatever folder the command runs from, which the resume of a
    running game depends on.
    """
    from settings import config_relative

    return config_relative(settings.record.path, config)


def _config_name(config: str | None) -> str:
    from settings import default_config_path

    return str(Path(config)) if config else str(default_config_path())


# --- online ----------------------------------------------------------------------------------


def _credentials(settings: Settings, config: str | None) -> None:
    """Stop before anything is sent while the key or an id is a placeholder or not an id the
    server takes (``course.ids``)."""
    from course.ids import stil_ids_problem

    require_credentials(settings.server, _config_name(config))
    problem = stil_ids_problem(settings.server.stil_ids)
    if problem is not None:
        index, what = problem
        shown = mask_secret(settings.server.stil_ids[index]) if index >= 0 else ""
        raise ConfigError(f"{_config_name(config)}: server.stil_ids[{index}] ({shown}): {what}")


def online_command(options: OnlineOptions, context: Context) -> ExitStatus:
    settings = context.settings
    _credentials(settings, context.config)
    games = options.games if options.games is not None else (None if options.until_streak else 1)

    from client.game import move_budget
    from client.http import HttpCourseServer
    from client.interrupt import GameInterrupts
    from client.online import SurvivingOutput, exit_code, run_closing_line, run_online
    from client.records import Records, masked_ids
    from engine import Engine  # loads the compiled search
    from engine.overrides import opponent_model, with_mode
    from terminal import stdout_to_devnull

    server = HttpCourseServer(settings.server, url=options.server)
    agent = with_mode(settings.agent, options.mode)
    model = opponent_model(agent, options.opponent_model)
    budget = move_budget(agent, options.time)  # the one budget of the run: OnlineGame's Limit
    out = SurvivingOutput(print, on_lost=stdout_to_devnull)
    out(f"server {server.name}  ids {masked_ids(settings.server.stil_ids)}"
        f"  {agent.mode} mode, {budget:g} s per move"
        + ("  (expectimax: the bot taken for a random mover)"
           if model == OpponentModel.RANDOM else ""))
    engine = Engine(agent, solver=settings.solver, opponent_model=model)
    engine.warm_up()  # compile before the first game starts, not during its first move
    with closing(server), Records(records_path(settings, context.config)) as records:
        run = run_online(
            server, engine, records, settings.server.stil_ids, budget=budget, games=games,
            until_streak=options.until_streak, new_game=options.new_game, out=out,
            interrupts=GameInterrupts(),
        )
    closing_line = run_closing_line(run)
    if closing_line is not None:
        print(closing_line, file=sys.stderr)
    return exit_code(run)


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


def stats_command(options: StatsOptions, context: Context) -> ExitStatus:
    settings = context.settings
    _credentials(settings, context.config)
    from client.http import HttpCourseServer
    from client.records import masked_ids

    with closing(HttpCourseServer(settings.server, url=options.server)) as server:
        stats = server.stats()
    print(format_stats(stats, server.name, masked_ids(settings.server.stil_ids)))
    return ExitStatus.OK


# --- local -----------------------------------------------------------------------------------


def run_local(
    engine: Decider,
    opponent: Player,
    *,
    first: str,
    games: int,
    seconds: float,
    records: Records | None,
    rng: random.Random | None = None,
    out: Output = print,
) -> list[OurGame]:
    """``games`` games against ``opponent`` in ``gym.make("ConnectFour-v0")``.

    ``first`` is ``me``, ``them`` or ``random`` (drawn for each game).
    """
    from client.localgame import CourseEnv, play_local_game
    from client.outcome import move_string_line, plural, slowest_move, tally
    from course.protocol import RESULT_NAMES
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
        out(f"result: {RESULT_NAMES[outcome.result]} after"
            f" {plural(len(outcome.game.columns), 'disc')}")
        out(move_string_line(outcome.game))
        outcomes.append(outcome)
    result = tally(outcomes)
    out(f"summary: {plural(games, 'game')} against {opponent.name}: {result.wins} won,"
        f" {result.draws} drawn, {result.losses} lost")
    slowest = slowest_move(outcomes)
    if slowest is not None:
        _, move = slowest
        out(f"slowest move: {move.seconds or 0.0:.3f} s (depth {move.depth})")
    return outcomes


def local_command(options: LocalOptions, context: Context) -> ExitStatus:
    from client.records import Records
    from ecosystems.players import announce_sandbox, parse_player
    from engine.overrides import opponent_model, with_mode

    settings = context.settings
    agent = with_mode(settings.agent, options.mode)
    model = opponent_model(agent, options.opponent_model)
    seconds = agent.seconds_per_move if options.time is None else options.time
    rng = random.Random()
    # An ``ours`` opponent given without a time plays the configured one (--time is ours).
    opponent = parse_player(options.opponent, seconds=settings.agent.seconds_per_move, rng=rng,
                            agent=settings.agent, solver=settings.solver)
    announce_sandbox([options.opponent], settings.outside.sandbox)
    from engine import Engine

    engine = Engine(agent, solver=settings.solver, opponent_model=model)
    engine.warm_up()
    if model == OpponentModel.RANDOM:
        print(f"opponent model: random (expectimax, the best expected result against a uniformly"
              f" random mover){'' if opponent.name == 'random' else f'; {opponent.name} is not one'}")
    with Records(records_path(settings, context.config)) as records:
        run_local(engine, opponent, first=options.first, games=options.games, seconds=seconds,
                  records=records, rng=rng)
    return ExitStatus.OK


# --- the commands ----------------------------------------------------------------------------

SERVER_HELP = "the server's base URL (default: server.url in the config, the course's as shipped)"


@dataclass(frozen=True)
class OnlineOptions:
    """``agent.py online``'s options."""

    games: int | None = option("--games", type=whole(1), metavar="N",
                               help="games to play (default 1; with --until-streak, at most N)")
    until_streak: int | None = option("--until-streak", type=whole(1), metavar="K",
                                      help="play until the server's streak reaches K (stops at a"
                                           " loss)")
    server: str | None = option("--server", metavar="URL", help=SERVER_HELP)
    new_game: bool = flag("--new-game",
                          help="give up an unfinished game that cannot be resumed safely")
    time: float | None = time_option(
        "agent.seconds_per_move in the config; at most 5 - agent.safety_margin, which covers"
        " start-up and the network")
    mode: Mode | None = mode_option()
    opponent_model: OpponentModel | None = opponent_model_option()


@dataclass(frozen=True)
class StatsOptions:
    """``agent.py stats``'s options."""

    server: str | None = option("--server", metavar="URL", help=SERVER_HELP)


@dataclass(frozen=True)
class LocalOptions:
    """``agent.py local``'s options."""

    opponent: str = option("--opponent", default="random", metavar="SPEC",
                           help=f"the opponent: {SPEC_HELP} (default random)")
    first: str = option("--first", default="random", choices=("me", "them", "random"),
                        help="who starts (default random)")
    games: int = option("--games", default=1, type=whole(1), metavar="N",
                        help="games to play (default 1)")
    time: float | None = time_option()
    mode: Mode | None = mode_option()
    opponent_model: OpponentModel | None = opponent_model_option()


@dataclass(frozen=True)
class PracticeOptions:
    """``agent.py practice``'s options."""

    games: int = option("--games", default=1, type=whole(1), metavar="N",
                        help="games to play (default 1)")
    time: float | None = time_option()
    mode: Mode | None = mode_option()


def practice_command(options: PracticeOptions, context: Context) -> ExitStatus:
    from client.practice import local_server, practice_settings

    print("starting the local copy of the course server for this practice...", flush=True)
    with local_server(context.config) as url:
        print(f"local course server on {url} (stopped after the games)", flush=True)
        settings = practice_settings(context.settings, url)
        return online_command(OnlineOptions(games=options.games, time=options.time,
                                            mode=options.mode),
                              Context(settings, context.config, context.started))


COMMANDS = [
    Command("practice", "a first game end to end against the local copy of the course server,"
                        " started for it: nothing to configure", PracticeOptions,
            practice_command, compiles=True),
    Command("online", "play ranked games against the course server", OnlineOptions,
            online_command, compiles=True, aliases=("-o", "--online")),
    Command("stats", "the course server's record of our ids", StatsOptions, stats_command,
            aliases=("-s", "--stats")),
    Command("local", "play against a local opponent in the course's gym environment",
            LocalOptions, local_command, compiles=True, aliases=("-l", "--local")),
]
