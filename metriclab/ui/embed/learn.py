"""The Embed page's "watch it learn" view: a metric learner's embedding over its iterations as
client-side animation frames (a slider and a play button; no server round trip while playing),
with the loss curve beside it (`learning_frames`, `panels.learning_figure`)."""

from __future__ import annotations

import streamlit as st

from metriclab.methods import specs_with
from metriclab.plots import panels
from metriclab.ui.embed.context import EmbedPage
from metriclab.ui.embed.learning_frames import learning_frames, records_iterates
from metriclab.ui.shared import memo
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import FitRequest
from metriclab.ui.shared.session_data import require_visible


@st.cache_data(show_spinner=False, max_entries=16)
def _frames(request: FitRequest):
    ds, _ = memo.view_data(request.data)
    mask = memo.split(request.data, request.split)
    return learning_frames(ds, mask, request)


def _no_iterations(spec) -> None:
    learners = ", ".join(s.label for s in specs_with("learning_frames"))
    graph = " and ".join(s.label for s in specs_with("graph"))
    st.info(
        f"{spec.label} has no iterations to watch: it is solved in one step (an eigenproblem "
        f"or a closed form). Learners fitted iteratively: {learners}."
        + (
            f" {graph} are drawn side by side on the same graph in the 'input view'."
            if graph
            else ""
        )
    )


def learn_view(page: EmbedPage) -> None:
    spec = page.spec
    if not records_iterates(spec):
        _no_iterations(spec)
        return
    left, right = st.columns([1, 4])
    with left:
        st.markdown(f"**{spec.label}** parameters")
        params = page.widgets()
    page.publish(params)
    request = page.with_params(params)
    require_visible(request.data.name)
    with right, st.spinner(f"fitting {spec.label} and recording its iterations (once; cached)"):
        out = guarded(_frames, request, context=spec.label)
    if out is None:
        return
    ds, _ = memo.view_data(request.data)
    mask = memo.split(request.data, request.split)
    labels = [
        f"iteration {i} (1-NN {a:.2f})" for i, a in zip(out.iterations, out.accuracies, strict=True)
    ]
    fig = panels.learning_figure(
        out.frames,
        out.losses,
        ds.y,
        mask,
        ds.target_names,
        title=f"{spec.label} on {ds.name}:<br>press play, or drag the slider through the iterations",
        frame_labels=labels,
        loss_title=spec.loss_name,
        iterations=out.iterations,
        curve=out.curve,
    )
    draw_chart(right, fig, key="learn_chart")
    start = "the start (its initial L)" if out.first_iteration == 0 else "its first step"
    right.caption(
        f"{len(out.frames)} frames from {start} to the last of {out.iterations[-1]} iterations, "
        "all computed once on the server and played in the browser. Each frame maps every point "
        + ("through the kernel-PCA map, then " if spec.has("kernelised") else "")
        + "with that iteration's L, normalised (the learned scale is not shown) and turned onto the "
        "frame before; the red dot follows the loss. The slider's label gives the 1-NN accuracy "
        "on the unlabeled points at that iteration."
        + (f" {spec.learning_note}" if spec.learning_note else "")
    )
