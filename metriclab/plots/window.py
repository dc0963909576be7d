"""The window map: TDL (or any method) against its baseline over a grid of two parameters."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from metriclab.plots.base import _diverging, _layout


def cell_edges(values: Sequence[float], log: bool) -> np.ndarray:
    """Edges of heat-map cells centred on `values`: midpoints between neighbours (geometric ones on
    a log axis), the outer edges mirrored; a single value gets a cell of ±half a unit (×/÷ √2)."""
    v = np.asarray(values, dtype=np.float64)
    t = np.log10(v) if log else v
    if t.size == 1:
        half = np.log10(2) / 2 if log else 0.5
        edges = np.array([t[0] - half, t[0] + half])
    else:
        mid = (t[1:] + t[:-1]) / 2
        edges = np.concatenate([[2 * t[0] - mid[0]], mid, [2 * t[-1] - mid[-1]]])
    return 10**edges if log else edges


def win_boundary(wins: np.ndarray, x_edges: np.ndarray, y_edges: np.ndarray) -> tuple[list, list]:
    """Polyline (x, y with None breaks) along the cell sides that separate cells where the method
    wins from cells where it does not: the tie line drawn from the cells themselves."""
    rows, cols = wins.shape
    xs: list = []
    ys: list = []
    for i in range(rows):
        for j in range(cols):
            if j + 1 < cols and wins[i, j] != wins[i, j + 1]:  # vertical side
                xs += [x_edges[j + 1], x_edges[j + 1], None]
                ys += [y_edges[i], y_edges[i + 1], None]
            if i + 1 < rows and wins[i, j] != wins[i + 1, j]:  # horizontal side
                xs += [x_edges[j], x_edges[j + 1], None]
                ys += [y_edges[i + 1], y_edges[i + 1], None]
    return xs, ys


def window_map(
    row_values: Sequence[float],
    col_values: Sequence[float],
    accuracy: np.ndarray,
    baseline_accuracy,
    row_name: str = "λ",
    col_name: str = "width",
    title: str | None = None,
    row_log: bool = True,
    col_log: bool = True,
    baseline_name: str = "baseline",
    marks: Sequence[tuple[str, float, float, str]] = (),
    collapsed: np.ndarray | None = None,
) -> go.Figure:
    """The method's accuracy minus its baseline's over a (row × column parameter) grid, on a
    diverging scale centred at 0 (blue: the method wins), cells placed at their true values on
    log (or linear) axes, and a black line along the sides of the cells where it wins.
    `baseline_accuracy` is one number or a grid of the same shape. `marks` are settings drawn
    over the map, each (name, column value, row value, marker symbol): the paper's, the view's.
    `collapsed` (a boolean grid) marks with × the cells where an embedding collapsed: their
    accuracies, and the colour, are mostly the tie-breaking of equal distances."""
    A = np.asarray(accuracy, dtype=np.float64)
    if A.shape != (len(row_values), len(col_values)):
        raise ValueError(
            f"accuracy grid {A.shape} does not match {len(row_values)}×{len(col_values)}"
        )
    B = np.broadcast_to(np.asarray(baseline_accuracy, dtype=np.float64), A.shape)
    difference = A - B
    top = float(np.nanmax(np.abs(difference))) if np.isfinite(difference).any() else 0.0
    top = top if top > 0 else 0.01
    x_edges = cell_edges(col_values, col_log)
    y_edges = cell_edges(row_values, row_log)
    custom = np.stack([A, B], axis=-1)
    fig = go.Figure(
        go.Heatmap(
            z=difference,
            x=x_edges,
            y=y_edges,
            customdata=custom,
            **_diverging(top),
            colorbar=dict(title=dict(text=f"accuracy −<br>{baseline_name}"), thickness=12),
            hovertemplate=f"{row_name}=%{{y:.3g}}<br>{col_name}=%{{x:.3g}}"
            "<br>accuracy %{customdata[0]:.3f}<br>baseline %{customdata[1]:.3f}"
            "<br>difference %{z:+.3f}<extra></extra>",
        )
    )
    wins = np.nan_to_num(difference, nan=-np.inf) > 1e-12
    xs, ys = win_boundary(wins, x_edges, y_edges)
    if xs:
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines",
                line=dict(color="black", width=3),
                name="edge of the cells where it wins",
                hoverinfo="skip",
                showlegend=False,
            )
        )
    fig.add_trace(  # the actual grid values, so the axes show where the fits were made
        go.Scatter(
            x=np.repeat(np.asarray(col_values, float)[None, :], len(row_values), 0).ravel(),
            y=np.repeat(np.asarray(row_values, float)[:, None], len(col_values), 1).ravel(),
            mode="markers",
            marker=dict(size=3, color="rgba(0,0,0,0.35)"),
            name="grid values",
            hoverinfo="skip",
            showlegend=False,
        )
    )
    hit = np.zeros(A.shape, bool) if collapsed is None else np.asarray(collapsed, bool)
    if hit.any():
        rows, cols = np.nonzero(hit)
        fig.add_trace(
            go.Scatter(
                x=np.asarray(col_values, float)[cols],
                y=np.asarray(row_values, float)[rows],
                mode="markers",
                marker=dict(symbol="x-thin", size=14, line=dict(width=2, color="black")),
                name=f"collapsed ({int(hit.sum())} cells): tie-breaking",
                hovertemplate=f"{row_name}=%{{y:.3g}}<br>{col_name}=%{{x:.3g}}<br>an embedding "
                "collapsed here<extra></extra>",
            )
        )
    for name, col_value, row_value, symbol in marks:
        fig.add_trace(
            go.Scatter(
                x=[float(col_value)],
                y=[float(row_value)],
                mode="markers",
                marker=dict(
                    size=18 if symbol == "star" else 24,
                    symbol=symbol,
                    color="#ffd700" if symbol == "star" else "black",
                    line=dict(width=2 if symbol != "star" else 1.5, color="black"),
                ),
                name=f"{name}: {row_name} = {row_value:g}, {col_name} = {col_value:g}",
                hovertemplate=f"{name}<br>{row_name}=%{{y:.3g}}<br>{col_name}=%{{x:.3g}}"
                "<extra></extra>",
            )
        )
    if marks or hit.any():  # their legend under the map, clear of the colour bar
        fig.update_layout(legend=dict(orientation="h", y=-0.3, x=0))
    fig.update_xaxes(
        title=col_name + (" (log scale)" if col_log else ""),
        type="log" if col_log else "linear",
        range=[np.log10(x_edges[0]), np.log10(x_edges[-1])]
        if col_log
        else [x_edges[0], x_edges[-1]],
    )
    fig.update_yaxes(
        title=row_name + (" (log scale)" if row_log else ""),
        type="log" if row_log else "linear",
        range=[np.log10(y_edges[0]), np.log10(y_edges[-1])]
        if row_log
        else [y_edges[0], y_edges[-1]],
    )
    return _layout(fig, title, height=500 if marks or hit.any() else 440)
