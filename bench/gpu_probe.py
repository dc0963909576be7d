"""One-off probe on a GPU machine (issue 42): the 10^6-point graph by cupyx's KDTree against brute
force, and a full-size MNIST fit end to end with device="gpu" (the app's first view without the
drawing). Prints one line per measurement."""

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sklearn.datasets import make_blobs  # noqa: E402

from metriclab.datasets import load  # noqa: E402
from metriclab.evaluation import labeled_mask, partial_labels  # noqa: E402
from metriclab.graphs import brute_force_neighbors  # noqa: E402
from metriclab.methods.spectral import TDL, LaplacianEigenmaps  # noqa: E402


def t(step):
    s = time.perf_counter()
    v = step()
    return time.perf_counter() - s, v


def _sync(device):
    if device == "gpu":
        import cupy

        return cupy.cuda.Device().synchronize
    return lambda: None


class Breakdown:
    """Seconds and calls of the subspace iteration's parts in one solve (each part synchronised
    with the device): module functions of metriclab.eigen and CuPy's qr / eigh wrapped in place,
    restored on exit."""

    def __init__(self, device):
        import metriclab.eigen as eigen

        self.eigen, self.sync, self.parts = eigen, _sync(device), {}
        self.linalg = None
        if device == "gpu":
            import cupy

            self.linalg = cupy.linalg
        self.saved = []

    def _timed(self, owner, name, inner=None):
        real = getattr(owner, name)
        self.saved.append((owner, name, real))

        def wrapper(*args, **kwargs):
            self.sync()
            start = time.perf_counter()
            value = real(*args, **kwargs)
            self.sync()
            seconds, calls = self.parts.get(name, (0.0, 0))
            self.parts[name] = (seconds + time.perf_counter() - start, calls + 1)
            return value

        setattr(owner, name, wrapper)

    def __enter__(self):
        e = self.eigen
        for name in ("lanczos_quadrature", "relative_residual", "_start_block",
                     "reverse_cuthill_mckee", "_device_product"):  # fmt: skip
            self._timed(e, name)
        real_filter = e.chebyshev_filter
        self.saved.append((e, "chebyshev_filter", real_filter))

        def counted_filter(*args, **kwargs):
            filtered = real_filter(*args, **kwargs)

            def run(x):
                self.sync()
                start = time.perf_counter()
                value = filtered(x)
                self.sync()
                seconds, calls = self.parts.get("filter (a step)", (0.0, 0))
                self.parts["filter (a step)"] = (seconds + time.perf_counter() - start, calls + 1)
                return value

            return run

        e.chebyshev_filter = counted_filter
        if self.linalg is not None:
            self._timed(self.linalg, "qr")
            self._timed(self.linalg, "eigh")
        return self

    def __exit__(self, *exc):
        for owner, name, real in reversed(self.saved):
            setattr(owner, name, real)

    def report(self, total):
        shown = sum(seconds for seconds, _ in self.parts.values())
        parts = ", ".join(f"{k} {v[0]:.3f} s/{v[1]}" for k, v in sorted(self.parts.items()))
        return f"{parts}; rest {total - shown:.3f} s"


def op_times(S, device, columns=76, repeats=10):
    """One sparse × block product, one QR of the block, one small eigh, on `device`."""
    from metriclab.array_module import backend

    on = backend(device)
    xp, sync = on.xp, _sync(device)
    import scipy.sparse as sp

    M = on.sparse.csr_matrix(sp.csr_matrix(S)) if device == "gpu" else sp.csr_matrix(S)
    V = on.to_device(np.random.default_rng(0).standard_normal((S.shape[0], columns)))
    H = V.T @ V
    out = {}
    F = xp.asfortranarray(V)
    for name, op in (("SpMM", lambda: M @ V), ("SpMM F-order", lambda: M @ F),
                     ("QR", lambda: xp.linalg.qr(V)),
                     ("eigh", lambda: xp.linalg.eigh(H)), ("VtV", lambda: V.T @ V)):  # fmt: skip
        op()
        sync()
        start = time.perf_counter()
        for _ in range(repeats):
            op()
        sync()
        out[name] = (time.perf_counter() - start) / repeats
    return ", ".join(f"{k} {v * 1000:.2f} ms" for k, v in out.items())


VARIANTS = {  # eigen module settings tried on the same warm λ move
    "default": {},
    "degree 12 (before)": {"SUBSPACE_DEGREE": 12},
    "degree 32": {"SUBSPACE_DEGREE": 32},
    "guard 24": {"SUBSPACE_GUARD": 24},
}


