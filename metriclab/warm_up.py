"""A new server process made ready before its first visitor (issue 42: "all of MNIST first view
≤ 3 s in the app").

A fresh `streamlit run` pays, inside its first visitor's first view, for importing the lab's
libraries (Plotly, scikit-learn, SciPy's sparse solvers, the methods: about 1 s) and, on a GPU,
for CuPy's kernels: CuPy compiles each kernel on its first use on a machine (kept on disk in
~/.cupy/kernel_cache) and loads it into each process on its first call, which made a fresh H200
machine's first MNIST view 19.5 s against 1.0 s for the next split (bench/README.md, "The λ move
and the app on a GPU"). The server's launcher (`python -m metriclab.ui.shared.serve`, which
`make run`, `metriclab app` and every worker of a class go through) calls `start` before Streamlit
opens its port: the imports run at once, the GPU's kernels in a background thread on a tiny
problem that takes every GPU step a full-size graph fit takes (exact neighbours for the graph, the
label cost and the 1-NN score, the subspace eigensolve and its residual).

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
WARM_POINTS = 600  # the solver is named ("subspace"), so a tiny problem takes the full size's path
WARM_FEATURES = 16


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


def gpu_kernels(seed: int = 0) -> float:
    """Run once, on a tiny problem, each GPU step of a full-size graph fit (so CuPy compiles or
    loads its kernels now, not in a visitor's view); seconds taken. Results are discarded."""
    from metriclab.graphs import brute_force_neighbors
    from metriclab.methods.spectral import TDL

    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((WARM_POINTS, WARM_FEATURES))
    y = np.repeat(np.arange(4), WARM_POINTS // 4)
    brute_force_neighbors(X[::2], 5, query=X[1::2], device="gpu")  # the label cost's, the 1-NN's
    y_partial = np.where(np.arange(WARM_POINTS) % 4 == 0, y, -1)
    TDL(n_components=2, n_neighbors=10, eigen_solver="subspace", device="gpu").fit(X, y_partial)
    return time.perf_counter() - started


def start(environ=None, log=sys.stderr) -> threading.Thread | None:
    """Import the modules now and warm the GPU's kernels in a daemon thread (one line to `log` when
    done, or why it failed: a warm-up never stops the server). None when turned off."""
    if not enabled(environ):
        return None
    imported = import_modules()

    def run() -> None:
        try:
            from metriclab.array_module import gpu_available

            kernels = gpu_kernels() if gpu_available() else None
        except Exception as exc:  # a broken CUDA set-up shows in the first fit, with its reason
            print(f"metriclab: GPU warm-up failed ({type(exc).__name__}: {exc})", file=log)
            return
        gpu = f", GPU kernels {kernels:.1f} s" if kernels is not None else ""
        print(f"metriclab: warmed up (imports {imported:.1f} s{gpu})", file=log, flush=True)

    thread = threading.Thread(target=run, name="metriclab-warm-up", daemon=True)
    thread.start()
    return thread
