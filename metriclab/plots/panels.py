"""Figures of the teaching instruments, beside `metriclab.plots` and in its conventions (one trace
per class, labeled points as outlined diamonds, hover with index and class; pure functions of
arrays): several scatter panels side by side in one figure — the input view with what is drawn
over it, and the embeddings — and an embedding played over a fit's iterations beside its loss."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import plotly.graph_objects as go

from metriclab.plots.base import _fast_figure, padded_range, titled, top_margin
from metriclab.plots.embedding import (
    _class_names,
    _scatter_traces,
    animation_controls,
    drawing_of,
    edge_trace,
    labeled_key,
)

PANEL_EDGE_TRACE = "drawn at a panel's edge"

GAP = 0.06  # horizontal space between panels (share of the figure width)
LOSS_TITLE_CHARS = 24  # a line of the loss panel's title
PANEL_TITLE_LINE_PX = 18  # a panel title's line at plotly's 12 px (20 px fonts on a projector: 28)
# a panel title's characters on a line as wide as the whole figure (the input view's chart, about
# 650 px at 1280×800, at 12 px bold: 6.6 px a character): "Laplacian Eigenmaps (collapsed)" over
# a panel a seventh of the chart wide ran past the figure's edge
FIGURE_TITLE_CHARS = 95
ASPECT_LIMITS = (0.6, 2.5)  # a panel's width / height: its share of the figure is clipped to these
NEIGHBOUR_COLOURS = {"target": "#2ca02c", "impostor": "#d62728", "focus": "#000000"}


@dataclass
class Panel:
    """One scatter panel: point coordinates (n × 2; one column: a strip by class) and what is drawn
    under the points (plotly trace dicts in the same coordinates, without axis references)."""

    coords: np.ndarray
    title: str
    axis_titles: tuple[str, str] = ("dimension 1", "dimension 2")
    overlays: list[dict] = field(default_factory=list)
    x_range: tuple[float, float] | None = None
    y_range: tuple[float, float] | None = None
    marker_size: int | None = None  # None: the figure's
    # the points drawn on the frame's edge instead of where they lie (`true_coords`): a few that
    # carry a coordinate (a localised eigenvector) outside the frame of the others
    at_edge: np.ndarray | None = None
    true_coords: np.ndarray | None = None


def _axis_names(i: int) -> tuple[str, str, str, str]:
    """('x', 'y', 'xaxis', 'yaxis') of panel i (plotly names the first axes without a number)."""
    suffix = "" if i == 0 else str(i + 1)
    return f"x{suffix}", f"y{suffix}", f"xaxis{suffix}", f"yaxis{suffix}"


def title_lines(text: str, chars: int) -> list[str]:
    """A panel's title in lines of at most `chars` characters (a word longer stays whole)."""
    return textwrap.wrap(text, chars) or [text]


def panel_chars(width: float) -> int:
    """The characters of a title line over a panel `width` of the figure wide, and the gaps
    beside it."""
    return max(8, int(FIGURE_TITLE_CHARS * (width + GAP)))


def panel_title(text: str, x: float) -> dict:
    """A bold title centred over a panel at paper position x."""
    return dict(
        text=f"<b>{text}</b>",
        x=x,
        y=1.0,
        xref="paper",
        yref="paper",
        xanchor="center",
        yanchor="bottom",
        showarrow=False,
    )


def _aspect(panel: Panel, y: np.ndarray) -> float:
    """Width share of a panel: its x span over its y span (clipped), so that equal axis scales
    leave little empty space; a strip gets 1.5."""
    coords = np.asarray(panel.coords, dtype=np.float64)
    if coords.ndim == 1 or coords.shape[1] == 1:
        return 1.5
    x_range = panel.x_range or padded_range(coords[:, 0])
    y_range = panel.y_range or padded_range(coords[:, 1])
    ratio = (x_range[1] - x_range[0]) / max(y_range[1] - y_range[0], 1e-12)
    return float(np.clip(ratio, *ASPECT_LIMITS))


def _strip(coords: np.ndarray, y: np.ndarray) -> np.ndarray:
    """A 1-D embedding drawn as rows by class with a little fixed jitter (as the strip of
    `embedding_scatter` is)."""
    jitter = np.random.default_rng(0).uniform(-0.15, 0.15, coords.shape[0])
    return np.column_stack([coords[:, 0], np.asarray(y) + jitter])


