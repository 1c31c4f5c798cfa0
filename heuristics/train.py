"""Fit the weights of ``windows_tuned`` or ``learned`` to positions labelled by our solver.

    python -m heuristics.train windows_tuned|learned [--labels FILE ...] [--seed S]
        [--positions N] [--epochs E] [--holdout 0.1] [--out FILE]
        [--model linear|network] [--hidden H] [--counted-only]

The labels (by default ``training/data/labels.jsonl`` and ``labels-late.jsonl``, made by
``python -m training.label``) give each position's outcome for the side to move. The fit is a
logistic regression (the "Texel" fit of chess engines): the weights ``w`` make ``sigmoid(w .
f)`` the probability-like expected result (1 win, 0.5 draw, 0 loss) of a position with
features ``f`` (``heuristics.fitted``), by minimising the cross-entropy plus a small ridge term
with Newton's method (one epoch = one Newton step over all training rows; it converges in
about ten). Every position is used with its mirror image. ``learned`` can instead be a network
(``--model network``) of one hidden layer of ``--hidden`` rectified units over the same
features, fitted to the same loss by Adam on mini-batches of 512 (one epoch = one pass over the
training rows, shuffled with ``--seed``); its input scaling is folded into the first layer's
weights. ``learned`` (either model) has the square features after the counted ones unless
``--counted-only``. A share of the games (``--holdout``, picked with ``--seed``) is kept out of
the fit; the script prints, on those,
the cross-entropy and how often the sign of the evaluation names the winner of a decided
position, for the fitted weights and for ``windows5000`` beside them. Only numpy is needed.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from board import Board
from heuristics.fitted import feature_rows, square_rows
from heuristics.weights import MAX_HIDDEN, save_weights
from heuristics.windows import windows5000
from vocabulary import ExitStatus

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LABELS = (ROOT / "training" / "data" / "labels.jsonl",
                  ROOT / "training" / "data" / "labels-late.jsonl")
GAMES_PER_FILE = 10_000_000  # game numbers of the i-th labels file are offset by i times this
# Rows of weights: learned has one per side (first or second player to move), tuned one.
ROWS = {"windows_tuned": 1, "learned": 2}
RIDGE = 1e-3
MIN_SPREAD = 0.1


@dataclass(frozen=True, slots=True)
class Data:
    features: np.ndarray  # positions x (rows * width), each row's block zero but its own
    result: np.ndarray  # 1 win, 0.5 draw, 0 loss for the side to move
    games: np.ndarray
    windows5000: np.ndarray  # the course heuristic's score, for comparison


def read_rows(path: Path, limit: int | None) -> list[tuple[int, str, int]]:
    """``(game, moves, outcome)`` of the labelled positions in ``path`` (placeholders and a
    torn last line skipped), at most ``limit``."""
    rows = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
            if "moves" in row:
                rows.append((int(row["game"]), str(row["moves"]), int(row["outcome"])))
        except (ValueError, KeyError, TypeError):
            continue
        if limit is not None and len(rows) >= limit:
            break
    return rows


def read_files(paths: list[Path], limit: int | None) -> list[tuple[int, str, int]]:
    """The labelled positions of ``paths`` in order, at most ``limit``; the games of the i-th
    file are renumbered ``game + i * GAMES_PER_FILE`` (each file counts its games from 0, and
    the held-out share is drawn by game)."""
    rows: list[tuple[int, str, int]] = []
    for i, path in enumerate(paths):
        left = None if limit is None else limit - len(rows)
        if left == 0:
            break
        rows += [(game + i * GAMES_PER_FILE, moves, outcome)
                 for game, moves, outcome in read_rows(path, left)]
    return rows


def design(name: str, rows: list[tuple[int, str, int]], squares: bool = False) -> Data:
    """Each position and its mirror image as rows of features (with ``squares``: the square
    features after the counted ones), in the heuristic's ``ROWS`` blocks (block ``moves %
    ROWS``: one per side to move for ``learned``): a position's features fill its own block,
    the others are zero."""
    boards = []
    for _, moves, _ in rows:
        boards.append(Board.from_moves(moves))
        boards.append(Board.from_moves("".join(str(8 - int(c)) for c in moves)))
    owns = np.array([b.position for b in boards], dtype=np.int64)
    masks = np.array([b.mask for b in boards], dtype=np.int64)
    plain = feature_rows(owns, masks, name == "learned")
    if squares:
        plain = np.hstack([plain, square_rows(owns, masks)])
    blocks = ROWS[name]
    width = plain.shape[1]
    features = np.zeros((len(boards), blocks * width))
    for i, board in enumerate(boards):
        block = board.moves % blocks
        features[i, block * width:(block + 1) * width] = plain[i]
    outcome = np.repeat(np.array([o for _, _, o in rows], dtype=np.float64), 2)
    return Data(
        features=features,
        result=(outcome + 1) / 2,
        games=np.repeat(np.array([g for g, _, _ in rows]), 2),
        windows5000=np.array([windows5000(b.position, b.mask) for b in boards], dtype=np.float64),
    )


def _sigmoid(x: np.ndarray) -> np.ndarray:
    result: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(x, -40, 40)))
    return result


def cross_entropy(z: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(_sigmoid(z), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def sign_accuracy(score: np.ndarray, y: np.ndarray) -> float:
    """How often the sign of ``score`` names the winner, over the decided positions."""
    decided = y != 0.5
    return float(np.mean((score[decided] > 0) == (y[decided] == 1.0)))


def fit(x: np.ndarray, y: np.ndarray, epochs: int) -> np.ndarray:
    """Newton's method on the ridge-penalised cross-entropy."""
    w = np.zeros(x.shape[1])
    n = x.shape[0]
    for _ in range(epochs):
        p = _sigmoid(x @ w)
        gradient = x.T @ (p - y) / n + RIDGE * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x / n + RIDGE * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    return w


