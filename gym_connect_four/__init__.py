"""The course's Connect Four environment, ``ConnectFour-v0``, rewritten for gym 0.26.2 and NumPy 2.

The course ships ``gym_connect_four`` in its zip, not on PyPI.  This package has the same
names, signatures, rewards and errors, so the students' skeleton runs unchanged::

    import gym
    from gym_connect_four import ConnectFourEnv

    env: ConnectFourEnv = gym.make("ConnectFour-v0")
    env.reset(board=None)
    board, reward, done, info = env.step(3)

Importing the package registers ``ConnectFour-v0`` with gym, with gym's environment checker
switched off: with NumPy 2 the checker crashes on the removed ``np.bool8`` at the first
``step``.  The differences from the original are listed in ``gym_connect_four.envs``.
"""

from __future__ import annotations

import contextlib
import io
import warnings

with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
    # gym prints a notice that it is unmaintained on import (to stderr, and warnings on some
    # NumPy versions); the course pins this gym, so the notice would only be noise in every run.
    # An import error still propagates.
    warnings.simplefilter("ignore")
    import gym
    from gym.envs.registration import register, registry

from gym_connect_four.envs import ConnectFourEnv, InvalidAction, ResultType

ENV_ID = "ConnectFour-v0"

if ENV_ID not in registry:
    register(
        id=ENV_ID,
        entry_point="gym_connect_four.envs:ConnectFourEnv",
        # The checker's first step() calls np.bool8, gone in NumPy 2; it also expects the new
        # five-value step API, while the course environment keeps the old four-value one.
        disable_env_checker=True,
    )

__all__ = ["ENV_ID", "ConnectFourEnv", "InvalidAction", "ResultType", "gym"]
