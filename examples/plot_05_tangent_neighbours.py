"""
The tangent neighbours of a digit
=================================

Tangent distance (Simard et al.; Mody 2009) measures the distance between the tangent planes of
two images: small translations, rotations, scalings and shears cost nothing to first order. A
USPS test digit's five nearest training images under the Euclidean distance and under the
two-sided tangent distance (100 Euclidean candidates re-ranked).
"""

import matplotlib.pyplot as plt
import numpy as np

from metriclab.datasets import load
from metriclab.methods.tangent import nearest_neighbours

ds = load("usps")
train, test = np.flatnonzero(~ds.test_mask), np.flatnonzero(ds.test_mask)
query = ds.X[test[17]]
found = nearest_neighbours(query, ds.X[train], ds.image_shape, n_neighbors=5)

fig, axes = plt.subplots(2, 6, figsize=(9, 3.4))
for row, kind in enumerate(("euclidean", "tangent")):
    axes[row, 0].imshow(query.reshape(ds.image_shape), cmap="gray_r")
    axes[row, 0].set_title("query" if row == 0 else "")
    axes[row, 0].set_ylabel(kind, rotation=0, ha="right")
    indices, distances = found[kind]
    for column, (i, d) in enumerate(zip(indices, distances, strict=True), start=1):
        axes[row, column].imshow(ds.X[train[i]].reshape(ds.image_shape), cmap="gray_r")
        axes[row, column].set_title(f"{ds.target_names[ds.y[train[i]]]}  d={d:.0f}", fontsize=8)
for ax in axes.ravel():
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
plt.show()
