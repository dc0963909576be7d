"""Take it with you (issue 37, item 4): the download buttons every page uses, one function per
kind of file, all inside one folded "Download" expander (`download_area`) so that they do not push
the picture down.

The bytes come from `metriclab.export` (the same numbers as the page's: shortest round-trip
floats). Every button carries its bytes and does not rerun the page (a click is served from the
file made with the page, as on Compare). The SVG costs a browser start (Kaleido, seconds), so it
is made on request and then offered; where Kaleido cannot run, the area says why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import streamlit as st

from metriclab import export

_SVG_STATE = "_download_svg"  # key -> (figure's fingerprint, SVG bytes or the reason it failed)


def download_area(label: str = "Download"):
    """The folded expander that holds a page's downloads (use as a context manager)."""
    return st.expander(label, expanded=False, icon=":material/download:")


def file_name(*parts: str) -> str:
    """`metriclab-<part>-<part>...` with characters a file name should not hold replaced."""
    text = "-".join(str(p) for p in parts if p)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)
    return f"metriclab-{safe}"


def _button(container, label: str, data, file: tuple[str, str], key: str, help: str = "") -> None:
    """A download button for `data` saved as `file` (name, MIME type); no rerun on click."""
    name, mime = file
    (container or st).download_button(
        label, data, file_name=name, mime=mime, key=key, on_click="ignore", help=help or None
    )


@dataclass(frozen=True)
class Points:
    """What a coordinates file holds: the coordinates `Z`, the class codes `y`, the labelled and
    held-out masks and the points' indices (`export.coordinates_csv`'s arguments)."""

    Z: np.ndarray
    y: np.ndarray
    labelled: np.ndarray | None = None
    held_out: np.ndarray | None = None
    index: np.ndarray | None = None


def coordinates_button(
    container, points: Points, *, stem: str, key: str, label: str = "Coordinates (CSV)", help=""
) -> str:
    """A button for the coordinates as CSV (index, label, labelled, held out, one column per
    coordinate: `export.coordinates_csv`); returns the CSV text."""
    p = points
    text = export.coordinates_csv(p.Z, p.y, p.labelled, p.held_out, index=p.index)
    _button(
        container,
        label,
        text.encode(),
        (f"{stem}-coordinates.csv", "text/csv"),
        key,
        help
        or "index, label, labelled (1/0), held out (1/0), then one column per coordinate, "
        "as the chart draws them",
    )
    return text


def matrix_buttons(
    container,
    matrix,
    *,
    stem: str,
    key: str,
    what: str = "Mahalanobis matrix M",
    names: Sequence[str] | None = None,
) -> None:
    """Two buttons for a learned matrix: .npy (`numpy.load` reads it back exactly) and .csv
    (with the feature names as header where they fit its columns); the files are named after
    `what`'s last word ('M' for 'Mahalanobis matrix M')."""
    short = what.split()[-1]
    matrix = np.asarray(matrix, dtype=np.float64)
    columns = list(names) if names is not None and len(names) == matrix.shape[1] else None
    _button(
        container,
        f"{what} (.npy)",
        export.matrix_npy(matrix),
        (f"{stem}-{short}.npy", "application/octet-stream"),
        f"{key}_npy",
        f"{matrix.shape[0]} × {matrix.shape[1]}, float64",
    )
    _button(
        container,
        f"{what} (CSV)",
        export.matrix_csv(matrix, column_names=columns).encode(),
        (f"{stem}-{short}.csv", "text/csv"),
        f"{key}_csv",
        f"{matrix.shape[0]} × {matrix.shape[1]}" + (", the features as header" if columns else ""),
    )


def neighbours_button(container, Z, k: int, *, stem: str, key: str, index=None) -> None:
    """A button for every point's k nearest neighbours under the embedding (CSV)."""
    n = int(np.asarray(Z).shape[0])
    k = int(min(max(1, k), n - 1))
    _button(
        container,
        "Neighbours (CSV)",
        export.neighbours_csv(Z, k, index=index).encode(),
        (f"{stem}-neighbours-k{k}.csv", "text/csv"),
        key,
        f"each point's {k} nearest other points in the embedding (k as in the quality line), "
        "nearest first, with their distances",
    )


