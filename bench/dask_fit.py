"""All of MNIST's full-size TDL fit in the server's process and as one task on a Dask cluster
(issue 41, item 4): the same request, the same store state, both timed in one run.

The app's settings (TDL defaults, MNIST unscaled, 5 % labelled as in full_size_cache.py).
Three fits each way, λ = 128 (the first: the worker loads the data set by its name and builds or reads the
kNN graph), 64 and 32 (λ moves: the worker keeps the view, the graph and the warm starts). The
cluster is a `LocalCluster` of one worker process with two threads on this machine, so it shares
the server's cores: the numbers are the task's overhead (the data set loaded by name, the arrays
sent back), not a speed-up. Each side has an array store of its own, filled by a first untimed
pass (so neither builds the graph from nothing in the timed fits), and emptied of its eigenpairs
before the timed pass (so every eigensolve is computed, warm-started by the previous λ).

    .venv/bin/python bench/dask_fit.py [--points 70000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LAMBDAS = (128.0, 64.0, 32.0)


def drop_eigenpairs(folder: Path) -> None:
    """Remove the stored eigenpairs (keep the graph, the label cost, the baselines)."""
    for path in folder.rglob("eigenpairs-*"):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=70_000, help="MNIST digits (first N)")
    args = parser.parse_args(argv)

    import distributed

    from metriclab import cluster
    from metriclab.ui.shared import full_size, memo
    from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef

    work = Path(tempfile.mkdtemp(prefix="metriclab-dask-bench-"))
    server_store, worker_store = work / "server", work / "worker"
    os.environ["METRICLAB_GRAPH_CACHE"] = str(server_store)
    data, split = DataRef("mnist", (), args.points), SplitRef("fraction", 0.05, 0)  # the app's
    requests = [FitRequest(data, split, "tdl", {"lam": lam}, "none") for lam in LAMBDAS]
    rows = []

    def timed(label, fit):
        for lam, request in zip(LAMBDAS, requests, strict=True):
            start = time.perf_counter()
            result = fit(request)
            rows.append((label, lam, time.perf_counter() - start, result))

    print(f"MNIST {args.points:,} digits; load average {os.getloadavg()[0]:.1f}", flush=True)
    for request in requests:  # fill the server's store (graph, cost, baselines)
        memo.fit_uncached(request)
    drop_eigenpairs(server_store)
    print("server store after the drop:", sorted(p.name[:9] for p in server_store.iterdir()))
    full_size.graph_of.clear()
    timed("in the server's process", memo.fit_uncached)

    os.environ["METRICLAB_GRAPH_CACHE"] = str(worker_store)  # the worker process inherits it
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None
    ) as local:
        os.environ[cluster.SCHEDULER_ENV] = local.scheduler_address
        try:
            for request in requests:  # fill the worker's store (graph, cost)
                memo.fit_uncached(request)
            drop_eigenpairs(worker_store)
            print(
                "worker store after the drop:", sorted(p.name[:9] for p in worker_store.iterdir())
            )
            warmed = cluster._clients.pop(local.scheduler_address)
            warmed.restart()  # a fresh worker process: nothing kept in its memory
            warmed.close()
            timed("one task on the Dask cluster", memo.fit_uncached)
        finally:
            os.environ.pop(cluster.SCHEDULER_ENV, None)
            client = cluster._clients.pop(local.scheduler_address, None)
            if client is not None:
                client.close()
    here = {lam: r for label, lam, _, r in rows if label.startswith("in the")}
    print("\n| where | λ | wall s | equal to the server's fit |")
    print("|---|---:|---:|---|")
    for label, lam, seconds, result in rows:
        same = (result.Z == here[lam].Z).all() if result.Z is not None else "—"
        print(f"| {label} | {lam:g} | {seconds:.2f} | {same} |")
    print(f"\n2 cores; load average at the end {os.getloadavg()[0]:.1f}")
    print("worker store at the end:", sorted(p.name[:9] for p in worker_store.iterdir()))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
