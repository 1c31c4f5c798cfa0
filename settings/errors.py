"""The two errors a user can fix: a bad option, input or request (``UsageError``), and a bad
setting in ``config.toml`` or the environment (``ConfigError``).

``agent.py`` prints either as one line (``error: ...``) and exits with code 2; every package
raises these for what the user asked, and keeps its own exceptions for what the user cannot
fix (a server's failure, a bug).
"""

from __future__ import annotations


class UsageError(ValueError):
    """A command-line option, an input line, a player spec or a request that cannot be done."""


class ConfigError(UsageError):
    """A setting (``config.toml``, the environment, or the flag that overrides it) is bad; the
    message names the file and the key (or the flag)."""
