"""The engine's settings as a command's flags revise them (``--mode``, ``--opponent-model``),
checked by the engine's rules and naming the flag."""

from __future__ import annotations

from settings import AgentSettings, UsageError, revised
from vocabulary import Mode, OpponentModel


def with_mode(agent: AgentSettings, mode: Mode | None) -> AgentSettings:
    """``agent`` in ``mode`` (``--mode``), or as configured when None."""
    return agent if mode is None else revised(agent, {"mode": str(mode)}, names={"mode": "--mode"})


def opponent_model(agent: AgentSettings, model: OpponentModel | None) -> OpponentModel:
    """The engine's opponent model from ``--opponent-model`` (None: minimax), refused by the
    engine's rule (``opponent_model_problem``), naming the flag, before any game starts."""
    if model is None:
        return OpponentModel.MINIMAX
    # Loads the compiled search, which the command builds its engine with next anyway.
    from engine.engine import opponent_model_problem

    problem = opponent_model_problem(agent.mode, model)
    if problem is not None:
        hint = "" if agent.mode == Mode.COURSE else ": add --mode course"
        raise UsageError(f"--opponent-model {model}: {problem}{hint}")
    return model
