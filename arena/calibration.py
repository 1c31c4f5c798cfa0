"""The rating ladder's calibration: reference players of graded strength, played against their
neighbours on the ladder, fitted once into ``rating/data/ladder.json`` (``rating``'s Elo-like
scale, ``random`` = 0); and other players placed on that ladder against its fixed ratings.

``python -m arena.calibration play`` plays the ladder's games: each rung against the next
``--distance`` rungs of ``RUNGS`` (in the order of a first fit: adjacent and next-adjacent
rungs, and one more), ``--games`` per pairing, in pairs of games that share a
random opening of ``--opening-plies`` plies, once with each rung first.  The games go through
the tournament machinery (``arena.tournament.play_task`` in the ``batch`` executor: this
process, ``--workers K`` local processes or a Dask cluster, ``--scheduler ADDRESS``), and each
finished game is appended to the work file ``rating/data/ladder-work.jsonl``: stopped and run
again, the same command plays only the games missing.  ``python -m arena.calibration fit`` fits the
games (``rating.fit``), writes ``rating/data/ladder.json`` and the games as
``rating/data/ladder-games.jsonl.gz``, and prints the check of every pair (``rating.check``).

``python -m arena.calibration place SPEC...`` rates other players (ours) against the ladder: each
plays, in rounds, the rungs nearest its current estimate (a new player starts at the middle
rung), and is fitted with the ladder's ratings, first-move and draw terms held fixed.  Its
games go to a work file of their own (``--work``), resumable the same way.

The rungs are ``random`` (the anchor), perfect play with a share p of its moves replaced by
random ones (``ours:0.05:strongest:cpu:noise=p``: strongest mode at 0.05 s of CPU time a move,
which the book and the solver make nearly perfect), the course's bot at depths 1-5, Kaggle's negamax and
OpenSpiel's MCTS (1,000 simulations).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import gzip
import json
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.tournament import (
    GameTask,
    TournamentGame,
    TournamentPlan,
    derive_seed,
    make_plan,
    play_task,
    random_opening,
)
from batch import announce_stopping, open_executor
from batch.lines import append_lines, read_lines
from board import Board, moves_from_string
from commandline import add_executor_arguments
from ecosystems.players import parse_spec
from engine.games import PlayedGame, PlayedMove
from rating.fit import Fit, RatingError, fit
from rating.ladder import (
    DATA,
    GAMES_FILE,
    LADDER_FILE,
    Ladder,
    check,
    check_table,
    load_ladder,
    save_ladder,
)
from settings import UsageError
from terminal import progress
from vocabulary import Ending, ExitStatus

# The time per move of the perfect rungs, in CPU seconds of the worker (the spec's ``cpu``):
# strongest mode answers from the book and the solver in a few milliseconds almost everywhere,
# and a CPU-time budget keeps the rare slow middle-game move as strong on a machine busy with
# other work (a wall-clock budget made the "perfect" rungs lose won positions under load).
PERFECT_SECONDS = 0.05
NOISES = (0.9, 0.75, 0.6, 0.45, 0.3, 0.2, 0.15, 0.1, 0.05, 0.02, 0.0)


def perfect(noise: float) -> tuple[str, str]:
    """The rung of perfect play with a share ``noise`` of random moves: (name, spec)."""
    return f"perfect:{noise:g}", f"ours:{PERFECT_SECONDS:g}:strongest:cpu:noise={noise:g}"


# Weakest first, in the order of a first fit (750 games of an earlier run whose perfect rungs
# had a wall-clock budget): the pairings are neighbours in this order, and the fit does not need
# it to be exact (each rung meets three on each side).
RUNGS: tuple[tuple[str, str], ...] = (
    ("random", "random"),
    perfect(0.9), perfect(0.75), perfect(0.6), perfect(0.45),
    ("kaggle:negamax", "kaggle:negamax"), perfect(0.3), ("bot:1", "bot:1"), ("bot:3", "bot:3"),
    perfect(0.2), perfect(0.15), ("bot:2", "bot:2"), ("bot:4", "bot:4"),
    ("openspiel:mcts", "openspiel:mcts"), ("bot:5", "bot:5"),
    perfect(0.1), perfect(0.05), perfect(0.02), perfect(0.0),
)
DEFAULT_GAMES = 40        # per pairing: 20 openings, each played once with each rung first
DEFAULT_DISTANCE = 3      # each rung meets the next three
DEFAULT_PLIES = 2
DEFAULT_SEED = 26
WORK_FILE = DATA / "ladder-work.jsonl"


@dataclass(frozen=True)
class LadderPlan:
    """The ladder's games: the players, who meets whom, how many games, the seed."""

    names: tuple[str, ...]
    tournament: TournamentPlan
    pairings: tuple[tuple[int, int], ...]

    def identity(self) -> dict[str, Any]:
        """What makes the games, as JSON (a work file of another identity is refused).

        The games per pairing are not part of it: game k of every pairing comes before game
        k + 1 (``ladder_tasks``), so a rerun with more ``--games`` keeps every game played and
        adds the rest."""
        plan = self.tournament
        return {"names": list(self.names), "specs": [spec.label for spec in plan.specs],
                "pairings": [list(p) for p in self.pairings], "seed": plan.seed,
                "opening_plies": plan.opening_plies}


