"""The Embed page's "input view": the data as they are (2-D) or their first two principal
components, beside the method's embedding in one figure.

- Label by clicking (TDL, LE): a click, a box or a lasso on any panel gives the selected points the
  class chosen (or removes their label); the embedding recomputes. TDL and LE are drawn side by
  side, fitted on the same graph. The link records the labels (`lbl`, see `label_codes`).
- See the metric: an overlay on the input view — the kNN graph TDL and LE use (darker: heavier
  weight); for NCA, LMNN, DNE (and their kernelised versions) the balls of one radius under the
  learned metric; for LMNN the target neighbours and impostors of the clicked point, before
  learning (input view) and after (embedding).
- Image sets: the clicked point's image beside its five nearest neighbours under the method's
  metric and under the Euclidean input metric (plotly's hover labels are text only, so the images
  are in a panel under the chart, shown for the point last clicked).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import streamlit as st

from metriclab import plots
from metriclab.methods import REGISTRY
from metriclab.plots import panels
from metriclab.preprocess import scale_features, scaler_fit_rows
from metriclab.ui.embed import labelling, overlays
from metriclab.ui.embed.context import EmbedPage, timing_enabled
from metriclab.ui.embed.label_codes import NONE, decode_labels, encode_labels
from metriclab.ui.shared import compute, memo, presentation
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import FitRequest
from metriclab.ui.shared.session_data import require_visible
from metriclab.ui.shared.state import Rule, seed_from_url, seed_widget

OVERLAY_KEY = "ov"
OVERLAYS = {
    "none": "nothing",
    "graph": "kNN graph",
    "balls": "balls of the learned metric",
    "impostors": "target neighbours & impostors",
}


def overlay_choices(spec) -> list[str]:
    """The overlays that mean something for `spec` (asked by its tags)."""
    out = ["none"]
    if spec.has("graph"):
        out.append("graph")
    if (spec.has("mahalanobis") or spec.has("kernelised")) and spec.output == "embedding":
        out.append("balls")
    if spec.has("impostors"):
        out.append("impostors")
    return out


def graph_partner(spec):
    """The method drawn beside `spec` on the same graph: its baseline when that builds the graph
    too (LE beside TDL), or the graph method whose baseline it is (TDL beside LE); else None."""
    base = REGISTRY.get(spec.baseline) if spec.baseline else None
    if not spec.has("graph"):
        return None
    if base is not None and base.has("graph"):
        return base
    return next((s for s in REGISTRY.values() if s.baseline == spec.key and s.has("graph")), None)


@st.cache_data(show_spinner=False, max_entries=64)
def _fit(request: FitRequest, labels_text: str, overlay: str):
    ds, _ = memo.view_data(request.data)
    n_classes = int(ds.y.max()) + 1
    labels = decode_labels(labels_text, ds.n_samples, n_classes)
    return overlays.fit_on_labels(ds, labels, request, overlay)


def fit(request: FitRequest, labels_text: str, overlay: str):
    """The cached `overlays.fit_on_labels` of one method on the session's labels. A method that
    uses no label and sees every point (LE) is fitted once and only rescored on new labels."""
    require_visible(request.data.name)
    spec = request.spec
    if not (spec.transductive and not spec.needs_labels) or labels_text == NONE:
        return _fit(request, labels_text, overlay)
    view = _fit(request, NONE, overlay)
    ds, _ = memo.view_data(request.data)
    labels = decode_labels(labels_text, ds.n_samples, int(ds.y.max()) + 1)
    accuracy = None if view.Z is None else overlays.labeled_accuracy(view.Z, labels, ds.y)
    return replace(view, labels=labels, accuracy=accuracy)


FRAME_SHAPES = (0.6, 1.6)  # an embedding panel's frame: width / height within these


def aligned(Z: np.ndarray, view_id) -> tuple[np.ndarray, list]:
    """The embedding normalised and turned onto this panel's previous picture (so a click morphs
    it instead of flipping it), with axis ranges that only grow; where a coordinate is carried by
    a few points (`plots.coordinate_carriers`, a localised eigenvector) the ranges frame the
    others, as the live view's do. Returns (Z, ranges): the points outside the ranges are drawn
    on the panel's edge (TDL on Iris: one point at 8.6 squeezed the other 149 into a line at 0)."""
    Z = plots.normalize_embedding(Z[:, :2])
    store = st.session_state.setdefault("_input_view_previous", {})
    previous, old_ranges = store.get(view_id, (None, {}))
    Z = plots.align_to(Z, previous)
    kept = dict(old_ranges)
    carried = plots.coordinate_carriers(Z) if Z.shape[1] > 1 else []  # a strip: every point
    ranges = plots.grown_bulk_ranges(Z, carried, kept)
    if Z.shape[1] > 1:
        # a frame of a readable shape: a bulk 15 times wider than tall (TDL on Iris, its carrier
        # aside) drew a panel 20 px high; at the widest share a panel gets (2.5) 80 px at 1280×800
        ratio = (ranges[0][1] - ranges[0][0]) / max(ranges[1][1] - ranges[1][0], 1e-300)
        shape = float(np.clip(ratio, *FRAME_SHAPES))
        if shape != ratio:
            ranges = plots.to_aspect(ranges, shape)
    store.pop(view_id, None)
    store[view_id] = (Z, kept)
    for stale in list(store)[:-8]:
        store.pop(stale)
    return Z, ranges


