"""What is shipped, where the command line's help needs it without loading the schema: the
settings file's name, the variable that names another, and the defaults the help quotes.  The
schema's own defaults are these (``settings.schema``), so the two cannot drift."""

from __future__ import annotations

CONFIG_NAME = "config.toml"
CONFIG_ENV = "EDAP01_CONFIG"  # a settings file in place of the checkout's (tests use one)
SECONDS_PER_MOVE = 3.0  # agent.seconds_per_move
MODE = "course"  # agent.mode
BOT_DEPTH = 3  # local_server.bot_depth: the course server's bot is alpha-beta cut at depth 3
# [local_server]
LOCAL_SERVER_HOST = "127.0.0.1"
LOCAL_SERVER_PORT = 8000
LOCAL_SERVER_DB = "records/local-server.sqlite3"
LOCAL_SERVER_TIME_LIMIT = 5.0  # the course's: a move within 5 s
LOCAL_SERVER_VARIANT = "current"
# [board], the analysis board
BOARD_HOST = "127.0.0.1"
BOARD_PORT = 8100

__all__ = ["BOARD_HOST", "BOARD_PORT", "BOT_DEPTH", "CONFIG_ENV", "CONFIG_NAME", "LOCAL_SERVER_DB",
           "LOCAL_SERVER_HOST",
           "LOCAL_SERVER_PORT", "LOCAL_SERVER_TIME_LIMIT", "LOCAL_SERVER_VARIANT", "MODE",
           "SECONDS_PER_MOVE"]
