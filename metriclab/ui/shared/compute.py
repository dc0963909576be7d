"""What the pages compute, without streamlit: one method fitted on one labeled split of one data set,
and the same over a parameter grid (λ scrub frames, window map). Wrapped in caches by `ui.shared.memo`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metriclab.datasets import Dataset
from metriclab.datasets.sampling import subsample_indices  # noqa: F401  (the pages' name)
from metriclab.eigen import DENSE_MAX_POINTS
from metriclab.evaluation import SplitRequest, estimator_params, fit_split, labeled_mask
from metriclab.graph_store import array_fact
from metriclab.graphs import CUT_OFF, cut_off_points, unlinked_points
from metriclab.positions import COLLAPSED_SHARE, collapsed, distinct_positions
from metriclab.preprocess import scale_features

# Learned state shown on the pages when an estimator has it.
EXTRA_ATTRIBUTES = (
    "kernel_",
    "dissimilarity_",
    "affinity_",
    "stress_",
    "kernel_weights_",
    "widths_",
    "loss_curve_",
    "is_euclidean_",
    "fisher_separable_",
    "checks_",
)


@dataclass
class ViewResult:
    """One fitted method on one split: the embedding (None for classifiers) and what to show with it."""

    method: str
    mask: np.ndarray  # True = labeled
    accuracy: float  # 1-NN (or the classifier's) accuracy on the unlabeled points
    Z: np.ndarray | None = None
    predictions: np.ndarray | None = None
    eigenvalues: np.ndarray | None = None
    fit_time: float = 0.0
    extras: dict[str, Any] = field(default_factory=dict)
    device: str | None = None  # "cpu" or "gpu": where it was fitted (`device_`), if it says
    fitted_on: int | None = (
        None  # labelled points the learner saw, where fewer than all (full size)
    )
    spectrum: np.ndarray | None = None  # the first SPECTRUM_SHOWN eigenvalues (`spectrum_of`)
    graph: GraphCheck | None = None  # a graph method's graph, as a collapse's cause (`graph_check`)


@dataclass(frozen=True)
class GraphCheck:
    """What a graph method's graph says about an embedding that collapsed (`graph_check`)."""

    kind: str  # "knn" or "full"
    n_neighbors: int  # of a kNN graph
    width: float  # the heat width t the weights used
    auto_width: bool  # t was the default (the mean squared kNN distance)
    unlinked: int  # points with no path to the largest piece
    pieces: int  # connected components
    cut_off: int  # points outside the largest piece once edges < CUT_OFF × the median are dropped


SPECTRUM_SHOWN = 10  # eigenvalues the Embed page's spectrum shows at least, where it can


def spectrum_of(estimator, n_points: int) -> np.ndarray | None:
    """The first SPECTRUM_SHOWN eigenvalues of a fitted spectral method's problem, where it used
    fewer and can say more without fitting again (its `spectrum`: one dense eigenvalue solve, about
    1 ms on two moons against 2 ms for a second fit on every slider move; 140 ms on yeast's 1,484
    points, about the fit's own eigensolve), up to the size the fit itself solves densely
    (DENSE_MAX_POINTS); else None."""
    count = min(SPECTRUM_SHOWN, n_points - 2)
    used = np.size(getattr(estimator, "eigenvalues_", []))
    if not hasattr(estimator, "spectrum") or n_points > DENSE_MAX_POINTS or count <= used:
        return None
    return np.asarray(estimator.spectrum(count), dtype=np.float64)


def collapsed_counts(
    Z: np.ndarray, mask: np.ndarray, share: float = COLLAPSED_SHARE
) -> tuple[int, int] | None:
    """(distinct positions, unlabeled points) when the unlabeled points of `Z` sit on fewer than
    `share` of their number of positions (an out-of-sample map that sends everything to a few
    places), else None."""
    unseen = np.asarray(Z)[~np.asarray(mask, dtype=bool)]
    n = unseen.shape[0]
    k = distinct_positions(unseen) if n >= 10 else n
    return (k, n) if collapsed(k, n, share) else None


def collapse_sentence(counts: tuple[int, int], cause: str | None = None) -> str:
    """The warning for a collapse of `counts` (`collapsed_counts`); `cause` (a sentence,
    `graph_cause`) replaces the general remedy where the cause is known."""
    k, n = counts
    head = (
        f"The embedding has collapsed: the {n:,} unlabeled points sit on only {k:,} distinct "
        "position(s), so their 1-NN score is mostly tie-breaking. "
    )
    return head + (
        cause
        or "Widen the kernel / basis, keep more dimensions, add labels or choose another method."
    )