def notebook_button(
    container, code: str, *, title: str, stem: str, key: str, figure_code: str | None = "auto"
) -> None:
    """A button for a Jupyter notebook made from the page's "Show the code" snippet: it recomputes
    the view, prints the page's headline number and draws the figure (`notebook_from_code`; its
    `figure_code`: 'auto' draws an embedding the snippet leaves)."""
    _button(
        container,
        "Notebook (.ipynb)",
        export.notebook_from_code(code, title, figure_code),
        (f"{stem}.ipynb", "application/x-ipynb+json"),
        key,
        "recomputes this view with the public metriclab API, prints the page's number and "
        "draws the figure",
    )


def _fingerprint(fig) -> str:
    return hashlib.sha1(fig.to_json().encode()).hexdigest()


def svg_button(container, fig, *, stem: str, key: str, what: str = "Figure") -> None:
    """The figure as SVG for slides: a button makes it (Kaleido starts a browser: seconds), then a
    download button offers it. Where Kaleido cannot run, the reason is shown instead; WebGL
    traces (large sets) are named, since the SVG holds them as a raster image."""
    container = container or st
    store = st.session_state.setdefault(_SVG_STATE, {})
    fingerprint = _fingerprint(fig)
    made = store.get(key)
    if made is None or made[0] != fingerprint:
        if container.button(f"Make {what.lower()} as SVG", key=f"{key}_make"):
            try:
                made = (fingerprint, export.figure_svg(fig))
            except Exception as error:  # noqa: BLE001 - MissingExtra, Kaleido's browser: say why
                made = (fingerprint, str(error))
            store[key] = made
        else:
            return
    if isinstance(made[1], str):
        container.caption(f"No SVG: {made[1]}")
        return
    _button(container, f"{what} (SVG)", made[1], (f"{stem}.svg", "image/svg+xml"), key)
    raster = export.rasterised_traces(fig)
    if raster:
        container.caption(
            "WebGL traces cannot be vector: the SVG holds "
            + ", ".join(raster)
            + " as a raster image."
        )


# -- the Embed page's live view ------------------------------------------------------------------


def embed_downloads(request, result, code: str, k: int | None = None) -> None:
    """The live view's downloads: the chart's coordinates (and every dimension of a wider
    embedding), the learned matrix where the method has one, the k nearest neighbours, the
    figure as SVG and the notebook that recomputes the view."""
    from metriclab import plots
    from metriclab.evaluation.quality import DEFAULT_K
    from metriclab.ui.shared import memo, quality_panel
    from metriclab.ui.shared.fit_request import QUALITY_K_KEY

    ds, _ = memo.view_data(request.data)
    spec = request.spec
    stem = file_name(request.data.name.split(":")[-1], request.method)
    title = f"{spec.label} on {ds.name}"
    with download_area():
        left, middle, right = st.columns(3)
        if result.Z is not None:
            drawn = quality_panel.drawn_coordinates(request, result)
            coordinates_button(
                left, Points(drawn, ds.y, result.mask), stem=stem, key="dl_coordinates"
            )
            if result.Z.shape[1] > drawn.shape[1]:
                coordinates_button(
                    left,
                    Points(result.Z, ds.y, result.mask),
                    stem=f"{stem}-all-{result.Z.shape[1]}-dimensions",
                    key="dl_coordinates_all",
                    label=f"All {result.Z.shape[1]} coordinates (CSV)",
                    help="every dimension of the embedding as fitted (the chart draws the first "
                    "two, centred, scaled and rotated onto the previous picture)",
                )
            k = int(k or st.session_state.get(QUALITY_K_KEY, DEFAULT_K))
            neighbours_button(left, result.Z, k, stem=stem, key="dl_neighbours")
            matrices = quality_panel.fitted_matrices(request)
            if matrices is not None:
                M, L = matrices
                matrix_buttons(middle, M, stem=stem, key="dl_matrix", names=ds.feature_names)
                if L is not None:
                    matrix_buttons(
                        middle,
                        L,
                        stem=stem,
                        key="dl_map",
                        what="Linear map L",
                        names=ds.feature_names,
                    )
            elif quality_panel.has_matrix(request) and memo.is_full_size(request.data):
                middle.caption("The learned matrix is offered on a subsample view (Points used).")
            fig = plots.embedding_scatter(
                drawn, ds.y, result.mask, ds.target_names, title=f"{title}: embedding"
            )
            svg_button(right, fig, stem=stem, key="dl_svg")
        notebook_button(right, code, title=title, stem=stem, key="dl_notebook")
        st.caption(
            "Coordinates: index (the point's number on this page, as the chart's hover gives "
            "it), label, labelled (1/0), held out (1/0), then the chart's coordinates. The "
            "notebook recomputes this view and prints the page's number."
        )
