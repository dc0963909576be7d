"""Faults in a repeated-split comparison: a Dask worker killed mid-run, a cluster that gives up, an
interrupted command-line run. Each completes (or resumes) with the numbers of an undisturbed run,
and results already in the disk cache are not computed again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import metriclab.evaluation.engine as engine
import metriclab.evaluation.parallel as parallel
from metriclab.cache import ResultCache
from metriclab.evaluation import CompareRequest, compare

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
METHODS = [("nca", {"n_components": 2}), ("pca", {"n_components": 2})]
RUN = dict(n_splits=4, fraction=0.3, seed=1)  # 3 methods (with Euclidean) x 4 splits = 12 results
TOTAL = 12


class Interrupted(Exception):
    pass


def numbers(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=["fit_time_s", "cached"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def undisturbed():
    return compare(CompareRequest("wine", METHODS, **RUN))


def interrupt_after(k: int):
    def progress(done, total, message):
        if done >= k:
            raise Interrupted(f"stopped after {done} of {total}")

    return progress


def count_evaluations(monkeypatch) -> list:
    calls = []
    real = engine.evaluate_split

    def counting(*args):
        calls.append(args[0].spec.key)
        return real(*args)

    monkeypatch.setattr(engine, "evaluate_split", counting)
    return calls


def test_a_killed_worker_does_not_change_the_numbers_and_cached_results_are_kept(
    undisturbed, tmp_path
):
    cache = ResultCache(tmp_path)
    with pytest.raises(Interrupted):  # a first run stopped after 3 results: they are on disk
        compare(CompareRequest("wine", METHODS, **RUN), cache=cache, progress=interrupt_after(3))
    assert len(cache) == 3

    reports = []
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        with distributed.Client(cluster) as client:
            pids = client.run(os.getpid)
            victim = sorted(pids)[0]

            def progress(done, total, message):
                reports.append((done, message))
                if done == 4:  # the first split computed on the cluster: kill a worker now
                    os.kill(pids[victim], signal.SIGKILL)

            with distributed.get_task_stream(client) as stream:
                resumed = compare(
                    CompareRequest("wine", METHODS, **RUN),
                    cache=cache,
                    scheduler=client,
                    progress=progress,
                )
            assert client.status == "running"
    pd.testing.assert_frame_equal(numbers(resumed), numbers(undisturbed))
    assert int(resumed["cached"].sum()) == 3  # read back, not recomputed
    assert [d for d, _ in reports] == list(range(1, TOTAL + 1))  # every result reported once
    assert len({m for _, m in reports}) == TOTAL
    assert stream.data  # the cluster did the work
    assert len(cache) == TOTAL


def test_a_cluster_that_gives_up_is_resubmitted_only_the_unfinished_splits(
    undisturbed, monkeypatch
):
    """KilledWorker (the scheduler's allowed failures used up) after 5 finished splits: the other 7
    are submitted again, the 5 are not."""
    import joblib

    calls = count_evaluations(monkeypatch)
    rounds = []

    class FlakyParallel:
        def __init__(self, *args, **kwargs):
            rounds.append(0)

        def __call__(self, tasks):
            for task in tasks:
                if len(rounds) == 1 and rounds[0] == 5:
                    raise distributed.KilledWorker("task-x", "tcp://127.0.0.1:1", 3)
                rounds[-1] += 1
                fn, args, kwargs = task
                yield fn(*args, **kwargs)

    monkeypatch.setattr(joblib, "Parallel", FlakyParallel)
    monkeypatch.setattr(
        joblib, "parallel_config", lambda **kw: __import__("contextlib").nullcontext()
    )
    monkeypatch.setattr(parallel, "client_for", lambda scheduler: (scheduler, False))
    with pytest.warns(RuntimeWarning, match="resubmitting the 7 unfinished"):
        out = compare(CompareRequest("wine", METHODS, **RUN), scheduler="tcp://cluster:8786")
    assert rounds == [5, 7]
    assert len(calls) == TOTAL  # nothing computed twice
    pd.testing.assert_frame_equal(numbers(out), numbers(undisturbed))


def test_a_cluster_that_keeps_failing_is_a_clear_error(monkeypatch):
    import joblib

    class DeadParallel:
        def __init__(self, *args, **kwargs):
            pass

        def __call__(self, tasks):
            raise distributed.comm.CommClosedError("scheduler gone")
            yield

    monkeypatch.setattr(joblib, "Parallel", DeadParallel)
    monkeypatch.setattr(
        joblib, "parallel_config", lambda **kw: __import__("contextlib").nullcontext()
    )
    monkeypatch.setattr(parallel, "client_for", lambda scheduler: (scheduler, False))
    with pytest.warns(RuntimeWarning), pytest.raises(ValueError, match="kept failing"):
        compare(CompareRequest("wine", METHODS, **RUN), scheduler="tcp://cluster:8786")


def test_an_interrupted_cli_compare_resumes_from_the_cache(monkeypatch, tmp_path, capsys):
    """In-process: the CLI's progress bar is interrupted (Ctrl-C) after 5 results; the rerun computes
    only the other 7 and prints the same table as an uninterrupted run."""
    from metriclab import __main__ as cli

    argv = ["compare", "--dataset", "wine", "--method", "nca:n_components=2", "--method", "pca"]
    argv += ["--splits", "4", "--fraction", "0.3", "--seed", "1"]
    assert cli.main([*argv, "--no-cache", "--quiet", "--csv", str(tmp_path / "clean.csv")]) == 0

    monkeypatch.setenv("METRICLAB_CACHE", str(tmp_path / "cache"))
    real_bar = cli.ProgressBar

    class CtrlC(real_bar):
        def __call__(self, done, total, message=""):
            if done >= 5:
                raise KeyboardInterrupt
            super().__call__(done, total, message)

    monkeypatch.setattr(cli, "ProgressBar", CtrlC)
    with pytest.raises(KeyboardInterrupt):
        cli.main(argv)
    assert len(ResultCache(tmp_path / "cache")) == 5
    monkeypatch.setattr(cli, "ProgressBar", real_bar)
    calls = count_evaluations(monkeypatch)
    capsys.readouterr()
    assert cli.main([*argv, "--csv", str(tmp_path / "resumed.csv")]) == 0
    err = capsys.readouterr().err
    assert len(calls) == TOTAL - 5
    assert "(5 of 12 split results came from the cache)" in err
    pd.testing.assert_frame_equal(
        numbers(pd.read_csv(tmp_path / "resumed.csv")), numbers(pd.read_csv(tmp_path / "clean.csv"))
    )


SPLITS = 30  # the interrupted compare's: time enough between its second result and its end


def test_a_cli_compare_killed_by_sigint_resumes_from_the_cache(tmp_path):
    """A real process: Ctrl-C (SIGINT) once two results are on disk; the rerun reads them back."""
    env = {**os.environ, "METRICLAB_CACHE": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    argv = [sys.executable, "-m", "metriclab", "compare", "--dataset", "wine"]
    argv += [
        "--method",
        "nca:n_components=2",
        "--splits",
        str(SPLITS),
        "--fraction",
        "0.3",
        "--quiet",
    ]
    # the child starts as from a terminal: Ctrl-C's default action, whatever an earlier test in this
    # worker process left (the run twice finished untouched by the signal, with status 0, in the
    # suite only; a child inherits an ignored or blocked SIGINT)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        proc = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        signal.signal(signal.SIGINT, previous)
    deadline = time.monotonic() + 120
    while len(ResultCache(tmp_path)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    seen, running = len(ResultCache(tmp_path)), proc.poll() is None
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    kept = len(ResultCache(tmp_path))
    assert proc.returncode != 0 and 2 <= kept < 2 * SPLITS, (  # interrupted part-way
        f"status {proc.returncode}, {kept} kept ({seen} when signalled, running: {running}, "
        f"SIGINT in this process was {previous!r}, blocked {sorted(blocked)}): "
        f"{err.decode(errors='replace')[-800:]}"
    )
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"({kept} of {2 * SPLITS} split results came from the cache)" in done.stderr
    assert len(ResultCache(tmp_path)) == 2 * SPLITS
