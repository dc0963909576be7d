"""Bench: the CPU and the GPU in one run, on the same matrices (issue 42's table).

    python bench/gpu.py             # the issue's sizes: all 70,000 MNIST digits, 2·10^5 and
                                    # 10^6 clustered points (minutes on the CPU)
    python bench/gpu.py --small     # the same steps, small: under a minute on a 2-core CPU

Rows (each step timed once, wall seconds, in this process):
- "20-NN graph of MNIST": the CPU's `knn_distances` as every fit runs it ("auto": the PCA-candidate
  search past APPROXIMATE_MIN_WORK, else exact) against `brute_force_neighbors` on the GPU (exact);
  "agreement" is the share of the exact graph's edges the CPU graph has.
- "TDL eigensolve, λ = 128, 60 vectors" (the TDL paper's MNIST settings: 20-NN graph, cost k = 20,
  5 % labeled): the CPU's "auto" path (Chebyshev-filtered Lanczos, ARPACK), the Chebyshev-filtered
  subspace iteration (`eigen_solver="subspace"`) on the CPU with NumPy, and the same code on the GPU
  with CuPy; "agreement" is the largest eigenvalue difference against the CPU default, with each
  path's relative residual.
- "λ move 128 → 64, graph and label cost kept": the eigensolve at λ = 64 warm-started from the
  λ = 128 eigenvectors (the label cost does not depend on λ and is not recomputed).
- "Euclidean 1-NN baseline": MNIST's 60,000 training digits classify the 10,000 test digits;
  scikit-learn's KNeighborsClassifier (what `knn_accuracy` runs) against `brute_force_neighbors`;
  "agreement" is the two accuracies.
- "LE, 10-D clusters": `LaplacianEigenmaps(n_components=10, device=...)` end to end (10-NN graph
  and eigensolve), 2·10^5 and 10^6 points; the CPU column of 10^6 is not run in the full mode
  (minutes) unless --cpu-million.

The GPU column is CuPy (`pip install "metric-learning-lab[gpu]"`); where CuPy cannot import or
sees no device the column says so in one line and the CPU columns still run. Each GPU step is
run once on a small problem first (CuPy compiles its kernels on first use).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import make_blobs
from sklearn.neighbors import KNeighborsClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metriclab.array_module import _gpu_backend, gpu_available  # noqa: E402
from metriclab.datasets import load  # noqa: E402
from metriclab.eigen import smallest_eigenpairs  # noqa: E402
from metriclab.evaluation import labeled_mask, partial_labels  # noqa: E402
from metriclab.graphs import (  # noqa: E402
    brute_force_neighbors,
    degrees,
    knn_distances,
    neighbour_graph,
)
from metriclab.methods.spectral import (  # noqa: E402
    LaplacianEigenmaps,
    cost_laplacian,
    cost_lower_bound,
    cost_matrix,
    penalized_problem,
)

FULL = {"mnist": 70_000, "train": 60_000, "clusters": 200_000, "million": 1_000_000, "vectors": 60}
SMALL = {"mnist": 3_000, "train": 2_500, "clusters": 10_000, "million": 20_000, "vectors": 20}


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    text = f"{platform.node()}: {model}, {cores} cores"
    found, reason = _gpu_backend()
    if found is None:
        return text + f"; no GPU ({reason}): the GPU column is skipped"
    import cupy

    name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    return text + f"; GPU: {name} (CuPy {cupy.__version__})"


def timed(step):
    start = time.perf_counter()
    value = step()
    return time.perf_counter() - start, value


def mnist(n: int, seed: int = 0):
    digits = load("mnist")
    if n >= digits.X.shape[0]:
        return digits.X, digits.y
    keep = np.sort(np.random.default_rng(seed).choice(digits.X.shape[0], n, replace=False))
    return digits.X[keep], digits.y[keep]


def clusters(n: int, seed: int = 0):
    return make_blobs(
        n, n_features=10, centers=6, cluster_std=1.0, center_box=(-4.0, 4.0), random_state=seed
    )


def edge_share(found: np.ndarray, exact: np.ndarray) -> float:
    """The share of the exact graph's (directed) edges the found graph has."""
    hits = sum(
        np.intersect1d(a, b, assume_unique=True).size for a, b in zip(found, exact, strict=True)
    )
    return hits / exact.size


def fmt(seconds) -> str:
    return "–" if seconds is None else f"{seconds:.2f}"


