"""Bench: TDL / Laplacian Eigenmaps at 2,000 / 10,000 / 100,000 points against scikit-learn's
SpectralEmbedding on the same kNN graph, measured in the same run.

    python bench/spectral.py            # full: n = 2e3, 1e4, 1e5 (10-D) and MNIST 5,000 (784-D)
    python bench/spectral.py --quick    # n = 2e3 and 1e4 only, 10 eigenvectors, MNIST 2,000

Data (10-D): a Swiss roll (scikit-learn `make_swiss_roll`) rotated into 10-D by a random orthogonal
map plus isotropic noise 0.01 in all 10 coordinates, 10 classes = segments along the roll, 10 %
labeled (the labels only feed TDL's cost). A manifold in 10-D is the setting of the paper; on
full-rank 10-D Gaussian data exact kNN search alone takes minutes at 10^5 points (kd-tree, 2 cores).

Every measurement runs in a forked child process: wall time of each stage (kNN graph, cost
matrix, eigensolve), CPU time of the whole fit (user + system, all threads: robust to the other
jobs on a shared machine, where wall time is not), peak extra resident memory of the child (ru_maxrss minus its RSS at start), and
a time cap for SpectralEmbedding (--cap seconds). Peers: SpectralEmbedding(affinity='precomputed',
eigen_solver='arpack') fitted on our LE's `affinity_` (so the graph is identical); both run
shift-invert ARPACK, ours with the trivial vector deflated and a symmetric-mode LU.
Ratio = SpectralEmbedding time / our LE eigensolve time on that graph, and end to end (SE time plus
the same graph time) / our LE total including the graph. The machine is shared: read the numbers
as medians of noisy runs.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import ortho_group
from sklearn.datasets import make_swiss_roll
from sklearn.manifold import SpectralEmbedding

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metriclab.datasets import load  # noqa: E402
from metriclab.evaluation import labeled_mask, partial_labels  # noqa: E402
from metriclab.graphs import build_graph, degrees  # noqa: E402
from metriclab.methods.spectral import (  # noqa: E402
    TDL,
    LaplacianEigenmaps,
    cost_laplacian,
    cost_lower_bound,
    cost_matrix,
    penalized_problem,
    smallest_eigenpairs,
)

N_NEIGHBORS = 10


def swiss_roll_10d(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    roll, t = make_swiss_roll(n, noise=0.0, random_state=seed)
    rotation = ortho_group.rvs(10, random_state=seed)[:3]
    X = roll @ rotation + 0.01 * np.random.default_rng(seed).standard_normal((n, 10))
    y = np.digitize(t, np.quantile(t, np.linspace(0, 1, 11)[1:-1]))
    return X, y


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _child(conn, job, args):
    start = _rss_mb()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    try:
        result = job(*args)
        end = resource.getrusage(resource.RUSAGE_SELF)
        result["memory_mb"] = end.ru_maxrss / 1024 - start
        # CPU seconds of the child (all threads): robust to other jobs on the machine
        result["cpu"] = end.ru_utime + end.ru_stime - usage.ru_utime - usage.ru_stime
        conn.send(result)
    except Exception as exc:  # report, do not hang the parent
        conn.send({"error": f"{type(exc).__name__}: {exc}"})
    conn.close()


def isolated(job, *args, cap: float | None = None) -> dict:
    """Run job(*args) -> dict in a forked child; {'capped': True} if it exceeds `cap` seconds."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    process = ctx.Process(target=_child, args=(child, job, args))
    process.start()
    child.close()
    if parent.poll(cap):
        result = parent.recv()
        process.join()
        return result
    process.terminate()
    process.join()
    return {"capped": True}


# ---- the jobs (run inside the child) -------------------------------------------------------------


