"""The fitted heuristics: their features against a plain count, their weights files, the fit and
the labelled data it reads."""

from __future__ import annotations

import json
import os
import random
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from batch import open_executor
from board import Board, bits
from heuristics import evaluate, heuristic_problems, heuristic_weights
from heuristics.fitted import (
    LEARNED_FEATURES,
    SCALE,
    SQUARE_SLOTS,
    learned_features,
    square_rows,
    tuned_features,
)
from heuristics.train import fit
from heuristics.train import main as train_main
from heuristics.weights import WeightsError, read_weights, save_weights
from heuristics.windows import window_masks
from tests.helpers import cluster_workers, random_position
from training.label import label, read_labels
from training.label import main as label_main


def _bit(col: int, row: int) -> int:
    return 1 << (bits.H1 * col + row)


def plain_features(board: Board) -> tuple[list[int], list[int]]:
    """``(tuned, learned)`` features counted cell by cell and window by window."""
    own, mask = board.position, board.mask
    opp = own ^ mask
    cells = [(c, r) for c in range(bits.WIDTH) for r in range(bits.HEIGHT)]

    def threats(x: int) -> set[tuple[int, int]]:
        return {(c, r) for c, r in cells
                if not mask & _bit(c, r) and bits.has_four.py_func(x | _bit(c, r))}

    def playable(c: int, r: int) -> bool:
        return r == 0 or bool(mask & _bit(c, r - 1))

    windows = {"own3": 0, "own2": 0, "opp3": 0, "opp2": 0}
    for window in window_masks():
        in_own, in_opp = bin(own & int(window)).count("1"), bin(opp & int(window)).count("1")
        for name, count, other in (("own", in_own, in_opp), ("opp", in_opp, in_own)):
            if other == 0 and count in (2, 3):
                windows[f"{name}{count}"] += 1
    win_counts = [windows["own3"], windows["own2"], windows["opp3"], windows["opp2"]]

    def column_discs(x: int, distance: int) -> int:
        return sum(1 for c, r in cells if abs(c - 3) == distance and x & _bit(c, r))

    tuned = [*win_counts, column_discs(own, 0), column_discs(opp, 0), 1]
    ours, theirs = threats(own), threats(opp)
    learned = [sum(1 for _, r in ours if r == row) for row in range(6)]
    learned += [sum(1 for _, r in theirs if r == row) for row in range(6)]
    learned += [sum(playable(c, r) for c, r in ours), sum(playable(c, r) for c, r in theirs)]
    learned += [sum((c, r + 1) in ours for c, r in ours),
                sum((c, r + 1) in theirs for c, r in theirs)]
    learned += win_counts
    learned += [column_discs(own, d) for d in range(4)] + [column_discs(opp, d) for d in range(4)]
    every = ours | theirs
    lowest = {(c, r) for c, r in every if not any(c == c2 and r2 < r for c2, r2 in every)}
    for side in (ours, theirs):
        learned += [sum(1 for c, r in side & lowest if r % 2 == 0),  # rows 1, 3, 5
                    sum(1 for c, r in side & lowest if r % 2 == 1)]
    learned += [sum(r > 0 and playable(c, r - 1) and not mask & _bit(c, r - 1) for c, r in side)
                for side in (ours, theirs)]
    return tuned, [*learned, 1]


def plain_squares(board: Board) -> list[int]:
    """The square features, cell by cell: own discs, opponent discs, own threat cells,
    opponent threat cells, one slot per bit of the board (the sentinels' always 0)."""
    own, mask = board.position, board.mask
    opp = own ^ mask
    empty = [(c, r) for c in range(bits.WIDTH) for r in range(bits.HEIGHT)
             if not mask & _bit(c, r)]
    groups = [own, opp,
              sum(_bit(c, r) for c, r in empty if bits.has_four.py_func(own | _bit(c, r))),
              sum(_bit(c, r) for c, r in empty if bits.has_four.py_func(opp | _bit(c, r)))]
    return [(group >> slot) & 1 for group in groups for slot in range(SQUARE_SLOTS)]


@pytest.mark.slow
def test_the_compiled_features_are_the_plain_counts() -> None:
    rng = random.Random(12)
    for _ in range(150):
        board, _ = random_position(rng, 0, 40)
        tuned, learned = plain_features(board)
        assert list(tuned_features(board.position, board.mask)) == tuned, board.moves
        assert list(learned_features(board.position, board.mask)) == learned, board.moves
        squares = square_rows(np.array([board.position]), np.array([board.mask]))[0]
        assert list(squares) == plain_squares(board), board.moves


