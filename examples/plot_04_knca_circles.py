"""
KNCA on nested circles: the KPCA trick
======================================

Figure 2 of Chatpatanasiri et al. (2009): no linear map separates three nested circles, so NCA's
1-D projection mixes them; the same NCA run on kernel-PCA coordinates of the 2nd-order
polynomial kernel (x'y + 1)² (KNCA) separates them.
"""

import matplotlib.pyplot as plt
import numpy as np

from metriclab import NCA, KernelPCATrick
from metriclab.datasets import load
from metriclab.evaluation import knn_accuracy, splits

ds = load("curves_circles", n_samples=300, seed=0)
_, mask = splits(ds.y, 1, fraction=0.5, seed=0)[0]
Xtr, ytr, Xte, yte = ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask]
nca = NCA(n_components=1, init="pca", max_iter=100, random_state=0).fit(Xtr, ytr)
knca = KernelPCATrick(learner="nca", kernel="polynomial", degree=2, n_components=1).fit(Xtr, ytr)

fig, axes = plt.subplots(1, 3, figsize=(11, 3.2))
axes[0].scatter(ds.X[:, 0], ds.X[:, 1], c=ds.y, cmap="viridis", s=8)
axes[0].set_title("three nested circles")
rng = np.random.default_rng(0)
for ax, model, name in ((axes[1], nca, "NCA"), (axes[2], knca, "KNCA, (x'y + 1)²")):
    z = model.transform(ds.X)[:, 0]
    accuracy = knn_accuracy(model.transform(Xtr), ytr, model.transform(Xte), yte)
    ax.scatter(z, rng.uniform(-1, 1, len(z)), c=ds.y, cmap="viridis", s=8)
    ax.set_title(f"{name}: 1-NN {accuracy:.2f}")
    ax.set_yticks([])
fig.tight_layout()
plt.show()
