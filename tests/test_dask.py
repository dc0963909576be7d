"""compare() on a Dask cluster (joblib's dask backend) gives the serial run's numbers."""

from __future__ import annotations

import pandas as pd
import pytest

from metriclab.evaluation import CompareRequest, compare

distributed = pytest.importorskip("distributed")

METHODS = [("pca", {"n_components": 1}), ("pca", {"n_components": 2})]


def _same(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a.drop(columns="fit_time_s"), b.drop(columns="fit_time_s"))


@pytest.fixture(scope="module")
def serial():
    return compare(CompareRequest("two_moons", METHODS, n_splits=4, fraction=0.2, seed=3))


def test_threaded_local_cluster_by_address_equals_serial(serial):
    calls = []
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster) as watcher, distributed.get_task_stream(watcher) as stream:
            on_dask = compare(
                CompareRequest("two_moons", METHODS, n_splits=4, fraction=0.2, seed=3),
                scheduler=cluster.scheduler_address,
                progress=lambda done, total, msg: calls.append((done, total)),
            )
        ran_on = {task["worker"] for task in stream.data}
        workers = set(cluster.scheduler_info["workers"])
    _same(serial, on_dask)
    assert ran_on and ran_on <= workers  # the cluster's workers did the work
    assert [d for d, _ in calls] == list(range(1, 13)) and calls[-1][1] == 12


def test_process_local_cluster_with_a_client_equals_serial(serial):
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with distributed.Client(cluster) as client:
            on_dask = compare(
                CompareRequest("two_moons", METHODS, n_splits=4, fraction=0.2, seed=3),
                scheduler=client,
            )
            assert client.status == "running"  # a Client we were given is left open
    _same(serial, on_dask)


def test_unreachable_scheduler_is_a_clear_error(monkeypatch):
    monkeypatch.setattr("metriclab.evaluation.parallel.DASK_CONNECT_TIMEOUT_S", 1)
    with pytest.raises(ValueError, match="Dask scheduler"):
        compare(
            CompareRequest("two_moons", ["pca"], n_splits=1, fraction=0.2),
            scheduler="tcp://127.0.0.1:9",
        )
