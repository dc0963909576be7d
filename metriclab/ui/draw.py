"""Draw your own data: a 2-D canvas where a click adds a point of the chosen class.

Plotly reports selections only on points that exist, so the canvas is a dense grid of invisible
points (`GRID` × `GRID` over [-1, 1]²): a click selects the grid point under the cursor, which
becomes a drawn point of the class picked, and a box or lasso selects those inside, over which
points of that class are sprayed. (Streamlit selects a clicked point only while the drag mode is
pan, so the figure leaves the drag mode to it; the axes are fixed, so panning moves nothing.) Clicking a drawn point removes it. Strokes (one click or one box/lasso) are kept in order
so "Undo" takes back the last one. "Use as data set" turns the drawing into a per-session data set
(like an upload: private to the session, in every page's data set list) through
`metriclab.datasets.from_points`, which refuses drawings no method can use with a clear reason.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from metriclab import plots
from metriclab.datasets import Dataset, from_points
from metriclab.ui.shared import session_data
from metriclab.ui.shared.charts import draw_chart

GRID = 49  # grid points per side: a spacing of 1/24 on [-1, 1]
CLASSES = ["A", "B", "C", "D"]
SPRAY = 0.3  # share of the grid points inside a box or lasso that become points
GRID_CURVE = 0  # the invisible grid is the first trace; drawn classes follow
_STROKES = "_metriclab_strokes"  # list of strokes, each a list of (x, y, class index)
CANVAS_KEY = "draw_canvas"  # the canvas chart's key: its selection in session state
_SEEN = "_metriclab_canvas_seen"  # the selection last turned into a stroke (`take_stroke`)
_DRAWN_KEY = "_metriclab_drawn_key"  # the data set key of this session's current drawing


def grid_points(n: int = GRID) -> np.ndarray:
    """The canvas's clickable positions: an n × n grid over [-1, 1]²."""
    ticks = np.round(np.linspace(-1.0, 1.0, n), 4)
    xx, yy = np.meshgrid(ticks, ticks)
    return np.column_stack([xx.ravel(), yy.ravel()])


def strokes() -> list[list[tuple[float, float, int]]]:
    return st.session_state.setdefault(_STROKES, [])


def drawn_points() -> tuple[np.ndarray, np.ndarray]:
    """(points n×2, class indices) of the drawing, later strokes over earlier ones at one place
    (a point removed by a click on it is gone)."""
    at: dict[tuple[float, float], int] = {}
    for stroke in strokes():
        for x, y, c in stroke:
            if c < 0:
                at.pop((x, y), None)
            else:
                at[(x, y)] = c
    if not at:
        return np.zeros((0, 2)), np.zeros(0, dtype=int)
    xy = np.array(list(at), dtype=float)
    return xy, np.array(list(at.values()), dtype=int)


def stroke_from_selection(selection: dict[str, Any], class_index: int, spray_seed: int = 0) -> list:
    """The stroke a plotly selection event makes: a clicked grid point becomes a point of
    `class_index`; a box or lasso sprays points over the region (a share `SPRAY` of its grid
    points, jittered, seeded by `spray_seed`); a drawn point clicked alone is removed (class -1)."""
    points = _positions(selection)
    grid = [(x, y) for x, y, curve in points if curve == GRID_CURVE]
    if len(grid) == 1:  # a click: a point exactly there
        return [(round(grid[0][0], 4), round(grid[0][1], 4), class_index)]
    if grid:  # a box or lasso: a spray over the region, not a solid block
        xy = np.array(grid, dtype=float)
        rng = np.random.default_rng(len(grid) + 7919 * class_index + spray_seed)
        keep = rng.random(len(xy)) < SPRAY
        if not keep.any():
            keep[rng.integers(len(xy))] = True
        spacing = 2.0 / (GRID - 1)
        xy = xy[keep] + rng.uniform(-0.4, 0.4, (int(keep.sum()), 2)) * spacing
        return [(round(float(x), 4), round(float(y), 4), class_index) for x, y in xy]
    if len(points) == 1:  # a click on a drawn point: erase it
        return [(round(points[0][0], 4), round(points[0][1], 4), -1)]
    return []


def _positions(selection) -> list[tuple[float, float, int]]:
    """(x, y, curve) of the selected points that lie on the canvas; anything else the browser
    sends (missing or non-numeric fields, positions off the canvas, more than the grid) is left
    out."""
    points = selection.get("points", []) if isinstance(selection, dict) else []
    out = []
    for p in points[: GRID * GRID] if isinstance(points, list) else []:
        try:
            x, y, curve = float(p["x"]), float(p["y"]), int(p.get("curve_number", -1))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        if np.isfinite(x) and np.isfinite(y) and abs(x) <= 1.1 and abs(y) <= 1.1:
            out.append((x, y, curve))
    return out


