"""The Embed page's live view: the method fitted as the sliders say, its embedding Procrustes-
aligned to the previous picture on sticky axes, its 1-NN accuracy beside comparable baselines,
the spectrum, and the code that recomputes it."""

from __future__ import annotations

import time

import numpy as np
import streamlit as st

from metriclab import plots
from metriclab.methods import REGISTRY, input_space, projection
from metriclab.preprocess import scale_features
from metriclab.ui.embed import new_points, overlays, presets, spread
from metriclab.ui.embed.context import EmbedPage, timing_enabled
from metriclab.ui.shared import (
    code_snippets,
    collapse,
    compute,
    downloads,
    memo,
    presentation,
    quality_panel,
    runs,
)
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.compute import SPECTRUM_SHOWN
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import TEST_KEY, FitRequest
from metriclab.ui.shared.preprocessing import scaling_note
from metriclab.ui.shared.state import Rule, seed_widget


def references(page: EmbedPage, request: FitRequest, result) -> list[tuple[str, FitRequest]]:
    """[(label, request)] to score beside the method: its own baseline where that has the same
    output dimension (LE beside TDL, on the same graph), else the unsupervised projection (PCA)
    to the same dimension; and the Euclidean input space with all features, labelled as such."""
    spec, rows = page.spec, []
    base = REGISTRY.get(spec.baseline) if spec.baseline else None
    if base is not None and not base.has("input_space"):
        shared = compute.shared_params(base, request.values)
        rows.append((base.label, request.with_method(base.key, shared)))
    dim = None if result.Z is None else result.Z.shape[1]
    pca = projection()
    if not rows and dim is not None and dim < page.dataset.n_features and pca is not None:
        if not spec.has("projection"):  # PCA beside PCA would compare a map with itself
            rows.append((f"PCA to {dim}-D", request.with_method(pca.key, {"n_components": dim})))
    euclidean = input_space()
    if euclidean is not None and not spec.has("input_space"):
        label = f"Euclidean, {page.dataset.n_features}-D"  # all features
        rows.append((label, request.with_method(euclidean.key)))
    return rows


def split_sentence(page: EmbedPage, result, fitted_references) -> str:
    """What this split's numbers say, in words derived from them: above, level with or below
    each reference, and, where the method is below the input space, what a map of fewer
    dimensions than the features gives up."""
    name = page.spec.label.split(" (")[0]
    parts = []
    for label, fitted in fitted_references:
        d = result.accuracy - fitted.accuracy
        where = "level with" if abs(d) < 5e-4 else ("above" if d > 0 else "below")
        parts.append(f"{where} {label} ({fitted.accuracy:.3f}, a difference of {d:+.3f})")
    if not parts:
        return ""
    text = f"On this split {name} ({result.accuracy:.3f}) is " + ", ".join(parts) + "."
    euclid = next((f for label, f in fitted_references if label.startswith("Euclidean")), None)
    dim = None if result.Z is None else result.Z.shape[1]
    if euclid is not None and result.accuracy < euclid.accuracy - 5e-4 and dim is not None:
        if dim < page.dataset.n_features:
            text += (
                f" Below the Euclidean 1-NN: a {dim}-D map keeps less than the "
                f"{page.dataset.n_features} input features carry, and {name} does not recover "
                "it here."
            )
    return text + " One split decides little: the spread over 10 split seeds tests it."


