"""The repeated-split engine `compare`: every accuracy the app and the command line show.

For each data set, method and seeded stratified split it fits the method under its protocol
(`fit_split`), scores the held-out points with a classifier in the embedding (1-NN, k-NN or nearest
mean; a classifier method uses its own `predict`), and reports one tidy row. The Euclidean
input-space baseline is always run on the same splits, so `summarize` can report paired
differences. Splits run in parallel with joblib (loky), or on a Dask cluster (`parallel`), and
finished splits are cached on disk as JSON.
"""

from __future__ import annotations

import json
import math
import time
import warnings
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from metriclab.evaluation.fitting import SplitRequest, fit_split, resolve_protocol
from metriclab.evaluation.parallel import run_splits
from metriclab.evaluation.scoring import parse_classifier
from metriclab.evaluation.splitting import splits
from metriclab.evaluation.summary import input_space_key, method_label
from metriclab.positions import distinct_positions
from metriclab.preprocess import resolve_preprocess

# Failures recorded in the results instead of stopping the run: bad parameters or data
# (ValueError, which includes numpy's LinAlgError), non-convergence and numerical trouble.
RECORDED_ERRORS = (ValueError, ArithmeticError, RuntimeError)


def evaluate_split(request: SplitRequest, classifier: str) -> dict:
    """Fit one method on one split (`request`) and score the held-out points with `classifier`: a
    dict of results.

    The request's `preprocess` scales the features first, fitted on the points the method is
    fitted on. `fit_time_s` is the time to scale, build, fit and map (or predict); scoring is not
    included. A failure in RECORDED_ERRORS is returned as `status` (the message) with accuracy NaN.
    """
    out = {"accuracy": math.nan, "fit_time_s": math.nan, "status": "ok"}
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=UserWarning)
            fitted = fit_split(request)
            out["fit_time_s"] = fitted.fit_time_s
            out["accuracy"] = fitted.accuracy(classifier)
            if fitted.Z_test is not None:  # how many places the scored points sit on
                out["positions"] = distinct_positions(fitted.Z_test)
    except RECORDED_ERRORS as exc:
        message = str(exc) or type(exc).__name__
        if not isinstance(exc, ValueError):
            message = f"{type(exc).__name__}: {message}"
        out["status"] = message
        out["accuracy"] = math.nan
        out["fit_time_s"] = time.perf_counter() - start
    return out


# ----------------------------------------------------------------------------- compare


RESULT_FIELDS = (
    "dataset",
    "method",
    "label",
    "params",
    "split",
    "seed",
    "protocol",
    "classifier",
    "preprocess",
    "accuracy",
    "error_pct",
    "fit_time_s",
    "n_labeled",
    "n_scored",
    "positions",
    "status",
    "cached",
)


@dataclass
class _Job:
    index: int
    dataset_index: int
    method_index: int
    split: int
    seed: int
    protocol: str
    preprocess: str
    cache_key: dict | None
    n_labeled: int
    n_scored: int


def _valid_cached(value: dict) -> dict | None:
    """A cached result in the shape evaluate_split returns, or None when it is not one."""
    try:
        out = {
            "accuracy": float(value["accuracy"]),
            "fit_time_s": float(value["fit_time_s"]),
            "status": str(value["status"]),
        }
    except (KeyError, TypeError, ValueError):
        return None
    ok_accuracy = 0.0 <= out["accuracy"] <= 1.0
    if (out["status"] == "ok") != ok_accuracy:
        return None
    if isinstance(value.get("positions"), int) and value["positions"] >= 0:
        out["positions"] = value["positions"]  # (results cached before it was kept have none)
    return out


def _as_datasets(items) -> list:
    from metriclab.datasets import Dataset, load

    out = []
    for item in items:
        if isinstance(item, Dataset):
            out.append(item)
        else:
            name, params = parse_method(item)  # 'harder_moons:shift=0.5' works like a method
            out.append(load(name, **params))
    return out