def test_windows_tuned_scores_the_scaled_dot_product_of_its_row() -> None:
    weights = heuristic_weights("windows_tuned")
    rng = random.Random(3)
    for _ in range(50):
        board, _ = random_position(rng, 2, 30)
        row = weights[board.moves % weights.shape[0]]
        expected = round(SCALE * float(np.dot(row, plain_features(board)[0])))
        assert evaluate(board, "windows_tuned") == expected


def test_the_shipped_learned_is_a_network_over_both_feature_sets_as_numpy_computes_it() -> None:
    from heuristics.fitted import network_rows
    from heuristics.train import network_output
    weights = heuristic_weights("learned")
    assert weights.shape[0] == network_rows(squares=True)
    rng = random.Random(3)
    for _ in range(50):
        board, _ = random_position(rng, 2, 30)
        inputs = plain_features(board)[1] + plain_squares(board)
        x = np.zeros(2 * len(inputs))
        x[(board.moves % 2) * len(inputs):(board.moves % 2 + 1) * len(inputs)] = inputs
        expected = round(SCALE * float(network_output(weights, x[None])[0]))
        assert evaluate(board, "learned") == expected


@pytest.mark.parametrize("squares", [False, True])
def test_a_linear_learned_scores_the_scaled_dot_product_of_its_row(tmp_path: Path,
                                                                   squares: bool) -> None:
    from heuristics.fitted import learned
    width = LEARNED_FEATURES + 4 * SQUARE_SLOTS * squares
    weights = np.random.default_rng(6).normal(0, 0.3, (2, width))
    path = save_weights("learned", weights, {}, tmp_path / "linear.json")
    linear, _ = read_weights("learned", path)  # 35 or 231 weights a row are accepted
    rng = random.Random(6)
    for _ in range(30):
        board, _ = random_position(rng, 2, 30)
        features = plain_features(board)[1] + (plain_squares(board) if squares else [])
        expected = round(SCALE * float(np.dot(linear[board.moves % 2], features)))
        assert learned(board.position, board.mask, board.moves, linear) == expected


def test_windows_tuned_sees_a_mirrored_board_alike() -> None:
    rng = random.Random(8)
    for _ in range(50):
        board, played = random_position(rng, 2, 30)
        mirrored = Board.from_moves([6 - c for c in played], one_based=False)
        assert evaluate(board, "windows_tuned") == evaluate(mirrored, "windows_tuned")


def test_the_shipped_learned_sees_a_mirrored_board_much_alike() -> None:
    # Trained on both images of every position but with untied weights, the network is not
    # symmetric (0.55 logit apart on average when shipped); its two scores of a position must
    # still differ far less than the scores of different positions do (2.4 logits).
    rng = random.Random(8)
    gaps, scores = [], []
    for _ in range(200):
        board, played = random_position(rng, 2, 30)
        mirrored = Board.from_moves([6 - c for c in played], one_based=False)
        gaps.append(abs(evaluate(board, "learned") - evaluate(mirrored, "learned")))
        scores.append(evaluate(board, "learned"))
    assert np.mean(gaps) < np.std(scores) / 3


def test_the_shipped_weights_say_how_they_were_fitted() -> None:
    for name in ("windows_tuned", "learned"):
        _, fit_record = read_weights(name)
        assert fit_record["positions"] >= 1000
        # the fitted weights name the winner more often than the course's heuristic does
        assert fit_record["holdout_sign_accuracy"] > fit_record["holdout_sign_accuracy_windows5000"]


def test_a_damaged_weights_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = save_weights("learned", heuristic_weights("learned"), {}, tmp_path / "w.json")
    document = json.loads(path.read_text())
    document["weights"][0][3] += 0.5
    path.write_text(json.dumps(document))
    with pytest.raises(WeightsError, match="checksum") as caught:
        read_weights("learned", path)
    assert str(path) in str(caught.value)

    document = json.loads(path.read_text())
    document["weights"] = [row[:5] for row in document["weights"][:7]]
    document["sha256"] = __import__("heuristics.weights").weights.checksum(document["weights"])
    path.write_text(json.dumps(document))
    with pytest.raises(WeightsError, match="shape"):
        read_weights("learned", path)
    with pytest.raises(WeightsError, match="missing"):
        read_weights("learned", tmp_path / "none.json")


def test_an_unknown_heuristic_is_a_config_problem_naming_the_known_ones() -> None:
    assert heuristic_problems("learned") == []
    (problem,) = heuristic_problems("lerned")
    assert "learned" in problem and "windows5000" in problem


