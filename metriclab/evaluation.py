"""Splits, embeddings under the transductive / inductive protocols, classifiers in an embedding, and
the repeated-split engine `compare` with its `summarize`.

Every accuracy the app and the command line show comes from `compare`: for each data set, method and
seeded stratified split it fits the method under its protocol, scores the held-out points with a
classifier in the embedding (1-NN, k-NN or nearest mean; a classifier method uses its own `predict`),
and reports one tidy row. The Euclidean input-space baseline is always run on the same splits, so
`summarize` can report paired differences. Splits run in parallel with joblib (loky), or on a Dask
cluster through joblib's dask backend, and finished splits are cached on disk as JSON.
"""

from __future__ import annotations

import inspect
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
from sklearn.neighbors import KNeighborsClassifier

from metriclab.preprocess import resolve_preprocess, scale_features, scaler_fit_rows

UNLABELED = -1


def labeled_mask(
    y: np.ndarray,
    fraction: float | None = None,
    per_class: int | None = None,
    n_labeled: int | None = None,
    seed: int = 0,
    max_tries: int = 100,
) -> np.ndarray:
    """Boolean mask of the labeled points of one random split.

    Give exactly one of `fraction` (stratified share of every class), `per_class` (that many points
    of each class) or `n_labeled` (a simple random sample, redrawn until every class appears).
    """
    y = np.asarray(y)
    if sum(v is not None for v in (fraction, per_class, n_labeled)) != 1:
        raise ValueError("give exactly one of fraction, per_class or n_labeled")
    rng = np.random.default_rng(seed)
    classes = np.unique(y)
    n = y.shape[0]
    mask = np.zeros(n, dtype=bool)
    if fraction is not None:
        if not 0 < fraction < 1:
            raise ValueError(f"labeled fraction must be in (0, 1), got {fraction!r}")
        for c in classes:
            idx = np.flatnonzero(y == c)
            take = min(len(idx) - 1, max(1, int(round(fraction * len(idx)))))
            take = max(take, 1)
            mask[rng.choice(idx, take, replace=False)] = True
        return mask
    if per_class is not None:
        if per_class < 1:
            raise ValueError(f"labels per class must be >= 1, got {per_class!r}")
        for c in classes:
            idx = np.flatnonzero(y == c)
            if len(idx) <= per_class:
                raise ValueError(
                    f"class {c} has {len(idx)} points; cannot label {per_class} and keep one unlabeled"
                )
            mask[rng.choice(idx, per_class, replace=False)] = True
        return mask
    if not len(classes) <= n_labeled < n:
        raise ValueError(f"n_labeled must be in [{len(classes)}, {n - 1}], got {n_labeled!r}")
    for _ in range(max_tries):
        mask[:] = False
        mask[rng.choice(n, n_labeled, replace=False)] = True
        if np.unique(y[mask]).size == classes.size:
            return mask
    raise ValueError(f"could not draw {n_labeled} labeled points containing every class")


