"""New points on the Embed page (issue 37, item 2), as parts any view calls per panel (the live
view, the linked view), independent of where it places them:

- Held-out points: `held_out_share` draws the "Held out" slider (`test=0.3` in the link; 0: off);
  `placement` is the method fitted without them (`fit_held_out`, cached), which maps them through
  its out-of-sample map; `held_out_traces` draws them as their own trace and
  `show_held_out_scores` puts the 1-NN accuracy on them beside the transductive one. A method
  without an out-of-sample map says so (`out_of_sample_reason`) and draws none.
- Query points: the session's new points per data set (`query_points`, `add_query`,
  `clear_queries`), placed where the method maps them (`map_new_points`) by `query_traces`, as
  stars, with their five nearest neighbours under the method's metric (`show_query_neighbours`).
  They are added by a click on the input-space picture (`input_panel`: a click layer of invisible
  points, since Streamlit reports a click on points only) or by its x/y inputs, and on an image
  set by `digit_maker` (a digit from the held-out part, or any unlabelled one, moved along a
  tangent direction as on the Tangent page).

A panel draws the placement's `embedding` (normalised and turned as it likes) and passes the
coordinates it draws (`drawn`) to the trace functions, which carry the same affine map over.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from metriclab import plots
from metriclab.evaluation import SplitRequest, fit_split
from metriclab.evaluation.held_out import (
    NewPoints,
    fit_held_out,
    map_new_points,
    out_of_sample_reason,
)
from metriclab.plots.base import class_color
from metriclab.preprocess import make_scaler, scaler_fit_rows
from metriclab.ui.embed import overlays
from metriclab.ui.shared import downloads, full_size, memo, presentation
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.fit_request import TEST_KEY, DataRef, FitRequest
from metriclab.ui.shared.state import Rule, seed_widget

MAX_TEST = 0.5  # the slider's largest held-out share
TEST_STEP = 0.05
HELD_OUT_NAME = "held out (mapped)"
QUERY_NAME = "new point"
MANY_HELD_OUT = 300  # more held-out points than this are drawn smaller
MAX_QUERIES = 20  # new points kept per data set (the oldest go first)
N_NEIGHBOURS = 5
CLICK_GRID = 41  # the input panel's click layer: CLICK_GRID × CLICK_GRID invisible points
INPUT_KEY = "new_points_input"  # the input panel's chart
ADD_KEY = "new_points_open"  # the "Add a new point" switch (session only: a view's state)
_STORE = "_new_points"  # session state: {DataRef: [feature rows]}


# ----------------------------------------------------------------------------- the placement


@dataclass(frozen=True)
class Placement:
    """A method fitted as a panel shows it, ready to place new points.

    `embedding` holds every point's coordinates (the held-out ones through the out-of-sample
    map); `reference` marks the points the fit saw (new points' neighbours are listed among
    them); `fit` is `fit_held_out`'s result when points are held out (None otherwise)."""

    estimator: Any
    scaler: Any
    embedding: np.ndarray
    labeled: np.ndarray
    held_out: np.ndarray
    fit: Any = None

    @property
    def reference(self) -> np.ndarray:
        return ~self.held_out

    def scale(self, X) -> np.ndarray:
        """Raw features in the features the estimator was fitted on."""
        X = np.asarray(X, dtype=np.float64)
        return X if self.scaler is None else np.asarray(self.scaler.transform(X), np.float64)