def fit_network(x: np.ndarray, y: np.ndarray, epochs: int, hidden: int, seed: int,
                rate: float = 0.01, batch: int = 512) -> np.ndarray:
    """A one-hidden-layer network on the cross-entropy, by Adam; returns its weights in the
    layout of ``heuristics.fitted.network_rows`` (``x``: blocked features, 2F columns)."""
    rng = np.random.default_rng(seed)
    # Inputs are standardised, but a rare one (a square feature seldom set) is scaled by at
    # most 1 / MIN_SPREAD: its weights, unfolded, must not blow up the positions of the search
    # where it is set.  An input never set starts (and, by the ridge term, stays) at zero.
    std = x.std(axis=0)
    mean, spread = x.mean(axis=0), np.maximum(std, MIN_SPREAD)
    a = (x - mean) / spread
    first = rng.normal(0, 1 / np.sqrt(a.shape[1]), (a.shape[1], hidden))
    first[std == 0] = 0.0
    params = [first, np.zeros(hidden),
              rng.normal(0, 1 / np.sqrt(hidden), hidden), np.zeros(1)]
    first_moment = [np.zeros_like(p) for p in params]
    second_moment = [np.zeros_like(p) for p in params]
    step = 0
    for _ in range(epochs):
        order = rng.permutation(a.shape[0])
        for start in range(0, a.shape[0], batch):
            rows = order[start:start + batch]
            inputs, target = a[rows], y[rows]
            h = np.maximum(inputs @ params[0] + params[1], 0.0)
            error = (_sigmoid(h @ params[2] + params[3][0]) - target) / rows.size
            back = np.outer(error, params[2]) * (h > 0)
            grads = [inputs.T @ back + RIDGE * params[0], back.sum(axis=0),
                     h.T @ error + RIDGE * params[2], np.array([error.sum()])]
            step += 1
            for i, g in enumerate(grads):
                first_moment[i] = 0.9 * first_moment[i] + 0.1 * g
                second_moment[i] = 0.999 * second_moment[i] + 0.001 * g * g
                params[i] -= rate * (first_moment[i] / (1 - 0.9**step)) / (
                    np.sqrt(second_moment[i] / (1 - 0.999**step)) + 1e-8)
    w1 = params[0] / spread[:, None]  # fold the input scaling into the first layer
    b1 = params[1] - (mean / spread) @ params[0]
    out = np.zeros((x.shape[1] + 3, hidden))
    out[:x.shape[1]], out[-3], out[-2], out[-1, 0] = w1, b1, params[2], params[3][0]
    return out