def lambda_part(device="gpu", n=None, vectors=60, neighbours=20, variants=VARIANTS):
    """A λ move on MNIST (all of it by default), taken apart: the warm-started solve of the
    library, its parts (`Breakdown`), single operations, the eigen settings of VARIANTS, and the
    app's fit path (TDL on a stored graph: label cost kept, warm start, eigenpairs stored)."""
    import tempfile

    import metriclab.eigen as eigen
    from metriclab import graph_store
    from metriclab.eigen import smallest_eigenpairs
    from metriclab.graphs import build_graph, degrees, knn_distances, neighbour_graph
    from metriclab.methods.spectral import (
        cost_laplacian,
        cost_lower_bound,
        cost_matrix,
        penalized_problem,
    )

    digits = load("mnist")
    X, y = digits.X[:n], digits.y[:n]
    tg, (distances, indices) = t(lambda: knn_distances(X, neighbours, device=device))
    W, _ = neighbour_graph(distances, indices)
    labels = partial_labels(y, labeled_mask(y, fraction=0.05, seed=0))
    C = cost_matrix(X, labels, 20)
    C_prime, d = cost_laplacian(C), degrees(W)
    print(f"{X.shape[0]:,} digits on {device}, {vectors} vectors: {neighbours}-NN graph {tg:.2f} s, "
          f"{W.nnz:,} weights")  # fmt: skip

    def problem(lam):
        S, scale, trivial = penalized_problem(C_prime, W, d, lam, "unnormalized")
        return S, trivial, cost_lower_bound(C, scale)

    def solve(S, trivial, lower, start=None):
        return smallest_eigenpairs(
            S, vectors, trivial, "subspace", lower=lower, start=start, device=device
        )

    S, trivial, lower = problem(128.0)
    print("ops:", op_times(S, device), flush=True)
    tc, cold = t(lambda: solve(S, trivial, lower))
    print(f"lambda 128 cold: {tc:.2f} s, residual {cold.residual:.0e}", flush=True)
    S, trivial, lower = problem(64.0)
    tr, ref = t(lambda: solve(S, trivial, lower))
    print(f"lambda 64 cold: {tr:.2f} s, residual {ref.residual:.0e}", flush=True)
    for name, settings in variants.items():
        saved = {k: getattr(eigen, k) for k in settings}
        for k, v in settings.items():
            setattr(eigen, k, v)
        try:
            times, found = [], None
            for _ in range(2):
                ts, found = t(lambda: solve(S, trivial, lower, cold.vectors))
                times.append(ts)
            gap = float(np.abs(found.values - ref.values).max())
            print(f"move 128 -> 64 warm, {name}: {times[0]:.3f} / {times[1]:.3f} s "
                  f"(residual {found.residual:.0e}, max dlambda vs cold {gap:.0e})", flush=True)  # fmt: skip
            if name == "default":
                with Breakdown(device) as parts:
                    tb, _ = t(lambda: solve(S, trivial, lower, cold.vectors))
                print(f"  parts of one warm solve ({tb:.3f} s): {parts.report(tb)}", flush=True)
        finally:
            for k, v in saved.items():
                setattr(eigen, k, v)
    with tempfile.TemporaryDirectory() as folder:
        store = graph_store.ArrayStore(folder)
        shared = graph_store.shared_graph(
            X, neighbours, store=store, build=lambda *a, **k: build_graph(*a, **k, device=device)
        )
        for lam in (128.0, 64.0, 32.0, 64.0):
            est = TDL(n_components=vectors, lam=lam, k=20, n_neighbors=neighbours, device=device)
            tf, _ = t(lambda e=est: e.fit(X, labels, graph=shared))
            parts = ", ".join(f"{k} {v:.3f}" for k, v in est.timings_.items())
            print(f"TDL.fit on the stored graph, lam {lam:g}: {tf:.3f} s ({parts}; "
                  f"{est.eigen_solver_}, residual {est.eigen_residual_:.0e})", flush=True)  # fmt: skip