def edge_captions(drawn: list) -> list[str]:
    """A line for each panel that draws points on its edge: how many and why."""
    lines = []
    for panel in drawn:
        if panel.at_edge is not None and panel.at_edge.any():
            n = int(panel.at_edge.sum())
            lines.append(
                f"{panel.title}: {n} point(s) carry a coordinate (a localised eigenvector); the "
                f"panel frames the other {panel.at_edge.size - n:,} and draws them on its edge as "
                "open triangles (hover one for where it lies). The 1-NN scores count every point "
                "where it really lies."
            )
    return lines


def _label_controls(state: labelling.LabelState, names: Sequence[str]) -> None:
    options = list(range(len(names))) + [labelling.UNLABEL]
    seed_from_url(labelling.PAINT_KEY, 0, options=options, label="A click or a lasso gives")
    st.radio(
        "A click or a lasso gives",
        options,
        key=labelling.PAINT_KEY,
        format_func=lambda c: "no label (remove)" if c < 0 else f"class {names[c]}",
        help="Click a point, or pick the box or lasso tool on the chart's toolbar and drag: the "
        "selected points get this class (or lose their label). Any panel works.",
    )
    for label, key, action, help_text in (
        ("Split's labels", "lbl_split", state.use_split, "back to the split's labels"),
        ("Clear labels", "lbl_clear", state.clear, None),
        (
            "Random labels",
            "lbl_random",
            state.randomise,
            "as many labeled points per class as the split has, drawn at random",
        ),
    ):
        st.button(label, key=key, on_click=action, help=help_text, width="stretch")


def _focus_default(view, state) -> int | None:
    """The clicked point, or for LMNN the labeled point with the most impostors before learning."""
    if state.focus is not None:
        return state.focus
    if view.lmnn:
        return max(view.lmnn, key=lambda i: (view.lmnn[i][1].size, -i))
    return None


def _image_panel(ds, view, focus: int, preprocess: str, spec) -> None:
    """The focus point's image and its five nearest neighbours, under the method's metric and
    under the Euclidean metric of the (scaled) input."""
    X = scale_features(preprocess, ds.X, scaler_fit_rows(spec, "transductive", view.labels >= 0))
    overlays.image_neighbours(ds, focus, [("the method's metric", view.Z), ("Euclidean input", X)])


