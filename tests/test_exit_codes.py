"""Exit codes come from one enum (``vocabulary.ExitStatus``), each with one meaning: every command
returns its code from it, the README's table lists every member with its meaning, and every
exit code the docs name is a member, said where the member's meaning is."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import agent
from vocabulary import ExitStatus

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# A code's mention in the docs is checked against these words of its meaning, said in its
# sentence or the one before: 3 said of `--hours` (as it once meant for the book's generator)
# fails.
MEANING_WORDS: dict[ExitStatus, tuple[str, ...]] = {
    ExitStatus.OK: (),
    ExitStatus.FAILURE: ("lost", "loss", "differ", "wrong", "otherwise", "traceback"),
    ExitStatus.USAGE: ("error", "usage", "bad", "mistyped"),
    ExitStatus.STREAK_STALLED: ("streak",),
    ExitStatus.OUT_OF_TIME: ("--hours", "time limit"),
    ExitStatus.INTERRUPTED: ("Ctrl-C", "interrupted"),
}
MENTION = re.compile(r"\bexit(?:s with)?(?: (?:code|status)s?)?:? \**(?:code )?\**\(?(\d+)",
                     re.IGNORECASE)
LIST = re.compile(r"\bexit codes?:(.*)", re.IGNORECASE)  # "Exit codes: 0 done; 2 bad usage; ..."
# An outside agent's own process exits ("exit 0, exit 3" of a hostile agent): not our codes.
NOT_OURS = {"outside-agents.md"}


def _sentences(page: Path) -> Iterator[tuple[str, str]]:
    """The page's sentences, each with the one before it in its paragraph: a table row is one,
    a paragraph (or an item of a list) is split at its full stops."""
    for block in re.split(r"\n\s*\n|\n(?=- )", page.read_text()):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        if rows:
            yield from (("", row) for row in rows)
        else:
            sentences = re.split(r"(?<=\.)\s+(?=[A-Z0-9(`])", " ".join(block.split()))
            yield from zip(["", *sentences[:-1]], sentences, strict=True)


def _mentions(page: Path) -> Iterator[tuple[int, str]]:
    """Each exit code the page names, with the words said of it: its sentence and the one
    before, or its own clause of a list (``Exit codes: 0 done; 2 bad usage; ...``)."""
    for before, sentence in _sentences(page):
        listed = LIST.search(sentence)
        if listed is None:
            yield from ((int(code), f"{before} {sentence}") for code in MENTION.findall(sentence))
            continue
        for clause in listed.group(1).split(";"):
            code = re.match(r"\s*(\d+)\b", clause)
            if code is not None:
                yield int(code.group(1)), clause


def _readme_table() -> list[tuple[int, str]]:
    section = (ROOT / "README.md").read_text().split("### When something goes wrong", 1)[1]
    table = section.split("| exit code | meaning |", 1)[1].split("\n\n", 1)[0]
    rows = [line.strip("|").split(" | ", 1) for line in table.strip().splitlines()[1:]]
    return [(int(code), meaning.strip()) for code, meaning in rows]


def test_the_readme_lists_every_exit_code_with_its_meaning() -> None:
    assert _readme_table() == [(status.value, status.meaning) for status in ExitStatus]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_exit_code_the_docs_name_is_the_enums_with_its_meaning(page: Path) -> None:
    if page.name in NOT_OURS:
        return
    wrong = []
    for code, words_said in _mentions(page):
        if code not in set(ExitStatus):
            wrong.append(f"{code} is no ExitStatus: {words_said}")
            continue
        words = MEANING_WORDS[ExitStatus(code)]
        if words and not any(word.lower() in words_said.lower() for word in words):
            wrong.append(f"{code} ({ExitStatus(code).name}) without {words}: {words_said}")
    assert wrong == []


def test_the_words_find_the_codes_in_the_docs() -> None:
    """The docs' mentions are found at all (a pattern that matched nothing would pass)."""
    found = {code for page in PAGES if page.name not in NOT_OURS for code, _ in _mentions(page)}
    assert {1, 2, 3, 4, 130} <= found


# --- every command returns its code from the enum ----------------------------------------------


def _module_commands() -> list[str]:
    """The ``python -m`` commands of this project that the docs show (pip, pytest left out)."""
    named = {name for page in PAGES
             for name in re.findall(r"python -m ([a-z_]+(?:\.[a-z_]+)*)", page.read_text())}
    return sorted(name for name in named if (ROOT / name.split(".")[0]).is_dir())


def _main_of(module: str) -> Callable[..., Any]:
    """The ``main`` that ``python -m module`` runs (a package's ``__main__`` imports it)."""
    path = ROOT / module.replace(".", "/")
    if path.is_dir():
        tree = ast.parse((path / "__main__.py").read_text())
        module = next(node.module for node in ast.walk(tree)
                      if isinstance(node, ast.ImportFrom) and node.module
                      and any(alias.name == "main" for alias in node.names))
    main: Callable[..., Any] = importlib.import_module(module).main
    return main


def _bare_codes(function: Callable[..., Any], seen: set[Callable[..., Any]]) -> list[str]:
    """Where ``function``, or a function of ours whose result it returns, returns an exit code
    other than 0 as a bare number."""
    if function in seen:
        return []
    seen.add(function)
    node = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    found = []

    def check(value: ast.expr | None) -> None:
        if isinstance(value, ast.IfExp):
            check(value.body)
            check(value.orelse)
        elif (isinstance(value, ast.Constant) and type(value.value) is int
              and value.value != 0):
            found.append(f"{function.__module__}.{function.__qualname__} returns {value.value}")
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            called = function.__globals__.get(value.func.id)
            if inspect.isfunction(called) and (ROOT / called.__module__.split(".")[0]).is_dir():
                found.extend(_bare_codes(called, seen))

    def returns(body: ast.AST) -> Iterator[ast.Return]:
        for child in ast.iter_child_nodes(body):
            if isinstance(child, ast.Return):
                yield child
            elif not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                yield from returns(child)

    for statement in returns(node):
        check(statement.value)
    return found


def test_every_command_returns_its_code_from_the_enum() -> None:
    commands: list[Callable[..., Any]] = [command.handler
                                          for command in agent.registry().commands.values()]
    commands += [agent.main, *map(_main_of, _module_commands())]
    assert len(commands) > 20
    seen: set[Callable[..., Any]] = set()
    assert [found for command in commands for found in _bare_codes(command, seen)] == []