def parse_method(text: str) -> tuple[str, dict]:
    """'lmnn:k=5,n_components=2' -> ('lmnn', {'k': 5, 'n_components': 2}) (values parsed as JSON)."""
    key, _, rest = str(text).partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        name, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"method parameter {item!r} in {text!r} must look like name=value")
        try:
            params[name.strip()] = json.loads(value)
        except json.JSONDecodeError:
            params[name.strip()] = value.strip()
    return key.strip(), params


def _method_pairs(methods) -> tuple[tuple[str, dict], ...]:
    """`CompareRequest.methods` as (key, params) pairs of registered methods."""
    from metriclab.methods import REGISTRY

    if isinstance(methods, str):
        methods = [methods]
    if isinstance(methods, Mapping):
        pairs = [(k, dict(v or {})) for k, v in methods.items()]
    else:
        pairs = []
        for m in methods:
            if isinstance(m, str):
                pairs.append(parse_method(m))
            else:
                key, params = m
                pairs.append((key, dict(params or {})))
    for key, _ in pairs:
        if key not in REGISTRY:
            raise ValueError(f"unknown method {key!r}; known: {', '.join(sorted(REGISTRY))}")
    return tuple(pairs)


def _with_baseline(pairs) -> list[tuple[str, dict]]:
    """The methods with the Euclidean input space first, unless it is among them."""
    pairs = [(key, dict(params)) for key, params in pairs]
    baseline = input_space_key()
    if baseline is not None and not any(key == baseline for key, _ in pairs):
        pairs.insert(0, (baseline, {}))
    return pairs


def _dataset_identity(ds) -> dict:
    from metriclab.cache import array_digest

    return {"name": ds.name, "params": dict(ds.params or {}), "content": array_digest(ds.X, ds.y)}


def _default_sizes(request: CompareRequest, specs) -> dict:
    sizes = {
        "fraction": request.fraction,
        "n_train": request.n_train,
        "per_class": request.per_class,
    }
    if any(v is not None for v in sizes.values()):
        return sizes
    learned = [s for s in specs if not s.has("input_space")]
    protocol = request.protocol
    transductive_only = protocol == "transductive" or (
        protocol == "auto" and learned and all(s.transductive for s in learned)
    )
    if transductive_only:
        return {"fraction": 0.1, "n_train": None, "per_class": None}
    return {"fraction": None, "n_train": "auto", "per_class": None}


_RUN_DEFAULTS: ContextVar[dict | None] = ContextVar("metriclab_run_defaults", default=None)


@contextmanager
def run_defaults(n_jobs: int | None = None, scheduler=None, cache=None):
    """How the :func:`compare` calls inside a block run, where they leave it to the caller.

    Within the block, a `compare` call that leaves n_jobs=1, scheduler=None or cache=None uses
    these values instead. The reproduction runner uses it so that `--jobs`, `--scheduler` and the
    cache reach the compare calls inside the paper modules (results do not depend on them).

    Parameters
    ----------
    n_jobs : int or None, default=None
        joblib workers (-1: all cores).
    scheduler : str or distributed.Client, optional
        A Dask scheduler address or client.
    cache : None, bool, str or ResultCache, optional
        The result cache (True: the default folder).

    Yields
    ------
    None
        Inside the block the defaults hold; they are restored on leaving it.

    See Also
    --------
    compare : Methods over repeated seeded splits.

    Examples
    --------
    >>> from metriclab.evaluation import current_run_defaults, run_defaults
    >>> with run_defaults(n_jobs=2):
    ...     current_run_defaults()["n_jobs"]
    2
    >>> current_run_defaults() is None
    True
    """
    token = _RUN_DEFAULTS.set({"n_jobs": n_jobs, "scheduler": scheduler, "cache": cache})
    try:
        yield
    finally:
        _RUN_DEFAULTS.reset(token)