def show_scores(
    page: EmbedPage, result, fitted_references, request: FitRequest | None = None, tiles=None
) -> None:
    """The method's accuracy (by the chosen classifier) beside the references (in `tiles`, a
    container above the chart); the delta is against the first (comparable). Then the classifier,
    the accuracy beside chance and the neighbourhood measures (`quality_panel`)."""
    spec = page.spec
    tiles = st.container() if tiles is None else tiles
    classifier, controls = "1nn", None
    if result.Z is not None:
        controls = st.columns([2, 1, 2])  # classifier, k, overlay: one row below the tiles
        classifier = quality_panel.classifier_widget(controls[0])
        y = page.dataset.y if request is None else memo.resolve(request)[0].y
        result = quality_panel.rescored(result, y, classifier)
        fitted_references = [
            (label, quality_panel.rescored(fitted, y, classifier))
            for label, fitted in fitted_references
        ]
    name = quality_panel.classifier_label(classifier)
    head = f"{name} accuracy" if result.Z is not None else "accuracy"
    count = presentation.count_pair(int(result.mask.sum()), int((~result.mask).sum()))
    cols = presentation.tile_columns(
        tiles,
        [
            (head, f"{result.accuracy:.3f}"),
            *((label, f"{fitted.accuracy:.3f}") for label, fitted in fitted_references),
            ("labeled / unlabeled", count),
        ],
    )
    first = fitted_references[0] if fitted_references else None
    cols[0].metric(
        head,
        f"{result.accuracy:.3f}",
        **presentation.score_difference(
            None if first is None else result.accuracy - first[1].accuracy
        ),
        help=spec.label if first is None else f"{spec.label}; the arrow: minus {first[0]}",
    )
    for col, (label, fitted) in zip(cols[1:], fitted_references, strict=False):
        col.metric(label, f"{fitted.accuracy:.3f}", help=f"{name} accuracy, {label}")
    cols[-1].metric("labeled / unlabeled", count)
    if request is not None:
        label = spec.label.split(" (")[0]
        quality_panel.show_quality(request, result, classifier, label, controls)
    sentence = split_sentence(page, result, fitted_references)
    if sentence:
        st.markdown(sentence)
    st.caption(scaling_note(page.dataset, page.request.scaling, spec, result.mask))
    same_dim = result.Z is not None and first is not None and not first[0].startswith("Euclid")
    st.caption(
        f"**{spec.label}** on this split; fit in {result.fit_time * 1000:.0f} ms"
        + (f" on the {result.device.upper()}" if result.device else "")
        + " (cached after the first time). "
        + (
            f"The arrow is the difference to **{first[0]}** "
            + ("(same output dimension)." if same_dim else "(the input space).")
            if first is not None
            else ""
        )
    )


ZOOM_KEY = "bulk_zoom"  # the toggle "Zoom to the bulk" (on until the person switches it off)


def zoomed_to_bulk() -> bool:
    """Whether the toggle "Zoom to the bulk" is on (it is until the person switches it off)."""
    return bool(st.session_state.get(ZOOM_KEY, True))


def collapsed_title(counts: tuple[int, int] | None) -> str:
    """The chart title's line for a collapsed embedding: the picture's few dots say it at once,
    before the warning under the chart (below the first screen at 1280×800)."""
    if counts is None:
        return ""
    k, n = counts
    return f"<br>collapsed: its {n:,} unlabeled points on {k:,} position(s), see below"