@st.cache_data(show_spinner="new points: fitting the method to place them", max_entries=8)
def _placement(request: FitRequest, test: float, seed: int, _view: tuple) -> Placement:
    ds, mask = _view
    spec = request.spec
    if test > 0:  # fitted without the held-out share, which it maps
        fit = fit_held_out(
            SplitRequest.of(spec, ds, mask, request.values, preprocess=request.scaling),
            test=test,
            seed=seed,
        )
        Z = np.asarray(fit.embedding, dtype=np.float64)
        return Placement(fit.estimator, fit.scaler, Z, fit.labeled, fit.held_out, fit)
    # nothing held out: the page's own fit (`compute.fit_view`'s request), with its estimator
    split = SplitRequest.of(
        spec, ds, mask, request.values, protocol="transductive", preprocess=request.scaling
    )
    fitted = fit_split(split)
    scaler = make_scaler(request.scaling)
    if scaler is not None:
        scaler = scaler.fit(
            np.asarray(ds.X, np.float64)[scaler_fit_rows(spec, "transductive", mask)]
        )
    Z = np.asarray(fitted.embedding(), dtype=np.float64)
    none = np.zeros(ds.n_samples, dtype=bool)
    return Placement(fitted.estimator, scaler, Z, np.asarray(fitted.mask, bool), none)


def placement(request: FitRequest, test: float = 0.0, seed: int = 0) -> Placement:
    """The method of `request` fitted without a held-out share `test` (0: the page's own fit),
    with its estimator: cached by the request, the share and the seed of the held-out draw.

    Raises ValueError with the reason where the method cannot place new points (a classifier, a
    method without an out-of-sample map) and on the full-size sets (the held-out fit is not on
    the full-size path)."""
    reason = cannot_place(request)
    if reason is not None:
        raise ValueError(reason)
    return _placement(request, float(test), int(seed), memo.resolve(request))


def cannot_place(request: FitRequest) -> str | None:
    """Why the method of `request` cannot place new points here, or None: a method without an
    out-of-sample map (`out_of_sample_reason`), or a full-size view (its fit is not kept)."""
    reason = out_of_sample_reason(request.spec)
    if reason is None and memo.is_full_size(request.data):
        ds, _ = memo.view_data(request.data)
        reason = (
            f"Held-out and new points are offered on up to {full_size.FULL_SIZE:,} points; "
            f"this view has {ds.n_samples:,} (choose fewer under **Points used**)"
        )
    return reason


# ------------------------------------------------------------------------- the held-out share


def held_out_share(container=None) -> float:
    """The "Held out" slider (0 to 0.5, 0: off), seeded from the link's `test` (a value outside
    the range is clamped, one that is not a number gives 0, each with a notice); its value."""
    seed_widget(TEST_KEY, Rule(0.0, bounds=(0.0, MAX_TEST), label="Held out"))
    value = (container or st).slider(
        "Held out",
        0.0,
        MAX_TEST,
        key=TEST_KEY,
        step=TEST_STEP,
        help="A share of the unlabelled points kept out of the fit: the method is fitted on the "
        "rest and maps them through its out-of-sample map (drawn as open diamonds). 0: off.",
    )
    return float(value)


def _names(ds) -> list[str]:
    return [str(t) for t in ds.target_names]


def _frame(placement_: Placement, drawn) -> tuple[np.ndarray, np.ndarray | None]:
    """(W, drawn): the affine map (least squares, exact for a shift, scale and turn) from the
    placement's first coordinates to the panel's drawn ones, as a (k + 1) × k matrix."""
    Z = placement_.embedding
    if drawn is None:
        k = min(2, Z.shape[1])
        return np.vstack([np.eye(k), np.zeros((1, k))]), None
    drawn = np.asarray(drawn, dtype=np.float64)
    drawn = drawn[:, None] if drawn.ndim == 1 else drawn
    k = drawn.shape[1]
    A = np.column_stack([Z[:, :k], np.ones(Z.shape[0])])
    W, *_ = np.linalg.lstsq(A, drawn, rcond=None)
    return W, drawn


def _apply(W: np.ndarray, Z: np.ndarray) -> np.ndarray:
    k = W.shape[1]
    return np.column_stack([Z[:, :k], np.ones(Z.shape[0])]) @ W


def _strip(coords: np.ndarray, rows: np.ndarray, seed: int) -> np.ndarray:
    """A 1-D embedding drawn as a strip: the class row (with jitter) as the second coordinate."""
    if coords.shape[1] > 1:
        return coords[:, :2]
    jitter = np.random.default_rng(seed).uniform(-0.15, 0.15, coords.shape[0])
    return np.column_stack([coords[:, 0], np.asarray(rows, dtype=float) + jitter])


