"""The batch executor's rules, the same in this process, on a local process pool and on a Dask
cluster on 127.0.0.1: every task runs and comes back once, a task's error reaches the caller,
Ctrl-C hands over what was running, a killed worker loses nothing and the run completes; and
the work files' lines."""

from __future__ import annotations

import gc
import importlib.util
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from batch import MAX_RESTARTS, BatchExecutor, WorkerLost, open_executor, worker_state
from batch.lines import append_lines, read_lines
from settings import UsageError
from tests.batch_tasks import ctrl_c_lost_in_a_finalizer, fail, pid_after
from tests.helpers import cluster_workers

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(params=["here", "pool", "cluster"])
def executor(request: pytest.FixtureRequest) -> Iterator[BatchExecutor]:
    """Each kind: this process, two local processes, the LocalCluster's two workers."""
    scheduler = request.getfixturevalue("local_cluster") if request.param == "cluster" else None
    with open_executor(1 if request.param == "here" else 2, scheduler) as opened:
        yield opened


@pytest.mark.slow
def test_every_task_runs_once_and_comes_back(executor: BatchExecutor) -> None:
    back: list[int] = []
    items = [(0.01, value) for value in range(12)]
    assert executor.run(pid_after, items, lambda args, result: back.append(result[0]))
    assert sorted(back) == list(range(12))
    assert executor.slots == (1 if executor.where == "this process" else 2)


def test_nothing_is_sent_after_the_stop_time(executor: BatchExecutor) -> None:
    back: list[Any] = []
    done = executor.run(pid_after, [(0.0, 1)], lambda args, result: back.append(result),
                        stop_at=time.monotonic() - 1)
    assert not done and back == []


@pytest.mark.slow
def test_a_tasks_error_reaches_the_caller(executor: BatchExecutor) -> None:
    with pytest.raises(ValueError, match="task 3 failed"):
        executor.run(fail, [(3,)], lambda args, result: None)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_ctrl_c_dropped_inside_a_finalizer_still_stops_the_run() -> None:
    back: list[int] = []
    with open_executor(1, None) as opened, pytest.raises(KeyboardInterrupt):
        opened.run(ctrl_c_lost_in_a_finalizer, [(value,) for value in range(5)],
                   lambda args, result: back.append(result))
    assert back == [0]  # the task during which it came is handed over; no other runs
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["pool", "cluster"])
def test_ctrl_c_hands_over_the_tasks_running_and_sends_no_more(
        kind: str, request: pytest.FixtureRequest) -> None:
    scheduler = request.getfixturevalue("local_cluster") if kind == "cluster" else None
    back: list[int] = []
    waited: list[int] = []

    def interrupt_at_the_first(args: tuple[Any, ...], result: tuple[int, int]) -> None:
        back.append(result[0])
        if len(back) == 1:
            raise KeyboardInterrupt  # as a Ctrl-C while the parent handles a result

    with open_executor(2, scheduler) as opened, pytest.raises(KeyboardInterrupt):
        opened.run(pid_after, [(0.3, value) for value in range(20)], interrupt_at_the_first,
                   on_stopping=waited.append)
    (running,) = waited
    assert len(back) == 1 + running and len(set(back)) == len(back)
    assert 1 <= running <= 3  # a pool has a task queued per worker and one more; nothing beyond
    assert max(back) < 1 + 3  # the first tasks sent: none was sent after the Ctrl-C


@pytest.mark.slow
def test_a_ctrl_c_while_a_result_is_kept_waits_until_it_is_kept_whole(
        executor: BatchExecutor) -> None:
    halves: list[tuple[int, str]] = []

    def keep_in_two_steps(args: tuple[Any, ...], result: tuple[int, int]) -> None:
        halves.append((result[0], "counted"))
        if len(halves) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C between counting and writing
            for _ in range(1000):  # bytecodes on which Python would raise it
                pass
        halves.append((result[0], "written"))

    with pytest.raises(KeyboardInterrupt):
        executor.run(pid_after, [(0.05, value) for value in range(20)], keep_in_two_steps)
    kept = [value for value, step in halves if step == "counted"]
    assert 1 <= len(kept) < 20
    assert halves == [(value, step) for value in kept for step in ("counted", "written")]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.slow
def test_a_killed_pool_worker_loses_nothing_and_the_run_completes() -> None:
    back: list[tuple[int, int]] = []

    def kill_once(args: tuple[Any, ...], result: tuple[int, int]) -> None:
        back.append(result)
        if len(back) == 2:
            os.kill(result[1], signal.SIGKILL)  # a worker dies (or is killed) mid-run

    with open_executor(2) as pool:
        assert pool.run(pid_after, [(0.1, value) for value in range(8)], kill_once)
    assert sorted(value for value, _ in back) == list(range(8))
    assert len({pid for _, pid in back}) > 2  # the later tasks ran in a new pool