def collapse_warning(
    Z: np.ndarray, mask: np.ndarray, share: float = COLLAPSED_SHARE, cause: str | None = None
) -> str | None:
    """The warning of a collapsed embedding (`collapse_sentence`), None where it did not collapse."""
    counts = collapsed_counts(Z, mask, share)
    return None if counts is None else collapse_sentence(counts, cause)


def graph_check(estimator) -> GraphCheck | None:
    """The connectivity of a fitted graph method's graph (`affinity_`, `width_`): its pieces and
    the points its lightest edges all but cut off, the two ways Laplacian Eigenmaps' smallest
    eigenvectors single out a few points and put the rest at one position. None for other methods."""
    W = getattr(estimator, "affinity_", None)
    width = getattr(estimator, "width_", None)
    if W is None or width is None:
        return None
    unlinked, pieces = graph_pieces(W)
    return GraphCheck(
        kind=str(getattr(estimator, "graph", "knn")),
        n_neighbors=int(getattr(estimator, "n_neighbors_", 0) or 0),
        width=float(width),
        auto_width=getattr(estimator, "width", None) is None,
        unlinked=unlinked,
        pieces=pieces,
        cut_off=graph_cut_off(W),
    )


def graph_pieces(W) -> tuple[int, int]:
    """`unlinked_points(W)`, kept with a stored graph (`array_fact`): a λ move keeps the graph."""
    return array_fact(W, "unlinked points", lambda: unlinked_points(W))


def graph_cut_off(W) -> int:
    """`cut_off_points(W)`, kept with a stored graph (`array_fact`)."""
    return array_fact(W, "cut-off points", lambda: cut_off_points(W))


def graph_cause(check: GraphCheck | None, label: str) -> str | None:
    """Why the graph of `check` makes `label`'s embedding collapse, in a sentence, or None when it
    shows no cause (a whole graph with no cut-off point)."""
    if check is None:
        return None
    if check.unlinked:
        return (
            f"Cause: the {check.n_neighbors}-NN graph falls into {check.pieces} pieces "
            f"({check.unlinked:,} points have no path to the rest), and the smallest "
            f"eigenvectors of {label} give each piece its own position."
        )
    if check.cut_off:
        auto = " (the default: the mean squared kNN distance)" if check.auto_width else ""
        return (
            f"Cause: {check.cut_off:,} point(s) are linked to the rest only by edges lighter than "
            f"{CUT_OFF:g} of a typical edge at the heat width t = {check.width:.3g}{auto}, and "
            f"the smallest eigenvectors of {label} single them out."
        )
    return None


@dataclass(frozen=True)
class Remedy:
    """Parameter values that undo a collapse, measured (`graph_remedy`)."""

    changes: tuple  # ((parameter, value as its widget holds it), ...): graph neighbours, heat width
    positions: int  # distinct positions of the unlabeled points after them

    def sentence(self) -> str:
        said = {
            "n_neighbors": lambda v: f"{v} graph neighbours",
            "width": lambda v: f"the heat width t = {v:g}",
        }
        what = " and ".join(said[name](value) for name, value in self.changes)
        return (
            f"Measured: with {what} the unlabeled points spread over {self.positions:,} positions."
        )


def _steps_up(current: float, options: Sequence[Any], factors: Sequence[float]) -> list[Any]:
    """The options nearest current × each factor, above current, in order, each once."""
    numeric = [o for o in options if isinstance(o, int | float) and o > current]
    steps: list[Any] = []
    for factor in factors:
        if numeric:
            nearest = min(numeric, key=lambda o: abs(o - current * factor))
            if nearest not in steps:
                steps.append(nearest)
    return steps


NEIGHBOUR_STEPS = (1.5, 2, 3, 4, 5)  # × the graph's neighbours, tried in order
WIDTH_STEPS = (4, 16, 64, 256)  # × the heat width, tried in order


