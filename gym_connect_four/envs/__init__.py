"""The environment class, ``ConnectFourEnv``, and its errors."""

from gym_connect_four.envs.connect_four_env import (
    ConnectFourEnv,
    InvalidAction,
    InvalidBoard,
    ResultType,
)

__all__ = ["ConnectFourEnv", "InvalidAction", "InvalidBoard", "ResultType"]