def _captions(spec, view, overlay: str, focus, balls_radius) -> list[str]:
    lines = []
    where = (
        f"The input has {view.n_features} features: the view is its first two principal "
        "components (of the scaled features)."
        if view.projected
        else "The input view shows the (scaled) features as they are."
    )
    lines.append(where)
    if overlay == "graph":
        lines.append(
            "Grey lines: the kNN graph TDL and LE build (one edge per neighbour pair; darker = "
            "heavier heat weight)"
            + (", drawn in the plane of the two principal components." if view.projected else ".")
        )
    if overlay == "balls" and balls_radius is not None:
        what = (
            "exact for a linear map (M = LᵀL)"
            if spec.has("mahalanobis") and not spec.has("kernelised")
            else "to first order: the kernel map is not linear, so the balls change shape"
        )
        plane = (
            " Each ellipse is the ball's section by the plane of the two principal components "
            "through its centre: the points of that plane within the radius."
            if view.projected
            else ""
        )
        lines.append(
            f"Purple ellipses: balls of one radius r = {balls_radius:.3g} under the learned "
            f"metric d(x, x') = ‖f(x) − f(x')‖ at a grid of centres ({what}); r is chosen to fit "
            f"the grid. A long axis is a direction the metric shrinks.{plane}"
        )
    if overlay == "impostors" and focus in view.lmnn:
        targets, before, after = view.lmnn[focus]
        lines.append(
            f"**{before.size} impostor(s) before learning, {after.size} after.** "
            f"Point {focus} (ringed): green lines to its target neighbours (its k nearest "
            "same-class labeled points in the input space), red dashed lines to its impostors "
            "(other-class labeled points within its target distance + 1). Left: before learning "
            "(Euclidean input space); right: after (the learned metric). Click a labeled point "
            "(diamond) to see another."
        )
    return lines


def _controls(page: EmbedPage, state: labelling.LabelState, names: list[str]) -> tuple:
    """The left column: label controls (for methods that take new labels), the overlay choice
    and the method's parameters; returns (overlay, params)."""
    if page.spec.transductive:
        _label_controls(state, names)
    choices = overlay_choices(page.spec)
    seed_widget(OVERLAY_KEY, Rule("none", choices, label="Draw over the input", shown=OVERLAYS.get))
    if st.session_state[OVERLAY_KEY] not in choices:
        st.session_state[OVERLAY_KEY] = "none"
    overlay = st.radio("Draw over the input", choices, key=OVERLAY_KEY, format_func=OVERLAYS.get)
    st.markdown(f"**{page.spec.label}** parameters")
    return overlay, page.widgets()


def _requests(page: EmbedPage, params: dict) -> list[FitRequest]:
    """The method's fit, and its graph partner's on the same graph (TDL, then LE)."""
    request = page.with_params(params)
    partner = graph_partner(page.spec)
    if partner is None:
        return [request]
    other = request.with_method(partner.key, compute.shared_params(partner, params))
    return [request, other] if page.spec.baseline == partner.key else [other, request]


def collapses(views: dict, labeled: np.ndarray) -> dict:
    """{method: (distinct positions, unlabeled points)} of the panels whose embedding collapsed
    (`compute.collapsed_counts` on the session's labels): glass's TDL and Laplacian Eigenmaps drew
    three dots each, and the input view said nothing."""
    found = {}
    for key, view in views.items():
        counts = None if view.Z is None else compute.collapsed_counts(view.Z, labeled)
        if counts is not None:
            found[key] = counts
    return found