def canvas_figure(xy: np.ndarray, labels: np.ndarray, marker_size: int = 11) -> go.Figure:
    """The invisible clickable grid and the drawn points by class, on fixed square axes."""
    grid = grid_points()
    fig = go.Figure(
        go.Scatter(
            x=grid[:, 0],
            y=grid[:, 1],
            mode="markers",
            marker={"size": 14, "color": "rgba(0,0,0,0.01)"},  # invisible, but clickable
            hoverinfo="none",
            showlegend=False,
            name="canvas",
        )
    )
    for c, name in enumerate(CLASSES):
        mine = labels == c
        fig.add_trace(
            go.Scatter(
                x=xy[mine, 0],
                y=xy[mine, 1],
                mode="markers",
                marker={"size": marker_size, "color": plots.PALETTE[c % len(plots.PALETTE)]},
                name=f"class {name} ({int(mine.sum())})",
                hovertemplate=f"class {name}<br>click to remove<extra></extra>",
            )
        )
    axis = {"range": [-1.08, 1.08], "zeroline": False, "fixedrange": True, "constrain": "domain"}
    fig.update_layout(
        height=560,
        margin={"l": 20, "r": 20, "t": 30, "b": 20},
        xaxis=axis,
        yaxis={**axis, "scaleanchor": "x", "scaleratio": 1},
        hovermode="closest",  # Streamlit selects a clicked point while the drag mode is pan
        legend={"orientation": "h", "y": 1.06},
        uirevision="canvas",
    )
    return fig


def _signature(selection) -> tuple:
    """What identifies one selection event: its points (x, y, curve) and its box or lasso."""
    if not isinstance(selection, dict):
        return ()
    positions = _positions(selection)
    shapes = repr((selection.get("box"), selection.get("lasso")))
    return (tuple(positions), shapes) if positions else ()


def take_stroke(class_index: int) -> None:
    """Turn the canvas's selection into a stroke, once per selection, before anything is drawn
    (so the count and the canvas show it in this run). The canvas keeps one key: a new key per
    stroke, to clear plotly's selection, remounted the chart after every click, and a click on the
    chart being replaced was lost (3 of 8 clicks 300 ms apart; 1 of 8 now)."""
    event = st.session_state.get(CANVAS_KEY)
    selection = (event or {}).get("selection", {}) if hasattr(event, "get") else {}
    signature = _signature(selection)
    if signature == st.session_state.get(_SEEN, ()):
        return
    st.session_state[_SEEN] = signature
    stroke = stroke_from_selection(selection, class_index, spray_seed=len(strokes()))
    if stroke:
        strokes().append(stroke)


def canvas() -> None:
    """Draw the canvas (its selection is taken by `take_stroke` at the top of the next run)."""
    xy, labels = drawn_points()
    draw_chart(
        st,
        canvas_figure(xy, labels),
        key=CANVAS_KEY,
        on_select="rerun",
        selection_mode=("points", "box", "lasso"),
        config={"displayModeBar": True, "modeBarButtonsToRemove": ["zoom2d", "autoScale2d"]},
    )
    if len(xy):
        _downloads(xy, labels)


def _downloads(xy: np.ndarray, labels: np.ndarray) -> None:
    """The drawn points as CSV (index, class code, every point labelled, x, y, class) and the drawing
    as SVG (without the canvas's invisible grid)."""
    from metriclab.ui.shared import downloads

    with downloads.download_area():
        left, right = st.columns(2)
        downloads.coordinates_button(
            left,
            downloads.Points(xy, labels, np.ones(len(xy), dtype=bool), classes=CLASSES),
            stem="metriclab-drawing",
            key="dl_drawing",
            label="Drawn points (CSV)",
            help="index, class code (0 = A, 1 = B, ...), labelled, held out, x, y, class",
        )
        fig = canvas_figure(xy, labels)
        fig.data = fig.data[GRID_CURVE + 1 :]  # the drawn classes, not the clickable grid
        downloads.svg_button(
            right, fig, stem="metriclab-drawing", key="dl_svg_drawing", what="Drawing"
        )


def undo() -> None:
    if strokes():
        strokes().pop()


def clear() -> None:
    strokes().clear()


def drawing_dataset() -> Dataset:
    """The drawing as a Dataset (ValueError with the reason for a drawing no method can use)."""
    xy, labels = drawn_points()
    return from_points(xy, labels, class_names=CLASSES, name=f"drawn ({xy.shape[0]} points)")


def current_key() -> str | None:
    """The data set key of this session's drawing in use, if any."""
    return st.session_state.get(_DRAWN_KEY)


def use_drawing() -> str:
    """Register the drawing as this session's drawn data set (replacing the previous drawing) and
    return its data set key."""
    ds = drawing_dataset()
    content = ds.X.tobytes() + ds.y.tobytes() + repr(ds.target_names).encode()
    key = session_data.register_dataset(
        ds, b"drawn\0" + hashlib.sha256(content).digest(), replace=st.session_state.get(_DRAWN_KEY)
    )
    st.session_state[_DRAWN_KEY] = key
    return key


def page_links() -> None:
    """Links to the pages that open the drawing (they keep the session, unlike a plain link)."""
    from metriclab.ui.navigation import link
    from metriclab.ui.shared.streamlit_private import PageNotFound

    try:
        link("embed", "Embed it")
        link("dissimilarity", "Its dissimilarities")
    except PageNotFound:  # the page runs alone (tests): the menu has the pages
        st.caption("Open it on the Embed, Dissimilarity or Compare page.")
