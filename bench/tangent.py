"""Bench: tangent-distance 1-NN at USPS size against plain Euclidean 1-NN, in one process.

USPS 16×16 (sample_data's seeded 7291 train / 2007 test split), pixels scaled to [-1, 1]. Rows:
- Euclidean 1-NN: scikit-learn KNeighborsClassifier (brute force), fit + predict;
- two-sided tangent distance 1-NN (six transformations, σ = 0.75, 100 Euclidean pre-filter),
  fit (tangents + orthonormal bases of 7291 images) + predict (2007 × 100 batched least squares);
- one-sided tangent distance 1-NN, same pre-filter;
- per-pair loop: the same two-sided distances computed pair by pair with `numpy.linalg.lstsq`
  (what an unbatched implementation does), timed on the first `--loop-queries` test images and
  extrapolated to all of them.
Medians over `--runs`; wall-clock and CPU time (process_time); ratio = time / Euclidean time.
The machine is shared: the load average is printed with the table.

    python bench/tangent.py [--runs 3] [--threads 1] [--quick] [--loop-queries 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from sklearn.neighbors import KNeighborsClassifier
from threadpoolctl import threadpool_limits

from metriclab.datasets import load
from metriclab.methods.tangent import TangentDistanceKNN, tangent_distance_lstsq

SIGMA = 0.75
TRANSFORMS = "affine6"


def timed(function):
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def usps(quick: bool):
    ds = load("usps")
    X = ds.X / 127.5 - 1.0
    train, test = np.flatnonzero(~ds.test_mask), np.flatnonzero(ds.test_mask)
    if quick:
        rng = np.random.default_rng(0)
        train, test = rng.choice(train, 2000, replace=False), rng.choice(test, 500, replace=False)
    return X[train], ds.y[train], X[test], ds.y[test], ds.image_shape


def run_euclidean(Xtr, ytr, Xte, yte, shape):
    model = KNeighborsClassifier(n_neighbors=1, algorithm="brute").fit(Xtr, ytr)
    return float(np.mean(model.predict(Xte) == yte))


def run_tangent(two_sided):
    def run(Xtr, ytr, Xte, yte, shape):
        model = TangentDistanceKNN(shape, TRANSFORMS, two_sided=two_sided, sigma=SIGMA)
        model.fit(Xtr, ytr)
        return float(np.mean(model.predict(Xte) == yte))

    return run


def run_loop(n_queries):
    """Per-pair lstsq over the same 100 pre-filtered candidates, for the first n_queries images."""

    def run(Xtr, ytr, Xte, yte, shape):
        model = TangentDistanceKNN(shape, TRANSFORMS, sigma=SIGMA).fit(Xtr, ytr)
        idx = model.index_.candidates(Xte[:n_queries])
        for q, cand in zip(Xte[:n_queries], idx, strict=True):
            [tangent_distance_lstsq(q, Xtr[j], shape, True, TRANSFORMS, SIGMA) for j in cand]
        return float("nan")  # a partial run: no error rate

    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads for every row")
    parser.add_argument("--quick", action="store_true", help="2000 train / 500 test")
    parser.add_argument("--loop-queries", type=int, default=20)
    args = parser.parse_args(argv)

    Xtr, ytr, Xte, yte, shape = usps(args.quick)
    n_test = len(yte)
    rows = [
        ("Euclidean 1-NN (scikit-learn, brute)", run_euclidean, 1.0),
        ("tangent distance 1-NN, two-sided (ours)", run_tangent(True), 1.0),
        ("tangent distance 1-NN, one-sided (ours)", run_tangent(False), 1.0),
        (
            f"two-sided, per-pair lstsq loop (extrapolated from {args.loop_queries} queries)",
            run_loop(args.loop_queries),
            n_test / args.loop_queries,
        ),
    ]
    load_before = os.getloadavg()
    results = []
    with threadpool_limits(limits=args.threads, user_api="blas"):
        for name, function, factor in rows:
            walls, cpus, acc = [], [], float("nan")
            runs = 1 if factor != 1.0 else args.runs
            for _ in range(runs):
                acc, wall, cpu = timed(lambda f=function: f(Xtr, ytr, Xte, yte, shape))
                walls.append(wall * factor)
                cpus.append(cpu * factor)
            results.append((name, statistics.median(walls), statistics.median(cpus), acc, runs))
    load_after = os.getloadavg()

    base_wall, base_cpu = results[0][1], results[0][2]
    print(
        f"USPS {len(ytr)} train × {n_test} test, 16×16, {TRANSFORMS}, σ={SIGMA}, pre-filter 100, "
        f"BLAS threads {args.threads}; load average {load_before[0]:.1f} before, "
        f"{load_after[0]:.1f} after (2 cores)\n"
    )
    print(
        "| method | wall s | CPU s | ms/query (wall) | ratio to Euclidean (wall / CPU) | 1-NN error % | runs |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, wall, cpu, acc, runs in results:
        err = "" if np.isnan(acc) else f"{100 * (1 - acc):.2f}"
        print(
            f"| {name} | {wall:.2f} | {cpu:.2f} | {1000 * wall / n_test:.2f} | "
            f"{wall / base_wall:.1f} / {cpu / base_cpu:.1f} | {err} | {runs} |"
        )


if __name__ == "__main__":
    main()
