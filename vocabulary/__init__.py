"""The program's vocabulary: the typed names of what it tells people, in one place.

Every front end (the command line, the online log, the analysis board, pictures, the report)
and every package below them use these values instead of bare strings, so one idea has one
name and one way of being written; every game ends with an ``Ending``, every command's exit
code is an ``ExitStatus``.  ``vocabulary.lazy``, the one module of another kind here, is the
way every package names what it imports only when first asked for.  This package is a leaf: it
imports nothing of the project.
"""

from vocabulary.columns import column_label, columns_text, side_words, symbol
from vocabulary.endings import Ending
from vocabulary.exits import ExitStatus
from vocabulary.names import (
    MODE_DESCRIPTIONS,
    OPPONENT_MODEL_DESCRIPTIONS,
    SANDBOX_DESCRIPTIONS,
    Mode,
    OpponentModel,
    Outcome,
    Sandbox,
    Source,
)
from vocabulary.proven import SCALE_NOTE, Proven, scale_note

__all__ = ["MODE_DESCRIPTIONS", "OPPONENT_MODEL_DESCRIPTIONS", "SANDBOX_DESCRIPTIONS",
           "SCALE_NOTE", "Ending", "ExitStatus", "Mode", "OpponentModel", "Outcome", "Proven",
           "Sandbox", "Source", "column_label", "columns_text", "scale_note", "side_words",
           "symbol"]
