"""Embed page: one method on one data set, live; the other view modes (input view, watch it learn,
λ scrub, window map) are modules of metriclab/ui/embed/."""

import streamlit as st

from metriclab.ui.embed import presets
from metriclab.ui.embed.context import EmbedPage
from metriclab.ui.embed.input_view import input_view
from metriclab.ui.embed.learn import learn_view
from metriclab.ui.embed.linked import linked_view
from metriclab.ui.embed.live import live_view
from metriclab.ui.embed.points import effective_points, points_picker
from metriclab.ui.embed.scrub import scrub_view
from metriclab.ui.embed.window import window_view
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef
from metriclab.ui.shared.pickers import (
    LARGE,
    dataset_picker,
    explainer,
    labels_picker,
    method_picker,
)
from metriclab.ui.shared.preprocessing import scaling_picker
from metriclab.ui.shared.router import ensure_router
from metriclab.ui.shared.session_data import dataset
from metriclab.ui.shared.state import Rule, seed_widget

MODES = {"live": "live", "input": "input view", "learn": "watch it learn"}
MODES |= {"scrub": "λ scrub", "window": "window map", "linked": "linked views"}
VIEWS = {
    "live": live_view,
    "input": input_view,  # label by clicking, see the metric
    "learn": learn_view,  # a learner's iterations as animation frames
    "scrub": scrub_view,
    "window": window_view,
    "linked": linked_view,  # 2-4 methods side by side, one selection in all
}

ensure_router()
st.title("Embed")

presets.apply_landing_view()
with st.sidebar:
    presets.preset_buttons()
    name, data_params = dataset_picker(st.sidebar, offer="full_size")
    ds_full = guarded(dataset, name, tuple(sorted(data_params.items())), context=name)
    method = method_picker(st.sidebar, default=presets.default_method(), dataset=ds_full)
    label_mode, label_value, seed = labels_picker(st.sidebar)
    scaling = scaling_picker(st.sidebar, ds_full if ds_full is not None else name)
    max_points = None if ds_full is None else points_picker(ds_full, method)
    seed_widget("mode", Rule("live", list(MODES), label="View", shown=MODES.get))
    mode = st.radio("View", list(MODES), key="mode", format_func=MODES.get, horizontal=True)

if mode == "linked":  # the sidebar's Method is the other views'; the linked view picks its own
    st.caption("The linked view uses the methods chosen below, not the sidebar's Method.")
else:
    explainer(*presets.explanation(method))
if ds_full is None:
    st.stop()
used, note = effective_points(ds_full, method, mode, max_points)
if note:
    st.info(note, icon=":material/filter_alt:")

request = FitRequest(
    DataRef(name, data_params, used),
    SplitRef(label_mode, label_value, seed),
    method,
    scaling=scaling,
)
url_keys = [*request.link_keys(offers_cap=ds_full.n_samples > LARGE), "mode"]
VIEWS[mode](EmbedPage(request, ds_full, url_keys))
