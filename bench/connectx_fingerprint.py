"""A fingerprint of how the installed kaggle-environments runs ConnectX, to compare two versions.

    python bench/connectx_fingerprint.py            # in a venv of each version: equal hashes,
                                                     # equal behaviour

It plays 20 games of the built-in ``negamax`` and ``random`` (``random.seed(game)`` first, each
starting half), then checks what happens to an agent that answers something else than a
playable ``int`` (a NumPy integer, a float, ``None``, a string, a column out of range or full,
an exception), how a slow move is charged to the overage, and which callable of an agent file
plays.  It prints the version, a hash of everything and everything but the games.  Why:
pyproject.toml pins kaggle-environments 1.12.0, the last release without ~100 dependencies,
as running ConnectX like the newest (1.33.2 when pinned): both printed the same hash.
It imports nothing of ours.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import tempfile
import time
from typing import Any

import numpy as np
from kaggle_environments import __version__, make


def _ends(steps: list[Any]) -> list[tuple[Any, str]]:
    return [(agent["reward"], agent["status"]) for agent in steps[-1]]


def _answering(value: object) -> Any:
    """An agent that plays column 3 twice, then answers ``value``."""
    def agent(observation: Any, configuration: Any) -> object:
        return value if observation.step >= 2 else 3
    return agent


def _raising(observation: Any, configuration: Any) -> int:
    raise ValueError("an agent's bug")


def _slow(observation: Any, configuration: Any) -> int:
    time.sleep(2.5)  # 0.5 s over actTimeout: charged to the overage
    return next(col for col in range(7) if observation.board[col] == 0)


def fingerprint() -> dict[str, Any]:
    found: dict[str, Any] = {"games": []}
    for game in range(20):
        random.seed(game)
        agents = ["negamax", "random"] if game % 2 else ["random", "negamax"]
        steps = make("connectx", debug=False).run(agents)
        found["games"].append({"actions": [[agent["action"] for agent in step] for step in steps[1:]],
                               "ends": _ends(steps)})
    random.seed(1)
    found["answers"] = {}
    for name, value in [("numpy int", np.int64(3)), ("float", 3.0), ("None", None),
                        ("str", "3"), ("-1", -1), ("7", 7), ("int", 3)]:
        try:
            steps = make("connectx").run([_answering(value), "random"])
            found["answers"][name] = [_ends(steps), len(steps)]
        except Exception as exc:  # a float crashes the whole run
            found["answers"][name] = f"run raised {type(exc).__name__}"
    found["answers"]["exception"] = _ends(make("connectx").run([_raising, "random"]))
    random.seed(2)
    found["answers"]["full column"] = _ends(make("connectx").run([lambda o, c: 0, lambda o, c: 0]))
    env = make("connectx")
    steps = env.run([_slow, "random"])
    found["overage"] = [round(step[0]["observation"]["remainingOverageTime"]) for step in steps[:6]]
    found["configuration"] = dict(env.configuration)
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "helper_module.py"), "w") as out:
        out.write("VALUE = 2\n")
    with open(os.path.join(folder, "main.py"), "w") as out:
        out.write("import helper_module\n\ndef agent(observation, configuration):\n"
                  "    return helper_module.VALUE\n\ndef later(observation, configuration):\n"
                  "    return 5\n")
    random.seed(3)
    steps = make("connectx").run([os.path.join(folder, "main.py"), "random"])
    found["file agent"] = [[agent["action"] for agent in steps[1]], _ends(steps)]
    return found


def main() -> None:
    found = fingerprint()
    text = json.dumps(found, sort_keys=True, default=str)
    print(__version__, hashlib.sha256(text.encode()).hexdigest()[:16])
    print(json.dumps({key: value for key, value in found.items() if key != "games"}, default=str))


if __name__ == "__main__":
    main()
