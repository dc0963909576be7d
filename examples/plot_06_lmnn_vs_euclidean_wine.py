"""
LMNN against the Euclidean distance on wine
===========================================

A learned Mahalanobis metric against doing nothing: 1-NN accuracy on wine (raw features, whose
scales differ by three orders of magnitude) over 10 random splits with 30 training points, with
the Euclidean distance, NCA and LMNN (k = 3). Each line joins one split's three numbers, so the
paired differences are visible.
"""

import matplotlib.pyplot as plt
import numpy as np

from metriclab import LMNN, NCA
from metriclab.datasets import load
from metriclab.evaluation import knn_accuracy, splits

ds = load("wine")
rows = []
for _, mask in splits(ds.y, 10, n_train=30, seed=0):
    Xtr, ytr, Xte, yte = ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask]
    nca = NCA(init="pca", max_iter=100, random_state=0).fit(Xtr, ytr)
    lmnn = LMNN(k=3).fit(Xtr, ytr)
    rows.append(
        [
            knn_accuracy(Xtr, ytr, Xte, yte),
            knn_accuracy(nca.transform(Xtr), ytr, nca.transform(Xte), yte),
            knn_accuracy(lmnn.transform(Xtr), ytr, lmnn.transform(Xte), yte),
        ]
    )
rows = np.array(rows)
fig, ax = plt.subplots(figsize=(5, 3.8))
ax.plot([0, 1, 2], rows.T, color="0.7", lw=0.8)
ax.plot([0, 1, 2], rows.mean(axis=0), color="k", marker="o", lw=2, label="mean")
ax.set_xticks([0, 1, 2], ["Euclidean", "NCA", "LMNN"])
ax.set_ylabel("1-NN accuracy")
ax.legend()
fig.tight_layout()
plt.show()
