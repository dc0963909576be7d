"""
LMNN against the Euclidean distance on wine
===========================================

A learned Mahalanobis metric against doing nothing: 1-NN accuracy on wine (raw features, whose
scales differ by three orders of magnitude) over 10 random splits with 30 training points, with
the Euclidean distance, NCA and LMNN (k = 3). Each line joins one split's three numbers, so the
paired differences are visible.
"""

import numpy as np
import plotly.graph_objects as go

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
methods = ["Euclidean", "NCA", "LMNN"]
fig = go.Figure()
for row in rows:  # one grey line per split
    fig.add_scatter(x=methods, y=row, mode="lines", line_color="#bbbbbb", showlegend=False)
fig.add_scatter(x=methods, y=rows.mean(axis=0), name="mean", line=dict(color="black", width=3))
fig.update_yaxes(title="1-NN accuracy")
fig.show()