def current_run_defaults() -> dict | None:
    """The values of the innermost `run_defaults` block ({'n_jobs', 'scheduler', 'cache'}), or
    None outside one."""
    return _RUN_DEFAULTS.get()


def _apply_run_defaults(n_jobs, scheduler, cache):
    defaults = _RUN_DEFAULTS.get()
    if defaults:
        if n_jobs == 1 and defaults["n_jobs"] is not None:
            n_jobs = defaults["n_jobs"]
        if scheduler is None:
            scheduler = defaults["scheduler"]
        if cache is None:
            cache = defaults["cache"]
    if scheduler is None:  # a class's shared cluster ($METRICLAB_DASK_SCHEDULER), if configured
        from metriclab.cluster import configured_scheduler

        scheduler = configured_scheduler()
    return n_jobs, scheduler, cache


@dataclass(frozen=True, eq=False)
class CompareRequest:
    """A repeated-split comparison as one value: what `compare` runs, the command line's
    ``metriclab compare`` builds and the app's Compare page asks for.

    Everything the results depend on is here; how they are computed (workers, a Dask cluster, the
    disk cache, a progress callback) is given to `compare` beside it. The values are checked here,
    before any data set loads.

    Parameters
    ----------
    datasets : str, Dataset or sequence of them
        The data set(s), by name (``"harder_moons:shift=0.5"`` gives a generator's parameters) or
        loaded; kept as a tuple.
    methods : str, sequence of str or of (str, dict), or dict of str to dict
        The registered methods (``metriclab.methods.REGISTRY``) with their parameters: strings
        ``"key:name=value,..."``, (key, params) pairs or a dict key -> params; kept as a tuple
        of (key, params) pairs. The Euclidean input space is added as the baseline by `compare`.
    n_splits : int, default=10
        Seeded random splits per data set (the paired test's smallest p is 2 / 2^n_splits: five
        or fewer cannot show a difference at 0.05).
    fraction : float, optional
        Share of each class labelled (training). By default fraction=0.1 when every learned
        method runs transductively, else n_train=min(100, n/2).
    n_train : int, optional
        Stratified number of training points.
    per_class : int, optional
        Training points per class (at most one of fraction, n_train and per_class).
    protocol : {"auto", "transductive", "inductive"}, default="auto"
        "auto": each method's own; "transductive": methods see the held-out points' features
        (never their labels); "inductive": they never see the held-out points.
    classifier : str, default="1nn"
        "1nn", "knn:K" or "nearest_mean" in each embedding (classifier methods use their own
        ``predict``).
    seed : int, default=0
        The seed of the splits.
    preprocess : {"auto", "none", "standardise", "minmax"}, default="auto"
        Feature scaling: "auto" is each data set's default
        (:func:`metriclab.datasets.default_preprocess`); the scaler is fitted on the points each
        method is fitted on, and kernel widths are in the scaled units.

    See Also
    --------
    compare : Runs one.

    Examples
    --------
    >>> from metriclab.evaluation import CompareRequest
    >>> request = CompareRequest("iris", ["nca:max_iter=10", "dne"], n_splits=2, per_class=5)
    >>> request.datasets, request.methods
    (('iris',), (('nca', {'max_iter': 10}), ('dne', {})))
    """

    datasets: Any
    methods: Any
    n_splits: int = 10
    fraction: float | None = None
    n_train: int | None = None
    per_class: int | None = None
    protocol: str = "auto"
    classifier: str = "1nn"
    seed: int = 0
    preprocess: str = "auto"

    def __post_init__(self):
        from metriclab.datasets import Dataset

        items = self.datasets
        items = tuple(items) if isinstance(items, list | tuple) else (items,)
        if not items:
            raise ValueError("give at least one data set")
        for item in items:
            if not isinstance(item, Dataset | str):
                raise ValueError(
                    f"a data set must be a name or a Dataset, got {type(item).__name__}"
                )
        object.__setattr__(self, "datasets", items)
        object.__setattr__(self, "methods", _method_pairs(self.methods))
        sizes = (self.fraction, self.n_train, self.per_class)
        if sum(v is not None for v in sizes) > 1:
            raise ValueError("give at most one of fraction, n_train or per_class")
        parse_classifier(self.classifier)
        if self.protocol not in ("auto", "transductive", "inductive"):
            raise ValueError(
                f"protocol must be 'auto', 'transductive' or 'inductive', got {self.protocol!r}"
            )
        preprocess = self.preprocess
        if preprocess is not None and str(preprocess).strip().lower() != "auto":
            object.__setattr__(self, "preprocess", resolve_preprocess(preprocess))