def host_work_part(device="gpu", n=None, repeats=5):
    """What a λ move on the Embed page does besides `TDL.fit`, each step timed alone on all of
    MNIST (TDL's defaults, as the page: 2 vectors, 10 neighbours; 10 % labelled), graph stored:
    the page's 1-NN score of the embedding, the graph check behind the collapse warning, the
    collapse count, the chart's figure and its JSON (what Streamlit sends). Without py-spy (it
    needs ptrace), so it runs wherever the app does. Median of `repeats`, in ms."""
    import tempfile

    from metriclab import graph_store, plots
    from metriclab.evaluation import knn_accuracy
    from metriclab.graphs import build_graph
    from metriclab.ui.shared import compute

    digits = load("mnist")
    X, y = digits.X[:n], digits.y[:n]
    X = np.array(X)  # owning its memory and read-only, as the app's data sets (facts kept)
    X.flags.writeable = False
    mask = labeled_mask(y, fraction=0.1, seed=0)
    labels = partial_labels(y, mask)

    def median_ms(step):
        times = [t(step)[0] for _ in range(repeats)]
        return 1000 * float(np.median(times))

    with tempfile.TemporaryDirectory() as folder:
        os.environ[graph_store.DIRECTORY_ENV] = folder  # the stored scores too
        store = graph_store.ArrayStore(folder)
        shared = graph_store.shared_graph(
            X, 10, store=store, build=lambda *a, **k: build_graph(*a, **k, device=device)
        )
        rows = {}
        for lam in (32.0, 64.0, 128.0, 64.0):
            est = TDL(lam=lam, device=device)
            rows.setdefault("TDL.fit on the stored graph", []).append(
                1000 * t(lambda e=est: e.fit(X, labels, graph=shared))[0]
            )
        Z = np.asarray(est.embedding_, dtype=np.float64)
        moves = iter([Z * (1 + 1e-12 * i) for i in range(repeats)])  # a new embedding each time

        def score():  # a miss of the stored scores, as after a λ move
            Zi = next(moves)
            return knn_accuracy(Zi[mask], y[mask], Zi[~mask], y[~mask], device="auto")

        rows["1-NN score of the embedding (the page's tile)"] = [median_ms(score)]
        rows["graph check (pieces, cut-off points)"] = [median_ms(lambda: compute.graph_check(est))]
        rows["collapse count"] = [median_ms(lambda: compute.collapsed_counts(Z, mask))]
        figure = plots.embedding_scatter(Z[:, :2], y, mask, digits.target_names)
        rows["figure"] = [
            median_ms(lambda: plots.embedding_scatter(Z[:, :2], y, mask, digits.target_names))
        ]
        rows["figure's JSON"] = [median_ms(figure.to_json)]
    print(f"host work of a λ move, {X.shape[0]:,} digits, device {device} (ms):")
    for name, values in rows.items():
        print(f"  {name}: " + ", ".join(f"{v:.1f}" for v in values), flush=True)


def warm_up_part():
    """After `metriclab.warm_up.gpu_kernels` (run with ~/.cupy/kernel_cache emptied, as on a fresh
    machine): the app's first MNIST view's GPU steps, each timed, with the kernels CuPy still had
    to compile in it (names from the source NVRTC was given)."""
    import re

    import cupy.cuda.compiler as compiler

    from metriclab import warm_up
    from metriclab.evaluation import knn_accuracy

    compiled = []  # each module CuPy builds or loads from its disk cache, in this process

    def recording(real):
        def record(source, *args, **kwargs):
            names = re.findall(r"__global__\s+void\s+(\w+)", str(source))
            compiled.append(",".join(names)[:80] or str(source)[:60].replace("\n", " "))
            return real(source, *args, **kwargs)

        return record

    for name in ("compile_using_nvrtc", "_compile_module_with_cache", "compile_with_cache"):
        if hasattr(compiler, name):
            setattr(compiler, name, recording(getattr(compiler, name)))
    sync = _sync("gpu")

    def step(name, run):
        compiled.clear()
        started = time.perf_counter()
        run()
        sync()
        print(f"{name}: {time.perf_counter() - started:.2f} s, {len(compiled)} kernels compiled or loaded"
              + (f": {'; '.join(compiled)}" if compiled else ""), flush=True)  # fmt: skip

    step("warm_up.gpu_kernels", warm_up.gpu_kernels)
    digits = load("mnist")
    X, y = digits.X, digits.y
    labels = partial_labels(y, labeled_mask(y, fraction=0.1, seed=0))  # the app's 10 %
    for name, est in (
        ("TDL, the app's defaults", TDL(n_components=2, n_neighbors=10, k=5, device="gpu")),
        ("TDL again (all compiled)", TDL(n_components=2, n_neighbors=10, k=5, device="gpu")),
        ("Laplacian Eigenmaps", LaplacianEigenmaps(n_components=2, n_neighbors=10, device="gpu")),
    ):
        step(name, lambda est=est: est.fit(X, labels))
        timings = getattr(est, "timings_", {})
        print("  parts: " + ", ".join(f"{k} {v:.3f}" for k, v in timings.items()), flush=True)
    known = labels >= 0
    step("Euclidean 1-NN", lambda: knn_accuracy(X[known], y[known], X[~known], y[~known], 1, "gpu"))