def graph_remedy(
    request, result: ViewResult, fit, neighbour_options: Sequence[Any], width_options: Sequence[Any]
) -> Remedy | None:
    """The parameter steps that address the graph's cause of a collapse, measured with
    `fit(request)` (the page's own fit), each from the options the widgets offer: for a graph in
    pieces, the first step up of the graph neighbours that makes it whole; then, while points stay
    cut off or the embedding collapsed, the first step up of the heat width (on top of the
    neighbours) after which none is cut off. The remedy is returned only where the embedding no
    longer collapses; None when no step undoes it (or the graph shows no cause)."""
    check = result.graph
    if check is None or not (check.unlinked or check.cut_off) or result.Z is None:
        return None
    names = {p.name for p in request.spec.params}
    changes: dict[str, Any] = {}
    after = result
    if check.unlinked and check.kind == "knn" and "n_neighbors" in names:
        n_max = int(result.mask.size) - 1
        for value in _steps_up(check.n_neighbors, neighbour_options, NEIGHBOUR_STEPS):
            trial = fit(request.with_params(n_neighbors=value)) if value <= n_max else None
            if trial is not None and trial.graph is not None and trial.graph.unlinked == 0:
                changes, after = {"n_neighbors": value}, trial
                break
    whole = after.graph is not None and after.graph.unlinked == 0
    if whole and after.Z is not None and not collapse_warning(after.Z, after.mask):
        return _remedy(changes, after)
    if "width" in names and after.graph is not None:
        for value in _steps_up(after.graph.width, width_options, WIDTH_STEPS):
            trial = fit(request.with_params(**changes, width=value))
            linked = trial.graph is not None and not trial.graph.unlinked + trial.graph.cut_off
            if linked and trial.Z is not None and not collapse_warning(trial.Z, trial.mask):
                return _remedy({**changes, "width": value}, trial)
    return None


def _remedy(changes: dict[str, Any], after: ViewResult) -> Remedy:
    unseen = after.Z[~np.asarray(after.mask, dtype=bool)]
    return Remedy(tuple(changes.items()), distinct_positions(unseen))


@dataclass
class SeedSpread:
    """A method's accuracy against a reference's over the same split seeds."""

    mean: float
    std: float
    ref_mean: float
    ref_std: float
    wins: int
    ties: int
    losses: int
    outcome: str = "ties"  # the paired test's: "beats", "loses" or "ties"
    p_value: float = float("nan")

    def verdict(self, name: str, ref: str) -> str:
        """One sentence derived from the numbers: the paired test (two-sided Wilcoxon signed-rank
        over the seeds, level 0.05) decides "beats" and "loses"; anything else is no clear
        difference, whatever the win count says."""
        p = "p undefined" if self.p_value != self.p_value else f"p = {self.p_value:.2g}"
        test = f"(paired Wilcoxon test over the {self.wins + self.ties + self.losses} seeds, {p})"
        if self.outcome == "beats":
            return f"{name} beats {ref} {test}."
        if self.outcome == "loses":
            return f"{name} loses to {ref} {test}."
        return f"No clear difference between {name} and {ref} {test}."


def seed_spread(accuracies: Sequence[float], references: Sequence[float]) -> SeedSpread:
    """Mean ± std of both, the paired wins/ties/losses (ties within 1e-12) and the paired test."""
    from metriclab.evaluation import paired_verdict

    a, b = np.asarray(accuracies, dtype=float), np.asarray(references, dtype=float)
    if a.shape != b.shape or a.size == 0:
        raise ValueError("need the same, non-zero number of accuracies for both")
    d = a - b
    outcome, p = paired_verdict(d)
    return SeedSpread(
        float(a.mean()),
        float(a.std()),
        float(b.mean()),
        float(b.std()),
        int(np.sum(d > 1e-12)),
        int(np.sum(np.abs(d) <= 1e-12)),
        int(np.sum(d < -1e-12)),
        outcome,
        p,
    )


def split_mask(y: np.ndarray, split) -> np.ndarray:
    """Labeled points of one split (`SplitRef`): a share of each class ("fraction") or a number
    per class ("per_class"), drawn with the split's seed."""
    if split.mode == "fraction":
        return labeled_mask(y, fraction=float(split.value), seed=split.seed)
    if split.mode == "per_class":
        return labeled_mask(y, per_class=int(split.value), seed=split.seed)
    raise ValueError(f"label mode must be 'fraction' or 'per_class', got {split.mode!r}")