def held_out_traces(request: FitRequest, test: float, seed: int = 0, drawn=None) -> list:
    """The held-out points where the method fitted without them maps them: one trace of open
    diamonds in their class colours, hover and click giving their index (customdata [index,
    class]), and its legend entry "held out (mapped) (n)" in grey (one click on it hides or
    shows them). `drawn`: every point's coordinates as the panel draws the placement's
    embedding (default: the embedding itself). No trace where nothing is held out."""
    if not test > 0:
        return []
    place = placement(request, test, seed)
    ds, _ = memo.view_data(request.data)
    held = np.flatnonzero(place.held_out)
    W, shown = _frame(place, drawn)
    coords = _apply(W, place.embedding)[held] if shown is None else shown[held]
    coords = _strip(coords, ds.y[held], 1)
    names = _names(ds)
    name = f"{HELD_OUT_NAME} ({held.size})"
    many = held.size > MANY_HELD_OUT  # smaller, so that they do not cover the fitted points
    marker = dict(
        size=8 if many else 11, symbol="diamond-open", line=dict(width=1.5 if many else 2.5)
    )
    return [
        go.Scatter(
            x=coords[:, 0],
            y=coords[:, 1],
            mode="markers",
            name=name,
            legendgroup="_held_out",
            showlegend=False,
            marker=dict(color=[class_color(c) for c in ds.y[held]], **marker),
            customdata=[[int(i), names[ds.y[i]]] for i in held],
            hovertemplate="index %{customdata[0]}<br>%{customdata[1]}, held out of the fit "
            "(mapped)<extra></extra>",
        ),
        go.Scatter(  # the legend's entry: in no class's colour
            x=[None],
            y=[None],
            mode="markers",
            name=name,
            legendgroup="_held_out",
            legendrank=1999,
            marker=dict(color="#555555", **marker),
            hoverinfo="skip",
        ),
    ]


@dataclass(frozen=True)
class HeldOutScores:
    """The held-out points' 1-NN accuracy beside the transductive one (the unlabelled points
    the fit saw), both on the same fit, and the counts."""

    held_out: float | None
    transductive: float | None
    n_held_out: int
    n_fitted: int


def held_out_scores(request: FitRequest, test: float, seed: int = 0) -> HeldOutScores:
    """The 1-NN accuracies of the fit without the held-out share `test` (`fit_held_out`)."""
    fit = placement(request, test, seed).fit
    n_held = int(fit.held_out.sum())
    return HeldOutScores(
        fit.held_out_accuracy, fit.transductive_accuracy, n_held, fit.held_out.size - n_held
    )