def _panels(
    page: EmbedPage, views: dict, overlay: str, focus, ds, collapsed: dict | None = None
) -> list:
    """The input panel with its overlay, then one panel per fitted method (titled "collapsed"
    where it is in `collapsed`)."""
    main = views[page.spec.key]
    features = [str(f) for f in (ds.feature_names or [])] + ["feature 1", "feature 2"]
    axis = ("PC 1", "PC 2") if main.projected else (features[0], features[1])
    panel_in = panels.Panel(main.coords, "input", axis)
    panel_in.marker_size = 5 if overlay in ("graph", "balls") else 7
    if overlay == "graph":
        panel_in.overlays += panels.edge_traces(main.edges)
    if overlay == "balls" and main.balls is not None:
        panel_in.overlays += panels.ball_traces(main.balls, "ball of the learned metric")
    drawn = [panel_in]
    request = page.request
    for key, view in views.items():
        label = REGISTRY[key].short_label
        if view.Z is None:
            st.warning(f"{label}: {view.error}", icon=":material/warning:")
            continue
        view_id = (request.data, key, request.split, request.scaling)
        Z, ranges = aligned(view.Z, view_id)
        shown, at_edge = plots.clipped_to(Z, ranges)  # those outside: on the edge, their own trace
        title = f"{label} (collapsed)" if key in (collapsed or {}) else label
        panel = panels.Panel(
            shown, title, ("", ""), x_range=ranges[0],
            y_range=ranges[1] if len(ranges) > 1 else None,
            at_edge=at_edge if at_edge.any() else None, true_coords=Z,
        )  # fmt: skip
        if overlay == "impostors" and key == page.spec.key and focus in view.lmnn:
            targets, before, after = view.lmnn[focus]
            panel_in.overlays += panels.neighbour_traces(main.coords, focus, targets, before)
            panel.overlays += panels.neighbour_traces(shown, focus, targets, after)
        elif focus is not None and Z.shape[1] > 1:
            panel.overlays.append(panels.focus_ring(shown, focus))
        drawn.append(panel)
    if focus is not None and not any(t.get("name") == f"point {focus}" for t in panel_in.overlays):
        panel_in.overlays.append(panels.focus_ring(main.coords, focus))
    return drawn


def _scores(views: dict, labeled: np.ndarray) -> None:
    tiles = [
        (
            f"{REGISTRY[key].short_label} 1-NN accuracy",
            "—" if v.accuracy is None else f"{v.accuracy:.3f}",
        )
        for key, v in views.items()
    ]
    count = presentation.count_pair(int(labeled.sum()), int((~labeled).sum()))
    cols = presentation.tile_columns(st, [*tiles, ("labeled / unlabeled", count)])
    for col, (label, value) in zip(cols, tiles, strict=False):
        col.metric(
            label,
            value,
            help="on the unlabeled points (true classes), the labeled points and the classes "
            "given to them as reference",
        )
    cols[-1].metric("labeled / unlabeled", count)


def _notes(page: EmbedPage, main, overlay: str, focus, ds) -> None:
    """The captions under the chart, and the image panel of image data sets."""
    balls_radius = None if main.balls is None else main.balls.radius
    for line in _captions(page.spec, main, overlay, focus, balls_radius):
        st.caption(line)
    if main.balls is not None and main.balls.degenerate:
        st.caption(
            "The metric ignores a direction of this plane (rank-deficient L): those balls "
            "are strips, clipped to the view."
        )
    if page.spec.transductive:
        st.caption(
            "Colours: unlabeled points by their true class; labeled points (diamonds) by the "
            "class they were given — give a wrong one and watch the embedding follow it. "
            "The link records the labels."
        )
    if ds.image_shape is not None and main.Z is not None:
        if focus is None:
            st.caption("Click a point to see its image and its five nearest neighbours.")
        else:
            _image_panel(ds, main, focus, page.request.scaling, page.spec)