def network_output(weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The network's log-odds for blocked feature rows ``x``."""
    h = np.maximum(x @ weights[:-3] + weights[-3], 0.0)
    return np.asarray(h @ weights[-2] + weights[-1, 0])


def main(argv: list[str] | None = None) -> ExitStatus:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("heuristic", choices=sorted(ROWS))
    parser.add_argument("--labels", type=Path, nargs="+", default=list(DEFAULT_LABELS),
                        metavar="FILE", help="labels files (default: both in training/data)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--positions", type=int, default=None,
                        help="use the first N labelled positions (default: all)")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--holdout", type=float, default=0.1)
    parser.add_argument("--out", type=Path, default=None,
                        help="default: heuristics/data/<heuristic>.json")
    parser.add_argument("--model", choices=("linear", "network"), default="linear",
                        help="learned only: linear (default) or a one-hidden-layer network")
    parser.add_argument("--hidden", type=int, default=None,
                        help="the network's hidden units (default 16; with --model network)")
    parser.add_argument("--counted-only", action="store_true",
                        help="learned without the square features")
    args = parser.parse_args(argv)
    problem = None
    if args.model == "network" and args.heuristic != "learned":
        problem = "--model network is for learned only"
    elif args.counted_only and args.heuristic != "learned":
        problem = "--counted-only is for learned only"
    elif args.hidden is not None and args.model != "network":
        problem = "--hidden is for --model network only"
    elif args.hidden is not None and not 1 <= args.hidden <= MAX_HIDDEN:
        problem = f"--hidden must be 1-{MAX_HIDDEN}, not {args.hidden}"
    elif args.epochs < 1:
        problem = f"--epochs must be at least 1, not {args.epochs}"
    elif not 0 < args.holdout < 1:
        problem = f"--holdout must lie strictly between 0 and 1, not {args.holdout:g}"
    elif args.positions is not None and args.positions < 100:
        problem = f"--positions must be at least 100 (or left out: all), not {args.positions}"
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return ExitStatus.USAGE
    hidden = 16 if args.hidden is None else args.hidden
    missing = [str(path) for path in args.labels if not path.exists()]
    if missing:
        print(f"error: {', '.join(missing)} does not exist (python -m training.label makes it)",
              file=sys.stderr)
        return ExitStatus.USAGE
    rows = read_files(args.labels, args.positions)
    if len(rows) < 100:
        print(f"error: {' '.join(map(str, args.labels))}: {len(rows)} labelled positions; at "
              "least 100 are needed", file=sys.stderr)
        return ExitStatus.USAGE
    squares = args.heuristic == "learned" and not args.counted_only
    data = design(args.heuristic, rows, squares)
    games = np.unique(data.games)
    rng = np.random.default_rng(args.seed)
    held_games = rng.choice(games, size=max(1, int(len(games) * args.holdout)), replace=False)
    held = np.isin(data.games, held_games)
    x, y = data.features[~held], data.result[~held]
    if args.model == "network":
        weights = fit_network(x, y, args.epochs, hidden, args.seed)
        z_held = network_output(weights, data.features[held])
    else:
        weights = fit(x, y, args.epochs).reshape(ROWS[args.heuristic], -1)
        z_held = data.features[held] @ weights.reshape(-1)
    y_held = data.result[held]
    report = {
        "labels": [str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
                   for path in args.labels],
        "positions": len(rows), "seed": args.seed, "epochs": args.epochs,
        "model": args.model, **({"hidden": hidden} if args.model == "network" else {}),
        **({"squares": squares} if args.heuristic == "learned" else {}),
        "holdout_rows": int(held.sum()),
        "holdout_cross_entropy": round(cross_entropy(z_held, y_held), 4),
        "holdout_cross_entropy_constant": round(cross_entropy(
            np.full(y_held.size, np.log(y.mean() / (1 - y.mean()))), y_held), 4),
        "holdout_sign_accuracy": round(sign_accuracy(z_held, y_held), 4),
        "holdout_sign_accuracy_windows5000": round(sign_accuracy(data.windows5000[held],
                                                                 y_held), 4),
    }
    path = save_weights(args.heuristic, weights, report, args.out)
    for key, value in report.items():
        print(f"{key}: {value}")
    print(f"weights written to {path}")
    return ExitStatus.OK


if __name__ == "__main__":
    sys.exit(main())
