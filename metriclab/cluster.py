"""A class's shared Dask cluster (issue 41): where `$METRICLAB_DASK_SCHEDULER` holds a scheduler
address (`python -m metriclab.deploy --scheduler tcp://host:8786` sets it for every process of the
class), Compare's runs (`metriclab.evaluation.compare` without an explicit scheduler), the
full-size views' graph fits (`metriclab.ui.shared.full_size.cluster_fit`: graph and eigensolve, one
task) and their kNN graphs (`metriclab.graph_store.shared_graph`) run on that cluster instead of
in the web server's process, so a class shares one cluster's queue instead of each server
computing on the cores that answer the students' slider moves. Unset: everything runs locally,
as before. The results are the same either way (tests/test_graph_store.py, tests/test_dask.py).
"""

from __future__ import annotations

import os
import threading

SCHEDULER_ENV = "METRICLAB_DASK_SCHEDULER"

_clients: dict[str, object] = {}
_lock = threading.Lock()


def configured_scheduler() -> str | None:
    """The scheduler address of `$METRICLAB_DASK_SCHEDULER`, or None."""
    address = os.environ.get(SCHEDULER_ENV, "").strip()
    return address or None


def client(address: str):
    """One distributed.Client per address and process, kept (connecting costs 0.1-1 s)."""
    from metriclab.evaluation.parallel import client_for

    with _lock:
        found = _clients.get(address)
        if found is not None and getattr(found, "status", "") == "running":
            return found
        made, _ = client_for(address)
        _clients[address] = made
        return made


def on_a_worker() -> bool:
    """Whether this code runs inside a Dask task (a task that waited on another task of the same
    cluster could hold the only thread that would run it)."""
    try:
        from distributed import get_worker
    except ImportError:
        return False
    try:
        get_worker()
    except ValueError:
        return False
    return True


def run(function, *args, **kwargs):
    """function(*args, **kwargs) on the configured cluster, else here (and here when already on
    one of its workers: the full-size fit's task builds its graph itself)."""
    address = configured_scheduler()
    if address is None or on_a_worker():
        return function(*args, **kwargs)
    return client(address).submit(function, *args, pure=False, **kwargs).result()
