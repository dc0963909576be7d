"""Plotly figure builders: pure functions of arrays (no streamlit), so they are testable without a browser.

Conventions: every scatter has one trace per class (colour by class, same colour order everywhere),
labeled points are drawn as larger outlined markers in a separate trace per class, and the hover
text gives the point's index and its class name.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from scipy.linalg import orthogonal_procrustes

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


def class_color(c: int) -> str:
    return PALETTE[int(c) % len(PALETTE)]


def _layout(fig: go.Figure, title: str | None, height: int = 420) -> go.Figure:
    # No template: Streamlit themes the chart, and applying a plotly template costs ~40 ms a figure.
    fig.update_layout(
        title=title,
        height=height,
        margin=dict(l=40, r=20, t=40 if title else 10, b=40),
        legend=dict(itemsizing="constant"),
    )
    return fig


def _fast_figure(data: list[dict], layout: dict, frames: list[dict] | None = None) -> go.Figure:
    """A figure from plain dicts without plotly's property validation (10-50× faster to build;
    the live Embed view rebuilds its figures on every slider move). Callers pass known keys only."""
    spec = {"data": data, "layout": layout}
    if frames is not None:
        spec["frames"] = frames
    return go.Figure(spec, _validate=False)


# --------------------------------------------------------------------------------------------------
# Embedding geometry for display: normalisation, alignment, fixed ranges
# --------------------------------------------------------------------------------------------------


def normalize_embedding(Z: np.ndarray) -> np.ndarray:
    """Centre the embedding and scale it to unit root-mean-square radius (eigenvectors have arbitrary
    scale, so this makes successive embeddings comparable on fixed axes)."""
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    Z = Z - Z.mean(axis=0)
    rms = float(np.sqrt(np.mean(np.sum(Z**2, axis=1))))
    return Z / rms if rms > 0 and np.isfinite(rms) else Z


def align_to(Z: np.ndarray, reference: np.ndarray | None) -> np.ndarray:
    """Rotate/reflect `Z` onto `reference` by orthogonal Procrustes (min ||Z R - reference||, RᵀR = I).

    Eigenvectors have arbitrary sign and rotation; aligning each new embedding to the previous one
    makes a slider move morph the picture instead of flipping it. Returns Z unchanged when the shapes
    differ (different data or dimension)."""
    Z = np.asarray(Z, dtype=np.float64)
    if reference is None or np.shape(reference) != Z.shape or Z.size == 0:
        return Z
    R, _ = orthogonal_procrustes(Z, np.asarray(reference, dtype=np.float64))
    return Z @ R


def padded_range(values: np.ndarray, pad: float = 0.08) -> tuple[float, float]:
    """[min, max] of `values` widened by `pad` of the span (a unit span around a constant)."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return (-1.0, 1.0)
    lo, hi = float(values.min()), float(values.max())
    span = hi - lo if hi > lo else 1.0
    return (lo - pad * span, hi + pad * span)


def merge_ranges(old: tuple[float, float] | None, new: tuple[float, float]) -> tuple[float, float]:
    """Axis range that only grows: the picture keeps its frame while a slider moves."""
    if old is None:
        return tuple(new)
    return (min(old[0], new[0]), max(old[1], new[1]))


# --------------------------------------------------------------------------------------------------
# Scatter plots
# --------------------------------------------------------------------------------------------------


def _class_names(y: np.ndarray, target_names: Sequence[str] | None) -> list[str]:
    n_classes = int(np.max(y)) + 1 if len(y) else 0
    if target_names is None or len(target_names) < n_classes:
        return [str(c) for c in range(n_classes)]
    return [str(t) for t in target_names]


def labeled_only_legend(sel: np.ndarray, y: np.ndarray, c: int, labeled) -> bool:
    """A class's labeled trace gets its own legend entry only when the class has no unlabeled
    point (else the class's one entry, shared through the legend group, stands for both)."""
    return labeled is not None and not np.any(~labeled & (y == c))


