"""The Embed page's λ scrub: the embeddings over a parameter's whole slider grid, computed once and
handed to the browser as animation frames (scrubbing needs no server)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from metriclab import plots
from metriclab.ui.embed.context import EmbedPage, numeric_params
from metriclab.ui.shared import code_snippets, downloads, memo, presentation
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.state import seed_from_url
from metriclab.ui.shared.widgets import format_value, param_values

MAX_FRAMES = 24


def frame_values(values: list) -> list:
    """At most MAX_FRAMES values of the slider's grid, spread evenly (both ends kept)."""
    if len(values) <= MAX_FRAMES:
        return values
    return [values[i] for i in np.linspace(0, len(values) - 1, MAX_FRAMES).round().astype(int)]


def scrub_view(page: EmbedPage) -> None:
    spec = page.spec
    # the output dimension changes the frames' shape: it is no scrub (the window map has it)
    candidates = [p for p in numeric_params(page) if p.name != "n_components"]
    if not candidates:
        st.info(f"{spec.label} has no numeric parameter to scrub through.")
        return
    names = [p.name for p in candidates]
    default = next((n for n in ("lam", "width") if n in names), names[0])
    seed_from_url("scrub", default, options=names, label="Scrub through")
    st.session_state["scrub"] = (
        st.session_state["scrub"] if st.session_state["scrub"] in names else default
    )
    left, right = st.columns([1, 3])
    with left:
        scrub_name = st.selectbox(
            "Scrub through", names, key="scrub", format_func=lambda n: spec.param(n).label
        )
        fixed = page.widgets(skip=(scrub_name,))
    page.publish(fixed, keys=["scrub"])
    scrubbed = page.page_param(scrub_name)
    values = frame_values(param_values(scrubbed))
    current = st.session_state.get(page.prefix + scrub_name, scrubbed.default)
    start = int(np.argmin([abs(v - current) for v in values])) if current is not None else 0
    request = page.with_params(fixed)
    with right, st.spinner(f"computing {len(values)} embeddings (once; cached)"):
        out = guarded(memo.scrub, request, scrub_name, tuple(values), context=spec.label)
    if out is None:
        return
    frames, accuracies = out
    ds, _ = memo.view_data(request.data)
    mask = memo.split(request.data, request.split)
    labels = [f"{format_value(v)} (acc {a:.2f})" for v, a in zip(values, accuracies, strict=True)]
    fig = plots.embedding_animation(
        frames,
        labels,
        ds.y,
        mask,
        ds.target_names,
        title=f"{spec.short_label} on {ds.name}: drag the slider to scrub {scrubbed.label}",
        slider_prefix=f"{scrubbed.label} = ",
        active=start,
        aspect=plots.AREA_ASPECT["scrub, presentation" if presentation.active() else "scrub"],
    )
    draw_chart(right, fig, key="scrub_chart")
    right.caption(
        "All frames were computed once on the server and travel to the browser with the page: "
        "scrubbing is instant. Each frame is Procrustes-aligned to the one before; the label "
        "gives the 1-NN accuracy on the unlabeled points, and each frame has its own axes, framed "
        "on those points, less the few that carry a coordinate alone (a localised eigenvector; its "
        "title gives its scale): a frame whose unlabeled points crowd together is zoomed in, and a "
        "point outside the frame is drawn on its edge as an open triangle (hover it for where it "
        "lies)."
    )
    with right:
        snippet = code_snippets.scrub_snippet(request, page.dataset, scrub_name, values)
        code_snippets.show_code(snippet)
        guarded(
            _downloads, request, (scrub_name, values), frames, fig, snippet, context="downloads"
        )


def _downloads(request, scrubbed: tuple[str, list], frames, fig, snippet: str) -> None:
    """The scrub's downloads: every frame's coordinates as drawn (one CSV, a column for the
    scrubbed parameter), the figure as SVG (the frame it opens on) and the notebook."""
    ds, _ = memo.view_data(request.data)
    mask = memo.split(request.data, request.split)
    name, values = scrubbed
    stem = downloads.file_name(downloads.data_stem(request.data), request.method, "scrub", name)
    with downloads.download_area():
        left, right = st.columns(2)
        points = downloads.Points(frames[0], ds.y, mask, classes=ds.target_names)
        downloads.frames_button(
            left,
            plots.embedding.align_frames(frames),
            (name, values),
            points,
            stem=stem,
            key="dl_frames",
        )
        downloads.svg_button(right, fig, stem=stem, key="dl_scrub_svg", what="Frame")
        title = f"{request.spec.label} on {ds.name}: scrub of {name}"
        downloads.notebook_button(
            right, snippet, title=title, stem=stem, key="dl_scrub_notebook", figure_code=None
        )
        st.caption(
            "Frames: one row per point and frame, the first column the frame's value, then index, "
            "label, labelled (1/0), held out (1/0) and the frame's coordinates as drawn (a point "
            "drawn on a frame's edge keeps its true place here). The SVG is the frame the chart "
            "opens on; the notebook prints each frame's accuracy."
        )