def panel_figure(
    panels: Sequence[Panel],
    y: np.ndarray,
    labeled: np.ndarray | None = None,
    target_names: Sequence[str] | None = None,
    title: str | None = None,
    height: int = 520,
    marker_size: int = 7,
    revision: str = "panels",
) -> go.Figure:
    """Panels side by side in one figure, each with equal axis scales; every panel draws all points
    (colour: `y`; labeled: outlined diamonds) with their index in `customdata`, so a click or a
    lasso in any panel names the same points. The legend belongs to the first panel."""
    y = np.asarray(y)
    names = _class_names(y, target_names)
    k = len(panels)
    shares = np.array([_aspect(p, y) for p in panels])
    widths = shares / shares.sum() * (1.0 - GAP * (k - 1))
    lefts = np.concatenate([[0.0], np.cumsum(widths + GAP)[:-1]])
    data, layout = [], {}
    edge_key = True  # the first panel with points on its edge names them in the legend
    drawing = drawing_of(y.shape[0], labeled)  # the whole set's: every panel alike
    for i, panel in enumerate(panels):
        xref, yref, xname, yname = _axis_names(i)
        coords = np.asarray(panel.coords, dtype=np.float64)
        one_d = coords.ndim == 1 or coords.shape[1] == 1
        if one_d:
            coords = _strip(coords.reshape(-1, 1), y)
        for trace in panel.overlays:
            trace = {**trace, "xaxis": xref, "yaxis": yref}
            if i > 0:
                trace["showlegend"] = False  # the first panel's entries name them
            data.append(trace)
        size = panel.marker_size or marker_size
        n = coords.shape[0]
        edge = np.zeros(n, bool) if panel.at_edge is None or one_d else np.asarray(panel.at_edge)
        keep = np.flatnonzero(~edge)
        marked = None if labeled is None else np.asarray(labeled)[keep]
        for trace in _scatter_traces(coords[keep], y[keep], marked, names, size, keep, drawing):
            trace.update(xaxis=xref, yaxis=yref)
            if i > 0:
                trace["showlegend"] = False
            data.append(trace)
        if edge.any():
            true = coords if panel.true_coords is None else panel.true_coords
            at = np.flatnonzero(edge)
            trace = edge_trace(coords[at], np.asarray(true)[at], y[at], at, names)
            trace.update(xaxis=xref, yaxis=yref, name=PANEL_EDGE_TRACE, showlegend=edge_key)
            edge_key = False
            data.append(trace)
        left, width = float(lefts[i]), float(widths[i])
        xaxis = dict(
            domain=[min(left, 1.0), min(left + width, 1.0)],  # rounding may pass 1
            title=dict(text=panel.axis_titles[0]),
            zeroline=False,
            anchor=yref,
        )
        yaxis = dict(title=dict(text=panel.axis_titles[1]), zeroline=False, anchor=xref)
        x_range = panel.x_range or padded_range(coords[:, 0])
        xaxis.update(range=[float(v) for v in x_range], autorange=False)
        if one_d:
            yaxis.update(tickvals=list(range(len(names))), ticktext=names, title=dict(text=""))
        else:
            y_range = panel.y_range or padded_range(coords[:, 1])
            yaxis.update(range=[float(v) for v in y_range], autorange=False)
            yaxis.update(scaleanchor=xref, scaleratio=1)  # distances as drawn are distances
            if edge.any():  # the frame kept (the area shrinks): its edge is where they are drawn
                xaxis.update(constrain="domain")
                yaxis.update(constrain="domain")
        layout[xname], layout[yname] = xaxis, yaxis
    if labeled is not None and np.any(labeled):
        data.append(labeled_key(marker_size, drawing == "dense"))
    lines = [title_lines(panel.title, panel_chars(widths[i])) for i, panel in enumerate(panels)]
    annotations = [
        panel_title("<br>".join(lines[i]), float(lefts[i] + widths[i] / 2)) for i in range(k)
    ]
    more = PANEL_TITLE_LINE_PX * (max(map(len, lines), default=1) - 1)  # a title's extra lines
    layout.update(
        height=height,
        margin=dict(l=40, r=20, t=(top_margin(title) + 30 if title else 40) + more, b=40),
        legend=dict(itemsizing="constant", orientation="h", y=-0.15),
        annotations=annotations,
        uirevision=revision,  # keep zoom while the data change
        hovermode="closest",
    )
    if title:
        layout["title"] = titled(title)
    return _fast_figure(data, layout)


