"""Quality beyond 1-NN (issue 37, item 3) at MNIST size: time and memory of
`metriclab.evaluation.quality` against scikit-learn's `trustworthiness`, measured in one process on
the same arrays.

    .venv/bin/python bench/quality.py [--sizes 2000 10000] [--k 7] [--no-full]

Data: seeded random subsets of the full MNIST (sample_data/mnist.npz, 784-D, pixels in [0, 1]);
the 2-D embedding is the first two principal components (the time does not depend on which 2-D
embedding it is). Rows:

- "ours: T + C + kept, per point": `neighbourhood_quality` (trustworthiness, continuity and the
  kept-neighbour share at k, each globally and per point, in one pass);
- "sklearn: T" and "sklearn: T + C": scikit-learn's `trustworthiness(X, Z)` and that plus
  `trustworthiness(Z, X)` (continuity) — the peer; ratio = peer time / our time for the same
  measures (T + C);
- "ours: 1-NN + 20 shuffles": `accuracy_with_baseline` with 10 % labelled points;
- "ours: 1-NN" and "sklearn: 1-NN": the page's score tile, `knn_accuracy` on the CPU (SciPy's
  kd-tree in the embedding's 2 dimensions) against scikit-learn's `KNeighborsClassifier(1)`, the
  labelled points classifying the others; ratio = peer time / our time;
- with the full set (unless --no-full): all 70,000 digits measured on the default sample
  (`sample='auto'`: a stratified 5,000).

Peak MB is the peak of memory traced by `tracemalloc` during the call (NumPy's arrays included).
The load average is printed beside each row: the machine is shared, so rerun before quoting.
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import numpy as np
from sklearn.decomposition import PCA
from sklearn.manifold import trustworthiness as sklearn_trustworthiness
from sklearn.neighbors import KNeighborsClassifier

from metriclab.datasets import load
from metriclab.evaluation import knn_accuracy, labeled_mask
from metriclab.evaluation.quality import accuracy_with_baseline, neighbourhood_quality


def mnist(n: int | None, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """n seeded random digits of the full MNIST (all 70,000 when n is None)."""
    digits = load("mnist")
    if n is None or n >= digits.X.shape[0]:
        return digits.X, digits.y
    keep = np.sort(np.random.default_rng(seed).choice(digits.X.shape[0], n, replace=False))
    return digits.X[keep], digits.y[keep]


def measured(job):
    """(result, seconds, peak MB traced) of job()."""
    tracemalloc.start()
    start = time.perf_counter()
    result = job()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, seconds, peak


def load_average() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--k", type=int, default=7)
    parser.add_argument("--no-full", action="store_true", help="skip all 70,000 on the sample")
    args = parser.parse_args()
    k = args.k
    print(f"k = {k}; scikit-learn trustworthiness as the peer; load average = 1, 5, 15 min\n")
    print("| n | measured | what | seconds | peak MB | ratio | value | load average |")
    print("|---|---|---|---|---|---|---|---|")
    cases = [(n, None) for n in args.sizes] + ([] if args.no_full else [(None, "auto")])
    for n, sample in cases:
        X, y = mnist(n)
        Z = PCA(n_components=2, random_state=0).fit_transform(X)
        rows = []
        before = load_average()
        q, ours_s, ours_mb = measured(
            lambda X=X, Z=Z, y=y, sample=sample: neighbourhood_quality(X, Z, k, y=y, sample=sample)
        )
        measured_on = f"{q.n_points:,}" + ("" if sample is None else f" ({q.sample.name})")
        if sample is None:
            t, t_s, t_mb = measured(lambda X=X, Z=Z: sklearn_trustworthiness(X, Z, n_neighbors=k))
            c, c_s, c_mb = measured(lambda X=X, Z=Z: sklearn_trustworthiness(Z, X, n_neighbors=k))
            assert t == q.trustworthiness and c == q.continuity, "differs from scikit-learn"
            rows.append(("sklearn: T", t_s, t_mb, "", f"T {t:.4f}"))
            rows.append(("sklearn: T + C", t_s + c_s, max(t_mb, c_mb), "", f"T {t:.4f}, C {c:.4f}"))
            ratio = f"{(t_s + c_s) / ours_s:.2f}"
        else:
            ratio = "–"
        rows.insert(
            0,
            (
                "ours: T + C + kept, per point",
                ours_s,
                ours_mb,
                ratio,
                f"T {q.trustworthiness:.4f}, C {q.continuity:.4f}, kept {q.kept:.3f}",
            ),
        )
        mask = labeled_mask(y, fraction=0.1, seed=0)
        b, b_s, b_mb = measured(lambda Z=Z, y=y, mask=mask: accuracy_with_baseline(Z, y, mask))
        rows.append(
            (
                "ours: 1-NN + 20 shuffles",
                b_s,
                b_mb,
                "",
                f"{b.accuracy:.3f} vs {b.baseline_mean:.3f} ± {b.baseline_std:.3f}",
            )
        )
        a, a_s, a_mb = measured(
            lambda Z=Z, y=y, m=mask: knn_accuracy(Z[m], y[m], Z[~m], y[~m], device="cpu")
        )
        peer, p_s, p_mb = measured(
            lambda Z=Z, y=y, m=mask: float(
                np.mean(KNeighborsClassifier(1).fit(Z[m], y[m]).predict(Z[~m]) == y[~m])
            )
        )
        rows.append(("ours: 1-NN", a_s, a_mb, f"{p_s / a_s:.2f}", f"{a:.4f}"))
        rows.append(("sklearn: 1-NN", p_s, p_mb, "", f"{peer:.4f}"))
        after = load_average()
        size = f"{X.shape[0]:,}"
        for what, seconds, peak, ratio_text, value in rows:
            print(
                f"| {size} | {measured_on} | {what} | {seconds:.2f} | {peak:.0f} | {ratio_text} "
                f"| {value} | {before} → {after} |"
            )


if __name__ == "__main__":
    main()
