"""Watching a metric learner learn, computed without streamlit: NCA and LMNN (and their kernel forms
by the KPCA trick, KNCA and KLMNN) fitted on a split with `record_iterates`, every point mapped by
the L of each recorded iteration, as frames for a client-side animation beside the loss curve."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metriclab import plots
from metriclab.datasets import Dataset
from metriclab.evaluation import SplitRequest, fit_split, knn_accuracy
from metriclab.preprocess import scale_features, scaler_fit_rows

MAX_FRAMES = 60  # more iterations than this are sampled evenly (first and last kept)


def records_iterates(spec) -> bool:
    """Whether the method records its iterations (its spec's "learning_frames" tag)."""
    return spec.has("learning_frames")


@dataclass
class LearningFrames:
    frames: list[np.ndarray]  # each n × 2 (or n × 1), normalised, turned onto the frame before
    losses: list[float]
    iterations: list[int]  # the iteration each frame shows (1 = after the first step)
    accuracies: list[float]  # 1-NN on the unlabeled points at that iteration
    first_iteration: int  # 0 when the first recorded L is the start (LMNN), else 1 (NCA)
    curve: tuple[list[int], list[float]]  # the whole loss curve: (iteration, loss)


def frame_indices(n: int, max_frames: int = MAX_FRAMES) -> np.ndarray:
    """At most `max_frames` indices of 0..n-1 spread evenly, the first and the last included."""
    if n <= max_frames:
        return np.arange(n)
    return np.unique(np.round(np.linspace(0, n - 1, max_frames)).astype(int))


def learning_frames(
    ds: Dataset, mask: np.ndarray, request, max_frames: int = MAX_FRAMES
) -> LearningFrames:
    """The method of `request` (a `FitRequest`) fitted on the labeled points with its iterations
    recorded, and every point mapped by the L of each (sampled) iteration: the embedding as the
    fit moved it."""
    spec, params, preprocess = request.spec, request.values, request.scaling
    if not records_iterates(spec):
        raise ValueError(
            f"{spec.label} does not record its iterations (methods tagged 'learning_frames' do)"
        )
    mask = np.asarray(mask, dtype=bool)
    fitted = fit_split(
        SplitRequest.of(spec, ds, mask, params, protocol="transductive", preprocess=preprocess),
        configure=lambda estimator: estimator.set_params(record_iterates=True),
    )
    estimator = fitted.estimator
    iterates = list(estimator.iterates_)
    losses = [float(v) for v in estimator.loss_curve_]
    if not iterates:
        raise ValueError(
            f"{spec.label} made no iterations on this split: its start already meets its "
            "convergence test, so there is nothing to play (another split, scaling or start "
            "may move)"
        )
    if len(iterates) != len(losses):
        raise ValueError(f"{spec.label} recorded {len(iterates)} iterates for {len(losses)} losses")
    X = scale_features(preprocess, ds.X, scaler_fit_rows(spec, "transductive", mask))
    # the space each iterate's L acts on: the features, or a kernel learner's KPCA coordinates
    kpca = getattr(estimator, "kpca_transform", None)
    X = X if kpca is None else kpca(X)
    first = estimator.first_iterate_  # 0 when the start is recorded (LMNN), 1 when not (NCA)
    frames, accuracies, previous = [], [], None
    picked = frame_indices(len(iterates), max_frames)
    for i in picked:
        Z = X @ np.asarray(iterates[i]).T
        accuracies.append(knn_accuracy(Z[mask], ds.y[mask], Z[~mask], ds.y[~mask]))
        shown = plots.align_to(plots.normalize_embedding(Z[:, :2]), previous)
        frames.append(shown)
        previous = shown
    return LearningFrames(
        frames,
        [losses[i] for i in picked],
        [int(i) + first for i in picked],
        accuracies,
        first,
        (list(range(first, first + len(losses))), losses),
    )
