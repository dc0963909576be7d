"""A new server process made ready before its first visitor (issue 42: "all of MNIST first view
≤ 3 s in the app").

A fresh `streamlit run` pays, inside its first visitor's first view, for importing the lab's
libraries (Plotly, scikit-learn, SciPy's sparse solvers, the methods: about 1.5 s) and, on a GPU,
for CuPy's kernels: CuPy compiles each kernel on its first use on a machine (kept on disk in
~/.cupy/kernel_cache) and loads it into each process on its first call, which made a fresh H200
machine's first MNIST view 19.5 s against 1.0 s for the next split. The server's launcher
(`python -m metriclab.ui.shared.serve`, which `make run`, `metriclab app` and every worker of a
class go through) calls `start` before Streamlit opens its port: the imports run at once, the
GPU's kernels in a background thread on a problem of all of MNIST's size and few features that
takes every GPU step of a full-size graph fit (exact neighbours for the label cost, the 1-NN score
and the graph, the subspace eigensolve and its residual, cold and warm-started as a λ move's). On a fresh H200 machine the warm-up
takes about 13 s, after which the first visitor's MNIST view is 2.5 s (bench/README.md, "A new
server process on a GPU").

Nothing here imports Streamlit or the app's pages (a `st.cache_data` function imported before
Streamlit's runtime exists would be bound to a cache outside it). `$METRICLAB_WARM_UP=0` turns it
off.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time

import numpy as np

ENV = "METRICLAB_WARM_UP"
MODULES = (  # the heavy imports of a first view, none of which imports Streamlit
    "pandas",
    "plotly.graph_objects",
    "scipy.sparse.linalg",
    "sklearn.decomposition",
    "sklearn.neighbors",
    "metriclab.datasets",
    "metriclab.evaluation",
    "metriclab.export",
    "metriclab.graph_store",
    "metriclab.methods.spectral",
    "metriclab.methods.registry",
    "metriclab.plots",
)
# points of the GPU's warm-up problem: all of MNIST's count (CuPy's first use of a kernel at a new
# scale costs too: after a 600-point warm-up an H200's first MNIST eigensolve still took 4.1 s
# against 0.24 s, bench/gpu_probe.py --warm-up); few features: 1.6 s where the kernels are on disk
WARM_POINTS = 70_000
WARM_FEATURES = 8


_gpu_warming = threading.Event()  # set while the GPU's kernels are being compiled (`start`)


def warming_gpu() -> bool:
    """Whether this process's warm-up is compiling the GPU's kernels now: a view fitted on the GPU
    meanwhile waits for the same kernels (12.7-15.0 s for a fresh H200 machine's first MNIST view
    against 2.6-3.0 s after the warm-up), which its progress says."""
    return _gpu_warming.is_set()


def enabled(environ=None) -> bool:
    """Whether `$METRICLAB_WARM_UP` leaves the warm-up on (unset, or anything but 0/false/no/off)."""
    value = (os.environ if environ is None else environ).get(ENV, "")
    return value.strip().lower() not in {"0", "false", "no", "off"}


def import_modules(modules=MODULES) -> float:
    """Import the first view's heavy modules; seconds taken."""
    started = time.perf_counter()
    for name in modules:
        importlib.import_module(name)
    return time.perf_counter() - started


def gpu_kernels(points: int = WARM_POINTS, seed: int = 0) -> float:
    """Run once, on `points` random points of few features, each GPU step of a full-size graph
    fit (so CuPy compiles or loads its kernels now, not in a visitor's view); seconds taken."""
    from metriclab.eigen import smallest_eigenpairs
    from metriclab.evaluation import knn_accuracy
    from metriclab.graphs import brute_force_neighbors
    from metriclab.methods.spectral import TDL

    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((points, WARM_FEATURES))
    y = np.arange(points) % 4
    brute_force_neighbors(X[::2], 5, query=X[1::2], device="gpu")  # the label cost's neighbours
    half = min(points // 2, 2000)
    knn_accuracy(X[:half], y[:half], X[half:], y[half:], 1, device="gpu")  # the 1-NN scores
    y_partial = np.where(np.arange(points) % 8 < 2, y, -1)
    model = TDL(n_components=2, n_neighbors=10, eigen_solver="subspace", device="gpu")
    model.fit(X, y_partial)
    # a λ move's solve: warm-started from the last eigenvectors (its first one took 0.24-0.31 s in
    # the app on an H200 against about 0.20 s for the next ones)
    smallest_eigenpairs(
        model._S, 2, model._trivial, "subspace", start=model.embedding_, device="gpu"
    )
    return time.perf_counter() - started


def import_gpu_modules() -> bool:
    """Import CuPy, and PyTorch where the graph's selection takes it (`graphs.torch_topk`): whether
    a GPU is usable. Before the port opens: PyTorch's import (about 2 s) in the background thread
    held up a visitor who came at once (an H200's restarted server: first view 4.8 s, against 1.5 s
    without PyTorch)."""
    from metriclab.array_module import gpu_available
    from metriclab.graphs import torch_topk

    if not gpu_available():
        return False
    torch_topk()
    return True


def said_failed(exc: Exception, log) -> None:
    print(f"metriclab: GPU warm-up failed ({type(exc).__name__}: {exc})", file=log, flush=True)


def start(environ=None, log=sys.stderr) -> threading.Thread | None:
    """Import the modules now (the GPU's too, where there is one) and warm the GPU's kernels in a
    daemon thread (one line to `log` when done, or why it failed: a warm-up never stops the
    server). None when turned off."""
    if not enabled(environ):
        return None
    imported = import_modules()
    started = time.perf_counter()
    try:
        gpu = import_gpu_modules()
    except Exception as exc:  # a broken CUDA set-up shows in the first fit, with its reason
        said_failed(exc, log)
        gpu = False
    imported += time.perf_counter() - started

    def run() -> None:
        try:
            kernels = gpu_kernels() if gpu else None
        except Exception as exc:  # as above
            said_failed(exc, log)
            return
        finally:
            _gpu_warming.clear()
        on_gpu = f", GPU kernels {kernels:.1f} s" if kernels is not None else ""
        print(f"metriclab: warmed up (imports {imported:.1f} s{on_gpu})", file=log, flush=True)

    if gpu:
        _gpu_warming.set()
    thread = threading.Thread(target=run, name="metriclab-warm-up", daemon=True)
    thread.start()
    return thread