def embedding_figure(page: EmbedPage, result, ds, view_id, apart=None, collapsed=None):
    """Normalised, Procrustes-aligned to the previous picture of this view, on sticky axes. Where a
    coordinate is carried by a few points (`plots.coordinate_carriers`, a localised eigenvector),
    "Zoom to the bulk" (`zoomed_to_bulk`) frames the others and the points outside that frame are
    drawn on its edge as their own marked trace; without it every point is drawn where it lies.
    The points of `apart` (a mask: the held-out ones) are left out of the class traces, for a
    trace of their own; `collapsed` (the collapse's counts) adds a line to the title. Returns
    (figure, carried, moved): the carried coordinates and the mask of the points drawn on the
    edge."""
    Z = plots.normalize_embedding(result.Z[:, :2])
    previous = st.session_state.setdefault("_previous", {})
    ranges = st.session_state.setdefault("_ranges", {})  # view -> its frames, kept as they grow
    Z = plots.align_to(Z, previous.get(view_id))
    previous.pop(view_id, None)
    previous[view_id] = Z  # most recent last; keep the last few views only
    for stale in list(previous)[:-16]:
        previous.pop(stale)
        ranges.pop(stale, None)
    carried = plots.coordinate_carriers(Z)
    zoomed = zoomed_to_bulk() and bool(carried)
    axis_ranges = plots.grown_bulk_ranges(
        Z, carried if zoomed else [], ranges.setdefault(view_id, {})
    )
    area = plots.AREA_ASPECT[page.present_area if presentation.active() else "view"]
    axis_ranges = plots.edge_frame(Z, axis_ranges, area)  # the points outside, on the drawn edge
    shown, moved = plots.clipped_to(Z, axis_ranges)
    x_range, y_range = axis_ranges[0], (axis_ranges[1] if Z.shape[1] > 1 else None)
    dims = "1-D strip" if Z.shape[1] == 1 else "2-D"
    keep = np.ones(Z.shape[0], bool) if apart is None else ~np.asarray(apart, bool)
    fig = plots.embedding_scatter(
        shown[keep],
        ds.y[keep],
        result.mask[keep],
        ds.target_names,
        title=f"{page.spec.label} on {ds.name}: {dims} embedding" + collapsed_title(collapsed),
        x_range=x_range,
        y_range=y_range,
        index=np.flatnonzero(keep),
        at_edge=moved[keep],
        true_coords=Z[keep],
    )
    return fig, carried, moved


def crowded_note(fig, Z: np.ndarray, ds) -> str:
    """On a dense set, the classes packed into a tiny part of the chart, in numbers: a person
    cannot see 7,000 points in a few pixels, so the note says where to zoom (drag a box)."""
    if Z.shape[0] <= plots.embedding.DENSE_ABOVE or Z.shape[1] < 2:
        return ""
    layout = fig.layout
    found = plots.crowded_classes(
        Z, ds.y, [str(t) for t in ds.target_names], layout.xaxis.range, layout.yaxis.range
    )
    if not found:
        return ""
    parts = [f"{name}: {n:,} points within {w:.2g} × {h:.2g}" for name, n, w, h in found[:4]]
    return (
        "Packed into less than 0.2 % of the chart, drawn on top of the other classes: "
        + "; ".join(parts)
        + " (the middle 90 % of each class). Drag a box over them to zoom in; double-click to "
        "zoom out."
    )


def carried_caption(carried, moved: np.ndarray, Z: np.ndarray, ds, zoomed: bool) -> str:
    """What the few points carrying a coordinate are, from the numbers: how many points hold how
    much of which axis, where the others lie, and which points the picture draws on its edge."""
    names = [str(t) for t in ds.target_names]
    parts = []
    for c in carried:
        z = Z[:, c.axis]
        rest = z[c.rest]
        first = ", ".join(f"point {i} ({names[ds.y[i]]}) at {z[i]:.3g}" for i in c.index[:3]) + (
            "…" if len(c.index) > 3 else ""
        )
        where = (
            f"sit at one position, {float(np.median(rest)):.3g} (their spread, "
            f"{float(np.ptp(rest)):.1e}, is under a millionth of the axis's)"
            if c.bulk_at_one_position(Z)
            else f"lie within [{rest.min():.3g}, {rest.max():.3g}]"
        )
        parts.append(
            f"{len(c.index)} point(s) carry {100 * c.share:.1f}% of axis {c.axis + 1} (its squared "
            f"spread about the median): {first}; the other {int(c.rest.sum()):,} {where}"
        )
    text = (
        "; ".join(parts)
        + ". A coordinate held by a few points is a localised eigenvector: it singles them out "
        "and says little about the rest."
    )
    n_moved = int(moved.sum())
    if zoomed and n_moved:
        text += (
            f" The view is zoomed to the bulk: the {n_moved} point(s) outside it are drawn on the "
            "chart's edge as open triangles (their own trace; hover one for where it lies). "
            "Switch off **Zoom to the bulk** to draw every point where it lies."
        )
    elif zoomed and not any(plots.bulk_framed(Z, carried, c.axis) for c in carried):
        text += (  # the bulk at one position on every carried axis: nothing to frame
            " The others sit at one position, so the view is not narrowed to them: every point "
            "is drawn where it lies."
        )
    elif zoomed:  # framed, and the frame (kept while a slider moves) holds the carriers too
        text += " The view is zoomed to the bulk, and every point lies inside it."
    else:
        text += " Every point is drawn where it lies; **Zoom to the bulk** frames the others."
    return text + " The 1-NN scores above count every point where it really lies."


