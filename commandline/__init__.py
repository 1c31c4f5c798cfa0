"""The command line's registry: commands declared by their packages, options as typed values.

Each package's ``cli`` module declares its commands as ``COMMANDS``, a list of ``Command``:
its name, its help, the dataclass of its options (each field an ``option``, ``flag`` or
``positional``, or one of the shared options of ``commandline.options``), whether it runs the
compiled code, and its handler, ``handler(options, context) -> exit code``.  ``agent.py`` only
collects the declarations; ``Registry`` parses the arguments into the command's options, and
the handler is called with them and a ``Context`` (the settings, loaded once).

Help texts are written from the constants that parse the values and from the settings'
defaults, so they cannot drift from what the program does.  A ``cli`` module is imported to
read its declarations, so it imports only what parsing needs; a handler imports the heavy
parts (the web server, the plots, the compiled engine) when it runs.

A handler returns its exit code as a ``vocabulary.ExitStatus``: one meaning per code.
"""

from commandline.folders import writable_folder
from commandline.options import (
    MAX_DEPTH,
    MOVES_HELP,
    flag,
    json_flag,
    mode_option,
    moves_argument,
    opponent_model_option,
    option,
    positional,
    sandbox_option,
    scheduler_option,
    seconds,
    time_option,
    whole,
    workers_option,
)
from commandline.registry import Command, Context, ExecutorOptions, Registry, add_executor_arguments
from commandline.repeat import repeat_command

__all__ = [
    "MAX_DEPTH",
    "MOVES_HELP",
    "Command",
    "Context",
    "ExecutorOptions",
    "Registry",
    "add_executor_arguments",
    "flag",
    "json_flag",
    "mode_option",
    "moves_argument",
    "opponent_model_option",
    "option",
    "positional",
    "repeat_command",
    "sandbox_option",
    "scheduler_option",
    "seconds",
    "time_option",
    "whole",
    "workers_option",
    "writable_folder",
]
