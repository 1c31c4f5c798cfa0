"""The process a ConnectX agent file runs in (``outside.connectx`` starts it): the file loaded as
Kaggle loads it, the agent called once per request, and what it returned described.

Run as a script by any Python 3.9 or later (``connectx:PATH:python=/other/python``): it uses
the standard library only and imports nothing of ours.  Its own folder is taken off
``sys.path`` so that the agent sees the interpreter's packages only.

The protocol, one JSON object a line:

- it says ``{"ready": true, "python": VERSION}`` once it runs (before the file is read: the
  start of an interpreter is not charged to the agent);
- each line it reads is ``{"observation": {...}, "configuration": {...}}``; the first one loads
  the file first, as kaggle-environments does inside the first move: the file is exec'd with
  its folder on ``sys.path`` (taken off again afterwards) and the last callable defined at its
  top level is the agent; the agent is called with the two objects (dicts with attribute
  access), or with the observation alone when its function takes one positional parameter;
- it answers ``{"duration": SECONDS, ...}`` (the load and the call, timed here as Kaggle times
  them) with ``"returned"`` (a description of the value: ``kind`` none, bool, int, float or
  other; ``type``, its module-qualified name; ``repr``, shortened; ``value`` for an int or a
  float) or ``"raised"`` (the exception and the end of its traceback) or ``"load_failed"``;
- what the agent prints through ``sys.stdout``/``sys.stderr`` is kept in memory during the
  call and only its first ``LOG_CHARS`` characters are sent (``"log"``), as Kaggle keeps the
  first 1,024 of each step in its logs; output written to file descriptor 1 or 2 directly
  (a subprocess, a C library) goes to this process's error output, which the parent reads
  and caps;
- at the end of its input it exits.
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

LOG_CHARS = 1024
REPR_CHARS = 200


class Struct(dict[str, Any]):
    """A dict whose keys are also attributes, as kaggle-environments' ``structify`` makes."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


def structify(value: Any) -> Any:
    if isinstance(value, dict):
        return Struct({key: structify(item) for key, item in value.items()})
    if isinstance(value, list):
        return [structify(item) for item in value]
    return value


def load_agent(path: str) -> Any:
    """The last callable the file defines at its top level, its folder on ``sys.path`` only
    while it runs."""
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    code = compile(source, path, "exec")
    namespace: dict[str, Any] = {}
    folder = os.path.dirname(os.path.abspath(path))
    sys.path.append(folder)
    try:
        exec(code, namespace)
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    found = [value for value in namespace.values() if callable(value)]
    if not found:
        raise ValueError(f"{path} defines no callable at its top level")
    return found[-1]


def describe(value: Any) -> dict[str, Any]:
    """What the agent returned, for the parent to judge by Kaggle's rules."""
    kind = type(value)
    name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
    text = repr(value)
    if len(text) > REPR_CHARS:
        text = text[:REPR_CHARS] + "..."
    answer: dict[str, Any] = {"type": name, "repr": text}
    if value is None:
        answer["kind"] = "none"
    elif isinstance(value, bool):
        answer["kind"] = "bool"
    elif isinstance(value, int):
        answer["kind"] = "int"
        answer["value"] = value if -(2**62) < value < 2**62 else (2**62 if value > 0 else -(2**62))
    elif isinstance(value, float):
        answer["kind"] = "float"
        answer["value"] = value if value == value and abs(value) != float("inf") else None
    else:
        answer["kind"] = "other"
    return answer


def call(agent: Any, request: dict[str, Any]) -> Any:
    args = [structify(request["observation"]), structify(request["configuration"])]
    code = getattr(agent, "__code__", None)
    if code is not None:
        args = args[:code.co_argcount]
    return agent(*args)


def main(argv: list[str]) -> int:
    path = argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [entry for entry in sys.path
                   if os.path.abspath(entry or os.curdir) != here]
    # The answers go on a copy of file descriptor 1; the descriptor itself now leads to the
    # error output, so that nothing the agent writes there can be taken for an answer.  The
    # requests come on a copy of descriptor 0, which now reads nothing: an agent that reads
    # its input cannot take a request.
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    os.dup2(2, 1)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    sys.stdin = io.TextIOWrapper(os.fdopen(0, "rb", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), encoding="utf-8",
                                  line_buffering=True)

    def say(message: dict[str, Any]) -> None:
        answers.write(json.dumps(message) + "\n")
        answers.flush()

    say({"ready": True, "python": sys.version.split()[0]})
    agent: Any = None
    for line in requests:
        request = json.loads(line)
        log = io.StringIO()
        started = time.perf_counter()
        reply: dict[str, Any]
        with redirect_stdout(log), redirect_stderr(log):
            if agent is None:
                try:
                    agent = load_agent(path)
                except Exception as exc:  # the agent's fault, reported
                    reply = {"load_failed": f"{type(exc).__name__}: {exc}"[:2000],
                             "traceback": traceback.format_exc()[-2000:]}
            if agent is not None:
                try:
                    reply = {"returned": describe(call(agent, request))}
                except Exception as exc:  # the agent's fault, reported
                    reply = {"raised": f"{type(exc).__name__}: {exc}"[:2000],
                             "traceback": traceback.format_exc()[-2000:]}
        reply["duration"] = time.perf_counter() - started
        reply["log"] = log.getvalue()[:LOG_CHARS]
        say(reply)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
