"""Scatter plots of embeddings (one trace per class, labelled points outlined), their animation
frames and the PCA view."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from metriclab.plots.base import (
    AREA_ASPECT,
    _fast_figure,
    align_to,
    bulk_range,
    class_color,
    coordinate_carriers,
    fit_legend,
    normalize_embedding,
    padded_range,
    titled,
    to_aspect,
    top_margin,
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
DENSE_ABOVE = 2000  # points: the labelled ones drawn small and beneath, the rest translucent
# ...and so where more than this many labelled points are over a quarter of all: 750 training
# digits as large diamonds on top hid the 751 predicted ones that the Tangent lesson's chart is
# about (a tenth labelled, the Embed page's default, keeps its large diamonds)
LABELED_COVER = 200
LABELED_GROUP = "_labeled"  # dense sets: one legend entry shows or hides every labelled point


def labelled_drawing(n: int, n_labeled: int) -> str:
    """How a set of `n` points, `n_labeled` of them labelled, draws its labelled points: "dense"
    (small diamonds beneath the others, the rest translucent) past DENSE_ABOVE points or past
    LABELED_COVER labelled points that are over a quarter of all; "beneath" (large diamonds, but
    beneath) where they are a quarter of all or more: large diamonds are three circles' area, and
    on top they hid the unlabelled points, the ones a 1-NN accuracy is computed on (iris with nine
    in ten labelled: 135 diamonds over the 15 predicted points; the KPCA lesson's circles, half
    labelled); else "on top" (the few given labels, large outlined diamonds above the rest)."""
    if n > DENSE_ABOVE or n_labeled > max(LABELED_COVER, n / 4):
        return "dense"
    return "beneath" if n_labeled >= n / 4 else "on top"


def drawing_of(n: int, labeled: np.ndarray | None) -> str:
    """`labelled_drawing` of `n` points whose labelled ones are the mask `labeled` (None: none)."""
    return labelled_drawing(n, 0 if labeled is None else int(np.count_nonzero(labeled)))


def _scatter_traces(
    Z: np.ndarray,
    y: np.ndarray,
    labeled: np.ndarray | None,
    names: list[str],
    marker_size: int,
    index: np.ndarray | None = None,
    drawing: str | None = None,
) -> list[dict]:
    """One trace per class of unlabeled points and one per class of labeled points (WebGL past
    WEBGL_ABOVE points, where the per-point hover data is the index alone). The labelled points
    are drawn as `labelled_drawing` says (or `drawing`): a dense set draws them first, as small
    diamonds beneath the others, in one legend group (the "labeled points" entry hides them all),
    and the unlabelled points translucent, so that a crowded region shows how crowded it is. A
    figure that draws the same points in several places (panels, frames) passes the whole set's
    `drawing`, so that every place draws them alike."""
    n = Z.shape[0]
    webgl = n > WEBGL_ABOVE
    drawing = drawing_of(n, labeled) if drawing is None else drawing
    dense = drawing == "dense"
    index = np.arange(n) if index is None else np.asarray(index)
    x = Z[:, 0]
    yy = Z[:, 1] if Z.shape[1] > 1 else np.zeros(n)
    traces = []
    groups = [(False, np.ones(n, bool) if labeled is None else ~labeled)]
    if labeled is not None:
        groups.append((True, labeled))
    if drawing != "on top":
        groups.reverse()  # the labelled points beneath the rest
    small = max(2, marker_size - 4)
    order = list(range(len(names)))
    if dense:  # the most compact classes last, on top: a tight patch is not buried by the others
        order.sort(key=lambda c: -_spread(Z[y == c]))
    for is_labeled, sel in groups:
        for c in order:
            name = names[c]
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
            if dense:
                size = small + 1 if is_labeled else small
                outline = 0.5 if is_labeled else 0
                opacity = 0.9 if is_labeled else (0.35 if webgl else 0.5)
            elif drawing == "beneath":  # the few predicted points on the diamonds, ringed white
                size = marker_size + 5 if is_labeled else marker_size
                outline = 1.5 if is_labeled else 1
                opacity = 1.0
            else:
                size = marker_size + 5 if is_labeled else marker_size
                outline = 1.5 if is_labeled else 0
                opacity = 1.0 if is_labeled else 0.75
            group = LABELED_GROUP if dense and is_labeled else name
            # a class with no point in its traces (all on the chart's edge or held out, drawn by
            # traces coloured per point) keeps its legend entry: an empty trace gets none, and its
            # colour went unexplained (soybean's charcoal-rot in a linked view, yeast's ERL)
            placeholder = (
                not is_labeled
                and idx.size == 0
                and (dense or labeled is None or not np.any(labeled & (y == c)))
            )  # (not dense: a class's labelled trace, when it has points, names it itself)
            traces.append(
                dict(
                    type="scattergl" if webgl else "scatter",
                    x=[None] if placeholder else x[idx],
                    y=[None] if placeholder else yy[idx],
                    mode="markers",
                    name=f"{name} (labeled)" if is_labeled else name,
                    legendgroup=group,  # one legend entry per class toggles both traces
                    legendrank=1000 + c,  # the legend in class order, whatever the drawing order
                    showlegend=not is_labeled
                    or (not dense and labeled_only_legend(sel, y, c, labeled)),
                    marker=dict(
                        color=class_color(c),
                        size=size,
                        symbol="diamond" if is_labeled else "circle",
                        line=dict(width=outline, color="black" if is_labeled else "white"),
                        opacity=opacity,
                    ),
                    **hover,
                )
            )
    return traces


def _spread(points: np.ndarray) -> float:
    """The area of a class's middle box (the 5th to 95th percentile along each axis)."""
    if len(points) == 0:
        return 0.0
    lo, hi = np.percentile(points, [5, 95], axis=0)
    return float(np.prod(np.maximum(hi - lo, 1e-12)))


