"""``agent.py rate PLAYER``: plays a player against rungs of the ladder near its strength, and
reports its rating, its results, its accuracy, its time and its faults.

The games run in the ``batch`` executor's workers (this process, a process pool or a Dask
cluster), a batch at a time: after each batch the rating is fitted again and the next rungs are
chosen near it (``reporting.rated`` has the rule).  Every game is appended to
``DIR/games.jsonl`` the moment it comes back, after a first line naming the run (the player,
its time, the seed, the ladder, the settings); a rerun with the same ``--out`` reads them and
goes on from there, so a Ctrl-C, a crash or a lost worker loses no finished game, and a larger
``--games`` extends a finished run.  The referee's verdicts on the player's moves are kept the
same way in ``DIR/checks.jsonl``.  ``reporting.rate_document`` writes the report.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.match import play_game
from arena.tournament import derive_seed, random_opening
from batch import BatchExecutor, announce_stopping, open_executor, worker_state
from batch.lines import append_lines, read_lines
from board import Board
from commandline import repeat_command, writable_folder
from ecosystems.players import Spec, build_player, is_ours, is_outside, parse_spec, sandbox_layers
from engine.players import Player
from outside import end_game
from rating.ladder import LADDER_FILE, Ladder, Rung, load_ladder
from reporting.measure import Check, correctness
from reporting.rated import (
    RatedGame,
    batch_size,
    done,
    estimate,
    expected_games,
    next_rungs,
)
from settings import AgentSettings, Settings, SolverSettings, UsageError
from terminal import progress
from vocabulary import Sandbox

GAMES = "games.jsonl"
CHECKS = "checks.jsonl"
DEFAULT_GAMES = 400  # a cap: the 95 % interval is 100 points wide after about 220 games
DEFAULT_WIDTH = 100.0  # points: a narrower 95 % interval stops the run sooner
# Each rung's pair of games in a round opens with the same random moves, once with each
# colour: as the ladder's own games were played (``arena.calibration``), and so that two
# deterministic players do not play one game over and over.
OPENING_PLIES = 2
REFEREE_SECONDS = 1.0  # the referee's time to prove one position of the player's
# What a game costs a worker beside the rated player's thinking (the rungs' moves, an outside
# player's process, the referee's verdicts on its moves), and the rated player's moves in a
# game: measured, for the estimate said before a run starts (docs/rate.md).
GAME_SECONDS = 0.8
PLAYER_MOVES = 14


@dataclass(frozen=True)
class RunKey:
    """What a worker keeps players for: the rated player's spec and name, the settings our
    engine starts from (the rungs are built from their specs as batches need them)."""

    player: Spec
    name: str
    agent: AgentSettings = field(default_factory=AgentSettings)
    solver: SolverSettings = field(default_factory=SolverSettings)


@dataclass(frozen=True)
class GameOrder:
    """One game to play: its number and batch, the rung (name and checked spec), the colours,
    the players' seeds (first mover's, second's) and the opening."""

    number: int
    batch: int
    rung: str
    spec: Spec
    player_first: bool
    seeds: tuple[int, int]
    opening: tuple[int, ...]


@dataclass
class _Players:
    """Per worker: the rated player and the rungs of the latest batch, built on first use."""

    key: RunKey
    built: dict[str, tuple[Player, random.Random]] = field(default_factory=dict)

    def get(self, name: str, spec: Spec, keep: Sequence[str]) -> tuple[Player, random.Random]:
        # A rung of perfect play is a whole engine (about 128 MiB): only the batch's are kept.
        for old in [n for n in self.built if n not in keep and n != self.key.name]:
            del self.built[old]
        if name not in self.built:
            rng = random.Random()
            player = build_player(spec, rng=rng, agent=self.key.agent, solver=self.key.solver)
            if not is_ours(spec) and not is_outside(spec):  # ours warms up when built
                # The first call loads the compiled search from the disk cache: here, so
                # that it does not count as the time of a move.  (An outside agent's first
                # move is its own, as in a tournament: a ConnectX file loads in it.)
                player.choose(Board.from_moves("44"))
            self.built[name] = (player, rng)
        return self.built[name]


def play_rated(key: RunKey, order: GameOrder, keep: tuple[str, ...]) -> RatedGame:
    """Play one game of the run (in a worker)."""
    players = worker_state("rate", key, lambda: _Players(key))
    rated, rated_rng = players.get(key.name, key.player, keep)
    rung, rung_rng = players.get(order.rung, order.spec, keep)
    first, second = (rated, rung) if order.player_first else (rung, rated)
    first_rng, second_rng = (rated_rng, rung_rng) if order.player_first else (rung_rng, rated_rng)
    first_rng.seed(order.seeds[0])
    second_rng.seed(order.seeds[1])
    first.new_game()
    second.new_game()
    names = (key.name, order.rung) if order.player_first else (order.rung, key.name)
    try:
        record = play_game(first, second, names=names, opening=order.opening)
    finally:  # an outside agent's process does not wait for the next game
        end_game(first)
        end_game(second)
    finished = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return RatedGame(order.number, order.batch, order.rung, order.player_first, record,
                     order.seeds, finished)