def job_fit(kind: str, X, y_partial, n_components: int, solver: str) -> dict:
    params = {"n_components": n_components, "n_neighbors": N_NEIGHBORS, "eigen_solver": solver}
    model = TDL(lam=16.0, k=5, **params) if kind == "tdl" else LaplacianEigenmaps(**params)
    clock = time.perf_counter()
    model.fit(X, y_partial)
    total = time.perf_counter() - clock
    out = {"total": total, **model.timings_}
    if kind == "le":
        out["affinity"] = model.affinity_
        out["embedding"] = model.embedding_ if X.shape[0] <= 20_000 else None
        out["degrees"] = model.degrees_
    return out


def job_spectral_embedding(W, n_components: int) -> dict:
    model = SpectralEmbedding(
        n_components=n_components, affinity="precomputed", eigen_solver="arpack", random_state=0
    )
    clock = time.perf_counter()
    Z = model.fit_transform(W)
    return {"total": time.perf_counter() - clock, "embedding": Z if W.shape[0] <= 20_000 else None}


def job_solver(S, trivial, n_components: int, solver: str, lower: float) -> dict:
    clock = time.perf_counter()
    smallest_eigenpairs(S, n_components, trivial, solver=solver, tol=1e-8, lower=lower)
    return {"total": time.perf_counter() - clock}


def subspace_agreement(ours, theirs, degrees) -> float:
    """Smallest cosine of the principal angles between our symmetric-Laplacian eigenvectors and
    SpectralEmbedding's (which returns D^-1/2 y: multiply back by D^1/2)."""
    A, _ = np.linalg.qr(ours)
    B, _ = np.linalg.qr(theirs * np.sqrt(degrees)[:, None])
    return float(np.linalg.svd(A.T @ B, compute_uv=False).min())


# ---- the table -----------------------------------------------------------------------------------


def _fmt(value, digits=2):
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "–"
    return f"{value:.{digits}f}"


def bench_case(name, X, y, n_components_list, cap, rows, log):
    mask = labeled_mask(y, fraction=0.1, seed=0)
    y_partial = partial_labels(y, mask)
    for n_components in n_components_list:
        tdl = isolated(job_fit, "tdl", X, y_partial, n_components, "auto", cap=cap)
        le = isolated(job_fit, "le", X, y_partial, n_components, "auto", cap=cap)
        if any("error" in r or r.get("capped") for r in (tdl, le)):
            log(f"{name} n={X.shape[0]} k={n_components}: TDL {tdl}, LE {le.keys()} (capped/error)")
            continue
        se = isolated(job_spectral_embedding, le["affinity"], n_components, cap=cap)
        agreement = None
        if not se.get("capped") and "error" not in se and se.get("embedding") is not None:
            agreement = subspace_agreement(le["embedding"], se["embedding"], le["degrees"])
        se_time = None if se.get("capped") or "error" in se else se["total"]
        row = {
            "data": name,
            "n": X.shape[0],
            "dim": X.shape[1],
            "eigvecs": n_components,
            "graph_s": tdl["graph"],
            "cost_s": tdl["cost"],
            "eigen_s": tdl["eigensolve"],
            "tdl_total_s": tdl["total"],
            "tdl_mem_mb": tdl["memory_mb"],
            "le_eigen_s": le["eigensolve"],
            "le_total_s": le["total"],
            "se_s": se_time,
            "tdl_cpu_s": tdl["cpu"],
            "le_cpu_s": le["cpu"],
            "se_cpu_s": None if se_time is None else se["cpu"],
            "se_mem_mb": None if se_time is None else se["memory_mb"],
            "ratio_eigen": None if se_time is None else se_time / le["eigensolve"],
            # end to end, SpectralEmbedding also needs the graph: charge it the same graph time
            "ratio_total": None if se_time is None else (se_time + le["graph"]) / le["total"],
            "agreement": agreement,
            "note": f"SpectralEmbedding capped at {cap:.0f} s"
            if se.get("capped")
            else se.get("error", ""),
        }
        rows.append(row)
        log(
            f"{name} n={X.shape[0]} k={n_components}: TDL {tdl['total']:.2f} s "
            f"(graph {tdl['graph']:.2f}, cost {tdl['cost']:.2f}, eig {tdl['eigensolve']:.2f}), "
            f"LE {le['total']:.2f} s, SE {_fmt(se_time)} s"
        )


