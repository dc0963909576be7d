"""Running the splits of a comparison: in this process, on local workers with joblib (loky), or on
a Dask cluster through joblib's dask backend, resubmitting what a failing cluster lost."""

from __future__ import annotations

import warnings
from collections.abc import Callable

DASK_CONNECT_TIMEOUT_S = 10


def client_for(scheduler):
    """A distributed.Client for an address (we own it) or the given Client (caller owns it)."""
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - the dask extra is installed in the venv
        raise ValueError(
            'running on a Dask cluster needs `pip install "metric-learning-lab[dask]"`'
        ) from exc
    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str) or not scheduler:
        raise ValueError(f"scheduler must be an address like 'tcp://host:8786', got {scheduler!r}")
    try:
        return Client(scheduler, timeout=DASK_CONNECT_TIMEOUT_S), True
    except OSError as exc:
        raise ValueError(f"cannot connect to the Dask scheduler at {scheduler!r}: {exc}") from exc


DASK_RETRIES = 3  # rounds of resubmitting the unfinished splits after the cluster failed


def _cluster_failure_types() -> tuple[type[BaseException], ...]:
    """Errors that mean the cluster lost work (a worker died, a connection dropped), not that a
    split failed: the unfinished splits are worth submitting again."""
    from distributed import KilledWorker
    from distributed.comm import CommClosedError

    return (KilledWorker, CommClosedError, OSError, TimeoutError)


def _run_on_dask(evaluate: Callable, tasks: list[tuple], scheduler, on_done: Callable) -> None:
    """The splits on a Dask cluster through joblib's dask backend. The scheduler already reruns the
    tasks of a worker that dies; when it gives up (KilledWorker after its allowed failures) or the
    connection breaks, the splits not yet finished are submitted again, up to DASK_RETRIES times.
    Finished splits are never resubmitted (each reached on_done, and the disk cache, once)."""
    from joblib import Parallel, delayed, parallel_config

    client, owned = client_for(scheduler)
    failures = _cluster_failure_types()
    finished: set[int] = set()
    try:
        for attempt in range(DASK_RETRIES + 1):
            remaining = [(job, args) for job, args in tasks if job.index not in finished]
            if not remaining:
                return
            try:
                with parallel_config(backend="dask", client=client, wait_for_workers_timeout=60):
                    run = Parallel(n_jobs=-1, return_as="generator_unordered")
                    tasks_left = (delayed(_call)(evaluate, job, args) for job, args in remaining)
                    for job, result in run(tasks_left):
                        finished.add(job.index)
                        on_done(job, result)
                return
            except failures as exc:
                if attempt == DASK_RETRIES:
                    raise ValueError(
                        f"the Dask cluster kept failing ({type(exc).__name__}: {exc}); "
                        f"{len(tasks) - len(finished)} of {len(tasks)} splits did not finish "
                        "(the finished ones are in the cache when it is on)"
                    ) from exc
                warnings.warn(
                    f"Dask cluster failure ({type(exc).__name__}); resubmitting the "
                    f"{len(tasks) - len(finished)} unfinished splits",
                    RuntimeWarning,
                    stacklevel=2,
                )
    finally:
        if owned:
            client.close()


def _call(evaluate: Callable, job, args):
    return job, evaluate(*args)


def run_splits(
    evaluate: Callable, tasks: list[tuple], n_jobs, scheduler, on_done: Callable
) -> None:
    """Run `evaluate(*args)` for each (job, args) and call on_done(job, result) in the main process,
    as each finishes (so that an interrupted run keeps, in the cache, what it finished).
    n_jobs: joblib workers (1: in this process); scheduler: a Dask address or Client, or None."""
    from joblib import Parallel, delayed

    if scheduler is not None:
        _run_on_dask(evaluate, tasks, scheduler, on_done)
        return
    if n_jobs == 1 or len(tasks) <= 1:
        for job, args in tasks:
            on_done(job, evaluate(*args))
        return
    backend = None if n_jobs is None else "loky"
    run = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered")
    for job, result in run(delayed(_call)(evaluate, job, args) for job, args in tasks):
        on_done(job, result)