def compare(
    request: CompareRequest,
    *,
    progress: Callable[[int, int, str], None] | None = None,
    n_jobs: int | None = 1,
    scheduler=None,
    cache=None,
) -> pd.DataFrame:
    """Compare methods on the same seeded random splits of each data set.

    Each method of the request is fitted on each split under its protocol and scored on the
    held-out points; the Euclidean input space is always added as the baseline. Splits run in
    parallel with joblib, or on a Dask cluster. Inside a `run_defaults` block, n_jobs=1,
    scheduler=None and cache=None take that block's values.

    Parameters
    ----------
    request : CompareRequest
        The data sets, methods, splits, protocol, classifier, seed and scaling.
    progress : callable, optional
        ``progress(done, total, message)``, called in this process after each finished
        (method, split).
    n_jobs : int or None, default=1
        joblib workers (loky); -1: all cores.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address or client, to run the splits on that cluster.
    cache : None, bool, str or ResultCache, optional
        None: off; True: the default folder; a folder or a
        :class:`metriclab.cache.ResultCache`.

    Returns
    -------
    pandas.DataFrame
        One row per data set, method and split, with the columns of ``RESULT_FIELDS``:
        ``accuracy`` is a fraction in [0, 1], ``status`` is "ok" or the message of the error
        that method raised on that split.

    See Also
    --------
    CompareRequest : What to compare.
    summarize : Mean, spread and paired test per method.
    metriclab.plotting.comparison : Draw the table.

    Examples
    --------
    >>> from metriclab.evaluation import CompareRequest, compare
    >>> request = CompareRequest("iris", ["nca:max_iter=10", "dne"], n_splits=2, per_class=5)
    >>> results = compare(request)
    >>> sorted(results["method"].unique().tolist())
    ['dne', 'euclidean', 'nca']
    >>> len(results), bool(results["accuracy"].between(0, 1).all())
    (6, True)
    """
    from metriclab.cache import as_cache, code_version
    from metriclab.methods import REGISTRY

    if not isinstance(request, CompareRequest):
        raise TypeError(f"compare takes a CompareRequest, got {type(request).__name__}")
    n_jobs, scheduler, cache = _apply_run_defaults(n_jobs, scheduler, cache)
    if n_jobs is not None and (not isinstance(n_jobs, int | np.integer) or n_jobs == 0):
        raise ValueError(f"n_jobs must be a non-zero whole number (-1 = all cores), got {n_jobs!r}")
    protocol, classifier = request.protocol, request.classifier
    n_splits, seed, preprocess = request.n_splits, request.seed, request.preprocess
    datasets = _as_datasets(request.datasets)
    pairs = _with_baseline(request.methods)
    specs = [REGISTRY[key] for key, _ in pairs]
    sizes = _default_sizes(request, specs)
    store = as_cache(cache)
    versions = {spec.key: code_version(spec.factory.__module__, __name__) for spec in specs}
    resolved_params = []
    for spec, (_, params) in zip(specs, pairs, strict=True):
        try:
            resolved_params.append((spec.resolve(**params), None))
        except ValueError as exc:  # recorded on every split of this method
            resolved_params.append((dict(params), str(exc)))

    rows: list[dict] = []
    tasks: list[tuple] = []
    jobs: list[_Job] = []
    for d_index, ds in enumerate(datasets):
        n = ds.n_samples
        size = dict(sizes)
        if size["n_train"] == "auto":
            size["n_train"] = int(min(100, max(np.unique(ds.y).size, n // 2)))
        ds_splits = splits(ds.y, n_splits, seed=seed, **size)
        ds_preprocess = resolve_preprocess(preprocess, ds)
        identity = _dataset_identity(ds) if store is not None else None
        for m_index, spec in enumerate(specs):
            params, param_error = resolved_params[m_index]
            method_protocol = resolve_protocol(spec, protocol)
            for s_index, (s_seed, mask) in enumerate(ds_splits):
                key = None
                if store is not None:
                    key = {
                        "dataset": identity,
                        "method": spec.key,
                        "params": params,
                        "protocol": method_protocol
                        if spec.output != "classifier"
                        else "classifier",
                        "classifier": classifier if spec.output != "classifier" else "own",
                        "preprocess": ds_preprocess,
                        "split": {"seed": s_seed, **size},
                        "code": versions[spec.key],
                    }
                n_labeled = int(mask.sum())
                job = _Job(
                    len(jobs),
                    d_index,
                    m_index,
                    s_index,
                    s_seed,
                    method_protocol,
                    ds_preprocess,
                    key,
                    n_labeled,
                    n - n_labeled,
                )
                jobs.append(job)
                rows.append({})
                if param_error is not None:
                    rows[job.index] = {
                        "accuracy": math.nan,
                        "fit_time_s": 0.0,
                        "status": param_error,
                        "cached": False,
                    }
                    continue
                if store is not None:
                    hit = store.get(key)
                    hit = _valid_cached(hit) if hit is not None else None
                    if hit is not None:
                        rows[job.index] = {**hit, "cached": True}
                        continue
                request = SplitRequest(
                    spec,
                    ds.X,
                    ds.y,
                    mask,
                    params,
                    method_protocol,
                    ds_preprocess,
                    ds.image_shape,
                )
                tasks.append((job, (request, classifier)))

    total = len(jobs)
    done = 0

    def report(job: _Job) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            ds = datasets[job.dataset_index]
            label = method_label(specs[job.method_index], resolved_params[job.method_index][0])
            progress(done, total, f"{ds.name}: {label}, split {job.split + 1}/{n_splits}")

    for job in jobs:  # cached and invalid-parameter results count as done at once
        if rows[job.index]:
            report(job)

    def on_done(job: _Job, result: dict) -> None:
        rows[job.index] = {**result, "cached": False}
        if store is not None and job.cache_key is not None:
            store.put(job.cache_key, result)
        report(job)

    run_splits(evaluate_split, tasks, n_jobs, scheduler, on_done)

    records = []
    for job in jobs:
        ds = datasets[job.dataset_index]
        spec = specs[job.method_index]
        params = resolved_params[job.method_index][0]
        result = rows[job.index]
        accuracy = result["accuracy"]
        records.append(
            {
                "dataset": ds.name,
                "method": spec.key,
                "label": method_label(spec, params),
                "params": json.dumps(params, sort_keys=True, default=str),
                "split": job.split,
                "seed": job.seed,
                "protocol": job.protocol if spec.output != "classifier" else "inductive",
                "classifier": classifier if spec.output != "classifier" else "own predict",
                "preprocess": job.preprocess,
                "accuracy": accuracy,
                "error_pct": 100.0 * (1.0 - accuracy) if accuracy == accuracy else math.nan,
                "fit_time_s": result["fit_time_s"],
                "n_labeled": job.n_labeled,
                "n_scored": job.n_scored,
                "positions": result.get("positions", math.nan),
                "status": result["status"],
                "cached": bool(result.get("cached", False)),
            }
        )
    return pd.DataFrame.from_records(records, columns=list(RESULT_FIELDS))
