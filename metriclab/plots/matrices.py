"""Spectra, class-sorted matrices, curves and kernel weights."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from metriclab.plots.base import _fast_figure, _layout, titled, top_margin

# Spectra, matrices, curves
# --------------------------------------------------------------------------------------------------


def spectrum(
    eigenvalues: np.ndarray, title: str | None = "Eigenvalue spectrum", n_used=None
) -> go.Figure:
    """Eigenvalues in the solver's order (bars), the ones used for the embedding highlighted."""
    ev = np.ravel(np.asarray(eigenvalues, dtype=np.float64))
    n = ev.shape[0]
    colors = ["#1f77b4" if n_used is None or i < n_used else "#c7c7c7" for i in range(n)]
    step = max(1, int(np.ceil(n / 12)))  # whole-number ticks, at most about a dozen
    bar = dict(type="bar", x=np.arange(1, n + 1), y=ev, marker=dict(color=colors))
    layout = dict(
        xaxis=dict(
            title=dict(text="index"), tickmode="linear", tick0=1, dtick=step, tickformat="d"
        ),
        yaxis=dict(title=dict(text="eigenvalue")),
        height=280,
        margin=dict(l=40, r=20, t=top_margin(title), b=40),
        legend=dict(itemsizing="constant"),
        title=titled(title),
    )
    return _fast_figure([bar], layout)  # the live Embed view redraws it on every slider move


def class_order(y: np.ndarray) -> np.ndarray:
    """Permutation sorting points by class (stable, so the original order is kept within a class)."""
    return np.argsort(np.asarray(y), kind="stable")


def matrix_heatmap(
    M,
    y: np.ndarray,
    title: str | None = None,
    colorscale: str = "Viridis",
    max_size: int = 400,
) -> go.Figure:
    """n×n matrix with rows and columns sorted by class (sparse matrices are densified; large ones are
    subsampled evenly to `max_size` rows so the browser gets a small picture). Class boundaries are
    drawn as lines."""
    if hasattr(M, "toarray"):
        M = M.toarray()
    M = np.asarray(M, dtype=np.float64)
    y = np.asarray(y)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] != y.shape[0]:
        raise ValueError(f"matrix of shape {M.shape} does not match {y.shape[0]} labels")
    order = class_order(y)
    if order.shape[0] > max_size:
        order = order[np.linspace(0, order.shape[0] - 1, max_size).round().astype(int)]
    S = M[np.ix_(order, order)]
    ys = y[order]
    fig = go.Figure(go.Heatmap(z=S, colorscale=colorscale, colorbar=dict(thickness=12)))
    for b in np.flatnonzero(np.diff(ys)) + 0.5:
        fig.add_hline(y=b, line=dict(color="white", width=1))
        fig.add_vline(x=b, line=dict(color="white", width=1))
    # square cells: the plot narrows to the matrix (constrain) rather than the x axis running on
    # past its last point (a 118-point matrix drawn on an axis to 160)
    fig.update_yaxes(
        autorange="reversed", title="point (sorted by class)", scaleanchor="x", constrain="domain"
    )
    fig.update_xaxes(title="point (sorted by class)", constrain="domain")
    return _layout(fig, title, height=420)


def line_curve(
    values, title: str | None, x_title: str = "iteration", y_title: str = ""
) -> go.Figure:
    """A curve such as the majorization stress or a loss over iterations."""
    v = np.ravel(np.asarray(values, dtype=np.float64))
    fig = go.Figure(go.Scatter(x=np.arange(1, v.shape[0] + 1), y=v, mode="lines+markers"))
    fig.update_xaxes(title=x_title)
    fig.update_yaxes(title=y_title)
    return _layout(fig, title, height=280)


def weights_bar(labels: Sequence, weights, title: str | None = "Kernel weights") -> go.Figure:
    """Non-negative weights over a family of kernels (e.g. alignment weights over RBF widths)."""
    w = np.ravel(np.asarray(weights, dtype=np.float64))
    fig = go.Figure(go.Bar(x=[str(v) for v in labels], y=w))
    fig.update_xaxes(title="kernel", type="category")
    fig.update_yaxes(title="weight")
    return _layout(fig, title, height=280)
