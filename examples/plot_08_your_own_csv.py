"""
Your own CSV
============

Any CSV with numeric feature columns and one label column is a data set: `load_csv` checks it
(no NaN or infinity, no constant column, at least two classes) and every method takes it. Here a
small CSV is written first; point `load_csv` at your own file instead.
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from metriclab import TDL
from metriclab.datasets import load_csv
from metriclab.evaluation import knn_accuracy, labeled_mask, partial_labels

rng = np.random.default_rng(0)
angle = rng.uniform(0, 2 * np.pi, 300)
radius = np.repeat([1.0, 2.0, 3.0], 100) + rng.normal(0, 0.1, 300)
label = np.repeat(["inner", "middle", "outer"], 100)
path = Path(tempfile.mkdtemp()) / "my_rings.csv"
with path.open("w") as fh:
    fh.write("x,y,label\n")
    for a, r, c in zip(angle, radius, label, strict=True):
        fh.write(f"{r * np.cos(a):.4f},{r * np.sin(a):.4f},{c}\n")

ds = load_csv(path, label_column="label")
print(ds.X.shape, ds.target_names)
mask = labeled_mask(ds.y, per_class=5, seed=0)
Z = (
    TDL(n_components=2, lam=1.0, k=3, n_neighbors=8)
    .fit(ds.X, partial_labels(ds.y, mask))
    .embedding_
)
accuracy = knn_accuracy(Z[mask], ds.y[mask], Z[~mask], ds.y[~mask])

fig, axes = plt.subplots(1, 2, figsize=(9, 4))
axes[0].scatter(ds.X[:, 0], ds.X[:, 1], c=ds.y, cmap="viridis", s=8)
axes[0].set_title(f"{path.name}")
axes[1].scatter(Z[:, 0], Z[:, 1], c=ds.y, cmap="viridis", s=8)
axes[1].set_title(f"TDL from 5 labels per class: 1-NN {accuracy:.2f}")
fig.tight_layout()
plt.show()