# ------------------------------------------------------------------------ overlays as traces


def line_trace(xs, ys, color: str, opacity: float, name: str, width: float = 1.0, **extra) -> dict:
    """A line overlay (no markers: a lasso or a click never selects it)."""
    return dict(
        type="scatter",
        x=np.asarray(xs, dtype=np.float64),
        y=np.asarray(ys, dtype=np.float64),
        mode="lines",
        line=dict(color=color, width=width),
        opacity=opacity,
        name=name,
        hoverinfo="skip",
        **extra,
    )


def edge_traces(edges, name: str = "kNN graph edge") -> list[dict]:
    """`overlays.graph_edges` as grey lines, darker for heavier weights; one legend entry."""
    traces = []
    for n, (opacity, xs, ys) in enumerate(edges):
        traces.append(
            line_trace(
                xs,
                ys,
                "#333333",
                opacity,
                name,
                width=1.5,
                legendgroup="_edges",
                showlegend=n == len(edges) - 1,
            )
        )
    return traces


def neighbour_traces(coords: np.ndarray, focus: int, targets, impostors) -> list[dict]:
    """Segments from point `focus` to its target neighbours (green) and impostors (red, dashed),
    and a ring around the focus point."""
    coords = np.asarray(coords, dtype=np.float64)
    out = []
    for kind, idx, dash in (("target", targets, "solid"), ("impostor", impostors, "dash")):
        idx = np.asarray(idx, dtype=int)
        xs = np.column_stack(
            [np.full(idx.size, coords[focus, 0]), coords[idx, 0], np.full(idx.size, np.nan)]
        ).ravel()
        ys = np.column_stack(
            [np.full(idx.size, coords[focus, 1]), coords[idx, 1], np.full(idx.size, np.nan)]
        ).ravel()
        label = "target neighbour" if kind == "target" else "impostor"
        out.append(
            line_trace(
                xs,
                ys,
                NEIGHBOUR_COLOURS[kind],
                0.9,
                f"{label} ({idx.size})",
                width=2.0,
                legendgroup=f"_{kind}",
                showlegend=True,
            )
        )
        out[-1]["line"]["dash"] = dash
    out.append(focus_ring(coords, focus))
    return out


def focus_ring(coords: np.ndarray, focus: int) -> dict:
    """A black ring around point `focus` (the point last clicked)."""
    return dict(
        type="scatter",
        x=[float(coords[focus, 0])],
        y=[float(coords[focus, 1]) if coords.shape[1] > 1 else 0.0],
        mode="markers",
        marker=dict(size=20, symbol="circle-open", color="black", line=dict(width=2)),
        name=f"point {focus}",
        hoverinfo="skip",
    )


def ball_traces(balls, name: str) -> list[dict]:
    """The balls as purple ellipses; those cut at the grid step dotted."""
    out = [line_trace(balls.xs, balls.ys, "#7f3fbf", 0.8, name, width=1.2)]
    if balls.cut_xs.size:
        out.append(
            line_trace(
                balls.cut_xs,
                balls.cut_ys,
                "#7f3fbf",
                0.8,
                "ball cut at the grid step",
                width=1.2,
            )
        )
        out[-1]["line"]["dash"] = "dot"
    return out


# --------------------------------------------------------------------- watching a fit learn


