"""Dissimilarity page: kernel, dissimilarity and graph-affinity matrices sorted by class, Gower and
Fisher checks, the MDS spectrum, the majorization stress curve and kernel alignment weights.

The view of pages/dissimilarity.py, which only routes here."""

from __future__ import annotations

import numpy as np
import streamlit as st

from metriclab import plots
from metriclab.methods import REGISTRY
from metriclab.ui.embed.presets import page_default
from metriclab.ui.shared import code_snippets, compute, downloads, memo, presentation
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import (
    LINK_PREFIXES,
    DataRef,
    FitRequest,
    SplitRef,
    param_prefix,
)
from metriclab.ui.shared.pickers import (
    dataset_picker,
    explainer,
    labels_picker,
    method_picker,
    url_values,
)
from metriclab.ui.shared.preprocessing import scaling_note, scaling_picker
from metriclab.ui.shared.session_data import dataset
from metriclab.ui.shared.state import publish
from metriclab.ui.shared.widgets import param_widgets

METHOD_KEY = "dmethod"  # the page's own method (its list differs from Embed's)

MATRIX_POINTS = 400  # points fitted here at most (matrices are n×n)

MATRICES = {
    "kernel_": ("Kernel matrix", "Viridis"),
    "dissimilarity_": ("Dissimilarity", "Magma"),
    "affinity_": ("Graph affinity W", "Blues"),
}


def render() -> None:
    """The page below its title (pages/dissimilarity.py calls it)."""
    explainer(
        "Matrices a method builds between points, with rows and columns **sorted by class** so that "
        "class structure shows as blocks (white lines mark class boundaries). A good discriminant "
        "dissimilarity is small inside the diagonal blocks and large outside. Zhang (2003) checks two "
        "properties: **Euclidean** (Gower: the doubly centred matrix −½HΔ²H is positive semidefinite, so "
        "classical MDS embeds the points exactly) and **Fisher separable** (every within-class "
        "dissimilarity is below every between-class one). For spectral methods the graph affinity W is "
        "the penalty's neighbourhood graph; for kernelised learners the bars show the non-negative "
        "alignment weights over kernel widths.",
        [
            r"B = -\tfrac12 H \Delta^{(2)} H,\quad H = I - \tfrac1n \mathbf{1}\mathbf{1}^\top,\qquad \Delta \text{ Euclidean} \iff B \succeq 0",
            r"\max_{t_i = t_j} \delta_{ij} < \min_{t_i \neq t_j} \delta_{ij}\quad\text{(Fisher separability)}",
        ],
    )

    with st.sidebar:
        name, data_params = dataset_picker(st.sidebar, default="two_rings")

        def _embeds(spec) -> bool:
            return spec.output == "embedding" and not spec.has("input_space")

        method = method_picker(
            st.sidebar,
            key=METHOD_KEY,
            default=page_default("dissimilarity", accept=_embeds)[0],
            accept=_embeds,
        )
        label_mode, label_value, seed = labels_picker(st.sidebar, default_fraction=0.3)
        scaling = scaling_picker(st.sidebar, name)

    spec = REGISTRY[method]
    base_request = FitRequest(
        DataRef(name, data_params, MATRIX_POINTS),
        SplitRef(label_mode, label_value, seed),
        method,
        scaling=scaling,
    )
    prefix = param_prefix(method)

    @st.fragment
    def matrices_view():
        # closed on a projector, where the matrices are the picture the room should see first
        with st.expander(f"{spec.label} parameters", expanded=not presentation.active()):
            cols = st.columns(3)
            params = param_widgets(spec.params, prefix, list(cols))
        request = base_request.with_params(**params)
        publish(url_values(request.link_keys(METHOD_KEY)), prune=LINK_PREFIXES)
        ds_view = guarded(memo.view_data, request.data, context=name)
        if ds_view is None:
            return
        ds, _ = ds_view
        result = guarded(memo.fit, request, extras=True, context=spec.label)
        if result is None:
            return
        mask = result.mask
        st.caption(scaling_note(ds, scaling, spec, mask))
        ds_full = dataset(name, request.data.params)
        snippet = code_snippets.dissimilarity_snippet(request, ds_full)
        code_snippets.show_code(snippet)
        shown = [k for k in MATRICES if k in result.extras]
        if not shown:
            st.info(
                f"{spec.label} exposes no kernel, dissimilarity or affinity matrix; the input space's "
                "Euclidean distances are shown instead."
            )
        # Badges: Zhang's checks on the dissimilarity (or the input distances as a reference).
        checks = guarded(memo.dissimilarity_checks, request, context="checks")
        if checks is not None:
            gower, fisher = checks.gower, checks.fisher
            c1, c2, c3 = st.columns([1, 1, 2])
            with c1:
                st.badge(
                    "Euclidean" if gower.euclidean else "not Euclidean",
                    color="green" if gower.euclidean else "red",
                    icon=":material/check:" if gower.euclidean else ":material/close:",
                )
            with c2:
                if fisher.tie:
                    st.badge("Fisher: a tie", color="gray", icon=":material/drag_handle:")
                else:
                    st.badge(
                        "Fisher separable" if fisher.separable else "not Fisher separable",
                        color="green" if fisher.separable else "orange",
                        icon=":material/check:" if fisher.separable else ":material/close:",
                    )
            c3.caption(
                f"Checks on {checks.which}: smallest eigenvalue of −½HΔ²H relative to the largest "
                f"{gower.relative_min_eigenvalue:.2e}; Fisher margin {fisher.margin:.3g} "
                f"(min between {fisher.min_between:.3g} − max within {fisher.max_within:.3g})"
                + (
                    ", zero up to rounding: the closest between-class pair is as close as the "
                    "farthest within-class pair (a tie, not a separation)."
                    if fisher.tie
                    else "."
                )
            )
        figures = []
        for key in shown:
            M = result.extras[key]
            labels = compute.matrix_labels(M, ds.y, mask)
            if labels is None:
                continue
            title, scale = MATRICES[key]
            figures.append((key, plots.matrix_heatmap(M, labels, title=title, colorscale=scale)))
        if not shown and checks is not None:
            figures.append(
                (
                    "input",
                    plots.matrix_heatmap(
                        checks.D, checks.labels, title="Euclidean distances (input)"
                    ),
                )
            )
        cols = st.columns(2)
        for i, (key, fig) in enumerate(figures):
            draw_chart(cols[i % 2], fig, key=f"matrix_{key}")
        cols = st.columns(3)
        if result.eigenvalues is not None and result.eigenvalues.size:
            n_used = result.Z.shape[1] if result.Z is not None else None
            draw_chart(
                cols[0],
                plots.spectrum(result.eigenvalues, "MDS / eigen spectrum", n_used=n_used),
                key="spectrum",
            )
        stress = result.extras.get("stress_")
        if stress is not None and np.size(stress):
            draw_chart(
                cols[1],
                plots.line_curve(stress, "Majorization stress e²", y_title="stress"),
                key="stress",
            )
        weights = result.extras.get("kernel_weights_")
        if weights is not None and np.size(weights):
            widths = result.extras.get("widths_")
            labels = (
                [f"{w:.3g}" for w in np.ravel(widths)]
                if widths is not None and np.size(widths) == np.size(weights)
                else list(range(1, np.size(weights) + 1))
            )
            draw_chart(
                cols[2],
                plots.weights_bar(labels, weights, "Alignment weights over RBF widths"),
                key="weights",
            )

        guarded(_downloads, request, result, ds, figures, snippet, context="downloads")

    matrices_view()