def graph_selection_part(repeats: int = 3):
    """All of MNIST's 10-NN graph on the GPU by `brute_force_neighbors`: the selection by PyTorch's
    topk (`graphs.torch_topk`) against CuPy's argpartition, each run once first, then timed
    `repeats` times (synchronised); the two graphs' neighbour sets compared."""
    import metriclab.graphs as graphs

    X = load("mnist").X
    sync = _sync("gpu")
    found = {}
    for name, topk in (("torch topk", graphs.torch_topk()), ("cupy argpartition", None)):
        if name == "torch topk" and topk is None:
            print("torch topk: PyTorch with CUDA not importable", flush=True)
            continue
        real = graphs.torch_topk
        graphs.torch_topk = lambda topk=topk: topk
        try:
            found[name] = brute_force_neighbors(X, 11, device="gpu")
            times = []
            for _ in range(repeats):
                started = time.perf_counter()
                brute_force_neighbors(X, 11, device="gpu")
                sync()
                times.append(time.perf_counter() - started)
        finally:
            graphs.torch_topk = real
        print(f"{name}: 11-NN of 70,000 digits {min(times):.3f} s (of {repeats}: "
              f"{', '.join(f'{x:.3f}' for x in times)})", flush=True)  # fmt: skip
    if len(found) == 2:
        (d1, i1), (d2, i2) = found.values()
        same = np.mean([len(set(a) & set(b)) / len(a) for a, b in zip(i1, i2, strict=True)])
        print(f"same neighbour sets: {same:.6f}; max distance difference "
              f"{np.abs(d1 - d2).max():.1e}", flush=True)  # fmt: skip


def main():
    if "--graph" in sys.argv:
        graph_selection_part()
        return
    if "--warm-up" in sys.argv:
        warm_up_part()
        return
    if "--host-work" in sys.argv:  # --cpu: on 10,000 digits without a GPU
        host_work_part("cpu", 10_000) if "--cpu" in sys.argv else host_work_part("gpu")
        return
    if "--lambda-move" in sys.argv:
        cpu = "--cpu" in sys.argv  # a dry run on a machine without a GPU (5,000 digits)
        if cpu:
            lambda_part("cpu", 5000, 20)
            return
        lambda_part("gpu", None, 10, 10)  # the app's graph (10 neighbours), Dimensions raised to 10
        lambda_part("gpu", None, 60, 20)  # the paper's MNIST settings (issue 42's table)
        return
    for part in (graph_part, mnist_part):
        try:
            part()
        except Exception as e:  # noqa: BLE001
            print(part.__name__, "failed:", type(e).__name__, e)


def graph_part():
    import cupy

    try:
        import torch  # noqa: F401

        print("torch", torch.__version__, torch.cuda.is_available())
    except Exception as e:  # noqa: BLE001
        print("torch: not available", type(e).__name__)
    X, _ = make_blobs(
        1_000_000, n_features=10, centers=6, cluster_std=1.0, center_box=(-4.0, 4.0), random_state=0
    )
    q = np.random.default_rng(0).choice(X.shape[0], 2000, replace=False)
    _, exact = brute_force_neighbors(X, 11, query=X[q], device="gpu")  # includes self
    from cupyx.scipy.spatial import KDTree

    Xg = cupy.asarray(X)
    KDTree(Xg[:20000]).query(Xg[:100], k=11)
    cupy.cuda.Device().synchronize()
    tb, tree = t(lambda: KDTree(Xg))

    def query():
        d, i = tree.query(Xg, k=11)
        cupy.cuda.Device().synchronize()
        return cupy.asnumpy(i)

    tq, idx = t(query)
    rec = np.mean([np.intersect1d(idx[q[r]], exact[r]).size / 11 for r in range(len(q))])
    print(f"KDTree 10^6 x 10-D k=10: build {tb:.2f} s, query {tq:.2f} s, recall vs exact {rec:.4f}")
    Xf = X.astype(np.float32)
    tf, _ = t(lambda: brute_force_neighbors(Xf[:200_000], 10, device="gpu"))
    print(f"brute force float32, 2e5 points: {tf:.2f} s")


def mnist_part():
    digits = load("mnist")
    Xm, ym = digits.X, digits.y
    mask = labeled_mask(ym, fraction=0.05, seed=0)
    yp = partial_labels(ym, mask)
    for dev in ("gpu", "cpu"):
        est = TDL(n_components=60, lam=128, k=20, n_neighbors=20, device=dev)
        tt, _ = t(lambda e=est: e.fit(Xm, yp))
        print(f"TDL MNIST 70,000 end to end device={dev}: {tt:.2f} s (device_={est.device_})")
        est.set_params(lam=64)
        tl, _ = t(lambda e=est: e.fit(Xm, yp))
        print(f"  refit lam=64 (no stored graph): {tl:.2f} s")
        if dev == "cpu":
            break
    le = LaplacianEigenmaps(n_components=60, n_neighbors=20, device="gpu")
    tle, _ = t(lambda: le.fit(Xm))
    print(f"LE MNIST device=gpu end to end: {tle:.2f} s")


if __name__ == "__main__":
    main()