# --- the run's files ----------------------------------------------------------------------------

def identity(key: RunKey, seconds: float, seed: int, ladder: Ladder) -> dict[str, Any]:
    """What makes a run's games, as JSON: a rerun with the same identity goes on."""
    found = {"player": dataclasses.asdict(key.player), "kind": type(key.player).__name__,
             "seconds": seconds, "seed": seed, "opening_plies": OPENING_PLIES,
             "ladder": [[rung.name, rung.spec, rung.rating] for rung in ladder.rungs],
             "agent": key.agent.model_dump(mode="json"),
             "solver": key.solver.model_dump(mode="json")}
    return dict(json.loads(json.dumps(found)))


class RunFiles:
    """A run's folder: ``games.jsonl`` (the run's line, then a line per game) and
    ``checks.jsonl`` (the referee's verdicts on the rated player's moves)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.games_path = out / GAMES
        self.checks_path = out / CHECKS

    def header(self) -> dict[str, Any] | None:
        first = next(read_lines(self.games_path), None)
        return first if first is not None and isinstance(first.get("rate"), dict) else None

    def games(self) -> list[RatedGame]:
        found: dict[int, RatedGame] = {}
        for line in read_lines(self.games_path):
            if isinstance(line.get("game"), int):
                game = RatedGame.from_line(line)
                found[game.number] = game
        return [found[n] for n in sorted(found)]

    def resume(self, wanted: dict[str, Any], *, seed_given: bool) -> tuple[int, list[RatedGame]]:
        """The seed to play with and the games already played, when the folder holds a run of
        the same identity (without ``seed_given``, of any seed); ``UsageError`` when it holds
        games of another run."""
        header = self.header()
        if header is None:
            if self.games_path.exists() and any(True for _ in read_lines(self.games_path)):
                raise UsageError(f"{self.games_path} is not the work file of a rate run:"
                                 " choose another --out")
            return int(wanted["seed"]), []
        stored = dict(header["rate"])
        if not seed_given:
            wanted = {**wanted, "seed": stored.get("seed")}
        games = self.games()
        if stored != wanted:
            if games:
                raise UsageError(f"{self.out} holds games of another rate run (another player,"
                                 " time, ladder or settings): go on with"
                                 f" `{header.get('command', '?')}`, or choose another --out")
            self.games_path.unlink()
            self.checks_path.unlink(missing_ok=True)
            return int(wanted["seed"]), []
        return int(stored["seed"]), games

    def begin(self, wanted: dict[str, Any], command: str) -> None:
        if self.header() is None:
            self.games_path.unlink(missing_ok=True)
            append_lines(self.games_path, [json.dumps({"rate": wanted, "command": command})])

    def add(self, game: RatedGame) -> None:
        append_lines(self.games_path, [json.dumps(game.to_line())])

    def checks(self) -> dict[tuple[int, int], Check]:
        found = {}
        for line in read_lines(self.checks_path):
            try:
                found[(int(line["game"]), int(line["ply"]))] = Check(
                    int(line["ply"]), line["critical"], line["kept"], int(line["booked"]),
                    line.get("best"), line.get("outcome"))
            except (KeyError, TypeError, ValueError):
                continue
        return found

    def add_checks(self, checks: Sequence[tuple[int, Check]]) -> None:
        append_lines(self.checks_path, [json.dumps(
            {"game": game, "ply": c.ply, "critical": c.critical, "kept": c.kept,
             "booked": c.booked, "best": c.best, "outcome": c.outcome}) for game, c in checks])


# --- playing ------------------------------------------------------------------------------------

def read_ladder(path: Path | None) -> Ladder:
    """The ladder of ``--ladder`` (None: the shipped one); ``UsageError`` naming the file when
    it cannot be read as one."""
    where = f"--ladder {path}" if path is not None else f"the shipped ladder {LADDER_FILE}"
    try:
        ladder = load_ladder(path)
    except OSError as exc:
        raise UsageError(f"{where}: cannot read it ({exc.strerror or exc})") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{where}: not a ladder file ({exc})") from None
    if not ladder.rungs:
        raise UsageError(f"{where}: has no rungs")
    return ladder


def rung_spec(rung: Rung) -> Spec:
    """A rung's checked spec (its spec carries its own time)."""
    try:
        return parse_spec(rung.spec)
    except UsageError as exc:
        raise UsageError(f"the ladder's rung {rung.name!r}: {exc}") from None