def _fit_with_progress(page: EmbedPage, request: FitRequest, container):
    """An image method's fit (seconds to minutes): its stages on a progress bar."""
    label = page.spec.label
    with container:
        bar = st.progress(0.0, text=f"{label}: starting")

    def progress(done, total, message):
        bar.progress(min(1.0, done / max(total, 1)), text=f"{label}: {message} ({done}/{total})")

    result = guarded(runs.image_fit, request, progress=progress, context=label)
    bar.empty()
    return result


def _bar_progress(bar):
    def progress(done, total, message):
        bar.progress(min(1.0, done / max(total, 1)), text=message)

    return progress


def _parameter_column(page: EmbedPage) -> dict:
    spec = page.spec
    st.markdown(f"**{spec.label}** parameters")
    params = page.widgets()
    if not spec.params:
        st.caption("This method has no parameters.")
    else:
        st.button(
            "Reset to defaults",
            key="reset_params",
            on_click=presets.reset_method,
            args=(spec.key,),
            help=f"every parameter of {spec.label} back to its default",
        )
    return params


def clicked_point(key: str) -> int | None:
    """The index of the point clicked on chart `key` (its customdata: the index, or [index, class])."""
    event = st.session_state.get(key)
    points = (event or {}).get("selection", {}).get("points", []) if isinstance(event, dict) else []
    if not points:
        return None
    data = points[0].get("customdata")
    value = data[0] if isinstance(data, list | tuple) else data
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _images_of_click(request: FitRequest, result, ds) -> None:
    """Image sets: the clicked digit beside its five nearest neighbours under the learned
    embedding and under the Euclidean input metric."""
    focus = clicked_point("embedding")
    if focus is None or focus >= ds.n_samples:
        st.caption("Click a point to see its image and its five nearest neighbours.")
        return
    X = ds.X if request.scaling == "none" else scale_features(request.scaling, ds.X, result.mask)
    overlays.image_neighbours(ds, focus, [("the embedding", result.Z), ("Euclidean input", X)])


def _shown_or_page(request: FitRequest, result, test: float):
    """(the fit the chart draws, its held-out mask or None), as `_draw` has it; the page's fit
    where the placement fails (`_draw` has said why)."""
    try:
        return new_points.shown_fit(request, result, test, request.split.seed)
    except Exception:  # noqa: BLE001 - `_draw` has said why; the downloads go on without
        return result, None


