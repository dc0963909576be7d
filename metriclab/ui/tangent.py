"""Tangent page: one digit's tangent vectors, its transformed versions, its nearest neighbours under
the Euclidean and the tangent distance, and the error rates of both 1-NN rules.

The view of pages/tangent.py, which only routes here."""

from __future__ import annotations

import textwrap

import numpy as np
import streamlit as st

from metriclab import plots
from metriclab.evaluation.scoring import knn_predictions
from metriclab.methods import REGISTRY, input_space
from metriclab.methods.tangent import TRANSFORMS, resolve_transforms
from metriclab.reproduce.verdicts import mcnemar_p
from metriclab.ui.embed.presets import page_default
from metriclab.ui.shared import downloads, memo, presentation
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import DataRef, FitRequest
from metriclab.ui.shared.pickers import dataset_picker, explainer, url_values
from metriclab.ui.shared.state import publish, seed_from_url

POOL_SIZES = [500, 1000, 2000, 4000]

AMOUNTS = {  # display amounts per transformation, in the tangent's own units
    "x_translation": (-2.0, -1.0, 0.0, 1.0, 2.0),
    "y_translation": (-2.0, -1.0, 0.0, 1.0, 2.0),
    "scaling": (-0.2, -0.1, 0.0, 0.1, 0.2),
    "rotation": (-0.3, -0.15, 0.0, 0.15, 0.3),
    "axis_deformation": (-0.2, -0.1, 0.0, 0.1, 0.2),
    "diagonal_deformation": (-0.2, -0.1, 0.0, 0.1, 0.2),
    "thickening": (-0.6, -0.3, 0.0, 0.3, 0.6),
}

NAMES = {  # what a person calls each transformation
    "x_translation": "shift left/right",
    "y_translation": "shift up/down",
    "scaling": "scale",
    "rotation": "rotate",
    "axis_deformation": "stretch along axes",
    "diagonal_deformation": "stretch along diagonals",
    "thickening": "thicken",
}

SETS = {
    "affine6": "6 affine: shifts, scale, rotation, 2 stretches",
    "all7": "all 7: affine and thickening",
    "translation": "shifts only",
}


def readable(transform: str) -> str:
    return NAMES.get(transform, transform.replace("_", " "))


def tangent_titles(used: tuple[str, ...]) -> list[str]:
    """Each tangent's title in short lines of whole words; the row shows all seven, so one the
    chosen tangent distance leaves out says so."""
    return [
        "<br>".join(textwrap.wrap(readable(t), 10, break_long_words=False))
        + ("" if t in used else "<br><i>not used</i>")
        for t in TRANSFORMS
    ]


