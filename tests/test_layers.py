"""The layers of the code (docs/architecture.md): no package imports one of its own layer or of a
layer above it, counting imports made inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Bottom up.  A package may import the packages of the layers below its own, and nothing else
# of the project.
LAYERS: list[set[str]] = [
    {"vocabulary", "terminal", "gym_connect_four"},
    {"settings", "board", "timecontrol"},
    {"heuristics", "batch", "commandline", "rating"},
    {"search", "solver"},
    {"engine", "training", "handin"},
    {"outside"},
    {"course", "ecosystems"},
    {"client", "localserver", "arena"},
    {"reporting", "analysisboard"},
    {"agent"},
]
LAYER = {name: index for index, names in enumerate(LAYERS) for name in names}


def _imports(path: Path) -> set[str]:
    """The top-level names of the project's packages that ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & set(LAYER)


def _sources() -> list[tuple[str, Path]]:
    files = [("agent", ROOT / "agent.py")]
    for name in LAYER:
        if name != "agent":
            files += [(name, path) for path in sorted((ROOT / name).rglob("*.py"))]
    return files


def test_every_package_has_a_layer() -> None:
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    assert packages == set(LAYER) - {"agent"}


def test_nothing_imports_its_own_layer_or_one_above() -> None:
    wrong = []
    for package, path in _sources():
        for imported in _imports(path) - {package}:
            if LAYER[imported] >= LAYER[package]:
                wrong.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert wrong == []


def test_the_leaves_import_nothing_of_the_project() -> None:
    for package, path in _sources():
        if LAYER[package] == 0:
            assert _imports(path) <= {package}, path
