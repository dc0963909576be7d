"""
A λ sweep: where the labels count
=================================

TDL's embedding minimises Tr(Yᵀ(C′ + λL)Y): a small λ lets the label cost C′ dominate, a large λ
gives back Laplacian Eigenmaps. On the harder moons (5 labels per moon, 5 splits) the 1-NN
accuracy of the 1-D embedding rises above LE's in a window of λ and falls back to it; the window
sits where λ·L is comparable to C′, so it moves with the Laplacian's normalization.
"""

import matplotlib.pyplot as plt
import numpy as np

from metriclab import TDL, LaplacianEigenmaps
from metriclab.datasets import load
from metriclab.evaluation import knn_accuracy, labeled_mask, partial_labels

ds = load("harder_moons")
lambdas = [0.25, 1, 4, 16, 64, 256, 1024]
masks = [labeled_mask(ds.y, per_class=5, seed=s) for s in range(5)]
fig, ax = plt.subplots(figsize=(6, 3.5))
for laplacian in ("symmetric", "unnormalized"):
    common = dict(n_components=1, n_neighbors=10, width=0.25, laplacian=laplacian)
    le = LaplacianEigenmaps(**common).fit(ds.X).embedding_
    curve, base = [], []
    for lam in lambdas:
        scores = []
        for mask in masks:
            Z = TDL(lam=lam, k=5, **common).fit(ds.X, partial_labels(ds.y, mask)).embedding_
            scores.append(knn_accuracy(Z[mask], ds.y[mask], Z[~mask], ds.y[~mask]))
        curve.append(np.mean(scores))
    base = np.mean([knn_accuracy(le[m], ds.y[m], le[~m], ds.y[~m]) for m in masks])
    (line,) = ax.plot(lambdas, curve, marker="o", label=f"TDL, {laplacian}")
    ax.axhline(base, color=line.get_color(), ls=":", label=f"LE, {laplacian}")
ax.set_xscale("log")
ax.set_xlabel("λ")
ax.set_ylabel("1-NN accuracy (mean of 5 splits)")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