def render() -> None:
    """The page below its title (pages/tangent.py calls it)."""
    explainer(
        "A handwritten digit stays the same digit when it is shifted, scaled, rotated, sheared or drawn "
        "thicker. To first order each such transformation moves the image along a **tangent vector** "
        "(the image's smoothed gradient times the transformation's displacement field). The tangent "
        "distance is the distance between the two images' tangent planes; the Euclidean distance "
        "ignores them. The first row shows the tangent vectors (red/blue = where ink is added/removed), "
        "then an image moved along one of them, then the nearest training images under both distances.",
        [
            r"d_T(x,y) = \min_{\alpha,\beta} \big\|x + T_x\alpha - (y + T_y\beta)\big\|_2",
            r"t_\alpha(x) = -\,v_\alpha(p)\cdot\nabla (g_\sigma * x)(p)",
        ],
    )

    with st.sidebar:
        name, _ = dataset_picker(st.sidebar, key="tds", default="usps", offer="images")
        seed_from_url("pool", 1000, options=POOL_SIZES, label="Images used")
        pool = st.select_slider("Images used (stratified sample)", POOL_SIZES, key="pool")
        seed_from_url("tset", "affine6", options=list(SETS), label="Transformations")
        tset = st.selectbox("Transformations", list(SETS), key="tset", format_func=SETS.get)
        seed_from_url("two", True, label="Two-sided")
        two_sided = st.checkbox("Two-sided", key="two")

    data = DataRef(name, (), pool)
    view = guarded(memo.view_data, data, context=name)
    if view is None:
        st.stop()
    ds, _ = view
    if ds.image_shape is None:
        st.error(f"{name} has no image shape; choose an image data set")
        st.stop()
    # Train/query split of the pool: a fixed, stratified half of each class is the training set.
    mask = memo.split(data, memo.TANGENT_SPLIT)
    train_idx, query_idx = np.flatnonzero(mask), np.flatnonzero(~mask)

    c1, c2 = st.columns([1, 2])
    with c1:
        seed_from_url("q", 0, bounds=(0, query_idx.size - 1), label="Query image")
        q = int(
            st.number_input(
                f"Query image (0–{query_idx.size - 1} of the held-out half)",
                0,
                int(query_idx.size - 1),
                key="q",
                step=1,
            )
        )
        seed_from_url("tr", TRANSFORMS[3], options=list(TRANSFORMS), label="Move along")
        transform = st.selectbox("Move along", list(TRANSFORMS), key="tr", format_func=readable)
    publish(url_values(["tds", "pool", "tset", "two", "q", "tr"]))

    query = ds.X[query_idx[q]]
    shape = tuple(ds.image_shape)
    with c1:
        draw_chart(
            st,
            plots.image_grid(
                query[None, :], shape, [f"query: {ds.target_names[ds.y[query_idx[q]]]}"]
            ),
            key="query",
        )
    amounts = AMOUNTS.get(transform, (-1.0, -0.5, 0.0, 0.5, 1.0))
    pictures = guarded(
        memo.tangent_pictures, data, q, transform, amounts, context="tangent vectors"
    )
    row = None
    if pictures is not None:
        T, moved = pictures
        used = resolve_transforms(tset)  # the transformations the distance below uses
        row = plots.image_grid(
            T,
            shape,
            tangent_titles(used),
            n_cols=len(TRANSFORMS),
            title=f"Tangent vectors ({len(used)} of {len(TRANSFORMS)} in the distance below)",
            signed=True,
            row_height=90,
        )
        with c2:
            draw_chart(st, row, key="tangents")
            draw_chart(
                st,
                plots.image_grid(
                    moved,
                    shape,
                    [f"{a:+g}" for a in amounts],
                    n_cols=len(amounts),
                    title=f"x + a·t ({readable(transform)})",
                ),
                key="moved",
            )

    if pictures is not None:
        guarded(_downloads, ds, query_idx[q], transform, (*pictures, row), context="downloads")
    found = guarded(
        memo.tangent_neighbours, data, q, tset, bool(two_sided), context="nearest neighbours"
    )
    if found is not None:
        cols = st.columns(2)
        for col, (key, distance) in zip(cols, enumerate(found), strict=True):
            title = f"Nearest under the {distance}"
            idx, dist = found[distance]
            draw_chart(
                col,
                plots.image_grid(
                    ds.X[idx],
                    shape,
                    [
                        f"{ds.target_names[ds.y[i]]} · {d:.2f}"
                        for i, d in zip(idx, dist, strict=True)
                    ],
                    n_cols=len(idx),
                    title=title,
                ),
                key=f"nn_{key}",
            )

    st.subheader("Error rates on the held-out half")
    if st.button("Compute error rates", type="primary", key="run_errors"):
        rates = {}
        tangent_params = {"transforms": tset, "two_sided": bool(two_sided)}
        with st.spinner("classifying the held-out images"):
            for method, params in (
                (input_space().key, {}),
                (page_default("tangent")[0], tangent_params),
            ):
                request = FitRequest(data, memo.TANGENT_SPLIT, method, params)
                result = guarded(memo.fit, request, context=REGISTRY[method].label)
                if result is not None:
                    rates[method] = held_out_errors(result, ds.y)
        st.session_state["_tangent_rates"] = ((data, tset, bool(two_sided)), rates)
    stored = st.session_state.get("_tangent_rates")
    if stored and stored[0] == (data, tset, bool(two_sided)):
        rates = stored[1]
        tiles = [
            (f"1-NN error, {REGISTRY[method].label}", f"{100 * errors.mean():.1f} %")
            for method, errors in rates.items()
        ]
        cols = presentation.tile_columns(st, tiles) if tiles else []
        for col, (label, value) in zip(cols, tiles, strict=True):
            col.metric(label, value)
        st.caption(
            f"{train_idx.size} training and {query_idx.size} held-out images of {ds.name}; the "
            "thesis' USPS table uses the full 7291/2007 split (see the Reproduce page). "
            + (error_comparison(*rates.values()) if len(rates) == 2 else "")
        )


def held_out_errors(result, y: np.ndarray) -> np.ndarray:
    """Whether each held-out image (`result.mask` False) is misclassified: by the classifier's own
    predictions, or by the 1-NN rule in the embedding (the rule `result.accuracy` scores)."""
    held = ~result.mask
    if result.predictions is not None:
        return result.predictions[held] != y[held]
    predicted = knn_predictions(result.Z[result.mask], y[result.mask], result.Z[held])
    return predicted != y[held]


def error_comparison(euclidean: np.ndarray, tangent: np.ndarray) -> str:
    """The two rules on the same held-out images: the images only one of them gets wrong, and
    McNemar's exact test of "equally often wrong" on them (the paired test of one test set, as
    the verdicts use)."""
    only_euclidean = int(np.sum(euclidean & ~tangent))
    only_tangent = int(np.sum(tangent & ~euclidean))
    p = mcnemar_p(euclidean, tangent)
    shown = "a difference at the 0.05 level" if p < 0.05 else "no difference shown at 0.05"
    return (
        f"On these {euclidean.size} images {only_euclidean} are wrong under the Euclidean "
        f"distance only and {only_tangent} under the tangent distance only: McNemar's exact "
        f"p = {p:.3g}, {shown}."
    )


def _downloads(ds, index: int, transform: str, pictures) -> None:
    """The query image's tangent vectors (one row per transformation, one column per pixel) and
    the moved images as .npy and CSV, and the row of tangent vectors as the page draws it as SVG
    (`pictures`: the tangent vectors, the moved images and that figure)."""
    T, moved, fig = pictures
    stem = downloads.file_name(ds.name, f"image{int(index)}")
    with downloads.download_area():
        left, middle, right = st.columns(3)
        downloads.matrix_buttons(left, T, stem=stem, key="dl_tangents", what="Tangent vectors")
        downloads.matrix_buttons(
            middle,
            moved,
            stem=f"{stem}-{transform}",
            key="dl_moved",
            what="Moved images",
        )
        downloads.svg_button(
            right, fig, stem=f"{stem}-tangents", key="dl_svg_tangents", what="Tangent vectors"
        )
        st.caption(
            f"Rows: the {len(TRANSFORMS)} transformations in the order shown "
            f"({', '.join(TRANSFORMS)}); moved images: x + a·t for a in the order shown; "
            f"columns: the {int(np.prod(ds.image_shape))} pixels, row by row. The pictures "
            "scale each image to its own range (a tangent symmetrically about 0); the files "
            "hold the values as computed."
        )