def _downloads(page: EmbedPage, params: dict, main, fig) -> None:
    """The input view's downloads: the points of the input panel and of the method's panel as
    drawn, with the classes the chart colours them by; the learned matrix where the method has
    one and is fitted on the split's labels (the live view's fit); the figure as SVG."""
    from metriclab.ui.shared import downloads, quality_panel

    request = page.request
    ds, _ = memo.view_data(request.data)
    labeled = main.labels >= 0
    y = np.where(labeled, main.labels, ds.y)
    stem = downloads.file_name(downloads.data_stem(request.data), request.method, "input-view")
    with downloads.download_area():
        left, right = st.columns(2)
        what = "Principal components" if main.projected else "Input"
        downloads.coordinates_button(
            left, downloads.Points(main.coords, y, labeled, classes=ds.target_names),
            stem=f"{stem}-input",
            key="dl_input_coordinates", label=f"{what} panel's points (CSV)",
        )  # fmt: skip
        store = st.session_state.get("_input_view_previous", {})
        drawn = store.get((request.data, page.spec.key, request.split, request.scaling))
        if drawn is not None:
            downloads.coordinates_button(
                left, downloads.Points(drawn[0], y, labeled, classes=ds.target_names),
                stem=f"{stem}-embedding",
                key="dl_input_embedding", label=f"{page.spec.short_label} panel's points (CSV)",
            )  # fmt: skip
        if not page.spec.transductive:
            matrices = quality_panel.fitted_matrices(page.with_params(params))
            if matrices is not None:
                downloads.matrix_buttons(
                    right, matrices[0], stem=stem, key="dl_input_matrix", names=ds.feature_names
                )
        downloads.svg_button(right, fig, stem=stem, key="dl_input_svg")
        st.caption(
            "Points: index, label (the class the chart colours the point by: the given class of "
            "a labelled point, else its true class), labelled (1/0), held out (1/0), then the "
            "panel's coordinates (where each point lies, also one drawn on the panel's edge)."
        )


@st.fragment
def input_view(page: EmbedPage) -> None:
    """The view (a fragment: a click reruns only it)."""
    started = time.perf_counter()
    spec, request = page.spec, page.request
    if spec.output != "embedding" or spec.input != "vector":
        st.info(f"{spec.label} has no embedding of the input to draw; choose another method.")
        return
    ds, _ = memo.view_data(request.data)
    mask = memo.split(request.data, request.split)
    state = labelling.LabelState((request.data, request.split), ds.y, mask)
    left, right = st.columns([1, 4])
    with left:
        overlay, params = _controls(page, state, [str(t) for t in ds.target_names])
    text = state.text if state.edited else encode_labels(state.labels)
    page.publish(params, keys=[OVERLAY_KEY], extra=state.url_values())
    for key in (labelling.KEY, labelling.FOCUS_KEY):
        if key in st.query_params and key not in state.url_values():
            del st.query_params[key]
    with right:
        views = {}
        for fit_request in _requests(page, params):
            shown = overlay if fit_request.method == spec.key else "none"
            view = guarded(fit, fit_request, text, shown, context=fit_request.spec.label)
            if view is None:
                return
            views[fit_request.method] = view
        main = views[spec.key]
        labeled = main.labels >= 0
        _scores(views, labeled)
        focus = _focus_default(main, state)
        collapsed = collapses(views, labeled)
        drawn = _panels(page, views, overlay, focus, ds, collapsed)
        fig = panels.panel_figure(
            drawn,
            np.where(labeled, main.labels, ds.y),
            labeled,
            ds.target_names,
            title=f"{spec.label} on {ds.name}: "
            + ("click or lasso points to label them" if spec.transductive else "click a point"),
            revision=str((request.data, spec.key)),
        )
        chart_key = f"input_view_{state.generation}"
        draw_chart(
            st,
            presentation.fit_screen(fig),  # larger for a projector in presentation mode
            key=chart_key,
            on_select=lambda: state.on_select(chart_key, spec.transductive),
            selection_mode=("points", "box", "lasso"),
        )
        for key, counts in collapsed.items():
            sentence = compute.collapse_sentence(counts)
            st.warning(f"**{REGISTRY[key].short_label}** — {sentence}", icon=":material/warning:")
        _notes(page, main, overlay, focus, ds)
        for line in edge_captions(drawn):
            st.caption(line)
        guarded(_downloads, page, params, main, fig, context="downloads")
    if timing_enabled():
        print(
            f"metriclab-timing input_view {1000 * (time.perf_counter() - started):.1f} ms",
            flush=True,
        )
