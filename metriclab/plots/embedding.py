"""Scatter plots of embeddings (one trace per class, labelled points outlined), their animation
frames and the PCA view."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from metriclab.plots.base import (
    _fast_figure,
    align_to,
    class_color,
    normalize_embedding,
    padded_range,
)

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


WEBGL_ABOVE = 5000  # points: drawn with WebGL (scattergl), hover data kept to the index


def _scatter_traces(
    Z: np.ndarray,
    y: np.ndarray,
    labeled: np.ndarray | None,
    names: list[str],
    marker_size: int,
    index: np.ndarray | None = None,
) -> list[dict]:
    """One trace per class of unlabeled points and one per class of labeled points (WebGL past
    WEBGL_ABOVE points, where the per-point hover data is the index alone)."""
    n = Z.shape[0]
    webgl = n > WEBGL_ABOVE
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
            suffix = " (labeled)" if is_labeled else ""
            hover = (
                dict(
                    customdata=index[idx],
                    hovertemplate=f"index %{{customdata}}<br>{name}{suffix}<extra></extra>",
                )
                if webgl
                else dict(
                    customdata=[[int(i), name] for i in index[idx]],
                    hovertemplate="index %{customdata[0]}<br>%{customdata[1]}"
                    + suffix
                    + "<extra></extra>",
                )
            )
            # WebGL: many points, so small dots and labelled diamonds that do not cover them
            size = (
                (marker_size - 5 if is_labeled else max(2, marker_size - 4))
                if webgl
                else marker_size
            )
            traces.append(
                dict(
                    type="scattergl" if webgl else "scatter",
                    x=x[idx],
                    y=yy[idx],
                    mode="markers",
                    name=f"{name} (labeled)" if is_labeled else name,
                    legendgroup=name,  # one legend entry per class toggles both traces
                    showlegend=not is_labeled or labeled_only_legend(sel, y, c, labeled),
                    marker=dict(
                        color=class_color(c),
                        size=size + 5 if is_labeled else size,
                        symbol="diamond" if is_labeled else "circle",
                        line=dict(
                            width=(0.5 if webgl else 1.5) if is_labeled else 0, color="black"
                        ),
                        opacity=1.0 if is_labeled else 0.75,
                    ),
                    **hover,
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
    if Z.shape[0] > WEBGL_ABOVE:
        # a drag draws a zoom box (one redraw at release) instead of panning, which redraws every
        # point on every mouse move: 250 ms a frame at 70,000 points where WebGL is software-drawn
        layout["dragmode"] = "zoom"
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