def warm_up_gpu() -> None:
    """CuPy compiles a kernel on its first use: run every GPU step once on a small problem."""
    X, _ = clusters(2_000, seed=1)
    brute_force_neighbors(X, 5, device="gpu")
    brute_force_neighbors(X[:1500], 1, query=X[1500:], device="gpu")
    LaplacianEigenmaps(n_components=4, eigen_solver="subspace", device="gpu").fit(X)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="small sizes: under a minute on a CPU")
    parser.add_argument("--cpu-million", action="store_true", help="run the CPU on 10^6 points too")
    args = parser.parse_args(argv)
    size = SMALL if args.small else FULL
    gpu = gpu_available()
    print(f"machine: {machine()}")
    print(f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    if gpu:
        warm_up_gpu()
    rows = []

    def row(step, n, cpu, cpu_subspace, on_gpu, agreement):
        rows.append((step, f"{n:,}", fmt(cpu), fmt(cpu_subspace), fmt(on_gpu), agreement))
        print(
            f"  {step}: cpu {fmt(cpu)} s, cpu subspace {fmt(cpu_subspace)} s, gpu {fmt(on_gpu)} s"
        )

    # 20-NN graph of MNIST
    X, y = mnist(size["mnist"])
    n = X.shape[0]
    t_cpu, (distances, indices) = timed(lambda: knn_distances(X, 20))
    t_gpu, exact = (
        timed(lambda: brute_force_neighbors(X, 20, device="gpu")) if gpu else (None, None)
    )
    if exact is None:  # the share against the exact graph, computed on the CPU
        exact = brute_force_neighbors(X, 20)
    row(
        "20-NN graph of MNIST",
        n,
        t_cpu,
        None,
        t_gpu,
        f"CPU graph has {edge_share(indices, exact[1]):.1%} of the exact edges",
    )

    # TDL eigensolve at the paper's MNIST settings, and a λ move
    W, _ = neighbour_graph(distances, indices)
    labels = partial_labels(y, labeled_mask(y, fraction=0.05, seed=0))
    C = cost_matrix(X, labels, 20)
    C_prime, d = cost_laplacian(C), degrees(W)
    k = size["vectors"]

    def problem(lam):
        S, scale, trivial = penalized_problem(C_prime, W, d, lam, "unnormalized")
        return S, trivial, cost_lower_bound(C, scale)

    def solve(S, trivial, lower, solver, device, start=None):
        return smallest_eigenpairs(S, k, trivial, solver, lower=lower, start=start, device=device)

    results = {}
    for lam, start_from in ((128.0, None), (64.0, 128.0)):
        S, trivial, lower = problem(lam)
        times = {}
        for name, solver, device in (
            ("cpu", "auto", "cpu"),
            ("cpu-subspace", "subspace", "cpu"),
            ("gpu", "subspace", "gpu"),
        ):
            if device == "gpu" and not gpu:
                continue
            start = None if start_from is None else results[(start_from, name)].vectors
            times[name], results[(lam, name)] = timed(
                lambda S=S, t=trivial, lo=lower, s=solver, dv=device, st=start: solve(
                    S, t, lo, s, dv, st
                )
            )
        reference = results[(lam, "cpu")]
        agreement = "; ".join(
            f"{name} {results[(lam, name)].solver}: residual {results[(lam, name)].residual:.0e}"
            + (
                ""
                if name == "cpu"
                else f", max Δλ {np.abs(results[(lam, name)].values - reference.values).max():.0e}"
            )
            for name in times
        )
        step = (
            f"TDL eigensolve, λ = 128, {k} vectors"
            if start_from is None
            else "λ move 128 → 64 (graph, label cost kept; warm start)"
        )
        row(step, n, times["cpu"], times["cpu-subspace"], times.get("gpu"), agreement)

    # Euclidean 1-NN baseline: the first `train` digits classify the rest
    train = size["train"]
    X_train, y_train, X_test, y_test = X[:train], y[:train], X[train:], y[train:]
    t_cpu, accuracy = timed(
        lambda: float(
            np.mean(KNeighborsClassifier(1).fit(X_train, y_train).predict(X_test) == y_test)
        )
    )
    agreement = f"accuracy CPU {accuracy:.4f}"
    t_gpu = None
    if gpu:
        t_gpu, (_, nearest) = timed(
            lambda: brute_force_neighbors(X_train, 1, query=X_test, device="gpu")
        )
        agreement += f", GPU {float(np.mean(y_train[nearest[:, 0]] == y_test)):.4f}"
    row("Euclidean 1-NN baseline", X_test.shape[0], t_cpu, None, t_gpu, agreement)

    # Laplacian Eigenmaps on 10-D clusters
    for n_points, label in (
        (size["clusters"], "LE, 10-D clusters (the 2·10^5 row)"),
        (size["million"], "LE, 10-D clusters (the 10^6 row)"),
    ):
        Xc, _ = clusters(n_points)
        fits = {}
        run_cpu = args.small or args.cpu_million or n_points < FULL["million"]
        for device in ("cpu", "gpu"):
            if (device == "gpu" and not gpu) or (device == "cpu" and not run_cpu):
                continue
            fits[device] = timed(
                lambda dv=device, data=Xc: LaplacianEigenmaps(n_components=10, device=dv).fit(data)
            )
        parts = [
            f"{dv}: graph {fit.timings_['graph']:.2f} s, eigensolve {fit.timings_['eigensolve']:.2f} s"
            f" ({fit.eigen_solver_}, residual {fit.eigen_residual_:.0e})"
            for dv, (_, fit) in fits.items()
        ]
        if len(fits) == 2:
            gap = np.abs(fits["gpu"][1].eigenvalues_ - fits["cpu"][1].eigenvalues_).max()
            parts.append(f"max Δλ {gap:.0e}")
        row(
            label,
            n_points,
            fits["cpu"][0] if "cpu" in fits else None,
            None,
            fits["gpu"][0] if "gpu" in fits else None,
            "; ".join(parts) if parts else "not run",
        )

    print(f"\nload average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}\n")
    print(
        "| step | n | CPU s (default path) | CPU s (subspace, the GPU's algorithm) | GPU s | agreement |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if not gpu:
        print(f"\nGPU column skipped: {_gpu_backend()[1]}.")


if __name__ == "__main__":
    main()