def learning_figure(
    frames: Sequence[np.ndarray],
    losses: Sequence[float],
    y: np.ndarray,
    labeled: np.ndarray | None = None,
    target_names: Sequence[str] | None = None,
    title: str | None = None,
    frame_labels: Sequence[str] | None = None,
    loss_title: str = "loss",
    ranges: tuple | None = None,
    iterations: Sequence[int] | None = None,
    curve: tuple[Sequence[int], Sequence[float]] | None = None,
) -> go.Figure:
    """An embedding over a fit's iterations as client-side animation frames (a slider and a play
    button, no server round trip) with the loss curve beside it; each frame moves a marker along
    the curve. `frames` are already aligned and normalised (n × 2, or n × 1: a strip by class);
    `losses` and `iterations` belong to the frames, `curve` is the whole (iteration, loss) curve
    (default: the frames' own points); `ranges` fixes the axes."""
    if len(frames) == 0:
        raise ValueError("no iterations to show")
    if len(losses) != len(frames):
        raise ValueError(f"{len(frames)} frames but {len(losses)} loss values")
    y = np.asarray(y)
    frames = [
        _strip(np.asarray(Z).reshape(len(y), -1), y)
        if np.asarray(Z).ndim == 1 or np.asarray(Z).shape[1] == 1
        else np.asarray(Z, dtype=np.float64)
        for Z in frames
    ]
    labels = list(frame_labels or [f"iteration {i}" for i in range(len(frames))])
    stacked = np.concatenate([np.asarray(Z, dtype=np.float64) for Z in frames])
    if ranges is None:
        ranges = (padded_range(stacked[:, 0]), padded_range(stacked[:, 1]))
    panel = Panel(frames[-1], "embedding", x_range=ranges[0], y_range=ranges[1])
    fig = panel_figure([panel], y, labeled, target_names, title, height=520)
    layout = fig.to_dict()["layout"]
    layout["xaxis"]["domain"] = [0.0, 0.6]
    steps = np.asarray(iterations if iterations is not None else range(len(losses)))
    losses = np.asarray(losses, dtype=np.float64)
    layout["xaxis2"] = dict(domain=[0.7, 1.0], anchor="y2", title=dict(text="iteration"))
    layout["yaxis2"] = dict(anchor="x2", title=dict(text="loss"))
    layout["annotations"][0]["x"] = 0.3
    # the loss panel is 30 % of the figure: its title in lines of a panel's width (KLMNN's, "… on
    # kernel-PCA coordinates", ran past the figure's edge in a lesson on a projector)
    loss_lines = title_lines(loss_title, LOSS_TITLE_CHARS)
    layout["annotations"].append(panel_title("<br>".join(loss_lines), 0.85))
    names = _class_names(y, target_names)
    curve_x, curve_y = curve if curve is not None else (steps, losses)
    curve = dict(
        type="scatter",
        x=np.asarray(curve_x),
        y=np.asarray(curve_y, dtype=np.float64),
        mode="lines",
        line=dict(color="#444444"),
        name=loss_title,
        xaxis="x2",
        yaxis="y2",
        showlegend=False,
        hovertemplate="iteration %{x}<br>%{y:.4g}<extra></extra>",
    )

    drawing = drawing_of(len(y), labeled)  # one for every frame, as for the key

    def frame_traces(i: int) -> list[dict]:
        frame = np.asarray(frames[i], dtype=np.float64)
        traces = _scatter_traces(frame, y, labeled, names, 7, None, drawing)
        marker = dict(
            type="scatter",
            x=[int(steps[i])],
            y=[float(losses[i])],
            mode="markers",
            marker=dict(size=11, color="#d62728"),
            xaxis="x2",
            yaxis="y2",
            showlegend=False,
            hoverinfo="skip",
        )
        return traces + [marker]

    plotly_frames = [dict(data=frame_traces(i), name=labels[i]) for i in range(len(frames))]
    active = len(frames) - 1
    data = frame_traces(active)
    if labeled is not None and np.any(labeled):
        data.append(labeled_key(7, drawing == "dense"))
    data.append(curve)
    n_moving = len(frame_traces(0))
    for frame in plotly_frames:
        frame["traces"] = list(range(n_moving))  # the curve and the key stay as they are
    sliders, updatemenus = animation_controls(
        labels,
        active,
        play_ms=150,
        from_current=False,  # play from the first iteration
        slider=dict(
            currentvalue=dict(prefix="", font=dict(size=13, color="#31333f")),
            font=dict(color="rgba(0,0,0,0)"),  # no label under every step: they overlap
        ),
    )
    layout.update(
        sliders=sliders,
        updatemenus=updatemenus,
        legend=dict(itemsizing="constant", orientation="h", y=-0.4),
        margin=dict(
            l=40,
            r=20,
            t=(top_margin(title, title.count("<br>") + 1) + 30 if title else 40)
            + PANEL_TITLE_LINE_PX * (len(loss_lines) - 1),
            b=150,
        ),
        height=640,
    )
    return _fast_figure(data, layout, plotly_frames)