def test_the_fit_recovers_the_weights_that_made_the_data() -> None:
    rng = np.random.default_rng(5)
    x = np.column_stack([rng.integers(0, 5, size=(40_000, 3)), np.ones(40_000)]).astype(float)
    true = np.array([0.8, -0.5, 0.3, -0.4])
    y = (rng.random(40_000) < 1 / (1 + np.exp(-x @ true))).astype(float)
    assert np.allclose(fit(x, y, epochs=20), true, atol=0.06)


@pytest.mark.slow
def test_labelling_resumes_where_it_stopped_and_trains(tmp_path: Path, capsys:
                                                       pytest.CaptureFixture[str]) -> None:
    whole, parts = tmp_path / "whole.jsonl", tmp_path / "parts.jsonl"
    label(12, 4, whole, seconds=5.0)
    label(5, 4, parts, seconds=5.0)
    label(12, 4, parts, seconds=5.0)
    assert whole.read_text() == parts.read_text()
    rows, last = read_labels(whole)
    assert last == 11 and len(rows) >= 12
    from solver import Solver
    solver = Solver()
    for row in rows[:6]:  # the labels are the solver's outcomes, from the side to move
        solution = solver.solve(Board.from_moves(row.moves), weak=True)
        assert solution is not None and solution.score == row.outcome

    # a torn last line (a run killed while writing) is skipped, and the next game follows
    with parts.open("a") as f:
        f.write('{"game": 12, "mov')
    assert read_labels(parts) == (rows, 11)
    label(13, 4, parts, seconds=5.0)
    more, last = read_labels(parts)
    assert last == 12 and more[:len(rows)] == rows and '"mov\n' not in parts.read_text()

    # too few positions for a fit: a clear error, nothing written
    out = tmp_path / "learned.json"
    assert train_main(["learned", "--labels", str(whole), "--out", str(out)]) == 2
    assert "at least 100" in capsys.readouterr().err and not out.exists()


@pytest.mark.slow
def test_labels_are_the_same_here_on_the_pool_and_on_the_cluster_a_worker_killed(
        tmp_path: Path, local_cluster: str) -> None:
    options: dict[str, Any] = {"games": 8, "seed": 6, "seconds": 30.0,
                               "discs": range(18, 25), "per_game": 2}
    here, pool, cluster = (tmp_path / f"{name}.jsonl" for name in ("here", "pool", "cluster"))
    assert label(out=here, **options)[0] >= 8
    with open_executor(2) as executor:
        label(out=pool, executor=executor, **options)
    victim = cluster_workers(local_cluster)[0]
    back = []

    def kill_after_two(games: int) -> None:
        back.append(games)
        if len(back) == 2:
            os.kill(victim, signal.SIGKILL)  # Dask labels its games again elsewhere

    with open_executor(scheduler=local_cluster) as executor:
        label(out=cluster, executor=executor, progress=kill_after_two, **options)
    assert len(back) == 8
    assert pool.read_text() == here.read_text() == cluster.read_text()
    assert read_labels(cluster)[1] == 7


@pytest.mark.slow
def test_labelling_keeps_the_disc_counts_and_the_number_per_game_asked(tmp_path: Path) -> None:
    out = tmp_path / "late.jsonl"
    assert label_main(["--games", "15", "--seed", "3", "--discs", "20-24", "--per-game", "3",
                       "--out", str(out)]) == 0
    rows, last = read_labels(out)
    assert last == 14 and len(rows) > 15
    assert all(20 <= len(row.moves) <= 24 for row in rows)
    per_game: dict[int, int] = {}
    for row in rows:
        per_game[row.game] = per_game.get(row.game, 0) + 1
    assert max(per_game.values()) == 3