def named_as_on_the_page(message: str, spec) -> str:
    """An estimator's message with its parameter names replaced by the sliders' labels
    ("n_neighbors must be <= 9" -> "Graph neighbours must be <= 9")."""
    for p in sorted(spec.params, key=lambda p: -len(p.name)):
        # only where the name is the subject of a check: "name must ...", "name=value ..."
        name = rf"(?<![\w.]){re.escape(p.name)}"
        message = re.sub(rf"{name}(?= must\b)", p.label, message)
        message = re.sub(rf"{name}=", f"{p.label} ", message)
    return message


def method_kwargs(spec, ds: Dataset, params: dict[str, Any]) -> dict[str, Any]:
    """Parameters for `spec.make`, with the image shape added for image methods."""
    return estimator_params(spec, params, ds.image_shape, ds.name)


def _extras(estimator) -> dict[str, Any]:
    out = {}
    for name in EXTRA_ATTRIBUTES:
        value = getattr(estimator, name, None)
        if value is not None:
            out[name] = value
    return out


def fit_view(
    view: tuple[Dataset, np.ndarray],
    request,
    extras: bool = True,
    progress=None,
    graph=None,
    spectrum: bool = False,
) -> ViewResult:
    """Fit the method of `request` (a `FitRequest`) with its parameters on the resolved `view`
    (ds, mask: the data and its labelled points, as `memo.resolve` gives them) and score 1-NN on
    the unlabeled points (`mask` False): `fit_split` under the transductive protocol, since the
    pages show every point's embedding. `extras=False` drops the learned matrices (kernel,
    affinity...) that only some pages show. The features are scaled by `request.scaling` first
    (fitted on the points the method is fitted on). `progress(done, total, message)` hears the
    stages of a classifier: the fit, then each block of predicted points (when its predict
    reports them, as the tangent-distance ones do); `graph` is `fit_split`'s graph hook (the
    full-size path's kept kNN graph); `spectrum` adds the first SPECTRUM_SHOWN eigenvalues
    (`spectrum_of`: as dear as the fit's own eigensolve, so only the Embed page's view asks)."""
    ds, mask = view
    spec = request.spec
    split = SplitRequest.of(
        spec, ds, mask, request.values, protocol="transductive", preprocess=request.scaling
    )  # the pages show every point's embedding
    try:
        fitted = fit_split(split, progress=progress, graph=graph)
    except ValueError as exc:
        raise ValueError(named_as_on_the_page(str(exc), spec)) from exc
    mask = fitted.mask
    if fitted.predictions is not None:
        predictions = ds.y.copy()
        predictions[~mask] = fitted.predictions
        return ViewResult(
            spec.key,
            mask,
            fitted.accuracy(),
            predictions=predictions,
            fit_time=fitted.fit_time_s,
            extras=_extras(fitted.estimator),
            device=getattr(fitted.estimator, "device_", None),
        )
    Z = np.asarray(fitted.embedding(), dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    if not np.all(np.isfinite(Z)):
        raise ValueError(f"{spec.label} produced non-finite coordinates; try other parameters")
    eigenvalues = getattr(fitted.estimator, "eigenvalues_", None)
    return ViewResult(
        spec.key,
        mask,
        fitted.accuracy(),
        Z=Z,
        eigenvalues=None if eigenvalues is None else np.asarray(eigenvalues, dtype=np.float64),
        fit_time=fitted.fit_time_s,
        extras=_extras(fitted.estimator) if extras else {},
        device=getattr(fitted.estimator, "device_", None),
        spectrum=spectrum_of(fitted.estimator, Z.shape[0]) if spectrum else None,
        graph=graph_check(fitted.estimator),
    )


def scrub_embeddings(
    ds: Dataset, mask: np.ndarray, request, name: str, values: Sequence[Any]
) -> tuple[list[np.ndarray], list[float]]:
    """Embeddings (first two columns) and accuracies with parameter `name` of `request` set to
    each of `values`."""
    spec = request.spec
    frames, accuracies = [], []
    for value in values:
        result = fit_view((ds, mask), request.with_params(**{name: value}), extras=False)
        if result.Z is None:
            raise ValueError(f"{spec.label} gives no embedding to scrub through")
        frames.append(result.Z[:, :2])
        accuracies.append(result.accuracy)
    return frames, accuracies


# ------------------------------------------------------------------------------ window map


@dataclass
class WindowMap:
    """A method's accuracy over a grid of two parameters beside its baseline's on the same cells."""

    grid: np.ndarray
    baseline: np.ndarray  # the baseline's accuracy per cell (its shared settings of that cell)
    baseline_label: str
    failures: list[str] = field(default_factory=list)  # "where: why" of each cell that failed
    # cells where the method's, or its baseline's, embedding collapsed (`collapse_warning`)
    collapsed: np.ndarray | None = None
    baseline_collapsed: np.ndarray | None = None

    @property
    def collapsed_cells(self) -> np.ndarray | None:
        """The cells where the method's or its baseline's embedding collapsed."""
        if self.collapsed is None or self.baseline_collapsed is None:
            return None
        return self.collapsed | self.baseline_collapsed


def shared_params(base_spec, values: dict[str, Any]) -> dict[str, Any]:
    """The settings a baseline shares with the method (LE beside TDL on the same graph)."""
    names = {p.name for p in base_spec.params}
    return {k: v for k, v in values.items() if k in names}


def collapsed_view(result: ViewResult) -> bool:
    """Whether the fitted embedding of `result` collapsed (`collapse_warning`)."""
    return result.Z is not None and collapse_warning(result.Z, result.mask) is not None


def window_accuracy(
    view: tuple[Dataset, np.ndarray],
    request,
    grid: tuple,
    progress=None,
    failures=None,
    collapsed_at: np.ndarray | None = None,
) -> np.ndarray:
    """Accuracy on the unlabeled points of `view` (the data and its labelled mask) over `grid` =
    ((row name, values), (column name, values)), the other parameters as in `request`; a cell
    whose fit fails is a gap (NaN) and its reason is appended to `failures` (a list, when given);
    `collapsed_at` (a boolean grid, when given) is set where the cell's embedding collapsed."""
    ds, mask = view
    (row_name, row_values), (col_name, col_values) = grid
    spec = request.spec
    out = np.full((len(row_values), len(col_values)), np.nan)
    total = out.size
    for i, rv in enumerate(row_values):
        for j, cv in enumerate(col_values):
            cell = request.with_params(**{row_name: rv, col_name: cv})
            try:
                result = fit_view((ds, mask), cell, extras=False)
                out[i, j] = result.accuracy
                if collapsed_at is not None:
                    collapsed_at[i, j] = collapsed_view(result)
            except (ValueError, np.linalg.LinAlgError, ArithmeticError) as exc:
                if failures is not None:
                    failures.append(f"{spec.label} at {row_name}={rv}, {col_name}={cv}: {exc}")
            if progress is not None:
                progress(i * len(col_values) + j + 1, total, f"{row_name}={rv}, {col_name}={cv}")
    return out


def window_map(
    ds: Dataset, mask: np.ndarray, request, grid: tuple, base_spec: Any = "auto"
) -> WindowMap:
    """The method over `grid` and its baseline fitted with each cell's shared settings, on the
    same split. `base_spec` "auto" is the method's own `baseline` (when registered); without a
    baseline (None) the grid's median is the reference."""
    from metriclab.methods import REGISTRY

    spec = request.spec
    if isinstance(base_spec, str) and base_spec == "auto":
        base_spec = REGISTRY.get(spec.baseline) if spec.baseline else None
    failures: list[str] = []
    shape = (len(grid[0][1]), len(grid[1][1]))
    own_collapsed, base_collapsed = np.zeros(shape, bool), np.zeros(shape, bool)
    accuracy = window_accuracy((ds, mask), request, grid, None, failures, own_collapsed)
    base = np.full(accuracy.shape, np.nan)
    if base_spec is not None:
        (row_name, row_values), (col_name, col_values) = grid
        fitted: dict[tuple, tuple] = {}  # cells sharing the baseline's settings are fitted once
        for i, rv in enumerate(row_values):
            for j, cv in enumerate(col_values):
                cell = request.with_params(**{row_name: rv, col_name: cv})
                shared = shared_params(base_spec, cell.values)
                key = tuple(sorted(shared.items()))
                if key not in fitted:
                    try:
                        baseline = cell.with_method(base_spec.key, shared)
                        result = fit_view((ds, mask), baseline, extras=False)
                        fitted[key] = (result.accuracy, collapsed_view(result))
                    except (ValueError, np.linalg.LinAlgError, ArithmeticError) as exc:
                        fitted[key] = (np.nan, False)
                        where = ", ".join(f"{k}={v}" for k, v in key) or "its defaults"
                        failures.append(f"{base_spec.label} at {where}: {exc}")
                base[i, j], base_collapsed[i, j] = fitted[key]
    if np.all(np.isnan(base)):
        base[:] = float(np.nanmedian(accuracy)) if np.any(np.isfinite(accuracy)) else np.nan
        label = "the grid's median"
    else:
        label = base_spec.label
    return WindowMap(accuracy, base, label, failures, own_collapsed, base_collapsed)


# ------------------------------------------------------------------------------ dissimilarity


@dataclass
class DissimilarityChecks:
    """Zhang's two checks on one dissimilarity matrix (the learned one, or the input distances)."""

    D: np.ndarray
    labels: np.ndarray
    which: str  # what D is, for the caption
    gower: Any  # methods.zhang.GowerCheck
    fisher: Any  # methods.zhang.FisherCheck


def matrix_labels(M: np.ndarray, y: np.ndarray, mask: np.ndarray) -> np.ndarray | None:
    """Labels for the rows of M: all points, or only the labeled (training) ones for inductive
    fits; None when M has neither size."""
    n = M.shape[0]
    if n == y.shape[0]:
        return y
    if n == int(np.sum(mask)):
        return y[np.asarray(mask, dtype=bool)]
    return None


def input_distances(X: np.ndarray) -> np.ndarray:
    """Euclidean distances between the rows of X (n × n)."""
    from scipy.spatial.distance import pdist, squareform

    return squareform(pdist(np.asarray(X, dtype=np.float64)))


def dissimilarity_checks(
    ds: Dataset, result: ViewResult, preprocess: str = "none"
) -> DissimilarityChecks:
    """Gower's Euclidean check and Fisher separability (Zhang 2003, Theorem 1 and Definition 2) of
    the learned dissimilarity, or of the labeled inputs' Euclidean distances (scaled as the method
    saw them) when the method has none."""
    from metriclab.methods.zhang import is_euclidean, is_fisher_separable

    D = result.extras.get("dissimilarity_")
    labels = matrix_labels(D, ds.y, result.mask) if D is not None else None
    if D is None or labels is None:
        mask = result.mask
        D = input_distances(scale_features(preprocess, ds.X[mask]))  # scaler fitted on these
        labels = ds.y[mask]
        which = "Euclidean distances of the labeled inputs"
    else:
        which = "the learned dissimilarity"
    return DissimilarityChecks(
        D, labels, which, is_euclidean(D, tol=1e-8), is_fisher_separable(D, labels)
    )


# ------------------------------------------------------------------------------ tangent page

NEAREST_EUCLIDEAN, NEAREST_TANGENT = "Euclidean distance", "tangent distance"


def tangent_pictures(
    image: np.ndarray, image_shape: tuple[int, int], transform: str, amounts: Sequence[float]
) -> tuple[np.ndarray, np.ndarray]:
    """One image's tangent vectors (one row per transformation, in `TRANSFORMS` order) and the
    image moved to first order along `transform` by each of `amounts` (one image per amount)."""
    from metriclab.methods.tangent import tangent_vectors, transformed_images

    vectors = tangent_vectors(image, image_shape)
    moved = transformed_images(image, image_shape, transform, amounts)
    return vectors, moved.reshape(len(amounts), -1)


def tangent_neighbours(
    ds: Dataset, mask: np.ndarray, query: int, transforms: str, two_sided: bool, k: int = 5
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The `k` nearest training images (mask True) of held-out image number `query` under the
    Euclidean and the tangent distance: {NEAREST_EUCLIDEAN | NEAREST_TANGENT: (indices into ds,
    distances)}."""
    from metriclab.methods.tangent import nearest_neighbours

    mask = np.asarray(mask, dtype=bool)
    train_idx, query_idx = np.flatnonzero(mask), np.flatnonzero(~mask)
    if not 0 <= query < query_idx.size:
        raise ValueError(f"query image {query} is not one of the {query_idx.size} held-out images")
    found = nearest_neighbours(
        ds.X[query_idx[query]],
        ds.X[train_idx],
        tuple(ds.image_shape),
        n_neighbors=k,
        transforms=transforms,
        two_sided=two_sided,
    )
    tangent = found.pop("tangent")
    (euclidean,) = found.values()  # the other one: the input space's distance
    return {
        NEAREST_EUCLIDEAN: (train_idx[euclidean[0]], euclidean[1]),
        NEAREST_TANGENT: (train_idx[tangent[0]], tangent[1]),
    }
