"""A ConnectX agent that shows which interpreter runs it: its first move is column 6 when the
wrapper of the --python test started it (the wrapper sets ``C4_WRAPPED``, inside the agent's
sandbox, which keeps no variable of ours), else what ``good.py`` plays."""

import os

import helper_columns


def agent(observation, configuration):
    if os.environ.get("C4_WRAPPED") and sum(1 for cell in observation.board if cell) < 2:
        return 6
    return helper_columns.pick(observation.board, configuration.columns, observation.mark)
