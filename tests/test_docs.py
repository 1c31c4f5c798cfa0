"""The README and the pages of ``docs/``: short, their commands the ones CI runs, and every
link and every file they name there in a fresh clone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PAGE_LINES = 400  # a page of docs/ says how to use a part and how it works; figures go to benchmarks.md
README_LINES = 300
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# Files named in code spans: a path under one of these folders with an extension, no pattern.
NAMED_FILE = re.compile(r"`((?:bench|docs|tests|solver/data)/[\w./-]+\.\w+)`")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: from the text as shown (a link by its text)."""
    shown = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())
    text = re.sub(r"[^\w\- ]", "", shown.lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in page.read_text().splitlines()
            if line.startswith("#")}


def test_the_readme_is_a_short_guide_starting_with_the_ci_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= README_LINES
    first_block = readme.split("```")[1]
    ci = (ROOT / ".ci" / "run").read_text()
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()[1:]]
    assert commands == ['python -m pip install -e ".[dev]"', "python -m pytest"]
    for command in commands:
        assert command in ci
    assert "COURSE.md" not in readme  # not in the repository: what users need is in docs/


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_and_named_file_resolves(page: Path) -> None:
    text = page.read_text()
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in anchors(linked)):
            broken.append(target)
    for name in NAMED_FILE.findall(text):
        # A work file ships compressed (F.gz) and is unpacked on first use.
        if not (ROOT / name).exists() and not (ROOT / (name + ".gz")).exists():
            broken.append(name)
    assert not broken, f"{page.name}: {broken}"


@pytest.mark.parametrize("page", PAGES[1:], ids=lambda p: p.name)
def test_every_page_of_docs_is_a_guide_of_at_most_400_lines(page: Path) -> None:
    lines = len(page.read_text().splitlines())
    assert lines <= PAGE_LINES, f"{page.name} has {lines} lines: move figures to benchmarks.md, or split it"


def test_the_slug_of_a_heading_is_githubs() -> None:
    assert slug(" The local server: `serve` and tests") == "the-local-server-serve-and-tests"
    assert slug("Figures at a glance") == "figures-at-a-glance"