def make_ladder_plan(rungs: Sequence[tuple[str, str]], pairings: Sequence[tuple[int, int]],
                     games: int, seed: int, opening_plies: int) -> LadderPlan:
    """The plan of ``games`` per pairing of the rungs ``(name, spec)``; ``UsageError`` for a
    bad spec, an odd number of games or bad plies."""
    if games < 2 or games % 2:
        raise UsageError(f"--games must be an even number (each opening with each rung first),"
                         f" not {games}")
    specs = [parse_spec(spec) for _, spec in rungs]
    plan = make_plan(specs, games, seed, opening_plies=opening_plies)
    return LadderPlan(tuple(name for name, _ in rungs), plan, tuple(pairings))


def neighbour_pairings(count: int, distance: int) -> list[tuple[int, int]]:
    """Every rung with each of the next ``distance`` rungs (by index)."""
    return [(a, b) for a in range(count) for b in range(a + 1, min(count, a + distance + 1))]


def ladder_tasks(plan: LadderPlan) -> list[GameTask]:
    """Every game of the plan, interleaved across pairings (partial progress covers them all).
    Games 2k and 2k + 1 of a pairing share a random opening, each rung first once."""
    tournament = plan.tournament
    tasks: list[GameTask] = []
    for game in range(tournament.games):
        for number, (a, b) in enumerate(plan.pairings):
            first, second = (a, b) if game % 2 == 0 else (b, a)
            seeds = (derive_seed(tournament.seed, number, game, first),
                     derive_seed(tournament.seed, number, game, second))
            opening: tuple[int, ...] = ()
            if tournament.opening_plies:
                rng = random.Random(derive_seed(tournament.seed, number, game // 2, -1))
                opening = random_opening(rng, tournament.opening_plies)
            tasks.append(GameTask(len(tasks), number, a, b, game, first, seeds, opening))
    return tasks


def game_line(plan: LadderPlan, outcome: TournamentGame) -> dict[str, Any]:
    """One game as a line of the work and games files: its index, the game named by the rungs'
    names (``PlayedGame.to_dict`` without the moves' figures: its move string), and each
    side's mean seconds a move and share of a core."""
    task, record = outcome.task, outcome.record
    seconds, cpu = [], []
    for side in (0, 1):
        moves = [m for m in record.moves if m.side == side]
        wall = sum(m.seconds or 0.0 for m in moves)
        seconds.append(round(wall / len(moves), 4) if moves else None)
        # the share of a core the player had while it thought (the machine is shared)
        used = sum(m.cpu_seconds or 0.0 for m in moves)
        cpu.append(round(used / wall, 3) if wall > 0 else None)
    named = dataclasses.replace(record, first=plan.names[task.first],
                                second=plan.names[task.second])
    return {"game": task.index, **named.to_dict(moves=False), "seconds": seconds, "cpu": cpu}


def ladder_game(line: dict[str, Any]) -> PlayedGame:
    """The game of a line of ``game_line``, or of the lines of earlier versions (the shipped
    games file's): the first player's ``score`` for the winner, the ``reason`` for the ending,
    the opening and the players' moves as move strings."""
    if "winner" in line:
        return PlayedGame.from_dict(line)
    score = float(line["score"])
    opening = moves_from_string(str(line.get("opening", "")))
    moves = tuple(PlayedMove(ply, column) for ply, column in
                  enumerate(moves_from_string(str(line.get("moves", ""))),
                            start=len(opening) + 1))
    winner = None if score == 0.5 else 0 if score == 1.0 else 1
    return PlayedGame(str(line["first"]), str(line["second"]), moves, winner,
                      Ending(line.get("reason", Ending.FOUR)), str(line.get("detail", "")),
                      opening)


def games_of(lines: Iterator[dict[str, Any]]) -> list[PlayedGame]:
    """The games of game lines (``game_line``)."""
    return [ladder_game(line) for line in lines if "winner" in line or "score" in line]


def read_games_file(path: Path) -> list[dict[str, Any]]:
    """The lines of a games file (gzip'd JSON lines), none when there is no file."""
    if not path.exists():
        return []
    with gzip.open(path, "rt") as handle:
        return [json.loads(line) for line in handle if line.strip()]


class LadderWork:
    """A work file of ladder games: the plan's identity first, then a line per game."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def resume(self, plan: LadderPlan, command: str) -> dict[int, dict[str, Any]]:
        """The games of ``plan`` already played (by task index), the file started if new;
        ``UsageError`` when it holds games of another plan."""
        lines = read_lines(self.path)
        header = next(lines, None)
        identity = json.loads(json.dumps(plan.identity()))
        if header is not None and header.get("ladder") != identity:
            raise UsageError(f"{self.path} holds games of another ladder plan ({header.get('command')});"
                             " move it away or give another --work")
        if header is None:
            self.path.unlink(missing_ok=True)
            append_lines(self.path, [json.dumps({"ladder": identity, "command": command})])
            return {}
        return {int(line["game"]): line for line in lines if isinstance(line.get("game"), int)}

    def add(self, line: dict[str, Any]) -> None:
        append_lines(self.path, [json.dumps(line)])

    def lines(self) -> list[dict[str, Any]]:
        return [line for line in read_lines(self.path) if "game" in line]


def play(plan: LadderPlan, work: LadderWork, command: str, workers: int | None,
         scheduler: str | None, *, tasks: list[GameTask] | None = None) -> int:
    """Play the games of ``plan`` (or of ``tasks``, some of its games) missing from ``work``;
    returns how many were played."""
    done = work.resume(plan, command)
    todo = [(plan.tournament, task) for task in (tasks or ladder_tasks(plan))
            if task.index not in done]
    if done:
        print(f"resuming: {len(done)} games already played ({work.path})", file=sys.stderr)
    played = 0

    def finished(_args: tuple[object, ...], outcome: TournamentGame) -> None:
        nonlocal played
        work.add(game_line(plan, outcome))
        played += 1
        advance(1)

    with open_executor(workers, scheduler) as executor, progress(len(todo), "games") as advance:
        try:
            executor.run(play_task, todo, finished, on_stopping=announce_stopping("game"))
        except KeyboardInterrupt:
            print(f"{played} games kept in {work.path}; the same command plays the rest",
                  file=sys.stderr)
            raise
    return played


# --- fitting the ladder ------------------------------------------------------------------------

def _commit() -> str:
    """The checkout's commit (empty outside a git checkout)."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                              cwd=DATA.parent, timeout=10, check=False)
    except OSError:
        return ""
    return done.stdout.strip()


def ladder_lines(work: Path = WORK_FILE, games_file: Path = GAMES_FILE) -> list[dict[str, Any]]:
    """The ladder's game lines: the shipped games file's, then the work file's (by game index,
    the later line wins)."""
    lines = {int(line["game"]): line for line in read_games_file(games_file)}
    lines.update({int(line["game"]): line for line in LadderWork(work).lines()})
    return [lines[k] for k in sorted(lines)]


def fit_ladder(lines: Sequence[dict[str, Any]], rungs: Sequence[tuple[str, str]] = RUNGS,
               notes: Sequence[str] = ()) -> tuple[Ladder, Fit, list[PlayedGame]]:
    """The ladder fitted to game lines (``fit`` over every game, ``random`` = 0)."""
    games = games_of(iter(lines))
    result = fit(games)
    specs = {name: spec for name, spec in rungs if name in result.ratings}
    ladder = ladder_from_fit_here(result, specs, games=len(games), notes=tuple(notes))
    return ladder, result, games


def ladder_from_fit_here(result: Fit, specs: dict[str, str], *, games: int,
                         notes: tuple[str, ...]) -> Ladder:
    from rating.ladder import ladder_from_fit

    return ladder_from_fit(result, specs, fitted=datetime.date.today().isoformat(),
                           commit=_commit(), games_file=GAMES_FILE.name, games=games, notes=notes)


def write_games_file(lines: Sequence[dict[str, Any]], path: Path = GAMES_FILE) -> None:
    """The games as gzip'd JSON lines (no timestamp in the header: the same games, the same
    bytes), each written as ``game_line`` writes one (a line of an earlier version too)."""
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as handle:
        for line in lines:
            game = {"game": line["game"], **ladder_game(line).to_dict(moves=False)}
            extra = {key: line[key] for key in ("seconds", "cpu", "round") if key in line}
            handle.write((json.dumps({**game, **extra}) + "\n").encode())


def fit_command(work: Path, *, dry_run: bool = False, out: Path = LADDER_FILE) -> int:
    """Fit the ladder's games; unless ``dry_run``, write ladder.json and the games file."""
    lines = ladder_lines(work)
    if not lines:
        raise UsageError(f"no ladder games in {work} or {GAMES_FILE}: run `python -m arena.calibration"
                         " play` first")
    header = next(read_lines(work), {})
    notes = []
    if "command" in header:
        notes.append(f"the work file begun by: {header['command']} (a rerun with more --games"
                     " adds to it)")
    notes.append("each pairing's games: pairs sharing a random opening, one with each rung first;"
                 " the perfect rungs' time is CPU time (ours ...:cpu)")
    ladder, result, games = fit_ladder(lines, notes=notes)
    print(ladder_table(ladder))
    print()
    print(check_table(check(result, games)))
    if not dry_run:
        if out == LADDER_FILE:
            write_games_file(lines)
        save_ladder(ladder, out)
        print(f"wrote {out}" + (f" and {GAMES_FILE}" if out == LADDER_FILE else "")
              + f" ({len(lines)} games)", file=sys.stderr)
    return 0


def ladder_table(ladder: Ladder) -> str:
    """The rungs as a Markdown table, weakest first."""
    rows = ["| rung | player spec | rating | 95 % interval | games |", "|---|---|---:|---|---:|"]
    for rung in ladder.rungs:
        rows.append(f"| {rung.name} | `{rung.spec}` | {rung.rating:.0f} |"
                    f" {rung.low:.0f} to {rung.high:.0f} | {rung.games} |")
    rows.append("")
    rows.append(f"First mover's advantage {ladder.first_move:.0f} +- {1.96 * ladder.first_move_stderr:.0f}"
                f" points; draw parameter {ladder.draw:.3f} (equal players draw"
                f" {ladder.draw / (2 + ladder.draw):.1%} of their games); {ladder.games} games.")
    return "\n".join(rows)


# --- placing players on the ladder --------------------------------------------------------------

PLACE_RUNGS = 2  # each round plays the two rungs nearest the player's current estimate
CLIMB = 200.0    # points past the strongest (weakest) rung met, for a player who won (lost) all


def place_plan(ladder: Ladder, specs: Sequence[str], seed: int) -> LadderPlan:
    """One plan holding the rungs and the players to place (rungs first; no pairings: the rounds
    choose them)."""
    by_name = sorted(ladder.rungs, key=lambda r: r.name)  # the same plan for a refitted ladder
    names = [r.name for r in by_name]
    for spec in specs:
        checked = parse_spec(spec)
        if checked.label in names:
            raise UsageError(f"player {spec!r} is listed twice, or is a rung of the ladder")
        names.append(checked.label)
    rungs = [(r.name, r.spec) for r in by_name] + list(zip(names[len(by_name):], specs, strict=True))
    return make_ladder_plan(rungs, [], 2, seed, DEFAULT_PLIES)


def estimate(ladder: Ladder, name: str, lines: Sequence[dict[str, Any]]) -> Fit | None:
    """``name``'s fit against the ladder's fixed ratings, first-move and draw terms (None
    without games)."""
    games = [g for g in games_of(iter(lines)) if name in (g.first, g.second)]
    if not games:
        return None
    return fit(games, anchor=ladder.anchor, fixed=ladder.fixed(), first_move=ladder.first_move,
               draw=ladder.draw)


def round_tasks(plan: LadderPlan, ladder: Ladder, player: int, round_number: int,
                lines: Sequence[dict[str, Any]], games: int) -> list[GameTask]:
    """Round ``round_number`` of ``player`` (index in the plan): ``games`` games against the
    ``PLACE_RUNGS`` rungs nearest its estimate from the earlier rounds' games (``lines``), in
    pairs sharing a random opening, each side first once."""
    name = plan.names[player]
    earlier = [line for line in lines if line.get("round", 0) < round_number]
    result = estimate(ladder, name, earlier)
    rating = None if result is None else result.ratings[name]
    if result is not None and name in result.bounded:
        # every game won (lost): its bound says little, so climb (descend) past its opponents
        met = [ladder.rung(line["second"] if line["first"] == name else line["first"]).rating
               for line in earlier if name in (line["first"], line["second"])]
        rating = max(met) + CLIMB if result.bounded[name] == "above" else min(met) - CLIMB
    rungs = ([ladder.choose_for(None)] if rating is None
             else ladder.nearest(rating, PLACE_RUNGS))
    tournament = plan.tournament
    tasks = []
    for k in range(games):
        rung = plan.names.index(rungs[(k // 2) % len(rungs)].name)
        first, second = (player, rung) if k % 2 == 0 else (rung, player)
        seeds = (derive_seed(tournament.seed, round_number, player, k, first),
                 derive_seed(tournament.seed, round_number, player, k, second))
        rng = random.Random(derive_seed(tournament.seed, round_number, player, k // 2, -1))
        opening = random_opening(rng, DEFAULT_PLIES)
        index = (round_number * len(plan.names) + player) * 1000 + k
        tasks.append(GameTask(index, player, player, rung, k, first, seeds, opening))
    return tasks


def place(ladder: Ladder, specs: Sequence[str], work: LadderWork, *, games: int,
          per_round: int, seed: int, command: str, workers: int | None,
          scheduler: str | None) -> list[dict[str, Any]]:
    """Play ``specs`` against the ladder in rounds of ``per_round`` games each until each has
    ``games``; returns the work file's lines (resumable: a round is a pure function of the
    rounds before it)."""
    if games < 1:
        raise UsageError(f"--games must be at least 1, not {games}")
    if per_round < 2 or per_round % 2:
        raise UsageError(f"--round must be an even number of games, not {per_round}")
    plan = place_plan(ladder, specs, seed)
    done = work.resume(plan, command)
    players = range(len(ladder.rungs), len(plan.names))
    rounds = -(-games // per_round)
    with open_executor(workers, scheduler) as executor:
        for number in range(rounds):
            lines = list(done.values())
            todo = []
            for player in players:
                for task in round_tasks(plan, ladder, player, number, lines, per_round):
                    if task.index not in done:
                        todo.append((plan.tournament, task))
            if not todo:
                continue

            def finished(_args: tuple[object, ...], outcome: TournamentGame,
                         number: int = number) -> None:
                line = {**game_line(plan, outcome), "round": number}
                work.add(line)
                done[outcome.task.index] = line
                advance(1)

            with progress(len(todo), f"round {number + 1}/{rounds}") as advance:
                executor.run(play_task, todo, finished, on_stopping=announce_stopping("game"))
    return list(done.values())


def placement_table(ladder: Ladder, names: Sequence[str], lines: Sequence[dict[str, Any]]) -> str:
    """The placed players as a Markdown table: rating, interval, the rungs around it, games,
    and the share of a core their moves had."""
    rows = ["| player | rating | 95 % interval | between | games | score | core share |",
            "|---|---:|---|---|---:|---:|---:|"]
    for name in names:
        result = estimate(ladder, name, lines)
        if result is None:
            rows.append(f"| {name} | | | | 0 | | |")
            continue
        low, high = result.interval(name)
        rating = result.ratings[name]
        below = [r.name for r in ladder.rungs if r.rating <= rating]
        above = [r.name for r in ladder.rungs if r.rating > rating]
        between = f"{below[-1] if below else '-'} .. {above[0] if above else '-'}"
        own = [(line, ladder_game(line)) for line in lines]
        own = [(line, game) for line, game in own if name in (game.first, game.second)]
        score = sum(game.points(0 if game.first == name else 1) or 0.0 for _, game in own)
        shares = [line["cpu"][0 if game.first == name else 1] for line, game in own
                  if line.get("cpu") and line["cpu"][0 if game.first == name else 1] is not None]
        share = f"{sum(shares) / len(shares):.0%}" if shares else ""
        bound = {"above": "above ", "below": "below "}.get(result.bounded.get(name, ""), "")
        rows.append(f"| {name} | {bound}{rating:.0f} | {low:.0f} to {high:.0f} | {between} |"
                    f" {len(own)} | {score / len(own):.0%} | {share} |")
    return "\n".join(rows)


def place_command(args: argparse.Namespace) -> int:
    ladder = load_ladder(args.ladder)
    work = LadderWork(args.work)
    command = " ".join(["python -m arena.calibration place", *args.players])
    if args.no_play:
        lines = work.lines()
    else:
        lines = place(ladder, args.players, work, games=args.games, per_round=args.round,
                      seed=args.seed, command=command, workers=args.workers,
                      scheduler=args.scheduler)
    names = [parse_spec(spec).label for spec in args.players]
    print(placement_table(ladder, names, lines))
    return 0


def against_openings(lines: Sequence[dict[str, Any]]) -> dict[str, Counter[str]]:
    """Per player: its games, and those it ended below (above) the exact value of the position
    after the opening for its side (the opening book's, ``solver.book``): a perfect player
    never ends below it."""
    from solver.book import load_book

    book = load_book()
    counts: dict[str, Counter[str]] = {}
    for game in games_of(iter(lines)):
        entry = book.lookup(Board.from_moves(game.opening, one_based=False))
        if entry is None:
            continue
        for side in (0, 1):
            value = entry.score if side == 0 else -entry.score
            got = game.points(side)
            if got is None:
                continue
            exact = 1.0 if value > 0 else 0.5 if value == 0 else 0.0
            tally = counts.setdefault(game.name(side), Counter())
            tally["games"] += 1
            tally["below"] += got < exact
            tally["above"] += got > exact
    return counts


def openings_table(lines: Sequence[dict[str, Any]]) -> str:
    """``against_openings`` as a Markdown table."""
    rows = ["| player | games | below the opening's value | above it |", "|---|---:|---:|---:|"]
    for name, tally in sorted(against_openings(lines).items()):
        n = tally["games"]
        rows.append(f"| {name} | {n} | {tally['below']} ({tally['below'] / n:.0%}) |"
                    f" {tally['above']} ({tally['above'] / n:.0%}) |")
    return "\n".join(rows)


# --- the command -------------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m arena.calibration", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    play_parser = commands.add_parser("play", help="play the ladder's games (resumable)")
    play_parser.add_argument("--games", type=int, default=DEFAULT_GAMES,
                             help=f"games per pairing, even (default {DEFAULT_GAMES})")
    play_parser.add_argument("--distance", type=int, default=DEFAULT_DISTANCE,
                             help=f"each rung meets the next D rungs (default {DEFAULT_DISTANCE})")
    play_parser.add_argument("--opening-plies", type=int, default=DEFAULT_PLIES,
                             help=f"random opening plies of each pair of games (default {DEFAULT_PLIES})")
    play_parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    play_parser.add_argument("--work", type=Path, default=WORK_FILE, help="the work file")
    add_executor_arguments(play_parser)
    fit_parser = commands.add_parser("fit", help="fit the games, write ladder.json and the games file")
    fit_parser.add_argument("--work", type=Path, default=WORK_FILE)
    fit_parser.add_argument("--dry-run", action="store_true", help="print the fit, write nothing")
    fit_parser.add_argument("--ladder", type=Path, default=LADDER_FILE,
                            help="where to write the ladder (default: the shipped file)")
    openings_parser = commands.add_parser(
        "openings", help="each player's results against the exact value of its openings")
    openings_parser.add_argument("files", nargs="*", type=Path, metavar="WORK",
                                 help="work files (default: the ladder's games)")
    place_parser = commands.add_parser("place", help="place players on the shipped ladder")
    place_parser.add_argument("players", nargs="+", metavar="SPEC")
    place_parser.add_argument("--games", type=int, default=40,
                              help="games per player (default 40), in rounds")
    place_parser.add_argument("--round", type=int, default=8,
                              help="games per round (default 8): against the rungs nearest")
    place_parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    place_parser.add_argument("--work", type=Path, required=True, help="the work file")
    place_parser.add_argument("--no-play", action="store_true",
                              help="only the table of the games in the work file (against --ladder)")
    place_parser.add_argument("--ladder", type=Path, default=None,
                              help="the ladder file (default: the shipped one)")
    add_executor_arguments(place_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "play":
            if args.distance < 1:
                raise UsageError(f"--distance must be at least 1, not {args.distance}")
            pairings = neighbour_pairings(len(RUNGS), args.distance)
            plan = make_ladder_plan(RUNGS, pairings, args.games, args.seed, args.opening_plies)
            command = " ".join(["python -m arena.calibration", *(argv or sys.argv[1:])])
            played = play(plan, LadderWork(args.work), command, args.workers, args.scheduler)
            print(f"{played} games played; {len(LadderWork(args.work).lines())} in {args.work}",
                  file=sys.stderr)
            return 0
        if args.command == "openings":
            lines = (ladder_lines() if not args.files
                     else [line for path in args.files for line in LadderWork(path).lines()])
            print(openings_table(lines))
            return 0
        if args.command == "fit":
            return fit_command(args.work, dry_run=args.dry_run, out=args.ladder)
        return place_command(args)
    except (UsageError, RatingError) as error:
        print(f"error: {error}", file=sys.stderr)
        return ExitStatus.USAGE


if __name__ == "__main__":
    sys.exit(main())
