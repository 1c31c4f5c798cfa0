"""The program's vocabulary: the typed names of what it tells people, in one place.

Every front end (the command line, the online log, the analysis board, pictures, the report)
and every package below them use these values instead of bare strings, so one idea has one
name and one way of being written.  This package is a leaf: it imports nothing of the project.
"""

from vocabulary.names import (
    MODE_DESCRIPTIONS,
    OPPONENT_MODEL_DESCRIPTIONS,
    Mode,
    OpponentModel,
    Outcome,
    Source,
)

__all__ = ["MODE_DESCRIPTIONS", "OPPONENT_MODEL_DESCRIPTIONS", "Mode", "OpponentModel", "Outcome",
           "Source"]