def _draw(page: EmbedPage, request: FitRequest, result, test: float = 0.0):
    """The chart of the fit: the embedding, or a classifier's predictions on the PCA view; on an
    image set, a click on a point shows its image and nearest neighbours. With a held-out share
    `test` or new points, the fit without the held-out points and their traces (`new_points`).
    Returns the chart's figure as drawn (before presentation mode's sizes): the SVG download's."""
    ds, _ = memo.view_data(request.data)
    spec = page.spec
    seed = request.split.seed
    new = fig = None
    if result.Z is not None:
        view_id = (request.data, request.method, request.split, request.scaling)
        placed = guarded(new_points.shown_fit, request, result, test, seed, context="new points")
        if placed is None:  # the reason is said once: the page goes on without held-out points
            test = 0.0
        shown, apart = placed or (result, None)
        counts = collapse.collapse_counts(result)
        fig, carried, moved = embedding_figure(page, shown, ds, view_id, apart, counts)
        if shown is not result:
            drawn = st.session_state["_previous"][view_id]
            new = guarded(
                new_points.add_new_point_traces, fig, request, test, seed, drawn,
                context="new points",
            )  # fmt: skip
        images = ds.image_shape is not None
        select = dict(on_select="rerun", selection_mode="points") if images else {}
        draw_chart(st, presentation.fit_screen(fig), key="embedding", **select)
        collapse.show_collapse(request, result, counts, "collapse_remedy")  # under its picture
        crowded = crowded_note(fig, st.session_state["_previous"][view_id], ds)
        if crowded:
            st.caption(crowded)
        if carried:
            Z = st.session_state["_previous"][view_id]
            st.info(
                carried_caption(carried, moved, Z, ds, zoomed_to_bulk()),
                icon=":material/open_in_full:",
            )
            st.toggle(
                "Zoom to the bulk",
                value=True,
                key=ZOOM_KEY,
                help="Frame the points that do not carry the coordinate; those outside are "
                "drawn on the chart's edge as their own trace. Off: every point where it lies.",
            )
        if result.fitted_on is not None:
            labelled = int(result.mask.sum())
            st.caption(
                f"{spec.label} was fitted on {result.fitted_on:,} of the {labelled:,} labelled "
                f"points (a stratified sample: it costs n² or more) and maps all "
                f"{ds.n_samples:,} points; the scores use every labelled point."
            )
        if images:
            _images_of_click(request, result, ds)
    if result.Z is None:
        fig = plots.embedding_scatter(
            plots.pca_2d(ds.X),
            result.predictions,
            result.mask,
            ds.target_names,
            title=f"{spec.label}: predicted classes (PCA view of the data)",
            axis_titles=("PC 1", "PC 2"),
        )
        draw_chart(st, presentation.fit_screen(fig), key="embedding")
        wrong = int(np.sum(result.predictions[~result.mask] != ds.y[~result.mask]))
        st.caption(f"{wrong} unlabeled points misclassified")
    if result.Z is not None or test > 0:
        guarded(new_points.new_points_section, request, test, seed, new, context="new points")
    if result.eigenvalues is not None and result.eigenvalues.size:
        n_used = result.Z.shape[1] if result.Z is not None else None
        values, note = spectrum_values(page, request, result)
        title = f"Eigenvalue spectrum: the first {values.size}" + (
            f", the {n_used} used in blue" if n_used is not None and n_used < values.size else ""
        )
        draw_chart(st, plots.spectrum(values, title=title, n_used=n_used), key="spectrum")
        if note:
            st.caption(note)
    return fig


def spectrum_values(page: EmbedPage, request: FitRequest, result) -> tuple[np.ndarray, str]:
    """The eigenvalues to draw: the fit's own, or, where it used fewer than SPECTRUM_SHOWN (a 1-D
    embedding has one: no gap to see), the first ones of the same problem solved for more
    eigenvectors (the fit's `spectrum` where it has one, else one more fit, cached); with a note
    where there are no more to show, and why."""
    values = np.ravel(result.eigenvalues)
    names = {p.name for p in page.spec.params}
    if values.size >= SPECTRUM_SHOWN or "n_components" not in names:
        return values, ""
    high = page.page_param("n_components").ui_range[1] or SPECTRUM_SHOWN
    wanted = int(min(SPECTRUM_SHOWN, high, page.dataset.n_samples - 2))
    if memo.is_full_size(request.data):
        return values, (
            f"Only the {values.size} eigenvalue(s) used are computed on the full-size set (more "
            "cost another eigensolve of 70,000 points): raise Dimensions to see the next ones."
        )
    if wanted <= values.size:
        return values, ""
    if result.spectrum is not None and result.spectrum.size >= wanted:
        return result.spectrum[:wanted], (
            f"The first {wanted} eigenvalues of the same problem (solved once more for the "
            f"eigenvalues alone), so that the gap after the {values.size} used can be seen."
        )
    more = guarded(memo.fit, request.with_params(n_components=wanted), context="spectrum")
    if more is None or more.eigenvalues is None:
        return values, ""
    return np.ravel(more.eigenvalues), (
        f"The first {wanted} eigenvalues of the same problem (solved once more for {wanted} "
        f"eigenvectors), so that the gap after the {values.size} used can be seen."
    )


