"""What the Embed page's input view shows, computed without streamlit: the 2-D view of the input
(the data as is, or its first two principal components), one method fitted on hand-made labels,
and what is drawn over the view — the kNN graph TDL and LE use, the unit balls of a learned
metric, LMNN's target neighbours and impostors of a point before and after learning — and a
point's nearest neighbours under a metric (the image side panel)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from metriclab.datasets import Dataset
from metriclab.evaluation import SplitRequest, fit_split, knn_accuracy
from metriclab.preprocess import scale_features, scaler_fit_rows

GRAPH_LEVELS = 4  # edge weights are drawn in this many opacity steps
BALL_GRID = 6  # unit balls at a BALL_GRID × BALL_GRID grid over the view
BALL_FILL = 0.45  # the typical ball's longest semi-axis, as a share of the grid step
MAX_ASPECT = 10.0  # longest / shortest semi-axis counted when choosing the radius
ELLIPSE_POINTS = 40


# ------------------------------------------------------------------------------- the input view


@dataclass(frozen=True)
class InputProjection:
    """The map from input space to the 2-D view: u = (x − mean) · basis (orthonormal columns);
    2-D data are shown as they are (mean 0, basis I)."""

    mean: np.ndarray
    basis: np.ndarray  # d × 2
    projected: bool  # True: the view is the first two principal components

    def coords(self, X: np.ndarray) -> np.ndarray:
        return (np.asarray(X, dtype=np.float64) - self.mean) @ self.basis

    def lift(self, U: np.ndarray) -> np.ndarray:
        """Input-space points of view coordinates U (on the view's plane)."""
        return self.mean + np.asarray(U, dtype=np.float64) @ self.basis.T

    def axis_titles(self, feature_names=None) -> tuple[str, str]:
        if self.projected:
            return ("PC 1", "PC 2")
        names = list(feature_names or [])
        if len(names) >= self.basis.shape[0]:
            return (str(names[0]), str(names[1]) if len(names) > 1 else "")
        return ("feature 1", "feature 2" if self.basis.shape[0] > 1 else "")


def input_projection(X: np.ndarray) -> InputProjection:
    """The data as they are when they have at most two features, else their first two principal
    components (signs fixed so that the largest loading of each is positive)."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    if d <= 2:
        basis = np.zeros((d, 2))
        basis[np.arange(d), np.arange(d)] = 1.0
        return InputProjection(np.zeros(d), basis, False)
    mean = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - mean, full_matrices=False)
    basis = Vt[:2].T.copy()
    signs = np.sign(basis[np.argmax(np.abs(basis), axis=0), [0, 1]])
    basis *= np.where(signs == 0, 1.0, signs)
    return InputProjection(mean, basis, True)


# ---------------------------------------------------------------------------- the kNN graph


def graph_edges(
    W, coords: np.ndarray, levels: int = GRAPH_LEVELS
) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """The edges i < j of the affinity W as line segments in view coordinates, grouped by weight
    (relative to the largest) into `levels` steps: [(opacity, xs, ys)], segments separated by NaN."""
    upper = sp.triu(sp.csr_matrix(W), k=1).tocoo()
    if upper.nnz == 0:
        return []
    weight = upper.data / upper.data.max()
    step = np.minimum((weight * levels).astype(int), levels - 1)
    out = []
    for level in range(levels):
        pick = step == level
        if not pick.any():
            continue
        i, j = upper.row[pick], upper.col[pick]
        xs = np.column_stack([coords[i, 0], coords[j, 0], np.full(i.size, np.nan)]).ravel()
        ys = np.column_stack([coords[i, 1], coords[j, 1], np.full(i.size, np.nan)]).ravel()
        out.append((0.12 + 0.6 * (level + 1) / levels, xs, ys))
    return out


# ------------------------------------------------------------------ unit balls of a learned metric


@dataclass
class MetricBalls:
    """Ellipses {u : ‖J_c (u − c)‖ ≤ radius} at grid centres c of the view (J_c: the learned map's
    derivative along the view's plane at c), as polylines with NaN separators; a ball longer than
    the grid step (the metric nearly flat there, or blind to a direction) is cut at the step and
    kept apart (`cut_xs`, `cut_ys`)."""

    xs: np.ndarray
    ys: np.ndarray
    cut_xs: np.ndarray
    cut_ys: np.ndarray
    radius: float
    centres: np.ndarray
    degenerate: bool  # the metric ignores a direction of the view somewhere


def view_jacobians(transform, projection: InputProjection, centres: np.ndarray, h: float):
    """(m × k × 2) derivatives of x ↦ transform(x) along the view's two directions at the input
    points of `centres` (central differences; exact for a linear map)."""
    m = centres.shape[0]
    shifted = []
    for axis in range(2):
        offset = np.zeros(2)
        offset[axis] = h
        shifted += [centres + offset, centres - offset]
    out = np.asarray(transform(projection.lift(np.concatenate(shifted))), dtype=np.float64)
    out = out.reshape(4, m, -1)
    return np.stack([(out[0] - out[1]) / (2 * h), (out[2] - out[3]) / (2 * h)], axis=2)


def _polyline(parts: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    if not parts:
        return np.empty(0), np.empty(0)
    gap = np.full((2, 1), np.nan)
    joined = np.concatenate([np.concatenate([p, gap], axis=1) for p in parts], axis=1)
    return joined[0], joined[1]


def metric_balls(
    transform,
    projection: InputProjection,
    coords: np.ndarray,
    n_grid: int = BALL_GRID,
    fill: float = BALL_FILL,
) -> MetricBalls:
    """Balls of one radius r under the metric d(x, x') = ‖f(x) − f(x')‖ of a learned map f
    (`transform`), drawn at an n_grid × n_grid grid over the view: for a linear map (M = LᵀL) the
    exact section of the ball by the view's plane, for a non-linear one its first-order shape.
    r is chosen so that the median ball's longest semi-axis is `fill` of the grid step."""
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    axes = [np.linspace(lo[a] + span[a] / (2 * n_grid), hi[a] - span[a] / (2 * n_grid), n_grid)
            for a in range(2)]  # fmt: skip
    centres = np.array([(x, y) for y in axes[1] for x in axes[0]])
    step = float(min(span) / n_grid)
    J = view_jacobians(transform, projection, centres, h=1e-4 * float(max(span)))
    G = np.einsum("mki,mkj->mij", J, J)  # the learned metric pulled back to the view's plane
    values, vectors = np.linalg.eigh(G)
    floor = max(float(np.max(values)), 1e-300) * 1e-12
    values = np.maximum(values, floor)
    degenerate = bool(np.any(values[:, 0] <= floor * 1e4))
    # longest semi-axis of each unit ball, counting at most MAX_ASPECT times the shortest (so a
    # metric blind to a direction still gets visible balls, cut at the grid step)
    longest = np.maximum(values[:, 0], values[:, 1] / MAX_ASPECT**2) ** -0.5
    radius = fill * step / float(np.median(longest))
    t = np.linspace(0, 2 * np.pi, ELLIPSE_POINTS)
    circle = np.stack([np.cos(t), np.sin(t)])  # 2 × T
    whole, cut = [], []
    for c, lam, Q in zip(centres, values, vectors, strict=True):
        semi = radius / np.sqrt(lam)
        (cut if semi.max() > step else whole).append(
            c[:, None] + Q @ (np.minimum(semi, step)[:, None] * circle)
        )
    xs, ys = _polyline(whole)
    cut_xs, cut_ys = _polyline(cut)
    return MetricBalls(xs, ys, cut_xs, cut_ys, radius, centres, degenerate)


# ------------------------------------------------------------- LMNN's neighbourhood of a point


def lmnn_neighbourhoods(
    X_train: np.ndarray, y_train: np.ndarray, targets: np.ndarray, L: np.ndarray
) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """For each training point i: (its target neighbours, its impostors before learning, its
    impostors after), as training-row indices. An impostor l of i is an other-class point inside
    i's margin: ‖L(x_i − x_l)‖² < max_j ‖L(x_i − x_j)‖² + 1 over i's targets j (LMNN's hinge
    [1 + d(i, j) − d(i, l)]₊ > 0); before learning L = I (the input space)."""
    X_train = np.asarray(X_train, dtype=np.float64)
    out = {}
    spaces = (X_train, X_train @ np.asarray(L, dtype=np.float64).T)
    sq = [np.sum((Z[:, None, :] - Z[None, :, :]) ** 2, axis=2) for Z in spaces]
    other = y_train[:, None] != y_train[None, :]
    for i in range(X_train.shape[0]):
        t = targets[i][targets[i] >= 0]
        found = []
        for D in sq:
            reach = (D[i, t].max() + 1.0) if t.size else -np.inf
            found.append(np.flatnonzero(other[i] & (D[i] < reach)))
        out[i] = (t, found[0], found[1])
    return out


def distance_labels(distances, least: int = 3, most: int = 8) -> list[str]:
    """Distances written with the fewest significant digits (at least `least`) that tell different
    values apart: 1093.4 and 1097.2 are not both "1.1e+03"."""
    values = np.asarray(distances, dtype=np.float64)
    distinct = len(np.unique(values))
    for digits in range(least, most + 1):
        texts = [f"{v:,.{digits}g}" if abs(v) < 1e6 else f"{v:.{digits}g}" for v in values]
        if len(set(texts)) == distinct:
            return texts
    return texts


def image_neighbours(ds, focus: int, spaces: list) -> None:
    """Image sets: point `focus`'s image beside its five nearest neighbours in each of `spaces`
    ([(label, coordinates of every point)]), one grid each, one under the other (wide enough for
    level captions), with distances that tell the neighbours apart."""
    names = [str(t) for t in ds.target_names]
    for label, space in spaces:
        found = nearest_neighbours(space, focus, 5)
        first = (ds.X[focus], f"point {focus}<br>{names[ds.y[focus]]}")
        neighbour_grid(ds, first, found, f"nearest under {label}", "neighbours_" + label)


def neighbour_grid(ds, first: tuple, found: tuple, title: str, key: str) -> None:
    """One image (`first`: (pixels, title)) beside its neighbours (`found`: (indices into ds,
    distances)) in one grid, each titled with its class and a distance that tells it apart."""
    import streamlit as st

    from metriclab import plots
    from metriclab.ui.shared.charts import draw_chart

    names = [str(t) for t in ds.target_names]
    idx, dist = found
    titles = [first[1]] + [
        f"{names[ds.y[j]]}<br>d = {d}" for j, d in zip(idx, distance_labels(dist), strict=True)
    ]
    draw_chart(
        st,
        plots.image_grid(
            np.vstack([np.asarray(first[0], dtype=np.float64)[None], ds.X[idx]]),
            tuple(ds.image_shape),
            titles,
            n_cols=6,
            title=title,
            row_height=110,
            font_size=13,
        ),
        key=key.replace(" ", "_"),
    )


def nearest_neighbours(Z: np.ndarray, i: int, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The k points nearest to point i in Z (Euclidean; i itself left out) and their distances."""
    Z = np.asarray(Z, dtype=np.float64)
    d = np.sqrt(np.sum((Z - Z[i]) ** 2, axis=1))
    d[i] = np.inf
    k = min(k, Z.shape[0] - 1)
    order = np.argsort(d, kind="stable")[:k]
    return order, d[order]


# ------------------------------------------------------------- one method on hand-made labels


@dataclass
class MetricView:
    """One method fitted on one label vector, with everything the input view draws."""

    coords: np.ndarray  # n × 2, the input view
    projected: bool
    n_features: int
    labels: np.ndarray  # n, the classes the method was given (-1 = unlabeled)
    Z: np.ndarray | None  # n × k, the embedding (all its columns)
    accuracy: float | None  # 1-NN on the unlabeled points, the hand labels as reference
    edges: list = field(default_factory=list)  # graph_edges of the method's graph
    balls: MetricBalls | None = None
    lmnn: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)
    error: str | None = None  # why there is no embedding (e.g. TDL given one class)


def labeled_accuracy(Z: np.ndarray, labels: np.ndarray, y_true: np.ndarray) -> float | None:
    """1-NN accuracy on the unlabeled points against their true classes, with the labeled points
    and the classes they were given as reference (None without a labeled and an unlabeled point)."""
    mask = labels >= 0
    if not mask.any() or mask.all():
        return None
    return knn_accuracy(Z[mask], labels[mask], Z[~mask], y_true[~mask])


def fit_on_labels(ds: Dataset, labels: np.ndarray, request, overlay: str = "none") -> MetricView:
    """The method of `request` (a `FitRequest`) fitted under its protocol with the classes
    `labels` gives the labeled points (-1: unlabeled; a class may differ from the point's true
    one), scored against the true classes; `overlay` ("graph", "balls", "impostors") adds what the
    input view draws over the data. A fit that the labels do not allow (TDL with one class) gives
    `error` instead of raising."""
    spec, params, preprocess = request.spec, request.values, request.scaling
    labels = np.asarray(labels, dtype=np.int64)
    mask = labels >= 0
    X = scale_features(preprocess, ds.X, scaler_fit_rows(spec, "transductive", mask))
    projection = input_projection(X)
    coords = projection.coords(X)
    view = MetricView(coords, projection.projected, X.shape[1], labels, None, None)
    given = np.where(mask, labels, ds.y)  # the classes the method sees on the labeled points
    try:
        fitted = fit_split(
            SplitRequest(  # the view shows every point's embedding, as the other views do
                spec, ds.X, given, mask, params, "transductive", preprocess, ds.image_shape, ds.name
            )
        )
    except ValueError as exc:
        view.error = str(exc)
        return view
    estimator = fitted.estimator
    Z = np.asarray(fitted.embedding(), dtype=np.float64)
    view.Z = Z[:, None] if Z.ndim == 1 else Z
    view.accuracy = labeled_accuracy(view.Z, labels, ds.y)
    if overlay == "graph" and getattr(estimator, "affinity_", None) is not None:
        view.edges = graph_edges(estimator.affinity_, coords)
    elif overlay == "balls" and not spec.transductive and hasattr(estimator, "transform"):
        view.balls = metric_balls(estimator.transform, projection, coords)
    elif overlay == "impostors" and hasattr(estimator, "target_neighbors_"):
        rows = np.flatnonzero(mask)
        lmnn = lmnn_neighbourhoods(
            X[rows], given[rows], estimator.target_neighbors_, estimator.components_
        )
        view.lmnn = {int(rows[i]): tuple(rows[a] for a in v) for i, v in lmnn.items()}
    return view
