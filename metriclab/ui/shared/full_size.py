"""The papers' full-size data in the app (issue 26): all 70,000 MNIST digits, all 9,298 USPS ones.

Past FULL_SIZE points drawn, a fit takes this path instead of the small sets' one:

- the graph methods (TDL, Laplacian Eigenmaps: tag "graph") fit every point through the small
  sets' path (`compute.fit_view`, hence `fit_split`) with a graph hook: their kNN graph is built
  once per data set, scaling and graph parameters and kept (`graph_of`), so moving λ solves only
  the eigenproblem again, and Laplacian Eigenmaps beside TDL is one cached fit on the same graph;
- the other learners cost n² or n³: they are fitted on at most FIT_CAP labelled points (a
  stratified sample) and then map every point through their transform; the page says how many;
- a classifier (tangent distance) predicts at most CLASSIFIER_CAP points (the view is restricted);
- the Euclidean input space is scored without keeping a 70,000 × 784 embedding.

Every such fit waits for the server's one full-size slot (`heavy.slot`), reporting its place.
Where a class's Dask scheduler is configured (`metriclab.cluster`, `$METRICLAB_DASK_SCHEDULER`), a
graph method's fit (graph and eigensolve) is instead one task on that cluster (`cluster_fit`): the
data go by name (the worker loads the set and keeps it, with its graph), the result's arrays come
back, and the server's cores stay with the slider moves of the small sets.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

from metriclab import warm_up
from metriclab.array_module import resolve_device
from metriclab.cluster import configured_scheduler
from metriclab.datasets import Dataset
from metriclab.datasets.sampling import subsample, subsample_indices
from metriclab.evaluation import SplitRequest, fit_split, knn_accuracy
from metriclab.graphs import CUT_OFF, build_graph
from metriclab.preprocess import scale_features
from metriclab.ui.shared import compute, heavy
from metriclab.ui.shared.fit_request import DataRef, FitRequest
from metriclab.ui.shared.session_data import UPLOAD_PREFIX, named_dataset

FULL_SIZE = 5000  # points drawn above which a fit takes this path (the old largest cap)
FIT_CAP = 1000  # labelled points a non-graph learner is fitted on at full size
CLASSIFIER_CAP = 2000  # points a classifier's view is restricted to at full size
SUBSAMPLE_MODES = 2000  # the λ scrub, window map, input view and learning frames: a subsample
WORKER_KEPT = 2  # views, and graphs, a cluster worker keeps (MNIST: 0.44 GB float64, graph 17 MB)


def is_full_size(n_points: int) -> bool:
    return n_points > FULL_SIZE


@dataclass(frozen=True)
class GraphKey:
    """What the kNN graph of a full-size view depends on, and where it is built ("cpu" or "gpu":
    the estimator's own device, so where a GPU fits the view it also finds the neighbours)."""

    data: DataRef
    scaling: str
    n_neighbors: int
    width: float | None
    device: str = "cpu"


def _stage(progress, done: int, message: str) -> None:
    if progress is not None:
        progress(done, 5, message)


@st.cache_resource(show_spinner=False, max_entries=2)
def graph_of(key: GraphKey, _ds: Dataset):
    """(W, width): the kNN heat graph of every point of the view, scaled as the method sees it
    (the scaler fitted on every point: TDL is transductive). Kept per process: a λ move, a new
    split or Laplacian Eigenmaps beside TDL reuse it."""
    return _shared_graph(key, _ds)


def _shared_graph(key: GraphKey, ds: Dataset):
    from metriclab import graph_store  # kept on disk for every process of the machine (issue 41)

    X = scale_features(key.scaling, ds.X)
    build = functools.partial(build_graph, device=key.device)
    return graph_store.shared_graph(X, key.n_neighbors, key.width, build=build)


def graph_hook(request: FitRequest, ds: Dataset, progress=None, source=None):
    """The graph hook of `fit_split` for the full-size view of `request`: the view's kept kNN graph
    (`source(key, ds)`, default `graph_of`), keyed by the graph parameters of the estimator being
    fitted (its own values, so no default is repeated here)."""

    def graph(estimator, X):
        if getattr(estimator, "graph", "knn") != "knn":
            raise ValueError(
                f"the dense Gaussian graph of {ds.n_samples:,} points does not fit in memory: "
                "choose the kNN graph (Graph: knn) for the full data set, or fewer points"
            )
        device = resolve_device(getattr(estimator, "device", "cpu"))
        key = GraphKey(
            request.data, request.scaling, int(estimator.n_neighbors), estimator.width, device
        )
        _stage(
            progress,
            1,
            f"graph: {key.n_neighbors}-NN graph of {ds.n_samples:,} points{_waiting(device)}",
        )
        W = (graph_of if source is None else source)(key, ds)
        if request.spec.has("unsupervised"):  # Laplacian Eigenmaps: no label cost to anchor it
            _refuse_cut_off_points(W[0], W[1], request, ds.n_samples, key.n_neighbors)
        _stage(progress, 2, f"eigensolve: {request.spec.label}{_waiting(device)}")
        return W

    return graph


def _waiting(device: str) -> str:
    """What a view fitted on the GPU while a fresh machine warms up waits for (metriclab.warm_up:
    12.7-15.0 s for an H200's first MNIST view then, against 2.6-3.0 s after), or ''."""
    if device == "gpu" and warm_up.warming_gpu():
        return (
            " (the GPU is still compiling its kernels, once per machine: this view waits for them)"
        )
    return ""


def _refuse_cut_off_points(W, width: float, request: FitRequest, n: int, n_neighbors: int) -> None:
    """Laplacian Eigenmaps' smallest eigenvectors on a graph with cut-off points are those
    points' indicators, at eigenvalues near 0 that Lanczos separates only after minutes (bench/
    README.md): a reason and the remedy for it instead (more neighbours for a graph in pieces,
    another scaling or width for edges that underflow)."""
    cut = compute.graph_cut_off(W)  # kept with the stored graph: LE again on it pays nothing
    if not cut:
        return
    unlinked, pieces = compute.graph_pieces(W)
    single_out = (
        "The smallest eigenvectors would only single those points out, after minutes of "
        "eigensolving: "
    )
    if unlinked:
        light = cut - unlinked
        also = (
            f", and {light:,} more are linked by edges lighter than {CUT_OFF:g} of a typical one"
            if light
            else ""
        )
        raise ValueError(
            f"{unlinked:,} of the {n:,} points have no path to the rest of the "
            f"{request.spec.label} graph: its {n_neighbors} nearest neighbours per point link it "
            f"into {pieces} separate pieces (groups of points that are one another's nearest "
            f"neighbours){also}. {single_out}choose more graph neighbours"
        )
    raise ValueError(
        f"{cut:,} of the {n:,} points are cut off from the {request.spec.label} graph: their "
        f"edges to the rest weigh less than {CUT_OFF:g} of a typical edge at the heat width "
        f"{width:.3g} ({request.scaling} scaling; a feature that is almost always constant "
        "becomes huge where it is not). "
        + single_out
        + "choose another scaling (none or minmax) or a larger graph width"
    )


def capped_fit(request: FitRequest, ds: Dataset, mask: np.ndarray):
    """A learner fitted on at most FIT_CAP labelled points (stratified), every point mapped by its
    transform, scored by 1-NN from all labelled points."""
    labelled = np.flatnonzero(mask)
    keep = labelled[subsample_indices(ds.y[labelled], FIT_CAP, 0)]
    fit_mask = np.zeros_like(mask)
    fit_mask[keep] = True
    split = SplitRequest.of(
        request.spec, ds, fit_mask, request.values, protocol="transductive",
        preprocess=request.scaling,
    )  # fmt: skip
    fitted = fit_split(split)
    Z = np.asarray(fitted.embedding(), dtype=np.float64)
    Z = Z[:, None] if Z.ndim == 1 else Z
    accuracy = knn_accuracy(Z[mask], ds.y[mask], Z[~mask], ds.y[~mask])
    eigenvalues = getattr(fitted.estimator, "eigenvalues_", None)
    return compute.ViewResult(
        request.spec.key,
        mask,
        accuracy,
        Z=Z,
        eigenvalues=None if eigenvalues is None else np.asarray(eigenvalues, dtype=np.float64),
        fit_time=fitted.fit_time_s,
        fitted_on=int(keep.size) if keep.size < labelled.size else None,
        device=getattr(fitted.estimator, "device_", None),
    )


def input_fit(request: FitRequest, ds: Dataset, mask: np.ndarray):
    """1-NN in the (scaled) input space, all features; the picture is the first two features."""
    X = scale_features(request.scaling, ds.X, mask)
    accuracy = knn_accuracy(X[mask], ds.y[mask], X[~mask], ds.y[~mask])
    return compute.ViewResult(request.spec.key, mask, accuracy, Z=np.asarray(X[:, :2]))


def full_fit(view: tuple[Dataset, np.ndarray], request: FitRequest, progress=None):
    """The full-size fit of `request` on the resolved `view` (ds, labelled mask), as
    `compute.fit_view` takes it, in the server's one full-size slot."""
    ds, mask = view
    spec = request.spec
    address = configured_scheduler()
    if address is not None and spec.has("graph"):  # the class's cluster, not this server's cores
        _stage(progress, 1, f"graph and eigensolve of {ds.n_samples:,} points on the Dask cluster")
        return cluster_fit(request, ds, mask, address)
    report = None if progress is None else (lambda text: progress(0, 5, text))
    with heavy.slot(report):
        if spec.has("graph"):  # every point, on the view's kept graph: the one fit path
            hook = graph_hook(request, ds, progress)
            return compute.fit_view(view, request, False, progress, graph=hook)
        if spec.has("input_space"):
            return input_fit(request, ds, mask)
        if spec.has("classifier"):
            raise ValueError(  # the caller restricts a classifier's view (classifier_data)
                f"{spec.label} predicts at most {CLASSIFIER_CAP:,} points in the app"
            )
        _stage(progress, 2, f"fitting {spec.label} on {FIT_CAP:,} labelled points")
        return capped_fit(request, ds, mask)


def cluster_fit(request: FitRequest, ds: Dataset, mask: np.ndarray, address: str):
    """A graph method's full-size fit as one task on the Dask cluster at `address`: a named data
    set goes by reference (its `DataRef`: the worker loads the same view and keeps it, and the
    view's graph, for the next λ), a session's upload by value; the labelled mask goes along. The
    ViewResult's arrays come back; equal to the fit in this process (tests/test_full_size.py)."""
    from metriclab import cluster

    data = None if not request.data.name.startswith(UPLOAD_PREFIX) else ds
    future = cluster.client(address).submit(fit_on_worker, request, data, mask, pure=False)
    return future.result()


_worker_lock = threading.Lock()
_worker_views: OrderedDict = OrderedDict()
_worker_graphs: OrderedDict = OrderedDict()


def _kept(store: OrderedDict, key, make):
    """store[key], made by make() once and kept (least recently used out past WORKER_KEPT)."""
    with _worker_lock:
        if key in store:
            store.move_to_end(key)
            return store[key]
    value = make()
    with _worker_lock:
        store[key] = value
        while len(store) > WORKER_KEPT:
            store.popitem(last=False)
    return value


def worker_view(data: DataRef) -> Dataset:
    """The view of a named data set as the server draws it (`cache.view_data`'s steps, without
    Streamlit's cache: a Dask worker has no Streamlit runtime), kept by the worker process."""
    load = named_dataset.__wrapped__  # the function Streamlit's cache wraps (the same arrays)
    return _kept(_worker_views, data, lambda: subsample(load(data.name, data.params),
                                                         data.max_points, 0)[0])  # fmt: skip


def fit_on_worker(request: FitRequest, data: Dataset | None, mask: np.ndarray):
    """The task `cluster_fit` submits: the full-size graph fit of `request` on the view (`data`,
    or the named view loaded here), through the same `compute.fit_view` with the view's kNN graph
    kept by this worker process (warm starts across λ moves included)."""
    ds = worker_view(request.data) if data is None else data

    def source(key: GraphKey, ds: Dataset):
        return _kept(_worker_graphs, key, lambda: _shared_graph(key, ds))

    hook = graph_hook(request, ds, None, source=source)
    return compute.fit_view((ds, mask), request, False, None, graph=hook)


def restricted(request: FitRequest, points: int) -> FitRequest:
    """The request on a stratified subsample of `points` (for the views that refit many times)."""
    return replace(request, data=replace(request.data, max_points=points))
