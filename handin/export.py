"""The assignment's hand-in: a folder a student submits as it is and a TA runs with the course's
packages, made of the project's own modules.

The hand-in's own files are in ``handin/files``: ``connect4.py`` (the course skeleton's program
around our player: ``-l``, ``-o``, ``-s``, ``student_move``), its tests, its README and its
requirements.  Every module of the project they import, directly or through other modules, is
copied as it is: the board, the search, the course's evaluation, the time control, the course's
environment.  Only the front of ``heuristics`` is the hand-in's own (the project's names four
evaluations and reads the fitted ones' weights; the hand-in plays with the course's), so nothing
of the search or the evaluation is kept twice: a change to them reaches the next hand-in, and
``tests/test_handin.py`` checks that the hand-in plays as ``agent.py move --mode course`` does.
"""

from __future__ import annotations

import ast
import re
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from settings import UsageError

PROJECT = Path(__file__).resolve().parent.parent
FILES = Path(__file__).resolve().parent / "files"
# The hand-in's own files: where each goes in the hand-in, and its source in ``FILES``.
OWN = {
    "connect4.py": "connect4.py",
    "heuristics/__init__.py": "heuristics.py",
    "test_connect4.py": "test_connect4.py",
    "requirements.txt": "requirements.txt",
}
README = "README.md"
REPORT = "report"
# The files a reader explaining the player reads, in this order; the other files follow them.
READING_ORDER = (
    "connect4.py",
    "board/bits.py",
    "board/board.py",
    "board/tactics.py",
    "heuristics/windows.py",
    "search/negamax.py",
    "search/table.py",
    "search/iterative.py",
    "timecontrol/slices.py",
    "timecontrol/counters.py",
    "test_connect4.py",
)
LINK = re.compile(r"\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Exported:
    """What ``export`` wrote: each file of the hand-in (relative to ``out``) with its lines, and
    the report's files copied (none without a report)."""

    out: Path
    files: dict[str, int]
    copied: tuple[str, ...]  # the project's modules, as they are
    report: tuple[str, ...]

    @property
    def python_lines(self) -> int:
        return sum(lines for name, lines in self.files.items() if name.endswith(".py"))


def _imported_names(path: Path) -> set[str]:
    """Every dotted name ``path`` imports, and every ``module.name`` it imports from a module
    (``from board import bits`` imports the module ``board.bits``), functions' imports too."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def _project_files(name: str) -> list[str]:
    """The project's files that importing the module ``name`` runs (its packages' ``__init__``
    and the module), relative to the project; none for a name outside the project or not a module."""
    parts = name.split(".")
    files = []
    for depth in range(1, len(parts) + 1):
        here = PROJECT.joinpath(*parts[:depth])
        if (here / "__init__.py").is_file():
            files.append(f"{'/'.join(parts[:depth])}/__init__.py")
        elif depth == len(parts) and here.with_suffix(".py").is_file() and files:
            files.append(f"{'/'.join(parts)}.py")
        else:
            break
    return files


def needed_modules() -> list[str]:
    """The project's modules the hand-in's own files import, directly or through the modules
    they import, relative to the project: what the hand-in copies."""
    todo = [FILES / source for target, source in OWN.items() if target.endswith(".py")]
    found: set[str] = set()
    while todo:
        for name in _imported_names(todo.pop()):
            for module in _project_files(name):
                if module not in found and module not in OWN:
                    found.add(module)
                    todo.append(PROJECT / module)
    return sorted(found)


def _summary(path: Path) -> str:
    """The first paragraph of a module's docstring on one line, cut to about 160 characters."""
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    paragraph = " ".join(doc.split("\n\n")[0].split())
    return paragraph if len(paragraph) <= 160 else paragraph[:paragraph.rfind(" ", 0, 157)] + " ..."


def _ordered(names: Iterable[str]) -> list[str]:
    names = set(names)
    first = [name for name in READING_ORDER if name in names]
    return first + sorted(names - set(first))


def report_files(report: Path) -> list[Path]:
    """``report.md`` of ``agent.py report``'s folder and the files it links there (its figures)."""
    page = report / "report.md"
    if not page.is_file():
        raise UsageError(f"--report: {report} has no report.md; make one with"
                         f" python agent.py report --out {report}")
    linked = {report / target for target in LINK.findall(page.read_text())
              if "://" not in target and not target.startswith(("#", "/"))}
    return [page, *sorted(path for path in linked if path.is_file() and path.parent == report)]


def _readme(files: dict[str, int], out: Path, report: tuple[str, ...]) -> str:
    rows = ["| file | lines | what it is for |", "|---|---:|---|"]
    for name in _ordered(files):
        what = _summary(out / name) if name.endswith(".py") else "the course's packages it needs"
        rows.append(f"| `{name}` | {files[name]:,} | {what.replace('|', '/')} |")
    total = sum(lines for name, lines in files.items() if name.endswith(".py"))
    rows.append(f"| (Python in all) | {total:,} | |")
    text = (FILES / README).read_text().replace("<!-- files -->", "\n".join(rows))
    included = ("\n## The report\n\n`report/report.md`, with its figures, is the report of"
                " `agent.py report`: the games, the time and depth of every move, and their"
                " correctness, measured on the student's machine.\n") if report else ""
    return text.replace("<!-- report -->", included)


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def export(out: Path, report: Path | None = None) -> Exported:
    """Write the hand-in into the folder ``out`` (new, or empty), with the report of the folder
    ``report`` (``agent.py report --out``) when one is given.  ``UsageError`` if ``out`` holds
    anything or ``report`` has no report."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"--out: {out} is not an empty folder; give a new one (the hand-in is"
                         " the folder's whole content)")
    figures = report_files(report) if report is not None else []
    copied = needed_modules()
    out.mkdir(parents=True, exist_ok=True)
    for module in copied:
        (out / module).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PROJECT / module, out / module)
    for target, source in OWN.items():
        (out / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FILES / source, out / target)
    written = [f"{REPORT}/{path.name}" for path in figures]
    if figures:
        (out / REPORT).mkdir()
        for path in figures:
            shutil.copyfile(path, out / REPORT / path.name)
    files = {name: _lines(out / name) for name in [*copied, *OWN]}
    (out / README).write_text(_readme(files, out, tuple(written)))
    files[README] = _lines(out / README)
    return Exported(out, files, tuple(copied), tuple(written))
