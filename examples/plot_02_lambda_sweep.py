"""
A λ sweep: where the labels count
=================================

TDL's embedding minimises Tr(Yᵀ(C′ + λL)Y): a small λ lets the label cost C′ dominate, a large λ
gives back Laplacian Eigenmaps. On the harder moons (5 labels per moon, 5 splits) the 1-NN
accuracy of the 1-D embedding rises above LE's in a window of λ and falls back to it; the window
sits where λ·L is comparable to C′, so it moves with the Laplacian's normalization.
"""

import numpy as np
import plotly.graph_objects as go

from metriclab import TDL, LaplacianEigenmaps
from metriclab.datasets import load
from metriclab.evaluation import embedding_accuracy, labeled_mask, partial_labels

ds = load("harder_moons")
lambdas = [0.25, 1, 4, 16, 64, 256, 1024]
masks = [labeled_mask(ds.y, per_class=5, seed=s) for s in range(5)]
fig = go.Figure()
for laplacian, colour in (("symmetric", "#1f77b4"), ("unnormalized", "#ff7f0e")):
    common = dict(n_components=1, n_neighbors=10, width=0.25, laplacian=laplacian)
    le = LaplacianEigenmaps(**common).fit(ds.X).embedding_
    curve = []
    for lam in lambdas:
        scores = []
        for mask in masks:
            Z = TDL(lam=lam, k=5, **common).fit(ds.X, partial_labels(ds.y, mask)).embedding_
            scores.append(embedding_accuracy(Z, ds.y, mask))
        curve.append(np.mean(scores))
    base = np.mean([embedding_accuracy(le, ds.y, m) for m in masks])
    fig.add_scatter(x=lambdas, y=curve, name=f"TDL, {laplacian}", line_color=colour)
    fig.add_scatter(
        x=[lambdas[0], lambdas[-1]],
        y=[base, base],
        mode="lines",
        name=f"LE, {laplacian}",
        line=dict(color=colour, dash="dot"),
    )
fig.update_xaxes(type="log", title="λ")
fig.update_yaxes(title="1-NN accuracy (mean of 5 splits)")
fig.show()