def crowded_classes(
    Z: np.ndarray, y: np.ndarray, names: Sequence[str], x_range, y_range, share: float = 0.002
) -> list[tuple[str, int, float, float]]:
    """Classes whose middle 90 % (5th to 95th percentile on each axis) covers less than `share` of
    the chart's area: (name, points, width, height), the most crowded first."""
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2 or Z.shape[1] < 2 or y_range is None:
        return []
    area = (x_range[1] - x_range[0]) * (y_range[1] - y_range[0])
    out = []
    for c, name in enumerate(names):
        pts = Z[np.asarray(y) == c, :2]
        if len(pts) < 2:
            continue
        lo, hi = np.percentile(pts, [5, 95], axis=0)
        w, h = (hi - lo).tolist()
        if w * h < share * area:
            out.append((str(name), len(pts), w, h))
    return sorted(out, key=lambda t: t[2] * t[3])


EDGE_TRACE = "drawn at the chart's edge"


def edge_symbols(shown: np.ndarray, true: np.ndarray) -> list[str]:
    """An open triangle per point drawn on the edge, pointing the way it lies beyond the edge (up,
    down, left or right: along the axis it is furthest out on; a 1-D strip's `true` has x only)."""
    shown, true = np.asarray(shown, dtype=np.float64), np.asarray(true, dtype=np.float64)
    dx = true[:, 0] - shown[:, 0]
    dy = true[:, 1] - shown[:, 1] if true.shape[1] > 1 else np.zeros_like(dx)
    vertical = np.abs(dy) > np.abs(dx)
    return [
        ("triangle-up-open" if b > 0 else "triangle-down-open")
        if v
        else ("triangle-right-open" if a > 0 else "triangle-left-open")
        for a, b, v in zip(dx, dy, vertical, strict=True)
    ]


def edge_trace(
    shown: np.ndarray, true: np.ndarray, y: np.ndarray, index: np.ndarray, names: list[str]
) -> dict:
    """The points drawn away from their place (on the chart's edge, `shown`) as their own trace:
    open triangles in their class colour, each pointing the way its point lies (`edge_symbols`),
    named with their count, the hover giving where each really lies (`true`)."""
    true = np.asarray(true, dtype=np.float64)
    true = true if true.ndim == 2 else true[:, None]
    where = ["(" + ", ".join(f"{v:.3g}" for v in row) + ")" for row in true]
    return dict(
        type="scatter",
        x=shown[:, 0],
        y=shown[:, 1] if shown.shape[1] > 1 else np.zeros(len(index)),
        mode="markers",
        cliponaxis=False,  # whole on the edge, not cut in half by the plot area
        name=f"{EDGE_TRACE} ({len(index)})",
        legendgroup="_edge",
        legendrank=2001,
        marker=dict(
            color=[class_color(c) for c in y],
            size=12,
            symbol=edge_symbols(shown, true),
            line=dict(width=2),
        ),
        customdata=[[int(i), names[c], w] for i, c, w in zip(index, y, where, strict=True)],
        hovertemplate="index %{customdata[0]}<br>%{customdata[1]}<br>drawn on the edge; it lies "
        "at %{customdata[2]}<extra></extra>",
    )


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
    at_edge: np.ndarray | None = None,
    true_coords: np.ndarray | None = None,
) -> go.Figure:
    """2-D scatter of an embedding (first two columns), or a 1-D strip plot when Z has one column:
    colours by class, labeled points as outlined diamonds, hover with index and label. The points
    of `at_edge` (a mask) are drawn away from their place, on the chart's edge: they leave the
    class traces for one trace of their own (`edge_trace`) whose hover gives `true_coords`."""
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
        margin=dict(l=40, r=20, t=top_margin(title), b=40),
        legend=dict(itemsizing="constant"),
        uirevision="embedding",  # keep zoom/legend state while the data changes
    )
    if not one_d:  # equal scales: distances in the picture are the embedding's distances
        yaxis.update(scaleanchor="x", scaleratio=1)
    if title:
        layout["title"] = titled(title)
    if Z.shape[0] > WEBGL_ABOVE:
        # a drag draws a zoom box (one redraw at release) instead of panning, which redraws every
        # point on every mouse move: 250 ms a frame at 70,000 points where WebGL is software-drawn
        layout["dragmode"] = "zoom"
    n = Z.shape[0]
    index = np.arange(n) if index is None else np.asarray(index)
    edge = np.zeros(n, dtype=bool) if at_edge is None else np.asarray(at_edge, dtype=bool)
    keep = ~edge
    drawing = drawing_of(n, labeled)
    traces = _scatter_traces(
        Z[keep],
        y[keep],
        None if labeled is None else np.asarray(labeled)[keep],
        names,
        marker_size,
        index[keep],
        drawing,
    )
    if labeled is not None and np.any(labeled):
        traces.append(labeled_key(marker_size, drawing == "dense"))
    if edge.any():
        true = Z if true_coords is None else np.asarray(true_coords, dtype=np.float64)
        traces.append(edge_trace(Z[edge], true[edge], y[edge], index[edge], names))
        if not one_d:  # the frame is kept (`edge_frame`): its edge is where they are drawn
            xaxis.update(constrain="domain")
            yaxis.update(constrain="domain")
    return fit_legend(_fast_figure(traces, layout))


