"""The fitted heuristics' weights files (``heuristics/data/<name>.json``): written by
``heuristics.train``, read once per process, checked against the checksum they carry.

A file holds the heuristic's name, its weights (linear: one row, or one per side to move; or
a network's layers, see ``heuristics.fitted``), the SHA-256 of those weights written
canonically, and how they were fitted (seed, data, epochs, held-out figures) so that a report
can cite them.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from heuristics.fitted import LEARNED_FEATURES, SQUARE_FEATURES, TUNED_FEATURES, network_rows

DATA_DIR = Path(__file__).resolve().parent / "data"
# Weights per row: learned's counted features, or those and the square features.
WIDTHS = {"windows_tuned": (TUNED_FEATURES,),
          "learned": (LEARNED_FEATURES, LEARNED_FEATURES + SQUARE_FEATURES)}
MAX_HIDDEN = 64  # units of a network's hidden layer (``learned`` only)


class WeightsError(ValueError):
    """A weights file that is missing, damaged or of the wrong shape."""


def weights_path(name: str) -> Path:
    return DATA_DIR / f"{name}.json"


def checksum(weights: list[list[float]]) -> str:
    """The SHA-256 of ``weights`` written canonically (compact JSON)."""
    return hashlib.sha256(json.dumps(weights, separators=(",", ":")).encode()).hexdigest()


def save_weights(name: str, weights: np.ndarray, fit: dict[str, Any],
                 path: Path | None = None) -> Path:
    """Write ``weights`` (1 or 2 rows of one of ``WIDTHS[name]``, or a network's layers) with
    their checksum and ``fit``."""
    rows = [[float(x) for x in row] for row in np.asarray(weights, dtype=np.float64)]
    target = path or weights_path(name)
    target.parent.mkdir(parents=True, exist_ok=True)
    document = {"heuristic": name, "weights": rows, "sha256": checksum(rows), "fit": fit}
    target.write_text(json.dumps(document, indent=1) + "\n")
    return target


def read_weights(name: str, path: Path | None = None) -> tuple[np.ndarray, dict[str, Any]]:
    """The weights of heuristic ``name`` and how they were fitted; ``WeightsError`` naming the
    file and what is wrong with it."""
    source = path or weights_path(name)
    try:
        document = json.loads(source.read_text())
        rows = document["weights"]
        stored = document["sha256"]
    except FileNotFoundError:
        raise WeightsError(f"{source}: the weights of {name!r} are missing "
                           f"(python -m heuristics.train {name} writes them)") from None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise WeightsError(f"{source}: not a weights file ({error})") from None
    if checksum(rows) != stored:
        raise WeightsError(f"{source}: the weights do not match their checksum (damaged?)")
    weights = np.array(rows, dtype=np.float64)
    if not _well_shaped(name, weights.shape):
        widths = " or ".join(map(str, WIDTHS[name]))
        network = (f", or a network of {network_rows(False)} or {network_rows(True)} rows of "
                   f"1-{MAX_HIDDEN} weights" if name == "learned" else "")
        raise WeightsError(f"{source}: {name!r} needs 1 or 2 rows of {widths} weights"
                           f"{network}; the file has shape {weights.shape}")
    return weights, dict(document.get("fit", {}))


def _well_shaped(name: str, shape: tuple[int, ...]) -> bool:
    if len(shape) != 2:
        return False
    if shape[0] in (1, 2) and shape[1] in WIDTHS[name]:
        return True
    return (name == "learned" and shape[0] in (network_rows(False), network_rows(True))
            and 1 <= shape[1] <= MAX_HIDDEN)


@functools.cache
def load_weights(name: str) -> np.ndarray:
    """The shipped weights of heuristic ``name``, read once.  (Writable like every array the
    compiled search is given: a read-only one would be a second compiled signature.)"""
    return read_weights(name)[0]
