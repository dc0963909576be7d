"""Data overview: class counts and image grids."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from metriclab.plots.base import _layout, class_color, top_margin

# Data overview
# --------------------------------------------------------------------------------------------------


def class_counts_bar(counts: dict[str, int], title: str | None = "Points per class") -> go.Figure:
    """Horizontal bars, one per class in class order, its count at its end: names on the y axis,
    wrapped, so that long ones (glass's "2 building windows, non-float processed") neither shrink
    the bars to a sliver nor run off the chart, as rotated x labels did in a third of the page."""
    names = list(counts)
    labels = [_wrapped(str(n)) for n in names]
    lines = sum(label.count("<br>") + 1 for label in labels)
    fig = go.Figure(
        go.Bar(
            x=[counts[n] for n in names],
            y=labels,
            orientation="h",
            marker_color=[class_color(i) for i in range(len(names))],
            text=[counts[n] for n in names],
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{y}: %{x} points<extra></extra>",
        )
    )
    fig.update_xaxes(title="points", rangemode="tozero")
    fig.update_yaxes(autorange="reversed", automargin=True, type="category")
    per_line, per_bar = 20, 10  # px: a label's line at 12 px, and the gap between two bars
    height = top_margin(title) + 50 + per_line * lines + per_bar * len(names)
    return _layout(fig, title, height=max(300, height))


def _wrapped(name: str, width: int = 18) -> str:
    """`name` in lines of at most about `width` characters (at its spaces), joined by <br>."""
    lines: list[str] = []
    for word in name.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(lines) or name


def image_grid(
    images: np.ndarray,
    image_shape: tuple[int, int],
    titles: Sequence[str] | None = None,
    n_cols: int = 10,
    title: str | None = None,
    signed: bool = False,
    row_height: int = 70,
    font_size: int = 12,
) -> go.Figure:
    """Images (rows of `images`, each reshaped to `image_shape`) tiled into one grey-scale heat map;
    `signed` images (tangent vectors) are scaled symmetrically and drawn red/blue. `row_height`
    (pixels per row of images) sets the size: larger leaves room for longer titles, which are
    written level (never turned) in `font_size` px."""
    images = np.asarray(images, dtype=np.float64)
    h, w = image_shape
    n = images.shape[0]
    if n == 0:
        raise ValueError("no images to show")
    n_cols = max(1, min(n_cols, n))
    n_rows = int(np.ceil(n / n_cols))
    gap = 1
    canvas = np.full((n_rows * (h + gap) - gap, n_cols * (w + gap) - gap), np.nan)
    for i in range(n):
        img = images[i].reshape(h, w)
        if signed:
            top = np.nanmax(np.abs(img))
            img = img / top if top > 0 else np.zeros_like(img)
        else:
            lo, hi = np.nanmin(img), np.nanmax(img)
            img = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
        r, c = divmod(i, n_cols)
        canvas[r * (h + gap) : r * (h + gap) + h, c * (w + gap) : c * (w + gap) + w] = img
    fig = go.Figure(
        go.Heatmap(
            z=canvas,
            colorscale="RdBu_r" if signed else "gray_r",
            showscale=False,
            hoverinfo="skip",
            zmin=-1 if signed else 0,
            zmax=1,
        )
    )
    fig.update_yaxes(autorange="reversed", visible=False, scaleanchor="x")
    fig.update_xaxes(visible=False)
    lines = 1
    if titles is not None and n_rows == 1:
        # One row: the titles are tick labels on a top axis, so plotly makes room for every line
        # of them and centres each over its image (annotations would run into each other).
        lines = max(str(t).count("<br>") + 1 for t in titles[:n])
        fig.update_xaxes(
            visible=True,
            side="top",
            tickvals=[c * (w + gap) + w / 2 - 0.5 for c in range(n)],
            ticktext=[str(t) for t in titles[:n]],
            tickfont=dict(size=font_size),
            tickangle=0,  # level: a turned caption runs into the titles above it
            showgrid=False,
            showline=False,
            zeroline=False,
            ticks="",
            automargin=False,  # the top margin below is sized for the title lines
        )
    elif titles is not None:
        for i, text in enumerate(titles[:n]):
            r, c = divmod(i, n_cols)
            fig.add_annotation(
                x=c * (w + gap) + w / 2 - 0.5,
                y=r * (h + gap) - 0.5,
                text=str(text),
                showarrow=False,
                yshift=8,
                font=dict(size=font_size),
            )
    line = font_size + 4  # px per line of a title
    head = top_margin(title) if title else 6  # the toolbar's row and the figure title
    fig = _layout(fig, title, height=max(160, row_height * n_rows + head + line * lines))
    if titles is not None and n_rows == 1:  # the figure title above the tick-label titles
        fig.update_layout(margin=dict(t=head + line * lines, b=10))
        if title:
            fig.update_layout(title=dict(text=title, yref="container", y=1, yanchor="top"))
    return fig
