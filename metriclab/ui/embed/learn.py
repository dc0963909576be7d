"""The Embed page's "watch it learn" view: a metric learner's embedding over its iterations as
client-side animation frames (a slider and a play button; no server round trip while playing),
with the loss curve beside it (`learning_frames`, `panel_plots.learning_figure`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamlit as st

from metriclab import panel_plots
from metriclab.methods import REGISTRY
from metriclab.ui import cache
from metriclab.ui.errors import guarded
from metriclab.ui.learning_frames import LOSS_NAMES, learning_frames, records_iterates
from metriclab.ui.pickers import url_values
from metriclab.ui.state import publish


@st.cache_data(show_spinner=False, max_entries=16)
def _frames(name, params, max_points, method, method_params, mode, value, seed, preprocess):
    ds, _ = cache.view_data(name, params, max_points)
    mask = cache.split(name, params, max_points, mode, value, seed)
    return learning_frames(ds, REGISTRY[method], dict(method_params), mask, preprocess)


def learn_view(
    spec,
    data_key: tuple,
    split_key: tuple,
    scaling: str,
    widgets: Callable[[], dict],
    url_keys: Sequence[str],
    prefix: str,
) -> None:
    if not records_iterates(spec):
        learners = ", ".join(REGISTRY[k].label for k in REGISTRY if records_iterates(REGISTRY[k]))
        st.info(
            f"{spec.label} has no iterations to watch: it is solved in one step (an eigenproblem "
            f"or a closed form). Learners fitted iteratively: {learners}. TDL and LE are drawn "
            "side by side on the same graph in the 'input view'."
        )
        return
    left, right = st.columns([1, 4])
    with left:
        st.markdown(f"**{spec.label}** parameters")
        params = widgets()
    publish(url_values([*url_keys, *(prefix + p for p in params)]), prune=("p.", "d."))
    cache.require_visible(data_key[0])
    with right, st.spinner(f"fitting {spec.label} and recording its iterations (once; cached)"):
        out = guarded(
            _frames,
            *data_key,
            spec.key,
            cache.params_key(params),
            *split_key,
            scaling,
            context=spec.label,
        )
    if out is None:
        return
    ds, _ = cache.view_data(*data_key)
    mask = cache.split(*data_key, *split_key)
    labels = [
        f"iteration {i} (1-NN {a:.2f})" for i, a in zip(out.iterations, out.accuracies, strict=True)
    ]
    fig = panel_plots.learning_figure(
        out.frames,
        out.losses,
        ds.y,
        mask,
        ds.target_names,
        title=f"{spec.label} on {ds.name}: press play, or drag the slider through the iterations",
        frame_labels=labels,
        loss_title=LOSS_NAMES.get(spec.key, "loss"),
        iterations=out.iterations,
        curve=out.curve,
    )
    right.plotly_chart(fig, key="learn_chart")
    start = "the start (its initial L)" if out.first_iteration == 0 else "its first step"
    right.caption(
        f"{len(out.frames)} frames from {start} to the last of {out.iterations[-1]} iterations, "
        "all computed once on the server and played in the browser. Each frame maps every point "
        + ("through the kernel-PCA map, then " if spec.family == "kpca_trick" else "")
        + "with that iteration's L, normalised (the learned scale is not shown) and turned onto the "
        "frame before; the red dot follows the loss. The slider's label gives the 1-NN accuracy "
        "on the unlabeled points at that iteration."
        + (
            " LMNN's loss can step up where its impostor set is recomputed (new impostors enter)."
            if spec.key in ("lmnn", "klmnn")
            else ""
        )
    )
