"""Each command imports what it needs: ``--help`` and every command's ``--help`` load no compiled
code and none of the heavy libraries (numba, scipy, FastAPI, matplotlib), and a course-mode move
never loads the exact solver.  Checked in fresh processes, by the modules they hold when they end
(no timing: how long an import takes is measured by ``bench/commands_bench.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("numba", "scipy", "fastapi", "matplotlib", "numpy", "pydantic", "solver.core")
# Run agent.py as a person does, then list the modules of HEAVY that got imported.
PROBE = """
import json, runpy, sys
heavy = json.loads(sys.argv[2])
sys.argv = ["agent.py", *json.loads(sys.argv[1])]
try:
    runpy.run_path("agent.py", run_name="__main__")
except SystemExit:
    pass
print(json.dumps(sorted(name for name in heavy if name in sys.modules)))
"""


def loaded(argv: list[str], heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """The modules of ``heavy`` that ``python agent.py ARGV`` imported."""
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv), json.dumps(heavy)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def commands() -> list[str]:
    import agent

    return sorted(agent.registry().commands)


def test_the_list_of_commands_loads_nothing_heavy() -> None:
    assert loaded(["--help"]) == []


@pytest.mark.slow
@pytest.mark.parametrize("command", commands())
def test_a_commands_help_loads_nothing_heavy(command: str) -> None:
    assert loaded([command, "--help"]) == []


@pytest.mark.slow
def test_a_course_mode_move_never_loads_the_solver() -> None:
    found = loaded(["move", "4453", "--mode", "course", "--time", "0.05", "--json"],
                   ("solver.core", "solver.solver", "solver.book", "matplotlib", "fastapi"))
    assert found == []
    # ... and a strongest one does (the check sees a module that is there)
    assert "solver.core" in loaded(["move", "4453", "--mode", "strongest", "--time", "0.05",
                                    "--json"], ("solver.core",))


def test_scipy_linalg_imports_after_the_board_compiled_code() -> None:
    # board.compiled refuses scipy.linalg while numba's array maths loads: only then
    code = ("import sys, board\n"
            "assert 'scipy.linalg' not in sys.modules\n"
            "import scipy.linalg\n"
            "print(scipy.linalg.solve([[2.0, 0.0], [0.0, 4.0]], [2.0, 8.0]).tolist())")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.stdout.strip() == "[1.0, 2.0]", done.stderr