def _shown(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def score_gap(scores) -> float | None:
    """The held-out points' score minus the transductive one (None where either is missing)."""
    if scores.held_out is None or scores.transductive is None:
        return None
    return scores.held_out - scores.transductive


def show_held_out_scores(request: FitRequest, test: float, seed: int = 0) -> None:
    """The accuracy on the held-out points beside the transductive one, as two tiles and a line."""
    scores = held_out_scores(request, test, seed)
    name = request.spec.label.split(" (")[0]
    seen = request.spec.transductive  # an inductive fit maps the other points as the held-out ones
    counts = f"{scores.n_held_out:,} / {scores.n_fitted:,}"
    labels = ["1-NN on held-out (mapped)", "1-NN transductive" if seen else "1-NN other unlabelled"]
    values = [_shown(scores.held_out), _shown(scores.transductive)]
    tiles = [*zip(labels, values, strict=True), ("held out / fitted", counts)]
    left, middle, right = presentation.tile_columns(st, tiles)
    left.metric(
        labels[0],
        values[0],
        **presentation.score_difference(score_gap(scores)),
        help="the held-out points placed by the out-of-sample map; the arrow: minus the "
        "transductive score beside it",
    )
    middle.metric(
        labels[1],
        values[1],
        help="the unlabelled points not held out (the fit saw their features), same fit"
        if seen
        else "the unlabelled points not held out, mapped by the same fit",
    )
    right.metric("held out / fitted", counts)
    st.caption(
        f"Held out: {scores.n_held_out:,} unlabelled points ({100 * test:.0f} % of the points, a "
        f"stratified draw with seed {seed}) were kept out of {name}'s fit; the chart shows the "
        f"fit on the other {scores.n_fitted:,} points, and the open diamonds are where its "
        "out-of-sample map places the held-out ones. Both accuracies use the labelled points "
        "as reference; the score above the chart is the fit on every point."
    )


# ------------------------------------------------------------------------------ query points


def query_points(data: DataRef) -> np.ndarray | None:
    """The session's new points on data set `data` (rows of raw features), or None."""
    rows = st.session_state.get(_STORE, {}).get(data)
    return None if not rows else np.asarray(rows, dtype=np.float64)


def add_query(data: DataRef, x) -> None:
    """Add a new point (raw features) to the session's list for `data` (at most MAX_QUERIES)."""
    store = st.session_state.setdefault(_STORE, {})
    rows = store.setdefault(data, [])
    rows.append(np.asarray(x, dtype=np.float64).ravel())
    del rows[:-MAX_QUERIES]


def clear_queries(data: DataRef) -> None:
    """Forget the session's new points on `data`."""
    st.session_state.setdefault(_STORE, {}).pop(data, None)


def place_queries(
    request: FitRequest, X_new, test: float = 0.0, seed: int = 0
) -> tuple[Placement, NewPoints]:
    """The new points (raw features) where the method maps them (`map_new_points`), with their
    nearest neighbours among the points the fit saw under the method's metric (the embedding)
    and Euclidean in the (scaled) input; neighbour indices are the data set's."""
    place = placement(request, test, seed)
    ds, _ = memo.view_data(request.data)
    ref = np.flatnonzero(place.reference)
    new = map_new_points(
        place.estimator,
        place.scale(X_new),
        place.scale(ds.X[ref]),
        Z_reference=place.embedding[ref],
        n_neighbors=N_NEIGHBOURS,
    )
    return place, replace(
        new,
        coordinates=np.asarray(new.coordinates).reshape(len(new.coordinates), -1),
        embedding_neighbours=ref[new.embedding_neighbours],
        input_neighbours=ref[new.input_neighbours],
    )


def query_traces(request: FitRequest, X_new, test: float = 0.0, seed: int = 0, drawn=None):
    """(traces, new): the new points `X_new` (raw features) as stars where the method maps them,
    numbered, hover naming their nearest neighbour, and `place_queries`' `NewPoints` with the
    stars' coordinates as the panel draws them (where they lie, before a clip to the frame).
    `drawn`: every point's coordinates as the panel draws the placement's embedding."""
    place, new = place_queries(request, X_new, test, seed)
    ds, _ = memo.view_data(request.data)
    W, _ = _frame(place, drawn)
    nearest = new.embedding_neighbours[:, 0]
    coords = _strip(_apply(W, new.coordinates), ds.y[nearest], 2)
    names = _names(ds)
    labels = [f"{k + 1}" for k in range(coords.shape[0])]
    trace = go.Scatter(
        x=coords[:, 0],
        y=coords[:, 1],
        mode="markers+text",
        text=labels,
        textposition="top right",
        textfont=dict(size=14),
        name=QUERY_NAME + ("s" if len(labels) > 1 else ""),
        legendgroup="_new_points",
        legendrank=1998,
        marker=dict(color="#111111", size=20, symbol="star", line=dict(width=1.5, color="white")),
        customdata=[
            [f"new point {k}", int(i), names[ds.y[i]]] for k, i in zip(labels, nearest, strict=True)
        ],
        hovertemplate="%{customdata[0]}<br>nearest: index %{customdata[1]} "
        "(%{customdata[2]})<extra></extra>",
    )
    return [trace], replace(new, coordinates=coords)


def new_points_csv(request: FitRequest, new: NewPoints, X_new) -> str:
    """The new points as CSV: their number, their coordinates as the chart draws them (as the
    coordinates file gives the data's points), their features as entered, and their nearest
    points under the method's metric (index, class, distance; the table's), nearest first."""
    ds, _ = memo.view_data(request.data)
    names = _names(ds)
    X_new = np.asarray(X_new, dtype=np.float64)
    features = [str(f) for f in ds.feature_names]
    if len(features) != X_new.shape[1]:
        features = [f"feature_{j + 1}" for j in range(X_new.shape[1])]
    columns: dict = {"new_point": np.arange(1, len(X_new) + 1)}
    coords = np.asarray(new.coordinates, dtype=np.float64)
    for j in range(coords.shape[1]):
        columns[f"dimension_{j + 1}"] = coords[:, j]
    for j, name in enumerate(features):
        columns[name] = X_new[:, j]
    for r in range(new.embedding_neighbours.shape[1]):
        nearest = new.embedding_neighbours[:, r]
        columns[f"neighbour_{r + 1}"] = nearest.astype(int)
        columns[f"neighbour_{r + 1}_class"] = [names[ds.y[i]] for i in nearest]
        columns[f"distance_{r + 1}"] = new.embedding_distances[:, r]
    return pd.DataFrame(columns).to_csv(index=False, lineterminator="\n", float_format=_shortest)


def _shortest(value: float) -> str:
    """A float as the shortest text that reads back to it (as `metriclab.export` writes)."""
    return repr(float(value))


def neighbour_table(request: FitRequest, new: NewPoints) -> pd.DataFrame:
    """One row per new point and neighbour: the point's number, the neighbour's rank, index,
    class and distance under the method's metric (in its embedding)."""
    ds, _ = memo.view_data(request.data)
    names = _names(ds)
    rows = []
    for q, (idx, dist) in enumerate(
        zip(new.embedding_neighbours, new.embedding_distances, strict=True)
    ):
        for rank, (i, d) in enumerate(zip(idx, dist, strict=True), start=1):
            rows.append(
                {
                    "new point": q + 1,
                    "rank": rank,
                    "index": int(i),
                    "label": names[ds.y[i]],
                    "distance": float(d),
                }
            )
    return pd.DataFrame(rows)


def show_query_neighbours(request: FitRequest, new: NewPoints, X_new) -> None:
    """The new points' five nearest neighbours under the method's metric as a table; on an image
    set the last new point's image beside them (and beside its Euclidean ones)."""
    ds, _ = memo.view_data(request.data)
    name = request.spec.label.split(" (")[0]
    st.markdown(f"**Nearest neighbours of the new points** under {name}'s metric (its embedding)")
    st.dataframe(neighbour_table(request, new), hide_index=True, width="stretch")
    stem = downloads.file_name(downloads.data_stem(request.data), request.method, "new-points")
    st.download_button(
        "New points (CSV)",
        lambda: new_points_csv(request, new, X_new).encode(),
        file_name=f"{stem}.csv",
        mime="text/csv",
        key="dl_new_points",
        on_click="ignore",
        help="each new point: its coordinates as the chart draws its star, its features as "
        "entered, and its nearest points under the method's metric (index, class, distance)",
    )
    if ds.image_shape is None:
        return
    last = len(new.coordinates) - 1
    spaces = [
        (f"{name}'s embedding", new.embedding_neighbours[last], new.embedding_distances[last]),
        ("Euclidean input", new.input_neighbours[last], new.input_distances[last]),
    ]
    for label, idx, dist in spaces:
        overlays.neighbour_grid(
            ds,
            (X_new[last], f"new point {last + 1}"),
            (idx, dist),
            f"new point {last + 1}: nearest under {label}",
            "new_point_neighbours_" + label,
        )


# ------------------------------------------------------------------ adding points: vector sets


def _on_input_click(data: DataRef, projection) -> None:
    """The input panel's click: a new point where it landed (lifted to the features)."""
    event = st.session_state.get(INPUT_KEY) or {}
    points = (event.get("selection") or {}).get("points") or []
    if not points:
        return
    x, y = points[0].get("x"), points[0].get("y")
    if x is None or y is None:
        return
    add_query(data, projection.lift(np.array([[float(x), float(y)]]))[0])


def _add_typed(data: DataRef, projection) -> None:
    x = st.session_state.get(INPUT_KEY + "_x")
    y = st.session_state.get(INPUT_KEY + "_y")
    if x is not None and y is not None:
        add_query(data, projection.lift(np.array([[float(x), float(y)]]))[0])


def input_panel(request: FitRequest, test: float = 0.0, seed: int = 0) -> None:
    """The input-space picture (the data as they are on a 2-D set, else their first two
    principal components): a click anywhere adds a new point there (on the principal plane for
    more than two features); x/y inputs and "Add point" do the same. Held-out points and new
    points are marked as on the embedding."""
    ds, mask = memo.resolve(request)
    projection = overlays.input_projection(ds.X)
    U = projection.coords(ds.X)
    titles = projection.axis_titles(ds.feature_names)
    fig = plots.embedding_scatter(
        U,
        ds.y,
        mask,
        ds.target_names,
        title="Input space: click to add a point",
        axis_titles=titles,
        marker_size=5,
    )
    fig.update_traces(unselected=dict(marker=dict(opacity=0.75)))
    if test > 0 and cannot_place(request) is None:
        held = placement(request, test, seed).held_out
        fig.add_traces(
            go.Scatter(
                x=U[held, 0],
                y=U[held, 1],
                mode="markers",
                name=HELD_OUT_NAME,
                marker=dict(
                    color=[class_color(c) for c in ds.y[held]],
                    size=9,
                    symbol="diamond-open",
                    line=dict(width=2),
                ),
                hoverinfo="skip",
            )
        )
    X_new = query_points(request.data)
    if X_new is not None:
        Q = projection.coords(X_new)
        fig.add_traces(
            go.Scatter(
                x=Q[:, 0],
                y=Q[:, 1],
                mode="markers+text",
                text=[str(k + 1) for k in range(Q.shape[0])],
                textposition="top right",
                name=QUERY_NAME,
                marker=dict(color="#111111", size=16, symbol="star"),
                customdata=[[f"new point {k + 1}"] for k in range(Q.shape[0])],
                hovertemplate="%{customdata[0]}<extra></extra>",
            )
        )
    fig.add_traces(_click_layer(U))
    fig.update_layout(height=360, clickmode="event+select", hovermode="closest")
    draw_chart(
        st,
        fig,
        key=INPUT_KEY,
        on_select=partial(_on_input_click, request.data, projection),
        selection_mode="points",
    )
    left, middle, right = st.columns([2, 2, 1.4], vertical_alignment="bottom")
    centre = U.mean(axis=0)
    left.number_input(titles[0], value=round(float(centre[0]), 3), key=INPUT_KEY + "_x")
    middle.number_input(titles[1], value=round(float(centre[1]), 3), key=INPUT_KEY + "_y")
    right.button(
        "Add point",
        key=INPUT_KEY + "_add",
        on_click=_add_typed,
        args=(request.data, projection),
        help="a new point at these coordinates of the picture",
    )
    if projection.projected:
        st.caption(
            f"{ds.n_features} features: the picture is their first two principal components, "
            "and a new point is placed on their plane (the other components at the mean)."
        )


def _click_layer(U: np.ndarray) -> go.Scatter:
    """Invisible points on a grid over the picture: Streamlit reports a click on a point only,
    so these are what a click on empty space selects (their hover says where a point goes)."""
    (x0, x1), (y0, y1) = plots.padded_range(U[:, 0]), plots.padded_range(U[:, 1])
    gx, gy = np.meshgrid(np.linspace(x0, x1, CLICK_GRID), np.linspace(y0, y1, CLICK_GRID))
    return go.Scatter(
        x=gx.ravel(),
        y=gy.ravel(),
        mode="markers",
        name="click to add a point",
        showlegend=False,
        marker=dict(size=2, color="rgba(0,0,0,0)"),  # small: the nearest one wins a click
        selected=dict(marker=dict(opacity=0)),
        unselected=dict(marker=dict(opacity=0)),
        hovertemplate="add a point at (%{x:.3g}, %{y:.3g})<extra></extra>",
    )


# ------------------------------------------------------------------- adding points: image sets


def digit_maker(request: FitRequest, test: float = 0.0, seed: int = 0) -> None:
    """Image sets: a digit from the held-out part (any unlabelled one when nothing is held out),
    moved along a tangent direction (as on the Tangent page) by an amount, or drawn on a pixel
    grid that starts from it (`drawn_digit`), and "Add this digit"."""
    from metriclab.methods.tangent import TRANSFORMS, transformed_images
    from metriclab.ui.tangent import AMOUNTS, readable

    ds, mask = memo.resolve(request)
    if test > 0 and cannot_place(request) is None:
        pool, where = np.flatnonzero(placement(request, test, seed).held_out), "held-out"
    else:
        pool, where = np.flatnonzero(~mask), "unlabelled"
    names = _names(ds)
    left, right = st.columns([3, 1])
    with left:
        start = st.selectbox(
            f"Start from a {where} digit",
            pool.tolist(),
            key="new_digit_start",
            format_func=lambda i: f"point {i} ({names[ds.y[i]]})",
        )
        draw = st.toggle(
            "Draw it on a pixel grid",
            key="new_digit_draw",
            help="tick a cell to ink it, untick to erase; the grid starts from the digit chosen",
        )
        if draw:
            image = drawn_digit(ds, start)
        else:
            move = st.selectbox(
                "Move it along",
                ["none", *TRANSFORMS],
                key="new_digit_move",
                format_func=lambda t: "nothing (as it is)" if t == "none" else readable(t),
            )
            high = max(AMOUNTS.get(move, (0.0, 1.0)))
            amount = st.slider(
                "by",
                -high,
                high,
                0.0,
                step=high / 10,
                key=f"new_digit_amount.{move}",
                disabled=move == "none",
            )
            image = np.asarray(ds.X[start], dtype=np.float64)
            if move != "none" and amount != 0:
                image = transformed_images(image, tuple(ds.image_shape), move, [amount])
                image = image.reshape(-1)
    with right:
        draw_chart(
            st,
            plots.image_grid(image[None], tuple(ds.image_shape), ["new digit"], n_cols=1),
            key="new_digit_preview",
        )
    st.button(
        "Add this digit",
        key="new_digit_add",
        on_click=add_query,
        args=(request.data, image),
        help="a new point: this image, mapped by the method",
    )


GRID_MAX = 16  # the pixel grid's largest side: a 28 × 28 image is edited as 14 × 14 cells
GRID_CELL_PX = 26  # a cell of the grid, in pixels (16 cells: 416 px, the column beside the preview)


def drawn_digit(ds, start: int) -> np.ndarray:
    """A pixel grid of checkboxes (Streamlit has no drawing canvas): image `start` with its ink
    ticked (at most GRID_MAX cells a side, each cell a block of pixels); the image the ticks
    make, in the data's pixel range (ink: its largest value, paper: its smallest)."""
    h, w = ds.image_shape
    block = int(np.ceil(max(h, w) / GRID_MAX))
    gh, gw = -(-h // block), -(-w // block)
    lo, hi = float(np.min(ds.X)), float(np.max(ds.X))
    padded = np.full((gh * block, gw * block), lo)
    padded[:h, :w] = np.asarray(ds.X[start], dtype=np.float64).reshape(h, w)
    cells = padded.reshape(gh, block, gw, block).mean(axis=(1, 3))
    columns = [str(c + 1) for c in range(gw)]
    ink = pd.DataFrame(cells > lo + (hi - lo) / 3, columns=columns)
    edited = st.data_editor(
        ink,
        key=f"new_digit_grid.{start}",
        hide_index=True,
        column_config={c: st.column_config.CheckboxColumn(c, width=GRID_CELL_PX) for c in columns},
    )
    ticked = np.kron(np.asarray(edited, dtype=bool), np.ones((block, block)))[:h, :w]
    return (lo + (hi - lo) * ticked).reshape(-1)


# ------------------------------------------------------------------------- the live view's use


def wanted(request: FitRequest, test: float) -> bool:
    """Whether a panel of `request` draws held-out or new points (and can)."""
    needed = test > 0 or query_points(request.data) is not None
    return needed and cannot_place(request) is None


def shown_fit(request: FitRequest, result, test: float, seed: int = 0):
    """(the fit to draw, the held-out mask or None): where held-out or new points are drawn, the
    page's `result` with the placement's embedding and labelled points (the fit without the
    held-out share); else `result` as it is. Raises ValueError as `placement` does."""
    if result.Z is None or not wanted(request, test):
        return result, None
    place = placement(request, test, seed)
    return replace(result, Z=place.embedding, mask=place.labeled), place.held_out


def add_new_point_traces(fig, request: FitRequest, test: float, seed: int, drawn):
    """Add the held-out trace and the new points' stars to a panel's figure (`drawn`: every
    point's coordinates as it draws `shown_fit`'s embedding); the new points' `NewPoints`, or
    None when there are none."""
    traces = held_out_traces(request, test, seed, drawn)
    X_new = query_points(request.data)
    new = None
    if X_new is not None:
        stars, new = query_traces(request, X_new, test, seed, drawn)
        traces += stars
    for trace in traces:  # a point outside the chart's frame is drawn on its edge
        if trace.customdata is None:  # a legend entry
            continue
        for axis, ranges in (("x", fig.layout.xaxis.range), ("y", fig.layout.yaxis.range)):
            if ranges is not None:
                trace[axis] = np.clip(np.asarray(trace[axis], dtype=np.float64), *ranges)
    fig.add_traces(traces)
    return new


def new_points_section(request: FitRequest, test: float, seed: int, new) -> None:
    """Under the embedding: the held-out scores, the way to add a point (input panel or digit
    maker), the "Clear new points" button and the new points' neighbours (`new`: their
    `NewPoints`, or None)."""
    reason = cannot_place(request)
    if reason is not None:
        if test > 0 or query_points(request.data) is not None:
            st.info(f"{reason}. No held-out or new points are drawn.", icon=":material/block:")
        return
    if test > 0:
        show_held_out_scores(request, test, seed)
    add_point_controls(request, test, seed)
    if new is not None:
        show_query_neighbours(request, new, query_points(request.data))


def add_point_controls(request: FitRequest, test: float, seed: int) -> None:
    """The "Add a new point" switch: on, the input panel (vector sets) or the digit maker (image
    sets); "Clear new points" once there are some (the points are the data set's: every view of it
    draws them). Off, nothing of it is built: a folded expander still built its 1,700-point click
    layer on every rerun, a sixth of a slider move's server time (issue 41)."""
    ds, _ = memo.view_data(request.data)
    has_points = query_points(request.data) is not None
    st.session_state.setdefault(ADD_KEY, has_points)
    shown = st.toggle(
        "Add a new point",
        key=ADD_KEY,
        help="a click on the input space (or a digit drawn or moved) adds a point that every "
        "method of this data set maps into its embedding",
    )
    if shown:
        with st.container(border=True):
            if ds.image_shape is None:
                input_panel(request, test, seed)
            else:
                digit_maker(request, test, seed)
    if query_points(request.data) is not None:
        st.button(
            "Clear new points",
            key="new_points_clear",
            on_click=clear_queries,
            args=(request.data,),
        )
