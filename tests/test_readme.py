"""Every command README.md shows runs as written (issue: a README line that fails fails CI).

The command blocks (```bash) are read in order and run like a person would in one shell:
``export`` lines and ``VAR=value`` prefixes set the environment, servers (``serve``, ``board``)
run in the background until their block ends and are checked to answer, ``play`` gets a
person's moves on its input, everything else must exit 0 without a traceback.  The only
commands not run are the install and test commands (which ``.ci/run`` runs, checked here) and
the ranked games against the real course server (``online``/``stats`` without ``--server``):
nothing here reaches the internet.  The commands run in a scratch checkout (the project's
folders linked, ``config.toml`` copied with its placeholders), so they write nothing into the
project.
"""

from __future__ import annotations

import os
import queue
import re
import shlex
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.helpers import SCRATCH_OWN, checkout_snapshot

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SERVERS = {"serve": r"local course server on (http://\S+/)", "board": r"analysis board on (http://\S+/)"}
PERSON_AT_THE_TERMINAL = "4\n4\n3\nq\n"  # for `play`: three moves, then quit
COMMAND_SECONDS = 900


@dataclass(frozen=True)
class Line:
    block: int
    text: str
    env: dict[str, str]
    argv: list[str]


def blocks(text: str) -> list[list[str]]:
    """The lines of each ```bash block, comments and blank lines left out."""
    found = re.findall(r"^```bash\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    return [[line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            for block in found]


def parse(block: int, line: str) -> Line:
    words = shlex.split(line, comments=True)
    env: dict[str, str] = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    return Line(block, line, env, words)


def readme_lines() -> list[Line]:
    return [parse(number, line) for number, block in enumerate(blocks(README.read_text()))
            for line in block]


def is_install_or_tests(line: Line) -> bool:
    return line.argv[:4] == ["python", "-m", "pip", "install"] or line.argv[:3] == ["python", "-m", "pytest"]


def is_ranked(line: Line) -> bool:
    """A command that talks to the real course server (no ``--server`` of our own)."""
    return (line.argv[:2] in (["python", "agent.py"],) and len(line.argv) > 2
            and line.argv[2] in ("online", "-o", "stats", "-s") and "--server" not in line.argv)


def test_the_readme_starts_with_the_two_commands_ci_runs() -> None:
    lines = readme_lines()
    first = [line.text.split("#")[0].strip() for line in lines[:3]]
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'python -m pip install -e ".[dev]"' in first and "python -m pytest" in first
    assert 'python -m pip install -e ".[dev]"' in ci and "\npython -m pytest" in ci


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkout to run the README in: the project's files linked, its config copied."""
    folder = tmp_path_factory.mktemp("checkout")
    for entry in ROOT.iterdir():
        if entry.name not in SCRATCH_OWN:
            (folder / entry.name).symlink_to(entry)
    (folder / "config.toml").write_text((ROOT / "config.toml").read_text())
    return folder


def _pump(stream: object) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()

    def run() -> None:
        for line in stream:  # type: ignore[attr-defined]
            lines.put(line)
        lines.put("")

    threading.Thread(target=run, daemon=True).start()
    return lines


@dataclass
class Background:
    process: subprocess.Popen[str]
    url: str


def start_server(line: Line, argv: list[str], env: dict[str, str], cwd: Path) -> Background:
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True)
    lines = _pump(process.stdout)
    pattern = re.compile(SERVERS[line.argv[2]])
    seen: list[str] = []
    while True:
        try:
            text = lines.get(timeout=COMMAND_SECONDS)
        except queue.Empty:
            process.kill()
            raise AssertionError(f"{line.text!r} did not start in time: {''.join(seen)}") from None
        seen.append(text)
        assert text, f"{line.text!r} stopped: {''.join(seen)}"
        found = pattern.search(text)
        if found:
            return Background(process, found.group(1))


def stop(servers: list[Background]) -> None:
    for server in servers:
        server.process.terminate()
        server.process.wait(timeout=30)
    servers.clear()


@dataclass
class Shell:
    """What a person's shell keeps from one README block to the next: the environment (its
    ``export`` lines), and what ran."""

    scratch: Path
    env: dict[str, str]
    before: dict[str, str]  # the checkout's records and tracked files, before any block ran
    ran: list[str]


@pytest.fixture(scope="module")
def shell(scratch: Path) -> Shell:
    env = {key: value for key, value in os.environ.items() if not key.startswith("EDAP01_")}
    return Shell(scratch, env, checkout_snapshot(), [])


def run_block(block: int, shell: Shell) -> None:
    """Run one README block's lines in order, as a person would in the shell; the servers it
    starts run until the block ends."""
    servers: list[Background] = []
    try:
        for line in readme_lines():
            if line.block != block:
                continue
            if line.argv[:1] == ["export"]:
                for assignment in line.argv[1:]:
                    name, _, value = assignment.partition("=")
                    shell.env[name] = value
                continue
            if is_install_or_tests(line) or is_ranked(line):
                continue
            assert line.argv[:1] == ["python"], f"README line not understood: {line.text!r}"
            argv = [sys.executable, *line.argv[1:]]
            here = {**shell.env, **line.env}
            if len(line.argv) > 2 and line.argv[2] in SERVERS:
                server = start_server(line, argv, here, shell.scratch)
                assert requests.get(server.url, timeout=30).status_code == 200, line.text
                servers.append(server)
                shell.ran.append(line.text)
                continue
            stdin = PERSON_AT_THE_TERMINAL if line.argv[2:3] == ["play"] else ""
            done = subprocess.run(argv, cwd=shell.scratch, env=here, input=stdin,
                                  capture_output=True, text=True, timeout=COMMAND_SECONDS)
            printed = done.stdout + done.stderr
            assert done.returncode == 0, f"{line.text!r} exited {done.returncode}:\n{printed[-3000:]}"
            assert "Traceback" not in printed, f"{line.text!r}:\n{printed[-3000:]}"
            shell.ran.append(line.text)
    finally:
        stop(servers)


def block_ids() -> list[str]:
    """A test id per README block: its number and its first command."""
    ids = []
    for number, block in enumerate(blocks(README.read_text())):
        words = [word.strip('"') for word in (block[0].split()[:3] if block else ["empty"])]
        ids.append(f"{number}-{'-'.join(words)}")
    return ids


@pytest.mark.slow
@pytest.mark.parametrize("block", range(len(block_ids())), ids=block_ids())
def test_the_readme_block_runs_as_written(block: int, shell: Shell) -> None:
    run_block(block, shell)


@pytest.mark.slow
def test_every_readme_command_ran_and_wrote_only_in_the_scratch_checkout(shell: Shell) -> None:
    assert checkout_snapshot() == shell.before  # written into the scratch checkout, never here
    skipped = [line.text for line in readme_lines()
               if is_install_or_tests(line) or is_ranked(line)]
    # Something ran from every kind the README shows, and only the ranked games were left out.
    assert any("practice" in text for text in shell.ran)
    assert any("serve" in text for text in shell.ran)
    assert all(("pip" in text or "pytest" in text or "--server" not in text) for text in skipped)


def test_the_readme_lists_every_command() -> None:
    import agent

    listed = set(re.findall(r"^\| `([a-z-]+)[ `]", README.read_text(), re.MULTILINE))
    assert set(agent.registry().commands) <= listed