def _scatter_traces(
    Z: np.ndarray,
    y: np.ndarray,
    labeled: np.ndarray | None,
    names: list[str],
    marker_size: int,
    index: np.ndarray | None = None,
) -> list[dict]:
    """One trace per class of unlabeled points and one per class of labeled points."""
    n = Z.shape[0]
    index = np.arange(n) if index is None else np.asarray(index)
    x = Z[:, 0]
    yy = Z[:, 1] if Z.shape[1] > 1 else np.zeros(n)
    traces = []
    groups = [(False, np.ones(n, bool) if labeled is None else ~labeled)]
    if labeled is not None:
        groups.append((True, labeled))
    for is_labeled, sel in groups:
        for c, name in enumerate(names):
            idx = np.flatnonzero(sel & (y == c))
            traces.append(
                dict(
                    type="scatter",
                    x=x[idx],
                    y=yy[idx],
                    mode="markers",
                    name=f"{name} (labeled)" if is_labeled else name,
                    legendgroup=name,  # one legend entry per class toggles both traces
                    showlegend=not is_labeled or labeled_only_legend(sel, y, c, labeled),
                    marker=dict(
                        color=class_color(c),
                        size=marker_size + 5 if is_labeled else marker_size,
                        symbol="diamond" if is_labeled else "circle",
                        line=dict(width=1.5 if is_labeled else 0, color="black"),
                        opacity=1.0 if is_labeled else 0.75,
                    ),
                    customdata=[[int(i), name] for i in index[idx]],
                    hovertemplate="index %{customdata[0]}<br>%{customdata[1]}"
                    + (" (labeled)" if is_labeled else "")
                    + "<extra></extra>",
                )
            )
    return traces


def embedding_scatter(
    Z: np.ndarray,
    y: np.ndarray,
    labeled: np.ndarray | None = None,
    target_names: Sequence[str] | None = None,
    title: str | None = None,
    x_range: tuple[float, float] | None = None,
    y_range: tuple[float, float] | None = None,
    axis_titles: tuple[str, str] = ("dimension 1", "dimension 2"),
    marker_size: int = 7,
    index: np.ndarray | None = None,
) -> go.Figure:
    """2-D scatter of an embedding (first two columns), or a 1-D strip plot when Z has one column:
    colours by class, labeled points as outlined diamonds, hover with index and label."""
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    y = np.asarray(y)
    one_d = Z.shape[1] == 1
    if one_d:
        # Strip plot: classes on separate rows with a little jitter so points do not hide each other.
        jitter = np.random.default_rng(0).uniform(-0.15, 0.15, Z.shape[0])
        Z = np.column_stack([Z[:, 0], y + jitter])
    names = _class_names(y, target_names)
    xaxis = dict(title=dict(text=axis_titles[0]), zeroline=False)
    if one_d:
        yaxis = dict(
            tickvals=list(range(len(names))),
            ticktext=names,
            title=dict(text="class"),
            zeroline=False,
        )
    else:
        yaxis = dict(title=dict(text=axis_titles[1]), zeroline=False)
    if x_range is not None:
        xaxis.update(range=[float(v) for v in x_range], autorange=False)
    if y_range is not None and not one_d:
        yaxis.update(range=[float(v) for v in y_range], autorange=False)
    layout = dict(
        xaxis=xaxis,
        yaxis=yaxis,
        height=300 if one_d else 460,
        margin=dict(l=40, r=20, t=40 if title else 10, b=40),
        legend=dict(itemsizing="constant"),
        uirevision="embedding",  # keep zoom/legend state while the data changes
    )
    if not one_d:  # equal scales: distances in the picture are the embedding's distances
        yaxis.update(scaleanchor="x", scaleratio=1)
    if title:
        layout["title"] = dict(text=title)
    traces = _scatter_traces(Z, y, labeled, names, marker_size, index)
    if labeled is not None and np.any(labeled):
        traces.append(labeled_key(marker_size))
    return _fast_figure(traces, layout)


def labeled_key(marker_size: int = 7) -> dict:
    """A legend-only entry saying what the outlined diamonds are."""
    return dict(
        type="scatter",
        x=[None],
        y=[None],
        mode="markers",
        name="labeled points",
        legendgroup="_labeled_key",
        marker=dict(
            color="white",
            size=marker_size + 5,
            symbol="diamond",
            line=dict(width=1.5, color="black"),
        ),
        hoverinfo="skip",
    )