def _done_text(label: str, n_points: int, started: float) -> str:
    """The full-size bar's last words: what was drawn and how long the whole view took."""
    elapsed = time.perf_counter() - started
    return f"done: {label} on all {n_points:,} points, in {elapsed:.1f} s"


def _fit_references(refs, progress) -> list:
    """(label, fit) of each reference the scores compare with, fitted after the chart is drawn:
    on all of MNIST, Laplacian Eigenmaps' eigensolve and the Euclidean 1-NN took 10 s of a 30 s
    first view, which now shows the picture first and the baselines' stages on its bar."""
    fitted_references = []
    for label, ref in refs:
        stage = None
        if progress is not None:
            progress(4, 5, f"baseline: {label}")

            def stage(done, total, message):  # the reference's own stages, the bar kept at 4/5
                progress(4, 5, f"baseline — {message}")

        fitted = guarded(memo.fit, ref, progress=stage, context=label)
        if fitted is not None:
            fitted_references.append((label, fitted))
    return fitted_references


@st.fragment
def live_view(page: EmbedPage) -> None:
    started = time.perf_counter()
    present = presentation.active()
    if present:  # the chart first, whole on a projector's screen; the sliders folded below it
        right = st.container()
        with st.expander(f"{page.spec.label}: parameters"):
            params = _parameter_column(page)
            test = new_points.held_out_share()
    else:
        left, right = st.columns([1, 3])
        with left:
            params = _parameter_column(page)
            test = new_points.held_out_share()
    page.publish(params, keys=[TEST_KEY])
    request = page.with_params(params)
    spec = page.spec
    bar = None
    if spec.has("needs_images"):  # slow (seconds to minutes): stages on a progress bar
        result = _fit_with_progress(page, request, right)
        progress = None
    elif memo.is_full_size(request.data):  # tens of seconds: stages on a progress bar
        with right:
            bar = st.progress(0.0, text="load: the data set")
        progress = _bar_progress(bar)
        result = guarded(memo.fit, request, progress=progress, context=spec.label)
    else:
        progress = None
        result = guarded(memo.fit, request, spectrum=True, context=spec.label)
    if result is None:
        return
    if progress is not None:
        progress(3, 5, "drawing")
    with right:
        figure = _draw(page, request, result, test) if present else None
        tiles = st.container()  # the scores, then the chart, on a 1280×800 screen at once
        chart = None if present else st.container()
        if chart is not None:  # drawn first: the browser gets the picture before the measures
            with chart:  # below it are made (on all of MNIST they took 0.4 s of a λ move)
                figure = _draw(page, request, result, test)
    refs = references(page, request, result)
    fitted_references = _fit_references(refs, progress)
    with right:
        show_scores(page, result, fitted_references, request, tiles)
        if refs:  # the session's choice, kept across pages like every view value (issue 36)
            seed_widget("spread", Rule(False, label="Spread over 10 split seeds"))
        if refs and st.toggle("Spread over 10 split seeds", key="spread"):
            guarded(spread.show_spread, page, request, refs, context="spread over seeds")
        if bar is not None:  # kept, full: a bar that came and went moved the chart 51 px twice
            bar.progress(1.0, text=_done_text(spec.label, page.dataset.n_samples, started))
        shown, apart = _shown_or_page(request, result, test)
        snippet = code_snippets.embed_snippet(request, page.dataset, test * (apart is not None))
        code_snippets.show_code(snippet)
        guarded(
            downloads.embed_downloads, request, shown, snippet, held_out=apart, figure=figure,
            context="downloads",
        )  # fmt: skip
    if timing_enabled():  # bench/app_latency.py reads this from the server log
        elapsed = 1000 * (time.perf_counter() - started)
        print(f"metriclab-timing live_view {elapsed:.1f} ms", flush=True)