@pytest.mark.parametrize(("argv", "message"), [
    (["--discs", "9-6"], "--discs must be A-B with 1 <= A <= B <= 41, not '9-6'"),
    (["--discs", "x"], "--discs must be A-B with 1 <= A <= B <= 41, not 'x'"),
    (["--discs", "6-42"], "--discs must be A-B with 1 <= A <= B <= 41, not '6-42'"),
    (["--per-game", "0"], "--per-game must be at least 1, not 0"),
    (["--seconds", "0"], "--seconds must be a positive number, not 0"),
    (["--seconds", "nan"], "--seconds must be a positive number, not nan"),
])
def test_labelling_refuses_bad_options_before_writing_anything(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str,
) -> None:
    out = tmp_path / "labels.jsonl"
    assert label_main([*argv, "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"error: {message}\n"
    assert not out.exists()


@pytest.mark.slow
def test_training_reads_several_labels_files(tmp_path: Path) -> None:
    data = Path(__file__).resolve().parent.parent / "training" / "data"
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text("".join((data / "labels.jsonl").read_text().splitlines(True)[:150]))
    second.write_text("".join((data / "labels-late.jsonl").read_text().splitlines(True)[:150]))
    out = tmp_path / "learned.json"
    assert train_main(["learned", "--labels", str(first), str(second), "--out", str(out),
                       "--epochs", "3"]) == 0
    weights, fit_record = read_weights("learned", out)
    assert weights.shape == (2, LEARNED_FEATURES + 4 * SQUARE_SLOTS)
    assert fit_record["labels"] == [str(first), str(second)] and fit_record["squares"] is True
    assert fit_record["positions"] == sum(
        len(read_labels(path)[0]) for path in (first, second))
    # both files number their games from 0; read together, their games stay apart
    from heuristics.train import read_files
    rows = read_files([first, second], None)
    firsts = {game for game, _, _ in rows[:len(read_labels(first)[0])]}
    seconds = {game for game, _, _ in rows[len(read_labels(first)[0]):]}
    assert firsts and seconds and not firsts & seconds
    assert len(read_files([first, second], 200)) == 200
    counted = tmp_path / "counted.json"
    assert train_main(["learned", "--labels", str(first), str(second), "--out", str(counted),
                       "--epochs", "3", "--counted-only"]) == 0
    assert read_weights("learned", counted)[0].shape == (2, LEARNED_FEATURES)


@pytest.mark.parametrize("squares", [False, True])
def test_a_network_scores_in_the_search_as_numpy_computes_it(tmp_path: Path,
                                                              squares: bool) -> None:
    from heuristics.fitted import learned, network_rows
    from heuristics.train import design, fit_network, network_output, read_rows

    rows = read_rows(Path(__file__).resolve().parent.parent / "training/data/labels.jsonl", 600)
    data = design("learned", rows, squares)
    weights = fit_network(data.features, data.result, epochs=2, hidden=6, seed=3)
    assert weights.shape == (network_rows(squares), 6)
    path = save_weights("learned", weights, {}, tmp_path / "net.json")
    loaded, _ = read_weights("learned", path)  # a network's shape is accepted
    rng = random.Random(4)
    for _ in range(40):
        board, _ = random_position(rng, 2, 30)
        inputs = plain_features(board)[1] + (plain_squares(board) if squares else [])
        x = np.zeros(2 * len(inputs))
        block = board.moves % 2
        x[block * len(inputs):(block + 1) * len(inputs)] = inputs
        expected = round(SCALE * float(network_output(loaded, x[None])[0]))
        assert learned(board.position, board.mask, board.moves, loaded) == expected


def test_a_network_input_never_set_in_training_gets_no_weight() -> None:
    from heuristics.train import fit_network
    rng = np.random.default_rng(2)
    x = np.column_stack([rng.integers(0, 4, size=(2_000, 2)), np.zeros(2_000)]).astype(float)
    y = (rng.random(2_000) < 1 / (1 + np.exp(-(x[:, 0] - x[:, 1])))).astype(float)
    weights = fit_network(x, y, epochs=3, hidden=4, seed=1)
    # column 2 is never set: had it been scaled by its spread (0), its weights would be huge
    assert np.all(weights[2] == 0.0) and np.all(np.abs(weights[:2]) < 10)


@pytest.mark.parametrize(("argv", "message"), [
    (["learned", "--holdout", "1.5"], "--holdout must lie strictly between 0 and 1, not 1.5"),
    (["learned", "--holdout", "0"], "--holdout must lie strictly between 0 and 1, not 0"),
    (["learned", "--epochs", "0"], "--epochs must be at least 1, not 0"),
    (["learned", "--positions", "5"], "--positions must be at least 100"),
    (["learned", "--hidden", "8"], "--hidden is for --model network only"),
    (["learned", "--model", "network", "--hidden", "0"], "--hidden must be 1-64, not 0"),
    (["windows_tuned", "--model", "network"], "--model network is for learned only"),
    (["windows_tuned", "--counted-only"], "--counted-only is for learned only"),
])
def test_training_refuses_bad_options_before_writing_anything(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], message: str,
) -> None:
    out = tmp_path / "weights.json"
    assert train_main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {message}\n" or (err.startswith(f"error: {message}") and
                                           err.count("\n") == 1), err
    assert not out.exists()
