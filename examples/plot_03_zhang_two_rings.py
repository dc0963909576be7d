"""
Zhang's two rings: feature vectors from a discriminant dissimilarity
====================================================================

Figure 3 of Zhang (2003): two concentric rings are not linearly separable, so a nearest-mean
classifier fails in the input space. The direct-sum dissimilarity δ(2) (Eq. 14) from 20 labels
per ring, embedded by the out-of-sample expansion of the MDS configuration, maps the rings to two
compact groups.
"""

import matplotlib.pyplot as plt

from metriclab import DiscriminantKernelMDS
from metriclab.datasets import load
from metriclab.evaluation import labeled_mask, nearest_mean_accuracy

ds = load("two_rings", n_samples=300)
mask = labeled_mask(ds.y, per_class=20, seed=0)
model = DiscriminantKernelMDS(dissimilarity="delta2", n_components=2, random_state=0)
model.fit(ds.X[mask], ds.y[mask])
F = model.transform(ds.X)

fig, axes = plt.subplots(1, 2, figsize=(9, 4))
for ax, Z, title in ((axes[0], ds.X, "input space"), (axes[1], F, "δ(2) feature space")):
    accuracy = nearest_mean_accuracy(Z[mask], ds.y[mask], Z[~mask], ds.y[~mask])
    ax.scatter(Z[:, 0], Z[:, 1], c=ds.y, cmap="coolwarm", s=10)
    ax.scatter(Z[mask, 0], Z[mask, 1], facecolors="none", edgecolors="k", s=50)
    ax.set_title(f"{title}: nearest mean {accuracy:.2f}")
fig.tight_layout()
plt.show()
