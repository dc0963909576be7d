"""
Your own CSV
============

Any CSV with numeric feature columns and one label column is a data set: `load_csv` checks it
(no NaN or infinity, no constant column, at least two classes) and every method takes it. Here a
small CSV is written first; point `load_csv` at your own file instead.
"""

import tempfile
from pathlib import Path

import numpy as np

from metriclab import TDL
from metriclab.datasets import load_csv
from metriclab.evaluation import embedding_accuracy, labeled_mask, partial_labels
from metriclab.plotting import embedding

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
tdl = TDL(n_components=2, lam=1.0, k=3, n_neighbors=8).fit(ds.X, partial_labels(ds.y, mask))
accuracy = embedding_accuracy(tdl.embedding_, ds.y, mask)

fig = embedding(ds.X, ds.y, labeled=mask, target_names=ds.target_names, title=path.name)
fig.show()

# %%
fig = embedding(
    tdl,
    ds.y,
    labeled=mask,
    target_names=ds.target_names,
    title=f"TDL from 5 labels per class: 1-NN {accuracy:.2f}",
)
fig.show()
