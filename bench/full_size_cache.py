"""All 70,000 MNIST digits as the app's full-size view computes them, cold and warm (issue 41).

Each stage runs in a fresh process (a new server process), on one array store folder:

1. cold: an empty store; the kNN graph, the label cost, TDL at λ = 128, the Laplacian Eigenmaps
   baseline and the Euclidean 1-NN baseline are computed (and stored);
2. warm: another process on the same store (a restart, a second server process of the class);
3. λ moves in the warm process, 128 → 64 → 32 → 128: the eigensolve cold (a random start) and
   warm-started from the previous λ's eigenvectors, with sparse-product counts and residuals
   (the label cost is not recomputed: its time is printed).

The app's settings: TDL defaults (2 dimensions, 10-NN heat graph, λ from the slider), 5 % of the
points labelled, MNIST unscaled as the app draws it. Prints a markdown table with the load
average beside each row (the machine may be shared: say so when quoting).

    .venv/bin/python bench/full_size_cache.py [--points 70000] [--store DIR] [--n-components 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, sys, time
import numpy as np
t_start = time.perf_counter()
from metriclab import graph_store
from metriclab.datasets import load, default_preprocess
from metriclab.evaluation import knn_accuracy, partial_labels
from metriclab.methods.spectral import TDL, LaplacianEigenmaps
from metriclab.preprocess import scale_features
import metriclab.eigen as eigen

store_dir, points, k, moves = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
out = {}
def stamp(name, t0):
    out[name] = round(time.perf_counter() - t0, 2)
t0 = time.perf_counter()
ds = load("mnist")
scaling = default_preprocess(ds)  # the app's: "none" for an image set
X = scale_features(scaling, ds.X[:points])
y = ds.y[:points]
mask = np.random.default_rng(0).random(points) < 0.05
labels = partial_labels(y, mask)
stamp("load", t0)
store = graph_store.ArrayStore(store_dir)
t0 = time.perf_counter(); graph = graph_store.shared_graph(X, 10, store=store); stamp("graph", t0)
t0 = time.perf_counter()
tdl = TDL(n_components=k, lam=128.0).fit(X, labels, graph=graph)
stamp("tdl", t0); out["tdl_stages"] = {s: round(v, 2) for s, v in tdl.timings_.items()}
out["tdl_solver"], out["tdl_residual"] = tdl.eigen_solver_, tdl.eigen_residual_
t0 = time.perf_counter(); LaplacianEigenmaps(n_components=k).fit(X, graph=graph); stamp("le", t0)
t0 = time.perf_counter()
Xe = scale_features(scaling, ds.X[:points], mask)
knn_accuracy(Xe[mask], y[mask], Xe[~mask], y[~mask]); stamp("euclidean", t0)
out["first_view_s"] = round(time.perf_counter() - t_start, 2)
if moves:
    products = [0]
    real = eigen._projected
    def counting(product, trivial):
        apply = real(product, trivial)
        def counted(x):
            products[0] += 1 if np.ndim(x) == 1 else np.shape(x)[1]
            return apply(x)
        return counted
    eigen._projected = counting
    from metriclab.eigen import smallest_eigenpairs
    from metriclab.graphs import degrees
    from metriclab.methods.spectral import cost_laplacian, cost_lower_bound, penalized_problem
    W = graph[0]
    rows, previous = [], tdl.embedding_
    for lam in (64.0, 32.0, 128.0):
        for warm in (False, True):
            products[0] = 0
            t0 = time.perf_counter()
            C, lam_ = TDL(n_components=k, lam=lam)._cost_and_lam(X, labels)  # kept per label set
            t_cost = time.perf_counter() - t0
            S, scale, trivial = penalized_problem(cost_laplacian(C), W, degrees(W), lam_, "unnormalized")
            t1 = time.perf_counter()
            found = smallest_eigenpairs(
                S, k, trivial, lower=cost_lower_bound(C, scale), start=previous if warm else None
            )
            rows.append({"lam": lam, "warm": warm, "cost_s": round(t_cost, 3),
                         "eigensolve_s": round(time.perf_counter() - t1, 2),
                         "products": products[0], "solver": found.solver,
                         "residual": found.residual, "values": [float(v) for v in found.values]})
        previous = found.vectors
    out["moves"] = rows
print("RESULT " + json.dumps(out))
"""


def run_child(store: str, points: int, k: int, moves: bool) -> dict:
    load = os.getloadavg()[0]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, store, str(points), str(k), "1" if moves else "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    if done.returncode or not line:
        raise RuntimeError(done.stderr[-3000:])
    result = json.loads(line[0][7:])
    result["load"] = (load, os.getloadavg()[0])
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=70000)
    parser.add_argument("--n-components", type=int, default=2)
    parser.add_argument("--store", help="array store folder (default: a new temporary one)")
    args = parser.parse_args(argv)
    store = args.store or tempfile.mkdtemp(prefix="metriclab-bench-store-")
    print(f"MNIST, {args.points:,} points, {args.n_components} dimensions, store {store}\n")
    print("| process | first view s | graph s | TDL s (cost, eigensolve) | LE s | Euclidean 1-NN s "
          "| TDL solver, residual | load avg 1-min (start, end) |")  # fmt: skip
    print("|---|---:|---:|---|---:|---:|---|---|")
    for name, moves in (("cold (empty store)", False), ("warm (new process)", True)):
        r = run_child(store, args.points, args.n_components, moves)
        stages = r["tdl_stages"]
        print(
            f"| {name} | {r['first_view_s']:.1f} | {r['graph']:.2f} | {r['tdl']:.2f} "
            f"({stages['cost']:.2f}, {stages['eigensolve']:.2f}) | {r['le']:.2f} "
            f"| {r['euclidean']:.2f} | {r['tdl_solver']}, {r['tdl_residual']:.1e} "
            f"| {r['load'][0]:.1f}, {r['load'][1]:.1f} |",
            flush=True,
        )
        if moves:
            warm_run = r
    print("\nλ moves in the warm process (label cost kept; eigensolve cold vs warm-started):\n")
    print("| λ | start | label cost s | eigensolve s | sparse products | solver | residual "
          "| max |Δ eigenvalue| vs cold |")  # fmt: skip
    print("|---:|---|---:|---:|---:|---|---|---|")
    rows = warm_run["moves"]
    for cold, warm in zip(rows[::2], rows[1::2], strict=True):
        delta = max(abs(a - b) for a, b in zip(cold["values"], warm["values"], strict=True))
        for row in (cold, warm):
            print(
                f"| {row['lam']:.0f} | {'previous λ' if row['warm'] else 'random'} "
                f"| {row['cost_s']:.3f} | {row['eigensolve_s']:.2f} | {row['products']} "
                f"| {row['solver']} | {row['residual']:.1e} "
                f"| {'' if not row['warm'] else f'{delta:.1e}'} |"
            )
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
