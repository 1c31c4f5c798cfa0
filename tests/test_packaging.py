"""The install ships every package of the project (an editable install maps only those listed)."""

from __future__ import annotations

import shutil
import subprocess
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_of_the_project_is_installed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["packages"]["find"]["include"]
    packages = sorted(p.parent.name for p in ROOT.glob("*/__init__.py")
                      if p.parent.name not in ("tests", "bench"))
    missing = [name for name in packages if not any(fnmatch(name, pat) for pat in patterns)]
    assert packages and missing == []


def test_no_source_file_is_ignored_by_git() -> None:
    """A package that ``.gitignore`` hides (an output folder named like it) would be missing
    from every clone while all tests pass here."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    sources = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
               if not any(part.startswith(".") or part in ("build", "__pycache__")
                          for part in p.relative_to(ROOT).parts)]
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *sources], cwd=ROOT,
                             capture_output=True, text=True).stdout.split()
    assert sources and ignored == []