@pytest.mark.slow
def test_workers_dying_again_and_again_stop_the_run_in_one_line() -> None:
    with open_executor(2) as pool, pytest.raises(WorkerLost) as raised:
        # os._exit, a builtin: a worker needs to import nothing to run it (and die)
        pool.run(os._exit, [(1,) for _ in range(8)], lambda args, result: None)
    assert str(raised.value) == (f"a worker process died (killed, or out of memory?)"
                                 f" {MAX_RESTARTS + 1} times in this run: stopping")
    assert isinstance(raised.value, UsageError)  # agent.py prints it as one line


@pytest.mark.slow
def test_a_killed_cluster_worker_loses_nothing_and_the_run_completes(local_cluster: str) -> None:
    victim = cluster_workers(local_cluster)[0]
    back: list[tuple[int, int]] = []

    def kill_once(args: tuple[Any, ...], result: tuple[int, int]) -> None:
        back.append(result)
        if len(back) == 2:
            os.kill(victim, signal.SIGKILL)  # Dask sends its tasks to the other worker

    with open_executor(scheduler=local_cluster) as cluster:
        assert cluster.run(pid_after, [(0.2, value) for value in range(10)], kill_once)
    assert sorted(value for value, _ in back) == list(range(10))
    assert len(cluster_workers(local_cluster)) == 2  # its nanny started a new one


@pytest.mark.parametrize(("address", "reason"), [
    ("nonsense", "missing port number in address 'nonsense'"),
    ("udp://127.0.0.1:8786", "unknown address scheme 'udp'"),
])
@pytest.mark.slow
def test_a_scheduler_address_that_cannot_work_is_one_line(address: str, reason: str) -> None:
    distributed = pytest.importorskip("distributed")
    with pytest.raises(UsageError) as raised, open_executor(scheduler=address):
        pass
    message = str(raised.value)
    assert message.startswith(f"cannot reach the Dask scheduler at {address}: {reason}")
    assert "\n" not in message
    # The client that failed is gone already: collected later, while another client starts,
    # it would deadlock both on the lock their event-loop runners share.
    assert not [o for o in gc.get_objects() if isinstance(o, distributed.Client)]


def test_a_worker_keeps_its_state_for_the_same_key() -> None:
    made: list[int] = []

    def make(key: int) -> list[int]:
        made.append(key)
        return [key]

    with open_executor(1):  # this process, which forgets its state when it closes
        first = worker_state("test", 1, lambda: make(1))
        assert worker_state("test", 1, lambda: make(1)) is first
        assert worker_state("test", 2, lambda: make(2)) == [2]
        assert worker_state("test", 1, lambda: make(1)) is not first  # one kept per name
    assert made == [1, 2, 1]
    with open_executor(1):
        worker_state("test", 1, lambda: make(1))
    assert made == [1, 2, 1, 1]


def test_work_lines_drop_a_line_an_interruption_cut_short(tmp_path: Path) -> None:
    path = tmp_path / "work.jsonl"
    assert list(read_lines(path)) == []
    append_lines(path, ['{"a": 1}'])
    with path.open("a") as handle:
        handle.write('{"a": 2, "b": "' + "x" * 10_000)  # killed while writing a long line
    assert list(read_lines(path)) == [{"a": 1}]
    append_lines(path, ['{"a": 3}', '{"a": 4}'])
    assert path.read_text() == '{"a": 1}\n{"a": 3}\n{"a": 4}\n'
    path.write_text('{"a"')
    append_lines(path, ['{"a": 5}'])
    assert list(read_lines(path)) == [{"a": 5}]


def _study_main(argv: list[str]) -> int:
    spec = importlib.util.spec_from_file_location("heuristic_study",
                                                  ROOT / "bench" / "heuristic_study.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return int(module.main(argv))


def _commands(out: Path) -> dict[str, tuple[Callable[[list[str]], int], list[str]]]:
    import agent
    from solver.make_book.cli import main as book_main
    from training.label import main as label_main

    return {
        "tournament": (agent.main, ["tournament", "--players", "bot:1,random", "--out",
                                    str(out)]),
        "study": (_study_main, ["--heuristics", "windows5000,threats", "--skip-kept",
                                "--out", str(out)]),
        "label": (label_main, ["--games", "2", "--out", str(out / "labels.jsonl")]),
        "book": (book_main, ["layers", "--discs", "2", "--work", str(out / "work.jsonl"),
                             "--quiet"]),
    }


@pytest.mark.slow
@pytest.mark.parametrize("command", ["tournament", "study", "label", "book"])
def test_every_batch_command_refuses_a_scheduler_it_cannot_use_in_one_line(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    main, argv = _commands(tmp_path)[command]
    assert main([*argv, "--scheduler", "nonsense"]) == 2
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error")]
    assert errors == ["error: cannot reach the Dask scheduler at nonsense: missing port number"
                      " in address 'nonsense'"]
    assert [path.name for path in tmp_path.iterdir()] == []  # nothing written, nothing measured
