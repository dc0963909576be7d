"""
The tangent neighbours of a digit
=================================

Tangent distance (Simard et al.; Mody 2009) measures the distance between the tangent planes of
two images: small translations, rotations, scalings and shears cost nothing to first order. A
USPS test digit's five nearest training images under the Euclidean distance and under the
two-sided tangent distance (100 Euclidean candidates re-ranked).
"""

import numpy as np

from metriclab.datasets import load
from metriclab.methods.tangent import nearest_neighbours
from metriclab.plotting import images

ds = load("usps")
train, test = np.flatnonzero(~ds.test_mask), np.flatnonzero(ds.test_mask)
query = ds.X[test[17]]
found = nearest_neighbours(query, ds.X[train], ds.image_shape, n_neighbors=5)

for kind in ("euclidean", "tangent"):
    indices, distances = found[kind]
    pictures = np.vstack([query, ds.X[train[indices]]])
    titles = ["query"] + [
        f"{ds.target_names[ds.y[train[i]]]} d={d:.0f}"
        for i, d in zip(indices, distances, strict=True)
    ]
    fig = images(pictures, ds.image_shape, titles=titles, n_cols=6, title=f"{kind} distance")
    fig.show()