def labeled_key(marker_size: int = 7, dense: bool = False) -> dict:
    """A legend-only entry saying what the outlined diamonds are; on a dense set it heads their
    legend group, so that a click on it hides or shows every labelled point."""
    return dict(
        type="scatter",
        x=[None],
        y=[None],
        mode="markers",
        name="labeled points",
        legendgroup=LABELED_GROUP if dense else "_labeled_key",
        legendrank=2000,  # after the classes
        marker=dict(
            color="white",
            size=marker_size + 5,
            symbol="diamond",
            line=dict(width=1.5, color="black"),
        ),
        hoverinfo="skip",
    )


def align_frames(frames: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The frames of an animation as `embedding_animation` draws them: each normalised
    (`normalize_embedding`) and Procrustes-aligned to the one before (`align_to`).

    Parameters
    ----------
    frames : sequence of arrays of shape (n, m)
        The embeddings, in the slider's order.

    Returns
    -------
    list of arrays of shape (n, m)
        The drawn coordinates of every frame (before a frame's axes clip its far points).

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.plots.embedding import align_frames
    >>> Z = np.random.default_rng(0).normal(size=(10, 2))
    >>> first, second = align_frames([Z, -Z])
    >>> bool(np.allclose(first, second))
    True
    """
    out = [normalize_embedding(Z) for Z in frames]
    for i in range(1, len(out)):
        out[i] = align_to(out[i], out[i - 1])
    return out


SLIDER_PAD_PX = 64  # from the plot's bottom to the slider's value
SLIDER_BAND_PX = 134  # under an animation's plot: the x axis's labels, the slider's value, rail
# and ticks


def embedding_animation(
    frames: Sequence[np.ndarray],
    frame_labels: Sequence[str],
    y: np.ndarray,
    labeled: np.ndarray | None = None,
    target_names: Sequence[str] | None = None,
    title: str | None = None,
    slider_prefix: str = "",
    active: int = 0,
    frame_on: np.ndarray | None = None,
    aspect: float = AREA_ASPECT["scrub"],
) -> go.Figure:
    """Embeddings over a parameter grid as plotly animation frames with a slider: scrubbing is done
    in the browser with no server round trip; the figure opens on frame `active`.

    With `frame_on` (a mask; by default the unlabeled points where some are labeled: the points a
    1-NN accuracy is computed on) every frame has its own axes, framed on the bulk of those points
    (less the few that carry a coordinate, `coordinate_carriers`) in the plot area's shape
    (`aspect`, its width / height: equal scales keep the frame as it is, the title's scale is the
    one drawn), and says its scale in its title; a point outside that frame is drawn on its edge in
    a trace of its own (`edge_trace`). Without it (no labels) all frames share one fixed pair of
    axes."""
    if len(frames) == 0:
        raise ValueError("no frames to animate")
    frames = align_frames(frames)
    if not 0 <= active < len(frames):
        raise ValueError(f"active frame {active} out of range 0..{len(frames) - 1}")
    y = np.asarray(y)
    if frame_on is None and labeled is not None and np.any(labeled) and not np.all(labeled):
        frame_on = ~np.asarray(labeled, dtype=bool)
    names = _class_names(y, target_names)
    one_d = frames[0].shape[1] == 1
    jitter = np.random.default_rng(0).uniform(-0.15, 0.15, frames[0].shape[0])
    stacked = np.concatenate(frames)
    fixed = [padded_range(stacked[:, a]) for a in range(stacked.shape[1])]
    drawing = drawing_of(frames[0].shape[0], labeled)
    plotly_frames = []
    for Z, label in zip(frames, frame_labels, strict=True):
        carriers = 0
        if frame_on is None:
            ranges = fixed
        else:  # the bulk of the points framed on: LE on iris put 149 points in two dots
            on = Z[frame_on]
            carried = coordinate_carriers(on)
            carriers = len(set().union(*(c.index.tolist() for c in carried)))
            ranges = [bulk_range(on, carried, a) for a in range(Z.shape[1])]
            ranges = ranges if one_d else to_aspect(ranges, aspect)
        shown = Z.copy()
        for a, (lo, hi) in enumerate(ranges):
            shown[:, a] = np.clip(Z[:, a], lo, hi)
        moved = np.any(shown != Z, axis=1)
        drawn = np.column_stack([shown[:, 0], y + jitter]) if one_d else shown
        keep = ~moved
        traces = _scatter_traces(
            drawn[keep],
            y[keep],
            None if labeled is None else np.asarray(labeled)[keep],
            names,
            7,
            np.flatnonzero(keep),
            drawing,  # the whole set's: every frame draws the same traces in the same order
        )
        if labeled is not None and np.any(labeled):
            traces.append(labeled_key(7, drawing == "dense"))
        layout = dict(xaxis=dict(range=list(ranges[0])))
        if not one_d:
            layout["yaxis"] = dict(range=list(ranges[1]))
        if frame_on is not None:
            traces.append(
                edge_trace(drawn[moved], Z[moved], y[moved], np.flatnonzero(moved), names)
            )
            scale = "; ".join(
                f"axis {a + 1} from {lo:.3g} to {hi:.3g}" for a, (lo, hi) in enumerate(ranges)
            )
            less = f" less {carriers} that carry a coordinate" if carriers else ""
            layout["title"] = titled(  # the scale on a line of its own: one line ran off a chart
                f"{title or ''}<br><sub>{label}: framed on the {int(frame_on.sum())} "
                f"unlabeled points{less}, {int(moved.sum())} point(s) on the edge<br>{scale}</sub>"
            )
        plotly_frames.append(dict(data=traces, name=str(label), layout=layout))
    first = plotly_frames[active]["layout"]
    fig = embedding_scatter(
        frames[active],
        y,
        labeled,
        target_names,
        title,
        x_range=first["xaxis"]["range"],
        y_range=None if one_d else first["yaxis"]["range"],
    )
    layout = fig.to_dict()["layout"]
    if frame_on is not None and not one_d:  # every frame's ranges kept (`to_aspect`)
        layout["xaxis"]["constrain"] = layout["yaxis"]["constrain"] = "domain"
    if "title" in first:
        layout["title"] = first["title"]
        layout["margin"] = {**layout.get("margin", {}), "t": top_margin(title, lines=3)}
    fig = _fast_figure(plotly_frames[active]["data"], layout, plotly_frames)
    sliders, updatemenus = animation_controls(
        frame_labels, active, slider_prefix, 300, True, redraw=frame_on is not None
    )
    fig.update_layout(sliders=sliders, updatemenus=updatemenus, height=560)
    # a legend in rows goes under the slider (it was drawn over it: soybean's 15 classes)
    return fit_legend(fig, height=560, taken_below=SLIDER_BAND_PX)


def animation_controls(
    frame_labels: Sequence[str],
    active: int,
    slider_prefix: str = "",
    play_ms: int = 300,
    from_current: bool = True,
    slider: dict | None = None,
    redraw: bool = False,
) -> tuple[list[dict], list[dict]]:
    """The layout's `sliders` and `updatemenus` of an animation: a slider with one step per frame
    (moving it shows the frame at once, in the browser) and a play button to its left (from the
    current frame, or from the first). `slider` adds keys to the slider's dict; `redraw` draws each
    frame anew (frames that change their axes or title need it)."""
    steps = [
        dict(
            method="animate",
            label=str(label),
            args=[
                [str(label)],
                dict(
                    mode="immediate",
                    frame=dict(duration=0, redraw=redraw),
                    transition=dict(duration=0),
                ),
            ],
        )
        for label in frame_labels
    ]
    play = dict(frame=dict(duration=play_ms, redraw=redraw))
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
            # below the x axis's tick labels and title at the 15 px font Streamlit's theme draws
            # in presentation mode (at 50 px the slider's value lay on "dimension 1")
            pad=dict(t=SLIDER_PAD_PX),
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
            pad=dict(t=SLIDER_PAD_PX + 10, r=10),
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
