"""Bench: issue 37's look-closer views on all of MNIST, without a browser.

    .venv/bin/python bench/look_closer.py [--points N]

What the linked view of TDL and Laplacian Eigenmaps computes on the 70,000 digits: one kNN graph
(as the app keeps it) for both fits, TDL and LE fitted on every point, LE aligned to TDL by
`metriclab.ui.embed.linked.alignment` (Procrustes), and the neighbourhood measures on the named
sample the page uses (`quality_sample`, trustworthiness / continuity / kept neighbours at k = 5).
Each step's wall time and the process's peak resident memory after it; the load average beside.
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metriclab import TDL, LaplacianEigenmaps  # noqa: E402
from metriclab.datasets import load  # noqa: E402
from metriclab.evaluation import labeled_mask, partial_labels  # noqa: E402
from metriclab.evaluation.quality import neighbourhood_quality, quality_sample  # noqa: E402
from metriclab.graphs import knn_graph  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def step(name: str, work):
    start = time.perf_counter()
    value = work()
    print(
        f"  {name}: {time.perf_counter() - start:.1f} s, peak RSS {peak_mb():,.0f} MB", flush=True
    )
    return value


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=70_000, help="MNIST digits (default: all)")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # the app's module warns that no Streamlit runtime runs
    print(f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    digits = load("mnist")
    X, y = digits.X[: args.points], digits.y[: args.points]
    labels = partial_labels(y, labeled_mask(y, fraction=0.05, seed=0))
    shared = step("20-NN graph (shared by both views)", lambda: knn_graph(X, 20))
    graph = dict(n_neighbors=20, width=shared[1])
    tdl = step(
        "TDL, λ = 128 (view 1)",
        lambda: TDL(n_components=2, lam=128, k=20, **graph).fit(X, labels, graph=shared),
    )
    le = step(
        "Laplacian Eigenmaps (view 2)",
        lambda: LaplacianEigenmaps(n_components=2, **graph).fit(X, graph=shared),
    )
    from metriclab.ui.embed.linked import alignment

    aligned = step(
        "Procrustes alignment of view 2 to view 1",
        lambda: alignment(le.embedding_, tdl.embedding_).apply(le.embedding_),
    )
    sample = quality_sample(y, seed=0)
    print(f"  quality sample: {sample.size:,} of {len(y):,} points")
    for name, Z in (("TDL", tdl.embedding_), ("LE aligned", aligned)):
        q = step(
            f"trustworthiness/continuity/kept at k = 5, {name}",
            lambda Z=Z: neighbourhood_quality(X, Z, 5, y=y, sample=sample),
        )
        print(
            f"    {name}: trustworthiness {q.trustworthiness:.3f}, continuity {q.continuity:.3f}, "
            f"kept {float(np.mean(q.kept_per_point)):.3f}"
        )
    print(f"load average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