def partial_labels(y: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """y with UNLABELED (-1) where `mask` is False."""
    y_partial = np.asarray(y).copy()
    y_partial[~mask] = UNLABELED
    return y_partial


def knn_accuracy(
    Z_train: np.ndarray, y_train: np.ndarray, Z_test: np.ndarray, y_test: np.ndarray, k: int = 1
) -> float:
    """Accuracy of the k-NN rule (k=1: the papers' 1-NN) with the training points as reference."""
    k = min(k, len(y_train))
    model = KNeighborsClassifier(n_neighbors=k, algorithm="auto").fit(Z_train, y_train)
    return float(np.mean(model.predict(Z_test) == y_test))


def nearest_mean_accuracy(
    Z_train: np.ndarray, y_train: np.ndarray, Z_test: np.ndarray, y_test: np.ndarray
) -> float:
    """Accuracy of the nearest-class-mean rule in the embedding."""
    classes = np.unique(y_train)
    means = np.stack([Z_train[y_train == c].mean(axis=0) for c in classes])
    d2 = ((Z_test[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    return float(np.mean(classes[np.argmin(d2, axis=1)] == y_test))


def embedding_accuracy(Z: np.ndarray, y: np.ndarray, mask: np.ndarray, k: int = 1) -> float:
    """1-NN (k-NN) accuracy on the unlabeled points with the labeled points as reference."""
    return knn_accuracy(Z[mask], y[mask], Z[~mask], y[~mask], k=k)


# ----------------------------------------------------------------------------- repeated splits


def split_seed(seed: int, index: int) -> int:
    """Seed of split `index` of a run seeded with `seed` (independent streams, reproducible)."""
    return int(np.random.SeedSequence([int(seed), int(index)]).generate_state(1)[0])


def stratified_counts(y: np.ndarray, n_train: int) -> dict:
    """How many training points to take from each class so that they sum to `n_train`.

    Proportional to the class sizes (largest remainders), at least one per class, and at most
    all but one point of a class (so that every class is also scored where possible).
    """
    classes, counts = np.unique(y, return_counts=True)
    n = int(counts.sum())
    if not classes.size <= n_train < n:
        raise ValueError(
            f"number of training points must be in [{classes.size}, {n - 1}] "
            f"(one per class at least, one point left to score), got {n_train!r}"
        )
    upper = np.maximum(counts - 1, 1)
    if n_train > upper.sum():  # so many that some class must be used up entirely
        upper = counts
    share = counts * n_train / n
    take = np.clip(np.floor(share).astype(int), 1, upper)
    while (gap := n_train - int(take.sum())) != 0:  # largest-remainder rounding within the bounds
        behind = share - take
        if gap > 0:
            candidates = np.flatnonzero(take < upper)
            take[candidates[np.argmax(behind[candidates])]] += 1
        else:
            candidates = np.flatnonzero(take > 1)
            take[candidates[np.argmin(behind[candidates])]] -= 1
    return {c: int(t) for c, t in zip(classes, take, strict=True)}


def stratified_mask(y: np.ndarray, n_train: int, seed: int = 0) -> np.ndarray:
    """Mask of `n_train` training points drawn class by class in proportion to the class sizes."""
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    mask = np.zeros(y.shape[0], dtype=bool)
    for c, take in stratified_counts(y, n_train).items():
        mask[rng.choice(np.flatnonzero(y == c), take, replace=False)] = True
    return mask


def splits(
    y: np.ndarray,
    n_splits: int = 5,
    *,
    fraction: float | None = None,
    n_train: int | None = None,
    per_class: int | None = None,
    stratify: bool = True,
    seed: int = 0,
    max_tries: int = 1000,
) -> list[tuple[int, np.ndarray]]:
    """`n_splits` seeded random splits as (split_seed, mask of the labeled/training points).

    Give one of `fraction` (share of each class), `n_train` (stratified over the classes unless
    `stratify=False`) or `per_class`. A draw in which a class has no labeled point is redrawn.
    The same (y, sizes, seed) always give the same splits; split i does not depend on n_splits.
    """
    y = np.asarray(y)
    if not isinstance(n_splits, int | np.integer) or n_splits < 1:
        raise ValueError(f"n_splits must be a whole number >= 1, got {n_splits!r}")
    if sum(v is not None for v in (fraction, n_train, per_class)) != 1:
        raise ValueError("give exactly one of fraction, n_train or per_class for the split size")
    if n_train is not None and (isinstance(n_train, bool) or int(n_train) != n_train):
        raise ValueError(f"n_train must be a whole number, got {n_train!r}")
    n_classes = np.unique(y).size
    out = []
    for i in range(n_splits):
        s = split_seed(seed, i)
        for attempt in range(max_tries):
            draw_seed = s if attempt == 0 else split_seed(s, attempt)
            if n_train is not None and stratify:
                mask = stratified_mask(y, int(n_train), seed=draw_seed)
            elif n_train is not None:
                if not n_classes <= n_train < y.shape[0]:
                    raise ValueError(
                        f"n_train must be in [{n_classes}, {y.shape[0] - 1}], got {n_train!r}"
                    )
                mask = np.zeros(y.shape[0], dtype=bool)  # a simple random sample
                chosen = np.random.default_rng(draw_seed).choice(
                    y.shape[0], int(n_train), replace=False
                )
                mask[chosen] = True
            else:
                mask = labeled_mask(y, fraction=fraction, per_class=per_class, seed=draw_seed)
            if np.unique(y[mask]).size == n_classes:
                break
        else:
            raise ValueError(
                f"could not draw a split with every class labeled in {max_tries} tries"
            )
        out.append((s, mask))
    return out


# ----------------------------------------------------------------------------- one split, one method


def parse_classifier(classifier: str) -> tuple[str, int]:
    """'1nn' -> ('knn', 1); 'knn:5' -> ('knn', 5); 'knn' -> ('knn', 5); 'nearest_mean'."""
    text = str(classifier).strip().lower().replace("-", "_")
    if text in ("1nn", "1_nn", "nn"):
        return "knn", 1
    if text == "knn":
        return "knn", 5
    if text.startswith("knn:") or text.startswith("knn="):
        try:
            k = int(text[4:])
        except ValueError:
            k = 0
        if k < 1:
            raise ValueError(
                f"classifier {classifier!r}: k must be a whole number >= 1, e.g. 'knn:5'"
            )
        return "knn", k
    if text in ("nearest_mean", "nm", "nearest_class_mean"):
        return "nearest_mean", 0
    raise ValueError(
        f"unknown classifier {classifier!r}; use '1nn', 'knn:K' (e.g. 'knn:5') or 'nearest_mean'"
    )


def classifier_accuracy(Z_train, y_train, Z_test, y_test, classifier: str = "1nn") -> float:
    """Accuracy of the named classifier in an embedding (training points as the reference)."""
    rule, k = parse_classifier(classifier)
    Z_train, Z_test = np.asarray(Z_train, dtype=float), np.asarray(Z_test, dtype=float)
    if Z_train.ndim == 1:
        Z_train, Z_test = Z_train[:, None], Z_test[:, None]
    if not (np.all(np.isfinite(Z_train)) and np.all(np.isfinite(Z_test))):
        raise ValueError("the embedding contains NaN or infinite values; cannot classify")
    if rule == "nearest_mean":
        return nearest_mean_accuracy(Z_train, y_train, Z_test, y_test)
    return knn_accuracy(Z_train, y_train, Z_test, y_test, k=k)


def resolve_protocol(spec, protocol: str) -> str:
    """'auto' -> the method's own protocol; otherwise 'transductive' or 'inductive'."""
    if protocol == "auto":
        return "transductive" if spec.transductive else "inductive"
    if protocol not in ("transductive", "inductive"):
        raise ValueError(
            f"protocol must be 'auto', 'transductive' or 'inductive', got {protocol!r}"
        )
    return protocol


def estimator_params(spec, params: dict, image_shape=None, data_name: str | None = None) -> dict:
    """Parameters for `spec.make`: `params`, with the data's image shape added for image methods."""
    kwargs = dict(params)
    if spec.input == "image":
        if image_shape is None:
            where = data_name or "this data set"
            raise ValueError(
                f"{spec.label} needs image data; {where} is not an image data set (choose usps, "
                "digits or mnist_5000, or a data set with image_shape)"
            )
        kwargs["image_shape"] = tuple(image_shape)
    return kwargs


@dataclass
class SplitFit:
    """One method fitted on one split: the fitted estimator and what it gives for the points.

    Embedding methods fill `Z_train` and `Z_test` (the labeled/training and the held-out points);
    classifiers fill `predictions` (the predicted labels of the held-out points). `fit_time_s` is
    the time to scale, build, fit and map (or predict); scoring is not included.
    """

    estimator: Any
    protocol: str
    mask: np.ndarray  # True = labeled / training point
    y_train: np.ndarray
    y_test: np.ndarray
    fit_time_s: float
    Z_train: np.ndarray | None = None
    Z_test: np.ndarray | None = None
    predictions: np.ndarray | None = None

    def embedding(self) -> np.ndarray:
        """The embedding of every point, in the data's order (None for a classifier)."""
        if self.Z_train is None:
            return None
        Z_train, Z_test = np.asarray(self.Z_train), np.asarray(self.Z_test)
        Z = np.empty((self.mask.shape[0], *Z_train.shape[1:]), np.result_type(Z_train, Z_test))
        Z[self.mask], Z[~self.mask] = Z_train, Z_test
        return Z

    def accuracy(self, classifier: str = "1nn") -> float:
        """Accuracy on the held-out points: the classifier's own predictions, or the named
        classifier (`parse_classifier`) in the embedding with the training points as reference."""
        if self.predictions is not None:
            return float(np.mean(self.predictions == self.y_test))
        return classifier_accuracy(self.Z_train, self.y_train, self.Z_test, self.y_test, classifier)


def fit_split(
    spec,
    params: dict,
    X: np.ndarray,
    y: np.ndarray,
    mask: np.ndarray,
    protocol: str = "auto",
    *,
    preprocess: str = "none",
    image_shape=None,
    data_name: str | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> SplitFit:
    """Build `spec` with `params`, fit it on the split `mask` (True = labeled) under `protocol`
    and map (or predict) the points: the one way every caller fits a method on a split.

    transductive: a transductive method is fitted on all points with y = -1 on the held-out ones;
      an inductive one is fitted on the labeled points (or on all points when it needs no labels,
      like PCA) and maps all points.
    inductive: the method never sees the held-out points; it is fitted on the training points and
      maps the test points with `transform` (a transductive method needs an out-of-sample map).
    A classifier is fitted on the labeled points and predicts the others, under either protocol.
    'auto' is the method's own protocol (`resolve_protocol`). The features are first scaled by
    `preprocess` with a scaler fitted on the rows `metriclab.preprocess.scaler_fit_rows` names.
    Image methods receive `image_shape` (a ValueError names `data_name` when there is none).
    `progress(done, total, message)` hears a classifier's stages: the fit, then each block of
    predicted points when its `predict` reports them.
    """
    mask = np.asarray(mask, dtype=bool)
    y = np.asarray(y)
    protocol = resolve_protocol(spec, protocol)
    start = time.perf_counter()
    estimator = spec.make(**estimator_params(spec, params, image_shape, data_name))
    X = scale_features(preprocess, X, scaler_fit_rows(spec, protocol, mask))
    X_train, y_train, X_test = X[mask], y[mask], X[~mask]
    out = {"estimator": estimator, "protocol": protocol, "mask": mask, "y_train": y_train}
    out["y_test"] = y[~mask]
    if spec.output == "classifier":
        if progress is not None:
            progress(0, int(X_test.shape[0]), f"fitting on {int(mask.sum())} labeled points")
        estimator.fit(X_train, y_train)
        if progress is not None and "progress" in inspect.signature(estimator.predict).parameters:
            predictions = estimator.predict(X_test, progress=progress)
        else:
            predictions = estimator.predict(X_test)
        elapsed = time.perf_counter() - start
        return SplitFit(**out, fit_time_s=elapsed, predictions=np.asarray(predictions))
    Z_train, Z_test = _embed_split(spec, estimator, X, y, mask, protocol)
    elapsed = time.perf_counter() - start
    return SplitFit(**out, fit_time_s=elapsed, Z_train=Z_train, Z_test=Z_test)


def _embed_split(spec, estimator, X, y, mask, protocol: str) -> tuple[np.ndarray, np.ndarray]:
    """Fit an embedding method under `protocol` (see `fit_split`): (Z_train, Z_test)."""
    X_train, y_train, X_test = X[mask], y[mask], X[~mask]
    if protocol == "transductive":
        if spec.transductive:
            estimator.fit(X, partial_labels(y, mask))
            Z = np.asarray(estimator.embedding_)
        else:
            if spec.needs_labels:
                estimator.fit(X_train, y_train)
            else:
                estimator.fit(X)
            Z = np.asarray(estimator.transform(X))
        return Z[mask], Z[~mask]
    if spec.transductive:
        if not spec.out_of_sample:
            raise ValueError(
                f"{spec.label} has no out-of-sample map; use the transductive protocol"
            )
        estimator.fit(X_train, y_train)
        return np.asarray(estimator.embedding_), np.asarray(estimator.transform(X_test))
    if spec.needs_labels:
        estimator.fit(X_train, y_train)
    else:
        estimator.fit(X_train)
    return np.asarray(estimator.transform(X_train)), np.asarray(estimator.transform(X_test))


# Failures recorded in the results instead of stopping the run: bad parameters or data
# (ValueError, which includes numpy's LinAlgError), non-convergence and numerical trouble.
RECORDED_ERRORS = (ValueError, ArithmeticError, RuntimeError)


def evaluate_split(
    spec,
    params: dict,
    X,
    y,
    mask,
    protocol: str,
    classifier: str,
    image_shape=None,
    preprocess: str = "none",
):
    """Fit one method on one split and score the held-out points: a dict of results.

    `preprocess` scales the features first, fitted on the points the method is fitted on.
    `fit_time_s` is the time to scale, build, fit and map (or predict); scoring is not included.
    A failure in RECORDED_ERRORS is returned as `status` (the message) with accuracy NaN.
    """
    out = {"accuracy": math.nan, "fit_time_s": math.nan, "status": "ok"}
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category=UserWarning)
            fitted = fit_split(
                spec, params, X, y, mask, protocol, preprocess=preprocess, image_shape=image_shape
            )
            out["fit_time_s"] = fitted.fit_time_s
            out["accuracy"] = fitted.accuracy(classifier)
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
    return out


def _as_datasets(dataset) -> list:
    from metriclab.datasets import Dataset, load

    items = dataset if isinstance(dataset, list | tuple) else [dataset]
    if not items:
        raise ValueError("give at least one data set")
    out = []
    for item in items:
        if isinstance(item, Dataset):
            out.append(item)
        elif isinstance(item, str):
            name, params = parse_method(item)  # 'harder_moons:shift=0.5' works like a method
            out.append(load(name, **params))
        else:
            raise ValueError(f"a data set must be a name or a Dataset, got {type(item).__name__}")
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


def _as_methods(methods) -> list[tuple[str, dict]]:
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
    if not any(key == "euclidean" for key, _ in pairs):
        pairs.insert(0, ("euclidean", {}))
    return pairs


def method_label(spec, params: dict) -> str:
    """The method's label with the parameters that differ from its defaults, e.g. 'LMNN (k=5)'."""
    defaults = spec.defaults()
    changed = {k: v for k, v in params.items() if k in defaults and defaults[k] != v}
    if not changed:
        return spec.label
    return f"{spec.label} ({', '.join(f'{k}={v}' for k, v in sorted(changed.items()))})"


def _dataset_identity(ds) -> dict:
    from metriclab.cache import array_digest

    return {"name": ds.name, "params": dict(ds.params or {}), "content": array_digest(ds.X, ds.y)}


def _default_sizes(datasets, specs, protocol, fraction, n_train, per_class) -> dict:
    if sum(v is not None for v in (fraction, n_train, per_class)) > 1:
        raise ValueError("give at most one of fraction, n_train or per_class")
    if fraction is not None or n_train is not None or per_class is not None:
        return {"fraction": fraction, "n_train": n_train, "per_class": per_class}
    learned = [s for s in specs if s.key != "euclidean"]
    transductive_only = protocol == "transductive" or (
        protocol == "auto" and learned and all(s.transductive for s in learned)
    )
    if transductive_only:
        return {"fraction": 0.1, "n_train": None, "per_class": None}
    return {"fraction": None, "n_train": "auto", "per_class": None}


DASK_CONNECT_TIMEOUT_S = 10


def _client_for(scheduler):
    """A distributed.Client for an address (we own it) or the given Client (caller owns it)."""
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - the dask extra is installed in the venv
        raise ValueError("running on a Dask cluster needs `pip install metriclab[dask]`") from exc
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


def _run_on_dask(tasks: list[tuple], scheduler, on_done: Callable) -> None:
    """The splits on a Dask cluster through joblib's dask backend. The scheduler already reruns the
    tasks of a worker that dies; when it gives up (KilledWorker after its allowed failures) or the
    connection breaks, the splits not yet finished are submitted again, up to DASK_RETRIES times.
    Finished splits are never resubmitted (each reached on_done, and the disk cache, once)."""
    from joblib import Parallel, delayed, parallel_config

    client, owned = _client_for(scheduler)
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
                    for job, result in run(delayed(_call)(job, args) for job, args in remaining):
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


def _call(job, args):
    return job, evaluate_split(*args)


def _run_parallel(tasks: list[tuple], n_jobs, scheduler, on_done: Callable) -> None:
    """Run `evaluate_split` on each (job, args) and call on_done(job, result) in the main process,
    as each finishes (so that an interrupted run keeps, in the cache, what it finished)."""
    from joblib import Parallel, delayed

    if scheduler is not None:
        _run_on_dask(tasks, scheduler, on_done)
        return
    if n_jobs == 1 or len(tasks) <= 1:
        for job, args in tasks:
            on_done(job, evaluate_split(*args))
        return
    backend = None if n_jobs is None else "loky"
    run = Parallel(n_jobs=n_jobs, backend=backend, return_as="generator_unordered")
    for job, result in run(delayed(_call)(job, args) for job, args in tasks):
        on_done(job, result)


_RUN_DEFAULTS: ContextVar[dict | None] = ContextVar("metriclab_run_defaults", default=None)


@contextmanager
def run_defaults(n_jobs: int | None = None, scheduler=None, cache=None):
    """Within this block, `compare` calls that leave n_jobs=1, scheduler=None or cache=None use
    these values instead. The reproduction runner uses it so that `--jobs`, `--scheduler` and the
    cache reach the compare calls inside the paper modules (results do not depend on them)."""
    token = _RUN_DEFAULTS.set({"n_jobs": n_jobs, "scheduler": scheduler, "cache": cache})
    try:
        yield
    finally:
        _RUN_DEFAULTS.reset(token)


def _apply_run_defaults(n_jobs, scheduler, cache):
    defaults = _RUN_DEFAULTS.get()
    if not defaults:
        return n_jobs, scheduler, cache
    if n_jobs == 1 and defaults["n_jobs"] is not None:
        n_jobs = defaults["n_jobs"]
    if scheduler is None:
        scheduler = defaults["scheduler"]
    if cache is None:
        cache = defaults["cache"]
    return n_jobs, scheduler, cache


def compare(
    dataset,
    methods,
    *,
    n_splits: int = 5,
    fraction: float | None = None,
    n_train: int | None = None,
    per_class: int | None = None,
    protocol: str = "auto",
    classifier: str = "1nn",
    n_jobs: int | None = 1,
    scheduler=None,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
    cache=None,
    preprocess: str = "auto",
) -> pd.DataFrame:
    """Accuracy of each method on the same seeded random splits of each data set: one row per split.

    dataset: a name, a Dataset, or a list of them. methods: a list of (key, params) pairs (or of
    strings 'key:name=value,...'), or a dict key -> params; the Euclidean baseline is always added.
    Split size: one of `fraction` (share of each class labeled), `n_train` (stratified number of
    training points) or `per_class`; by default fraction=0.1 when every learned method runs
    transductively, else n_train=min(100, n/2). protocol: 'auto' (each method's own),
    'transductive' or 'inductive'. classifier: '1nn', 'knn:K' or 'nearest_mean' (classifier methods
    use their own predict). n_jobs: joblib workers (loky); scheduler: a Dask scheduler address or a
    distributed.Client, to run the splits on that cluster. progress(done, total, message) is called
    in this process after each finished (method, split). cache: None (off), True (default
    directory), a directory or a metriclab.cache.ResultCache. preprocess: feature scaling,
    'auto' (each data set's default, `metriclab.datasets.default_preprocess`), 'none',
    'standardise' (z-scores) or 'minmax' ([0, 1] range); the scaler is fitted on the points each
    method is fitted on (the training points under the inductive protocol), and kernel widths
    are in the scaled units.

    Returns the columns of RESULT_FIELDS; `accuracy` is a fraction in [0, 1], `status` is 'ok' or
    the message of the error that method raised on that split.
    """
    from metriclab.cache import as_cache, code_version
    from metriclab.methods import REGISTRY

    n_jobs, scheduler, cache = _apply_run_defaults(n_jobs, scheduler, cache)
    parse_classifier(classifier)
    if protocol not in ("auto", "transductive", "inductive"):
        raise ValueError(
            f"protocol must be 'auto', 'transductive' or 'inductive', got {protocol!r}"
        )
    if n_jobs is not None and (not isinstance(n_jobs, int | np.integer) or n_jobs == 0):
        raise ValueError(f"n_jobs must be a non-zero whole number (-1 = all cores), got {n_jobs!r}")
    if preprocess is not None and str(preprocess).strip().lower() != "auto":
        preprocess = resolve_preprocess(preprocess)  # a bad name fails before any data loads
    datasets = _as_datasets(dataset)
    pairs = _as_methods(methods)
    specs = [REGISTRY[key] for key, _ in pairs]
    sizes = _default_sizes(datasets, specs, protocol, fraction, n_train, per_class)
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
                args = (
                    spec,
                    params,
                    ds.X,
                    ds.y,
                    mask,
                    method_protocol,
                    classifier,
                    ds.image_shape,
                    ds_preprocess,
                )
                tasks.append((job, args))

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

    _run_parallel(tasks, n_jobs, scheduler, on_done)

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
                "status": result["status"],
                "cached": bool(result.get("cached", False)),
            }
        )
    return pd.DataFrame.from_records(records, columns=list(RESULT_FIELDS))


# ----------------------------------------------------------------------------- summarize

SUMMARY_GROUP = ("dataset", "method", "label", "params", "protocol", "classifier", "preprocess")


def paired_test(differences: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value of paired differences; NaN where it is undefined."""
    d = np.asarray(differences, dtype=float)
    d = d[np.isfinite(d)]
    if d.size < 2 or np.all(d == 0):
        return math.nan
    from scipy.stats import wilcoxon

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = float(wilcoxon(d).pvalue)
    except ValueError:
        return math.nan
    return p if math.isfinite(p) else math.nan


def summarize(results: pd.DataFrame, baseline: str = "euclidean") -> pd.DataFrame:
    """Per data set × method: mean ± std accuracy over the splits, mean fit time, the paired
    difference against the baseline on the same splits (mean, wins/ties/losses, Wilcoxon p)."""
    missing = {"dataset", "method", "split", "accuracy", "status"} - set(results.columns)
    if missing:
        raise ValueError(f"results lack the column(s) {sorted(missing)}; pass compare()'s output")
    group = [c for c in SUMMARY_GROUP if c in results.columns]
    ok = results[results["status"] == "ok"]
    pair_on = ["dataset", "split", *(["preprocess"] if "preprocess" in results.columns else [])]
    base = (
        ok[ok["method"] == baseline]
        .groupby(pair_on, sort=False)["accuracy"]
        .mean()
        .rename("baseline_accuracy")
    )
    rows = []
    for keys, frame in results.groupby(group, sort=False, dropna=False):
        row = dict(zip(group, keys if isinstance(keys, tuple) else (keys,), strict=True))
        good = frame[frame["status"] == "ok"]
        acc = good["accuracy"].to_numpy(dtype=float)
        row["n_splits"] = int(len(good))
        row["n_failed"] = int(len(frame) - len(good))
        row["accuracy_mean"] = float(acc.mean()) if acc.size else math.nan
        row["accuracy_std"] = (
            float(acc.std(ddof=1)) if acc.size > 1 else (0.0 if acc.size else math.nan)
        )
        row["error_pct_mean"] = 100.0 * (1.0 - row["accuracy_mean"])
        row["error_pct_std"] = 100.0 * row["accuracy_std"]
        row["fit_time_s"] = (
            float(good["fit_time_s"].mean()) if len(good) and "fit_time_s" in good else math.nan
        )
        paired = good.join(base, on=pair_on, how="inner")
        diff = (paired["accuracy"] - paired["baseline_accuracy"]).to_numpy(dtype=float)
        row["diff_vs_baseline"] = float(diff.mean()) if diff.size else math.nan
        row["wins"] = int((diff > 1e-12).sum())
        row["ties"] = int((np.abs(diff) <= 1e-12).sum())
        row["losses"] = int((diff < -1e-12).sum())
        row["p_value"] = paired_test(diff)
        failed = frame.loc[frame["status"] != "ok", "status"]
        row["status"] = "ok" if failed.empty else str(failed.iloc[0])
        rows.append(row)
    return pd.DataFrame(rows)