DISSIMILARITY_FIGURE = "\n".join(
    [
        "from metriclab.plotting import dissimilarity",
        "",
        "# rows and columns sorted by class: dark diagonal blocks = small within-class distances",
        "fig = dissimilarity(D, D_labels)",
        "fig",
    ]
)


def _matrix_points(M, mask: np.ndarray) -> downloads.PointIndex | None:
    """The points (their index on this page) that a matrix's rows are, as `compute.matrix_labels`
    reads them: every point, or the labelled ones of an inductive fit; None for neither."""
    n = M.shape[0]
    if n == mask.shape[0]:
        return downloads.PointIndex(np.arange(n))
    return downloads.PointIndex(np.flatnonzero(mask)) if n == int(np.sum(mask)) else None


def _downloads(request, result, ds, figures, snippet: str) -> None:
    """The page's matrices (.npy and CSV) and heat maps (SVG), the embedding's coordinates, and
    the notebook that recomputes the checks and draws the dissimilarity."""
    import scipy.sparse

    stem = downloads.file_name(downloads.data_stem(request.data), request.method)
    with downloads.download_area():
        left, middle, right = st.columns(3)
        for key in MATRICES:
            M = result.extras.get(key)
            if M is None:
                continue
            M = M.toarray() if scipy.sparse.issparse(M) else np.asarray(M)
            title = MATRICES[key][0]
            downloads.matrix_buttons(
                left,
                M,
                stem=f"{stem}-{key.rstrip('_')}",
                key=f"dl_{key}",
                what=title,
                names=_matrix_points(M, result.mask),
            )
        for key, fig in figures:
            downloads.svg_button(
                middle,
                fig,
                stem=f"{stem}-{key.rstrip('_')}",
                key=f"dl_svg_{key}",
                what=f"{MATRICES.get(key, ('Euclidean distances',))[0]} heat map",
            )
        if result.Z is not None:
            downloads.coordinates_button(
                right,
                downloads.Points(result.Z, ds.y, result.mask, classes=ds.target_names),
                stem=stem,
                key="dl_coordinates",
            )
        downloads.notebook_button(
            right,
            snippet,
            title=f"{request.spec.label} on {ds.name}: dissimilarities",
            stem=f"{stem}-dissimilarity",
            key="dl_notebook",
            figure_code=DISSIMILARITY_FIGURE,
        )
