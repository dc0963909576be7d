"""How many points the Embed page draws and fits: all of them (the full-size path for more than
FULL_SIZE, issue 26), or a stratified sample the person chooses; a classifier and the views that
refit many times (λ scrub, window map, input view, learning frames) run on a sample they name."""

from __future__ import annotations

import streamlit as st

from metriclab.datasets import Dataset
from metriclab.methods import REGISTRY
from metriclab.ui.shared.fit_request import CAP_KEY
from metriclab.ui.shared.full_size import CLASSIFIER_CAP, SUBSAMPLE_MODES, is_full_size
from metriclab.ui.shared.pickers import LARGE, POINT_CAPS
from metriclab.ui.shared.state import seed_from_url

ALL = "all"
LINKED = "linked"  # the linked views draw every point (a learner fitted on a sample says so)


def _cap(text: str) -> int | str:
    """A link's `cap`: "all" or a whole number (the default "all" is a word, so the text is not
    read as a number by the default's type)."""
    return ALL if text == ALL else int(text)


def points_picker(ds: Dataset, method: str) -> int | None:
    """The "Points used" slider of a data set of more than LARGE points: a stratified sample or
    all of them (the default, but for a classifier); None means all."""
    if ds.n_samples <= LARGE:
        return None
    options = [cap for cap in POINT_CAPS if cap < ds.n_samples] + [ALL]
    default = 1000 if REGISTRY[method].has("classifier") else ALL
    seed_from_url(CAP_KEY, default, options=options, parse=_cap, label="Points used")
    cap = st.select_slider(
        "Points used (stratified sample)",
        options,
        key=CAP_KEY,
        format_func=lambda v: f"all {ds.n_samples:,}" if v == ALL else f"{v:,}",
        help="All points: the graph methods (TDL, Laplacian Eigenmaps) fit every one; the other "
        "learners are fitted on a sample of the labelled points and map every point.",
    )
    return None if cap == ALL else int(cap)


def effective_points(ds: Dataset, method: str, mode: str, max_points: int | None):
    """(points, note): what a view can run on, and a sentence where it runs on fewer than chosen."""
    drawn = ds.n_samples if max_points is None else min(max_points, ds.n_samples)
    if not is_full_size(drawn) or mode == LINKED:  # the linked views fit the methods they list
        return max_points, None
    if REGISTRY[method].has("classifier"):
        return CLASSIFIER_CAP, (
            f"{REGISTRY[method].label} predicts point by point: it runs on a stratified sample of "
            f"{CLASSIFIER_CAP:,} of the {drawn:,} points."
        )
    if mode != "live":
        return SUBSAMPLE_MODES, (
            f"This view refits the method many times: it runs on a stratified sample of "
            f"{SUBSAMPLE_MODES:,} of the {drawn:,} points (the live view draws them all)."
        )
    return max_points, None
