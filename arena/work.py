"""A tournament's work file: its plan, then each game as it finishes, so a stopped run resumes.

``agent.py tournament --out DIR`` keeps ``DIR/games-work.jsonl`` while it plays: a first line
``{"plan": ..., "command": ...}`` (what makes the games: the players, the games per pairing,
the seed, the openings, the settings our engine starts from; and the command that plays it),
then one line per finished game in the order they finish, in the shape of ``games.jsonl``
(``game_line``).  Run again after a Ctrl-C, a crash or a lost worker, the same command plays
only the games missing; without ``--seed`` it takes the seed of the unfinished run.  A plan
that differs is refused with the command that finishes the one in the file.  Once the report
is written the work file is removed: the games are in ``games.jsonl``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from arena.tournament import TournamentGame, TournamentPlan, plan_tasks
from batch.lines import append_lines, read_lines
from board import moves_to_string
from engine.games import PlayedGame
from settings import UsageError

GAMES_WORK = "games-work.jsonl"


def plan_identity(plan: TournamentPlan) -> dict[str, Any]:
    """What makes a plan's games, as JSON: two plans with the same identity play the same games
    (as far as the players repeat: ``arena.tournament``).  A suite of openings is named by
    its size and a digest of its move strings (a thousand of them would make a long line)."""
    identity: dict[str, Any] = {
        "players": [dataclasses.asdict(spec) for spec in plan.specs],
        "games": plan.games, "seed": plan.seed, "opening_plies": plan.opening_plies,
        "every_opening": plan.every_opening,
        "agent": plan.agent.model_dump(mode="json"),
        "solver": plan.solver.model_dump(mode="json")}
    if plan.openings:
        text = "\n".join(moves_to_string(opening) for opening in plan.openings)
        identity["openings"] = {"count": len(plan.openings),
                                "sha256": hashlib.sha256(text.encode()).hexdigest()}
    return dict(json.loads(json.dumps(identity)))  # tuples as lists, as read back


def game_line(outcome: TournamentGame) -> dict[str, Any]:
    """One game as a line of ``games.jsonl`` (and of the work file): the task's place in the
    plan and the game (``PlayedGame.to_dict``: 0-based columns as every JSON ``column``, the
    ``move_string`` (1-7) from the empty board for ``agent.py analyze`` and the board)."""
    task = outcome.task
    return {"game": task.index, "pairing": task.pairing, "game_in_pairing": task.game,
            "seeds": list(task.seeds), **outcome.record.to_dict()}


class OtherPlan(UsageError):
    """The work file holds an unfinished tournament of another plan."""


class TournamentWork:
    """The work file at ``path`` (``DIR/games-work.jsonl``).

    ``test`` is what else makes the run, as JSON, kept in the first line beside the plan and
    compared as part of it (``agent.py sprt``'s test); ``what`` names the run in messages.
    """

    def __init__(self, path: Path, *, test: dict[str, Any] | None = None,
                 what: str = "an unfinished tournament") -> None:
        self.path = path
        self.test = test
        self.what = what

    def _identity(self, plan: TournamentPlan) -> dict[str, Any]:
        identity = plan_identity(plan)
        if self.test is not None:
            identity["test"] = json.loads(json.dumps(self.test))
        return identity

    def resume(self, plan: TournamentPlan, *, seed_given: bool = True,
               games_given: bool = True) -> tuple[TournamentPlan, dict[int, TournamentGame]]:
        """The plan to play and the games of it already finished (by task index, in the
        order they finished).

        An unfinished run of the same plan is resumed; with ``seed_given`` False, one of any
        seed, whose seed is then taken; with ``games_given`` False, one of any number of games
        (each game of a plan is the same whatever their number: a test's maximum may grow or
        shrink), whose games beyond ``plan``'s are left out.  Raises ``OtherPlan`` when the
        file holds games of another plan (a file of another plan without a game is dropped:
        nothing is lost).
        """
        lines = read_lines(self.path)
        header = next(lines, None)
        if header is None or not isinstance(header.get("plan"), dict):
            return plan, {}
        stored = header["plan"]
        wanted = self._identity(plan)
        if not seed_given:
            wanted["seed"] = stored.get("seed")
        if not games_given:
            wanted["games"] = stored.get("games")
        played = [line for line in lines if isinstance(line.get("game"), int)]
        if stored != wanted:
            if played:
                raise OtherPlan(
                    f"{self.path} holds {self.what} of other players or options;"
                    f" finish it with `{header.get('command', '?')}`, or choose another --out")
            self.remove()
            return plan, {}
        plan = dataclasses.replace(plan, seed=int(stored["seed"]))
        tasks = plan_tasks(plan)
        done = {}
        for line in played:
            if 0 <= line["game"] < len(tasks):
                done[line["game"]] = TournamentGame(tasks[line["game"]],
                                                    PlayedGame.from_dict(line))
        return plan, done

    def begin(self, plan: TournamentPlan, command: str) -> None:
        """Start the file with the plan's line, unless it holds one (``resume`` checked it)."""
        if "plan" not in next(read_lines(self.path), {}):
            self.path.unlink(missing_ok=True)  # at most a first line cut short
            append_lines(self.path, [json.dumps({"plan": self._identity(plan),
                                                 "command": command})])

    def add(self, *outcomes: TournamentGame) -> None:
        """Keep finished games, in one write (a pair's two games together)."""
        append_lines(self.path, [json.dumps(game_line(outcome)) for outcome in outcomes])

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