def embedding_animation(
    frames: Sequence[np.ndarray],
    frame_labels: Sequence[str],
    y: np.ndarray,
    labeled: np.ndarray | None = None,
    target_names: Sequence[str] | None = None,
    title: str | None = None,
    slider_prefix: str = "",
    active: int = 0,
) -> go.Figure:
    """Embeddings over a parameter grid as plotly animation frames with a slider: scrubbing is done
    in the browser with no server round trip. Frames are drawn on one fixed pair of axes; the
    figure opens on frame `active`."""
    if len(frames) == 0:
        raise ValueError("no frames to animate")
    frames = [normalize_embedding(Z) for Z in frames]
    for i in range(1, len(frames)):
        frames[i] = align_to(frames[i], frames[i - 1])
    stacked = np.concatenate(frames)
    x_range = padded_range(stacked[:, 0])
    y_range = padded_range(stacked[:, 1]) if stacked.shape[1] > 1 else None
    if not 0 <= active < len(frames):
        raise ValueError(f"active frame {active} out of range 0..{len(frames) - 1}")
    fig = embedding_scatter(
        frames[active], y, labeled, target_names, title, x_range=x_range, y_range=y_range
    )
    names = _class_names(np.asarray(y), target_names)
    plotly_frames = []
    for Z, label in zip(frames, frame_labels, strict=True):
        if Z.shape[1] == 1:
            jitter = np.random.default_rng(0).uniform(-0.15, 0.15, Z.shape[0])
            Z = np.column_stack([Z[:, 0], np.asarray(y) + jitter])
        traces = _scatter_traces(Z, np.asarray(y), labeled, names, 7)
        if labeled is not None and np.any(labeled):
            traces.append(labeled_key(7))
        plotly_frames.append(dict(data=traces, name=str(label)))
    layout = fig.to_dict()["layout"]
    fig = _fast_figure(plotly_frames[active]["data"], layout, plotly_frames)
    sliders, updatemenus = animation_controls(frame_labels, active, slider_prefix, 300, True)
    fig.update_layout(
        sliders=sliders,
        updatemenus=updatemenus,
        height=560,
    )
    return fig


def animation_controls(
    frame_labels: Sequence[str],
    active: int,
    slider_prefix: str = "",
    play_ms: int = 300,
    from_current: bool = True,
    slider: dict | None = None,
) -> tuple[list[dict], list[dict]]:
    """The layout's `sliders` and `updatemenus` of an animation: a slider with one step per frame
    (moving it shows the frame at once, in the browser) and a play button to its left (from the
    current frame, or from the first). `slider` adds keys to the slider's dict."""
    steps = [
        dict(
            method="animate",
            label=str(label),
            args=[
                [str(label)],
                dict(
                    mode="immediate",
                    frame=dict(duration=0, redraw=False),
                    transition=dict(duration=0),
                ),
            ],
        )
        for label in frame_labels
    ]
    play = dict(frame=dict(duration=play_ms, redraw=False))
    if from_current:
        play["fromcurrent"] = True
    sliders = [
        dict(
            active=active,
            steps=steps,
            currentvalue=dict(prefix=slider_prefix),
            x=0.12,  # the play button sits left of the slider, not on it
            len=0.88,
            y=0,
            yanchor="top",
            pad=dict(t=50),
        )
    ]
    sliders[0].update(slider or {})
    updatemenus = [
        dict(
            type="buttons",
            showactive=False,
            x=0.1,
            y=0,
            xanchor="right",
            yanchor="top",
            pad=dict(t=60, r=10),
            buttons=[dict(label="▶ play", method="animate", args=[None, play])],
        )
    ]
    return sliders, updatemenus


def pca_2d(X: np.ndarray) -> np.ndarray:
    """First two principal component scores (fewer columns if the data has fewer features)."""
    X = np.asarray(X, dtype=np.float64)
    Xc = X - X.mean(axis=0)
    if X.shape[1] <= 2:
        return Xc
    _, _, Vt = np.linalg.svd(Xc, full_matrices=False)
    return Xc @ Vt[:2].T


# --------------------------------------------------------------------------------------------------
# Data overview
# --------------------------------------------------------------------------------------------------


def class_counts_bar(counts: dict[str, int], title: str | None = "Points per class") -> go.Figure:
    names = list(counts)
    fig = go.Figure(
        go.Bar(
            x=names,
            y=[counts[n] for n in names],
            marker_color=[class_color(i) for i in range(len(names))],
            text=[counts[n] for n in names],
            textposition="auto",
        )
    )
    fig.update_yaxes(title="points")
    return _layout(fig, title, height=300)