def batch_orders(ladder: Ladder, played: Sequence[RatedGame], seed: int, size: int
                 ) -> list[GameOrder]:
    """The next batch's games: the rungs near the current estimate, each round of them once
    with each colour from one random opening; ``size`` games at most."""
    current = estimate(played, ladder)
    rungs = next_rungs(ladder, current)
    number = max((g.number for g in played), default=0) + 1
    batch = max((g.batch for g in played), default=0) + 1
    orders: list[GameOrder] = []
    round_ = 0
    while len(orders) < size:
        for index, rung in enumerate(rungs):
            rng = random.Random(derive_seed(seed, batch, round_, index, -1))
            opening = random_opening(rng, OPENING_PLIES)
            for player_first in (True, False):
                if len(orders) == size:
                    return orders
                seeds = (derive_seed(seed, number, 0), derive_seed(seed, number, 1))
                orders.append(GameOrder(number, batch, rung.name, rung_spec(rung), player_first,
                                        seeds, opening))
                number += 1
        round_ += 1
    return orders


def play_rungs(key: RunKey, ladder: Ladder, played: list[RatedGame], *, games: int,
               width: float, seed: int, executor: BatchExecutor,
               record: Callable[[RatedGame], None]) -> list[RatedGame]:
    """Batches of games until the rule of ``reporting.rated`` stops (``played``: those of an
    earlier run, extended in place and returned)."""
    with progress(max(games - len(played), 0), "games against the ladder") as advance:
        while not done(len(played), games, estimate(played, ladder), width):
            size = min(batch_size(executor.slots), games - len(played))
            orders = batch_orders(ladder, played, seed, size)
            keep = tuple(sorted({order.rung for order in orders}))

            def finished(_args: tuple[object, ...], game: RatedGame) -> None:
                played.append(game)
                record(game)
                advance(1)

            executor.run(play_rated, [(key, order, keep) for order in orders], finished,
                         on_stopping=announce_stopping("game"))
            played.sort(key=lambda g: g.number)
    return played


def player_moves(games: Sequence[RatedGame]) -> list[tuple[int, str, int, int]]:
    """``(game, moves before, column, ply)`` for every move of the rated player."""
    return [(game.number, before, move.column, move.ply) for game in games
            for before, move in game.record.each_move() if move.side == game.player_side]


def judge_moves(games: Sequence[RatedGame], files: RunFiles | None, executor: BatchExecutor,
                table_bits: int, seconds: float = REFEREE_SECONDS
                ) -> dict[tuple[int, int], Check]:
    """The referee's verdict on every move of the rated player (``reporting.measure``), those
    already in ``checks.jsonl`` read back, the others judged and kept there."""
    known = files.checks() if files is not None else {}
    moves = player_moves(games)
    todo = [m for m in moves if (m[0], m[3]) not in known]
    if todo:
        with progress(len(todo), "moves judged by the referee") as advance:
            checks = correctness([(before, column, ply) for _, before, column, ply in todo],
                                 seconds, table_bits, executor, advance)
        fresh = [(number, check) for (number, *_), check in zip(todo, checks, strict=True)]
        if files is not None:
            files.add_checks(fresh)
        known.update({(number, check.ply): check for number, check in fresh})
    return {(m[0], m[3]): known[(m[0], m[3])] for m in moves}


def player_name(spec: Spec, ladder: Ladder) -> str:
    """The rated player's name in the games: its label, marked when a rung has the same."""
    label = spec.label
    return f"{label} (rated)" if any(rung.name == label for rung in ladder.rungs) else label


@dataclass(frozen=True)
class RateRequest:
    """What ``agent.py rate PLAYER`` was asked (``reporting.cli`` fills it in)."""

    player: str
    out: Path
    games: int = DEFAULT_GAMES
    seconds: float | None = None
    width: float = DEFAULT_WIDTH
    workers: int | None = None
    scheduler: str | None = None
    seed: int | None = None
    ladder: Path | None = None
    config: str | None = None
    sandbox: Sandbox = Sandbox.AVAILABLE


def command_line(request: RateRequest, seed: int) -> str:
    """The command that repeats (or goes on with) the run."""
    return repeat_command("rate", request.player, out=request.out, games=request.games,
                          seed=seed, time=request.seconds,
                          width=None if request.width == DEFAULT_WIDTH else request.width,
                          workers=request.workers, scheduler=request.scheduler,
                          ladder=request.ladder,
                          sandbox=None if request.sandbox == Sandbox.AVAILABLE else request.sandbox,
                          config=request.config)


