"""``agent.py report``: the measurements and figures a course report needs, as ``report.md``.

``reporting.measure`` runs them (games against the course's opponents, time and depth per move,
depth and speed against the time budget, correctness proven by the exact solver, the
evaluations compared), ``reporting.document`` draws the figures and writes the report, and
``reporting.cli`` is the command.  It stands above the arena, whose tournaments it runs.
"""