def image_grid(
    images: np.ndarray,
    image_shape: tuple[int, int],
    titles: Sequence[str] | None = None,
    n_cols: int = 10,
    title: str | None = None,
    signed: bool = False,
    row_height: int = 70,
) -> go.Figure:
    """Images (rows of `images`, each reshaped to `image_shape`) tiled into one grey-scale heat map;
    `signed` images (tangent vectors) are scaled symmetrically and drawn red/blue. `row_height`
    (pixels per row of images) sets the size: larger leaves room for longer titles."""
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
            tickfont=dict(size=10),
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
                font=dict(size=10),
            )
    fig = _layout(fig, title, height=max(160, row_height * n_rows + 40 + 14 * lines))
    if titles is not None and n_rows == 1:  # the figure title above the tick-label titles
        fig.update_layout(margin=dict(t=(34 if title else 6) + 14 * lines, b=10))
        if title:
            fig.update_layout(title=dict(text=title, yref="container", y=1, yanchor="top"))
    return fig


# --------------------------------------------------------------------------------------------------
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
        margin=dict(l=40, r=20, t=40 if title else 10, b=40),
        legend=dict(itemsizing="constant"),
        title=dict(text=title) if title else {},
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
    fig.update_yaxes(autorange="reversed", title="point (sorted by class)", scaleanchor="x")
    fig.update_xaxes(title="point (sorted by class)")
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
) -> go.Figure:
    """The method's accuracy minus its baseline's over a (row × column parameter) grid, on a
    diverging scale centred at 0 (blue: the method wins), cells placed at their true values on
    log (or linear) axes, and a black line along the sides of the cells where it wins.
    `baseline_accuracy` is one number or a grid of the same shape."""
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
            colorscale="RdBu",
            zmid=0.0,
            zmin=-top,
            zmax=top,
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
            hoverinfo="skip",
            showlegend=False,
        )
    )
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
    return _layout(fig, title, height=440)


def comparison_chart(summary, title: str | None = "Accuracy over splits") -> go.Figure:
    """Bar chart of mean accuracy with ±std error bars, one colour per method, grouped by data set.

    `summary` is a DataFrame with columns dataset, method (label), mean, std."""
    fig = go.Figure()
    for i, (method, part) in enumerate(summary.groupby("method", sort=False)):
        fig.add_trace(
            go.Bar(
                x=part["dataset"],
                y=part["mean"],
                error_y=dict(type="data", array=part["std"].fillna(0.0), visible=True),
                name=str(method),
                marker_color=PALETTE[i % len(PALETTE)],
            )
        )
    fig.update_layout(barmode="group")
    fig.update_yaxes(title="accuracy", rangemode="tozero")
    return _layout(fig, title, height=420)


def comparison_boxes(results, title: str | None = "Accuracy per split") -> go.Figure:
    """Box plot of per-split accuracies (DataFrame with dataset, label, accuracy)."""
    fig = go.Figure()
    for i, (label, part) in enumerate(results.groupby("label", sort=False)):
        fig.add_trace(
            go.Box(
                x=part["dataset"],
                y=part["accuracy"],
                name=str(label),
                boxpoints="all",
                marker_color=PALETTE[i % len(PALETTE)],
            )
        )
    fig.update_layout(boxmode="group")
    fig.update_yaxes(title="accuracy")
    return _layout(fig, title, height=420)


def paper_vs_ours(table, title: str | None = None) -> go.Figure:
    """Grouped bars: the paper's number beside ours (mean ± std) per setting and method."""
    t = table.copy()
    t["where"] = t["setting"].astype(str) + " · " + t["method"].astype(str)
    fig = go.Figure(
        [
            go.Bar(x=t["where"], y=t["paper"], name="paper", marker_color="#7f7f7f"),
            go.Bar(
                x=t["where"],
                y=t["ours_mean"],
                error_y=dict(type="data", array=t["ours_std"].fillna(0.0), visible=True),
                name="ours",
                marker_color="#1f77b4",
            ),
        ]
    )
    fig.update_layout(barmode="group")
    metric = ", ".join(sorted(set(map(str, t["metric"])))) if "metric" in t else ""
    fig.update_yaxes(title=metric)
    return _layout(fig, title, height=420)