def solver_rows(X, y, n_components, log) -> list[str]:
    """ARPACK (SA) vs shift-invert ARPACK vs LOBPCG on the same TDL and LE matrices."""
    y_partial = partial_labels(y, labeled_mask(y, fraction=0.1, seed=0))
    W, _ = build_graph(X, n_neighbors=N_NEIGHBORS)
    C_prime = cost_laplacian(cost_matrix(X, y_partial, 5))
    lines = []
    for kind in ("TDL", "LE"):
        lines += _solver_rows(kind, X, y_partial, W, C_prime, n_components, log)
    return lines


def _solver_rows(kind, X, y_partial, W, C_prime, n_components, log) -> list[str]:
    if kind == "LE":
        C_prime = C_prime * 0.0
    S, _, trivial = penalized_problem(
        C_prime, W, degrees(W), 16.0 if kind == "TDL" else 1.0, "symmetric"
    )
    lines = []
    lower = (
        0.0 if kind == "LE" else cost_lower_bound(cost_matrix(X, y_partial, 5), np.ones(X.shape[0]))
    )
    for solver in ("arpack", "shift-invert", "lobpcg"):
        result = isolated(job_solver, S, trivial, n_components, solver, lower, cap=60)
        value = "capped" if result.get("capped") else _fmt(result.get("total"))
        lines.append(f"| {kind} | {X.shape[0]} | {n_components} | {solver} | {value} |")
        log(f"solver {kind} {solver} n={X.shape[0]}: {value} s")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--cap", type=float, default=240.0, help="time cap for SpectralEmbedding")
    args = parser.parse_args(argv)

    def log(message):
        print(message, file=sys.stderr, flush=True)

    sizes = (2_000, 10_000) if args.quick else (2_000, 10_000, 100_000)
    eigvecs = (10,) if args.quick else (10, 60)
    rows: list[dict] = []
    for n in sizes:
        X, y = swiss_roll_10d(n)
        bench_case("swiss roll 10-D", X, y, eigvecs, args.cap, rows, log)
    mnist = load("mnist_5000")
    n_mnist = 2_000 if args.quick else mnist.X.shape[0]
    bench_case("MNIST 784-D", mnist.X[:n_mnist], mnist.y[:n_mnist], eigvecs, args.cap, rows, log)

    header = (
        "| data | n | eigvecs | graph s | cost s | eigensolve s | TDL total s | TDL peak MB | "
        "LE eigensolve s | LE total s | SpectralEmbedding s | SE peak MB | SE / LE eigensolve | "
        "SE / LE total | TDL CPU s | LE CPU s | SE CPU s | SE / LE CPU | subspace cos | note |"
    )
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for r in rows:
        print(
            f"| {r['data']} | {r['n']} | {r['eigvecs']} | {_fmt(r['graph_s'])} | {_fmt(r['cost_s'])} "
            f"| {_fmt(r['eigen_s'])} | {_fmt(r['tdl_total_s'])} | {_fmt(r['tdl_mem_mb'], 0)} "
            f"| {_fmt(r['le_eigen_s'])} | {_fmt(r['le_total_s'])} | {_fmt(r['se_s'])} "
            f"| {_fmt(r['se_mem_mb'], 0)} | {_fmt(r['ratio_eigen'], 1)} | {_fmt(r['ratio_total'], 1)} "
            f"| {_fmt(r['tdl_cpu_s'])} | {_fmt(r['le_cpu_s'])} | {_fmt(r['se_cpu_s'])} "
            f"| {_fmt(None if r['se_cpu_s'] is None else r['se_cpu_s'] / r['le_cpu_s'], 1)} "
            f"| {_fmt(r['agreement'], 4)} | {r['note']} |"
        )
    print()
    print("| matrix | n | eigvecs | solver (tol 1e-8, cap 60 s) | seconds |")
    print("|---|---|---|---|---|")
    X, y = swiss_roll_10d(10_000)
    for line in solver_rows(X, y, 10, log):
        print(line)


if __name__ == "__main__":
    main()
