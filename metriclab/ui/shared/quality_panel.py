"""Quality beyond 1-NN on a page (issue 37, item 3): the classifier choice, the chosen
classifier's accuracy beside a shuffled-label baseline, trustworthiness, continuity and the kept
neighbours at k of the embedding against the input space (and against a learned metric's space),
and an overlay that colours each point by its own value.

The numbers come from `metriclab.evaluation.quality` (so they equal scikit-learn's on the page's
coordinates); `measure` is a pure function of the arrays, and `cached_quality` keeps its result
per request (st.cache_data keyed by the `FitRequest`, k and the classifier; nothing is drawn
inside it). Full-size sets are measured on a named sample and the page says its size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from metriclab import plots
from metriclab.evaluation.fitting import SplitRequest, fit_split
from metriclab.evaluation.quality import (
    DEFAULT_K,
    N_PERMUTATIONS,
    BaselinedAccuracy,
    NeighbourhoodQuality,
    accuracy_with_baseline,
    neighbourhood_quality,
)
from metriclab.evaluation.scoring import classifier_accuracy, parse_classifier
from metriclab.export import learned_matrix
from metriclab.preprocess import scale_features, scaler_fit_rows
from metriclab.ui.shared import memo
from metriclab.ui.shared.fit_request import CLASSIFIER_KEY, QUALITY_K_KEY, FitRequest
from metriclab.ui.shared.state import Rule, publish, seed_widget

CLASSIFIERS = {  # the library's classifiers in an embedding (metriclab.evaluation.scoring)
    "1nn": "1-NN",
    "knn:5": "5-NN",
    "nearest_mean": "nearest class mean",
}
OVERLAY_KEY = "qcolour"  # the overlay choice (session only: a view's colouring, not a fit)
OVERLAYS = {
    "classes": "classes",
    "trustworthiness": "own trustworthiness",
    "kept": "own kept-neighbour share",
}
METRIC_TAGS = ("mahalanobis", "linear_map")  # methods whose fit has a matrix (learned_matrix)


def classifier_label(classifier: str) -> str:
    """The classifier as the page names it: '1-NN', '5-NN', 'nearest class mean'."""
    if classifier in CLASSIFIERS:
        return CLASSIFIERS[classifier]
    rule, k = parse_classifier(classifier)
    return "nearest class mean" if rule == "nearest_mean" else f"{k}-NN"


def classifier_widget(container=None, key: str = CLASSIFIER_KEY) -> str:
    """The classifier picker (its value in the link under `key`); returns the chosen one."""
    seed_widget(key, Rule("1nn", options=list(CLASSIFIERS), label="Classifier"))
    return (container or st).selectbox(
        "Classifier",
        list(CLASSIFIERS),
        key=key,
        format_func=CLASSIFIERS.get,
        help="How the unlabelled points are classified in the embedding, with the labelled "
        "points as the reference: nearest neighbour, a 5-neighbour vote, or the nearest class "
        "mean.",
    )


def rescored(fitted, y: np.ndarray, classifier: str):
    """A fit (`ViewResult`) scored by `classifier` (the fit's own 1-NN score when '1nn', a
    classifier method's own predictions always); the same object when nothing changes."""
    from dataclasses import replace

    if classifier == "1nn" or fitted.Z is None:
        return fitted
    mask = fitted.mask
    accuracy = classifier_accuracy(fitted.Z[mask], y[mask], fitted.Z[~mask], y[~mask], classifier)
    return replace(fitted, accuracy=float(accuracy))


# -- the measures ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class QualityReport:
    """What the quality line shows: the accuracy beside its baseline, the neighbourhoods against
    the input space and (for a learned metric) against the metric's space."""

    accuracy: BaselinedAccuracy
    input: NeighbourhoodQuality
    metric: NeighbourhoodQuality | None = None


@dataclass(frozen=True)
class QualitySettings:
    """What the person chose: the neighbourhood size k and the classifier; `seed` draws the
    shuffles (and the sample of a full-size set)."""

    k: int = DEFAULT_K
    classifier: str = "1nn"
    seed: int = 0


def measure(Z, X, y, mask, settings: QualitySettings = QualitySettings(), metric=None):
    """The quality (`QualityReport`) of embedding `Z` of input `X` (scaled as the method saw it):
    the classifier's accuracy beside N_PERMUTATIONS shuffles of the labels, and the
    neighbourhoods at k against the input space and, when `metric` (a d × d matrix) is given,
    against its space. Raises ValueError with the reason for a k the points do not allow."""
    k, seed = settings.k, settings.seed
    accuracy = accuracy_with_baseline(
        Z, y, mask, settings.classifier, n_permutations=N_PERMUTATIONS, seed=seed
    )
    input_quality = neighbourhood_quality(X, Z, k, y=y, seed=seed)
    metric_quality = None
    if metric is not None:
        metric_quality = neighbourhood_quality(X, Z, k, metric=metric, y=y, seed=seed)
    return QualityReport(accuracy, input_quality, metric_quality)


def scaled_input(request: FitRequest, ds, mask: np.ndarray) -> np.ndarray:
    """The features as the method saw them (the page's scaling, fitted on the rows it used)."""
    if request.scaling == "none":
        return ds.X
    rows = scaler_fit_rows(request.spec, "transductive", mask)
    return scale_features(request.scaling, ds.X, rows)


@st.cache_data(show_spinner=False, max_entries=16)
def _fitted_matrices(request: FitRequest, _ds, _mask):
    """(M, L) of the page's fit of a linear or Mahalanobis learner: the same fit as the page's
    (`fit_split`, transductive protocol, the page's scaling and seed), refitted once here because
    the page's cached fit keeps the coordinates, not the estimator. None where the fitted
    estimator exposes neither (a method tagged from outside the package)."""
    spec = request.spec
    split = SplitRequest.of(
        spec, _ds, _mask, request.values, protocol="transductive", preprocess=request.scaling
    )
    estimator = fit_split(split).estimator
    try:
        M = learned_matrix(estimator, "M")
    except ValueError:  # no get_mahalanobis_matrix, no components_
        return None
    L = getattr(estimator, "components_", None)
    return M, None if L is None else np.asarray(L, dtype=np.float64)


def has_matrix(request: FitRequest) -> bool:
    """Whether the method learns a linear map or a Mahalanobis matrix (and has an embedding)."""
    spec = request.spec
    return spec.output == "embedding" and any(spec.has(tag) for tag in METRIC_TAGS)


def fitted_matrices(request: FitRequest) -> tuple[np.ndarray, np.ndarray | None] | None:
    """(M, L) of the page's fit where the method has them (None otherwise, and on a full-size
    view, whose learner is fitted on a sample by its own path)."""
    if not has_matrix(request) or memo.is_full_size(request.data):
        return None
    ds, mask = memo.resolve(request)
    return _fitted_matrices(request, ds, mask)


@st.cache_data(show_spinner=False, max_entries=32)
def _cached_quality(request: FitRequest, settings: QualitySettings, _arrays) -> QualityReport:
    """`measure` keyed by the request and the settings (the arrays follow from the request); the
    input is scaled in here, so that a cached rerun does not scale 70,000 images again."""
    Z, ds, mask, metric = _arrays
    X = scaled_input(request, ds, mask)
    return measure(Z, X, ds.y, mask, settings, metric)


def cached_quality(request: FitRequest, result, k: int, classifier: str) -> QualityReport:
    """`measure` of the page's fit (`result`, a `ViewResult` of `request`), cached by the request,
    k and the classifier; against the learned metric too where the method learns one."""
    ds, mask = memo.resolve(request)
    metric = None
    if request.spec.has("mahalanobis"):
        matrices = fitted_matrices(request)
        metric = None if matrices is None else matrices[0]
    arrays = (result.Z, ds, result.mask, metric)
    return _cached_quality(request, QualitySettings(int(k), classifier), arrays)


# -- the page's words and pictures ----------------------------------------------------------------


def accuracy_line(report: QualityReport) -> str:
    """'1-NN accuracy 0.933 (chance 0.34 ± 0.02: the labels shuffled 20 times)'."""
    a = report.accuracy
    return (
        f"**{classifier_label(a.classifier)} accuracy {a.accuracy:.3f}** (chance "
        f"{a.baseline_mean:.2f} ± {a.baseline_std:.2f}: the labels shuffled {a.n_permutations} "
        "times)"
    )


def neighbourhood_line(quality: NeighbourhoodQuality, against: str) -> str:
    """'Against the input space (k = 5, all 150 points): trustworthiness 0.971 · continuity
    0.952 · kept neighbours 0.640'."""
    return (
        f"Against {against} (k = {quality.k}, {quality.sample.name}): trustworthiness "
        f"**{quality.trustworthiness:.3f}** · continuity **{quality.continuity:.3f}** · kept "
        f"neighbours **{quality.kept:.3f}**"
    )


def drawn_coordinates(request: FitRequest, result) -> np.ndarray:
    """The embedding as the page's chart draws it: normalised and Procrustes-aligned to the
    view's previous picture (the same arrays, bit for bit, as `live.embedding_figure`)."""
    view_id = (request.data, request.method, request.split, request.scaling)
    reference = st.session_state.get("_previous", {}).get(view_id)
    return plots.align_to(plots.normalize_embedding(result.Z[:, :2]), reference)


def overlay_figure(Z: np.ndarray, quality: NeighbourhoodQuality, which: str, title: str):
    """The measured points at the chart's coordinates, coloured by their own value on a
    continuous scale with a colour bar (hover: index and value); unmeasured points in grey."""
    values = (
        quality.trustworthiness_per_point
        if which == "trustworthiness"
        else (quality.kept_per_point)
    )
    name = OVERLAYS[which].removeprefix("own ")
    Z = Z if Z.shape[1] > 1 else np.column_stack([Z[:, 0], np.zeros(len(Z))])
    idx = quality.indices
    many = len(Z) > plots.embedding.WEBGL_ABOVE
    Scatter = go.Scattergl if many else go.Scatter
    traces = []
    rest = np.setdiff1d(np.arange(len(Z)), idx)
    if rest.size:
        traces.append(
            Scatter(
                x=Z[rest, 0],
                y=Z[rest, 1],
                mode="markers",
                marker=dict(color="#d0d0d0", size=4),
                name=f"not measured ({rest.size:,})",
                hoverinfo="skip",
            )
        )
    traces.append(
        Scatter(
            x=Z[idx, 0],
            y=Z[idx, 1],
            mode="markers",
            name=name,
            customdata=np.column_stack([idx, values]),
            hovertemplate=f"index %{{customdata[0]:.0f}}<br>{name} %{{customdata[1]:.3f}}"
            "<extra></extra>",
            marker=dict(
                color=values,
                colorscale="Viridis",
                cmin=0.0,
                cmax=1.0,
                size=5 if many else 8,
                line=dict(width=0.6, color="#404040"),  # yellow (1.0) stays visible on white
                colorbar=dict(title=dict(text=name, side="right"), thickness=14, len=0.9),
            ),
            showlegend=False,
        )
    )
    fig = go.Figure(traces)
    fig.update_layout(
        title=plots.base.titled(title),
        height=460,
        margin=dict(l=40, r=10, t=plots.base.top_margin(title), b=40),
        xaxis=dict(title=dict(text="dimension 1"), zeroline=False),
        yaxis=dict(title=dict(text="dimension 2"), zeroline=False, scaleanchor="x"),
        showlegend=bool(rest.size),
        legend=dict(orientation="h", y=-0.12),
    )
    return fig


def quality_k_widget(container=None, n_points: int | None = None) -> int:
    """The k of the neighbourhood measures (link key `qk`): at least 1, less than half of the
    `n_points` measured (a drawing of 4 points opened on k = 5, the default, and an error)."""
    high = max(1, (n_points - 1) // 2) if n_points else None
    default = DEFAULT_K if high is None else min(DEFAULT_K, high)
    seed_widget(QUALITY_K_KEY, Rule(default, bounds=(1, high), parse=int, label="k"))
    return int(
        (container or st).number_input(
            "k (neighbours)",
            min_value=1,
            max_value=high,
            step=1,
            key=QUALITY_K_KEY,
            help="The neighbourhood size of trustworthiness, continuity and the kept share: "
            "less than half the points measured"
            + (f" (here < {n_points / 2:g})." if n_points else "."),
        )
    )


def show_quality(request: FitRequest, result, classifier: str, label: str, controls=None) -> None:
    """The quality line below a page's scores: the accuracy beside chance, the neighbourhoods at
    k (against the input space and the learned metric), and the overlay choice. `label` names
    the method; `controls` are the row's columns (the classifier's first, then k's and the
    overlay's; a new row when None)."""
    from metriclab.ui.shared.errors import guarded

    if result.Z is None:
        st.caption("Trustworthiness and continuity measure an embedding: this classifier has none.")
        return
    _, k_column, overlay_column = controls if controls is not None else st.columns([2, 1, 2])
    k = quality_k_widget(k_column, int(result.Z.shape[0]))
    which = overlay_column.selectbox(
        "Colour the points by",
        list(OVERLAYS),
        key=OVERLAY_KEY,
        format_func=OVERLAYS.get,
        help="Each point's own trustworthiness (are its neighbours in the picture near it in the "
        "input?) or the share of its k input-space neighbours kept in the picture.",
    )
    publish({CLASSIFIER_KEY: classifier, QUALITY_K_KEY: k})
    report = guarded(cached_quality, request, result, k, classifier, context="quality")
    if report is None:
        return
    lines = [accuracy_line(report), neighbourhood_line(report.input, "the input space")]
    if report.metric is not None:
        line = neighbourhood_line(report.metric, f"{label}'s learned metric")
        if report.metric.trustworthiness == report.metric.continuity == 1.0:
            line += ", by construction: the embedding x ↦ Lx is the metric's own space"
        lines.append(line)
    st.markdown("  \n".join(lines))
    if report.input.n_points < result.Z.shape[0]:
        st.caption(
            f"Measured on {report.input.sample.name}: trustworthiness needs every pairwise "
            f"distance of the measured points; the accuracy uses every unlabelled point, its "
            f"chance level {report.accuracy.baseline_sample.name} of them."
        )
    if which != "classes":
        Z = drawn_coordinates(request, result)
        title = f"{label}: each point's {OVERLAYS[which].removeprefix('own ')} at k = {k}"
        st.plotly_chart(overlay_figure(Z, report.input, which, title), key="quality_overlay")
