"""Bench: the 20-NN graph of MNIST under two-sided tangent distance (TDL's tangent prior, Li, Yang
& Wang 2007 Section 5.3) against the Euclidean 20-NN graph, in one process.

Rows (all on the first `--n` MNIST digits, pixels 0..255, seven transformations, σ = 0.75):
- Euclidean exact 20-NN (scikit-learn NearestNeighbors, brute force): the peer, and the cost of a
  plain graph of the same size;
- tangent bases: tangent vectors and their orthonormal bases for every digit (once);
- hierarchical tangent 20-NN: each digit's `--prefilter` Euclidean nearest (scikit-learn, brute)
  re-ranked by tangent distance (metriclab.methods.tangent.knn.hierarchical_neighbours);
- exhaustive tangent 20-NN: every tangent distance of `--sample` digits, extrapolated to all;
  also gives the recall of the pre-filter (share of the exhaustive neighbours found).
Wall-clock and CPU time (process_time); the load average is printed with the table.

    python bench/tangent_graph.py [--n 70000] [--prefilter 100] [--sample 50] [--quick]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.neighbors import NearestNeighbors

from metriclab.datasets import load
from metriclab.methods.tangent.knn import _TangentIndex, hierarchical_neighbours
from metriclab.methods.tangent.vectors import resolve_transforms
from metriclab.reproduce.tdl_tangent import exhaustive_distances, prefilter_recall

K = 20
SIGMA = 0.75


def timed(function):
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=70_000)
    parser.add_argument("--prefilter", type=int, default=100)
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="5,000 digits, 10 sampled")
    args = parser.parse_args()
    n, sample_size = (5_000, 10) if args.quick else (args.n, args.sample)
    ds = load("mnist")
    X = ds.X[:n].astype(np.float64)
    rows = []

    _, wall, cpu = timed(lambda: NearestNeighbors(n_neighbors=K).fit(X).kneighbors())
    euclid = wall
    rows.append(("Euclidean exact 20-NN (scikit-learn, brute)", wall, cpu, f"{n:,} digits"))

    def bases():
        return _TangentIndex(
            X, ds.image_shape, resolve_transforms("all7"), SIGMA, True, 0.0, args.prefilter
        )

    index, wall, cpu = timed(bases)
    rows.append(("tangent bases (7 transformations)", wall, cpu, "once per data set"))
    _, wall, cpu = timed(lambda: hierarchical_neighbours(index, K))
    pairs = n * args.prefilter
    rows.append(
        (
            f"hierarchical tangent 20-NN ({args.prefilter} Euclidean candidates)",
            wall,
            cpu,
            f"{pairs:,} tangent distances, {pairs / wall:,.0f} per s",
        )
    )
    sample = np.random.default_rng(0).choice(n, sample_size, replace=False)
    _, wall, cpu = timed(lambda: [exhaustive_distances(index, r) for r in sample])
    scale = n / sample_size
    rows.append(
        (
            f"exhaustive tangent 20-NN ({sample_size} digits, extrapolated)",
            wall * scale,
            cpu * scale,
            f"{n * (n - 1):,} tangent distances",
        )
    )
    recall = prefilter_recall(index, sample, K, (20, 50, args.prefilter))

    print(f"\nMNIST, first {n:,} digits; load average {os.getloadavg()}")
    print("| step | wall s | CPU s | ratio to the Euclidean graph (wall) | note |")
    print("|---|---:|---:|---:|---|")
    for name, wall, cpu, note in rows:
        print(f"| {name} | {wall:.1f} | {cpu:.1f} | {wall / euclid:.1f} | {note} |")
    text = ", ".join(f"{r:.1%} with {p}" for p, r in recall.items())
    print(f"\nrecall of the pre-filter on {sample_size} digits: {text} Euclidean candidates")


if __name__ == "__main__":
    main()