def expected_minutes(games: int, seconds: float, workers: int) -> tuple[float, float]:
    """About how long ``games`` games take on ``workers`` workers: with a player that answers at
    once, and with one that thinks its whole ``seconds`` on every move."""
    quick = games * GAME_SECONDS / workers / 60
    return quick, quick + games * PLAYER_MOVES * seconds / workers / 60


def _minutes(minutes: float) -> str:
    return f"{minutes:.1f} min" if minutes < 10 else f"{minutes:.0f} min"


def plan_lines(name: str, seconds: float, request: RateRequest, seed: int, workers: int,
               played: int) -> list[str]:
    """What a run will play and how long it may take (the ``played`` games kept from an earlier
    run left out), said before its first game."""
    games = expected_games(request.games, request.width)
    stop = (f"stopping once the 95 % interval is {request.width:g} points wide (--width; about"
            f" {games} games)" if request.width > 0 else "all of them (--width 0)")
    quick, slow = expected_minutes(max(games - played, 0), seconds, workers)
    return [f"rate: {name} at {seconds:g} s a move (--time), at most {request.games} games"
            f" (--games), {stop}; {workers} worker(s), seed {seed}, into {request.out}",
            f"expect about {_minutes(quick)} if it answers at once, up to {_minutes(slow)} if it"
            f" thinks {seconds:g} s on every move (a first look: --time 0.1 --games 40 --width 0)"]


def rate(request: RateRequest, settings: Settings) -> int:
    """Run ``agent.py rate`` (resuming a run in ``request.out``), write its report."""
    from reporting.rate_document import Rated, print_summary, write_rated

    started = time.monotonic()
    seconds = settings.agent.seconds_per_move if request.seconds is None else request.seconds
    spec = parse_spec(request.player, seconds=seconds, sandbox=request.sandbox)
    layers = sandbox_layers([spec])
    if layers is not None:
        print(layers.line(), file=sys.stderr)
    if getattr(spec, "kind", None) == "human":
        raise UsageError("player 'human' cannot be rated: `agent.py play` plays you")
    ladder = read_ladder(request.ladder)
    for rung in ladder.rungs:
        rung_spec(rung)  # every rung checked before a game is played
    writable_folder(request.out)
    files = RunFiles(request.out)
    key = RunKey(spec, player_name(spec, ladder), settings.agent, settings.solver)
    fresh_seed = (request.seed if request.seed is not None
                  else random.SystemRandom().randrange(2**31))
    seed, played = files.resume(identity(key, seconds, fresh_seed, ladder),
                                seed_given=request.seed is not None)
    wanted = identity(key, seconds, seed, ladder)
    command = command_line(request, seed)
    # An ``ours`` with its own time in its spec plays that time: its budget.
    budget = spec.seconds if is_ours(spec) and spec.seconds is not None else seconds
    if played:
        print(f"resuming: {len(played)} game(s) already played ({files.games_path})",
              file=sys.stderr)
    with open_executor(request.workers, request.scheduler) as executor:
        for line in plan_lines(key.name, budget, request, seed, executor.slots, len(played)):
            print(line, file=sys.stderr)
        files.begin(wanted, command)
        kept_before = len(played)
        try:
            play_rungs(key, ladder, played, games=request.games, width=request.width, seed=seed,
                       executor=executor, record=files.add)
        except (KeyboardInterrupt, UsageError):
            print(f"{len(played)} game(s) kept in {files.games_path} ({len(played) - kept_before}"
                  " new); the same command goes on", file=sys.stderr)
            raise
        checks = judge_moves(played, files, executor, settings.solver.table_bits)
        workers = executor.slots
    rated = Rated.of(key.name, spec.label, played, checks, ladder, command=command,
                     budget=budget, seed=seed, workers=workers, referee_seconds=REFEREE_SECONDS,
                     elapsed=time.monotonic() - started, review=review_address(settings),
                     review_command=f"python agent.py board --rated {request.out}",
                     review_source="rated", sandbox=layers)
    written = write_rated(rated, request.out)
    print_summary(rated)
    print(f"wrote {', '.join(str(p) for p in written)}", file=sys.stderr)
    return 0


def review_address(settings: Settings) -> str:
    """The analysis board's address (``[board]`` of the config), where the report's links open."""
    host = settings.board.host
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{settings.board.port}/"


def default_out(name: str) -> Path:
    """The folder of a run without ``--out``: ``rated/`` and the name, made a file name."""
    slug = "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip("._") or "player"
    return Path("rated") / slug
