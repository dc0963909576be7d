"""Take it with you (issue 37, item 4): the download buttons every page uses, one function per
kind of file, all inside one folded "Download" expander (`download_area`) so that they do not push
the picture down.

The bytes come from `metriclab.export` (the same numbers as the page's: shortest round-trip
floats). A button holds a function that makes its file when it is clicked (Streamlit's deferred
download: the arrays are the page's, captured as it ran), and a click does not rerun the page.
Making every file on every rerun cost a third of a small page's server time per slider move
(issue 41); now a rerun makes none. The SVG costs a browser start (Kaleido, seconds), so it is
made on request and then offered; where Kaleido cannot run, the area says why.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import streamlit as st

from metriclab import export
from metriclab.graph_store import content_digest

_SVG_STATE = "_download_svg"  # key -> (figure's fingerprint, SVG bytes or the reason it failed)


def download_area(label: str = "Download"):
    """The folded expander that holds a page's downloads (use as a context manager)."""
    return st.expander(label, expanded=False, icon=":material/download:")


def file_name(*parts: str) -> str:
    """`metriclab-<part>-<part>...` with characters a file name should not hold replaced."""
    text = "-".join(str(p) for p in parts if p)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)
    return f"metriclab-{safe}"


def data_stem(data) -> str:
    """A data set's part of a file name (`data`: a `DataRef`): its name, or for an upload or a
    drawing the name the page shows it by (the file's name without .csv), not the session's key
    of it."""
    from metriclab.ui.shared.fit_request import UPLOAD_PREFIX
    from metriclab.ui.shared.session_data import upload_dataset

    if not data.name.startswith(UPLOAD_PREFIX):
        return data.name
    try:
        shown = str(upload_dataset(data.name).name)
    except ValueError:  # not this session's: the key it is linked by
        return data.name.split(":")[-1]
    for suffix in (".gz", ".csv", ".txt", ".tsv"):
        shown = shown.removesuffix(suffix).removesuffix(suffix.upper())
    return shown or data.name.split(":")[-1]


def _button(container, label: str, data, file: tuple[str, str], key: str, help: str = "") -> None:
    """A download button for `data` (bytes, or a function of no arguments that makes them when
    the button is clicked) saved as `file` (name, MIME type); no rerun on click."""
    name, mime = file
    (container or st).download_button(
        label, data, file_name=name, mime=mime, key=key, on_click="ignore", help=help or None
    )


@dataclass(frozen=True)
class Points:
    """What a coordinates file holds: the coordinates `Z`, the class codes `y`, the labelled and
    held-out masks, the points' indices and the classes' names by code (`classes`: the file's
    last column names each point's class), `export.coordinates_csv`'s arguments."""

    Z: np.ndarray
    y: np.ndarray
    labelled: np.ndarray | None = None
    held_out: np.ndarray | None = None
    index: np.ndarray | None = None
    classes: Sequence[str] | None = None

    def csv(self, Z: np.ndarray | None = None) -> str:
        """The coordinates file's text (`Z`: other coordinates of the same points)."""
        return export.coordinates_csv(
            self.Z if Z is None else Z,
            self.y,
            self.labelled,
            self.held_out,
            index=self.index,
            target_names=self.classes,
        )


def coordinates_button(
    container, points: Points, *, stem: str, key: str, label: str = "Coordinates (CSV)", help=""
) -> None:
    """A button for the coordinates as CSV (index, label, labelled, held out, one column per
    coordinate: `export.coordinates_csv`), made on click."""
    p = points
    _button(
        container,
        label,
        lambda: p.csv().encode(),
        (f"{stem}-coordinates.csv", "text/csv"),
        key,
        help
        or "index, label, labelled (1/0), held out (1/0), then one column per coordinate, "
        "as the chart draws them, and the class's name",
    )


@dataclass(frozen=True)
class PointIndex:
    """The points a point × point matrix's rows and columns are (their index on the page, as
    the coordinates file gives it): `matrix_buttons` names the CSV's rows and columns by them."""

    index: np.ndarray


def matrix_buttons(
    container,
    matrix,
    *,
    stem: str,
    key: str,
    what: str = "Mahalanobis matrix M",
    names: Sequence[str] | PointIndex | None = None,
) -> None:
    """Two buttons for a learned matrix: .npy (`numpy.load` reads it back exactly) and .csv
    (`names`: the feature names as header where they fit its columns, or a `PointIndex`: the
    points as the row names and the header, under 'index'); the files are named after `what`'s
    last word ('M' for 'Mahalanobis matrix M')."""
    short = what.split()[-1]
    matrix = np.asarray(matrix, dtype=np.float64)
    rows = columns = None
    if isinstance(names, PointIndex):
        if len(names.index) == matrix.shape[0] == matrix.shape[1]:
            rows = columns = [str(int(i)) for i in names.index]
    elif names is not None and len(names) == matrix.shape[1]:
        columns = list(names)
    _button(
        container,
        f"{what} (.npy)",
        lambda: export.matrix_npy(matrix),
        (f"{stem}-{short}.npy", "application/octet-stream"),
        f"{key}_npy",
        f"{matrix.shape[0]} × {matrix.shape[1]}, float64",
    )
    _button(
        container,
        f"{what} (CSV)",
        lambda: export.matrix_csv(matrix, rows, columns, corner="index").encode(),
        (f"{stem}-{short}.csv", "text/csv"),
        f"{key}_csv",
        f"{matrix.shape[0]} × {matrix.shape[1]}"
        + (
            ", rows and columns named by the points' index (the coordinates file's), in that "
            "order; the heat map sorts them by class"
            if rows
            else ", the features as header"
            if columns
            else ""
        ),
    )


def neighbours_button(container, Z, k: int, *, stem: str, key: str, index=None) -> None:
    """A button for every point's k nearest neighbours under the embedding (CSV)."""
    n = int(np.asarray(Z).shape[0])
    k = int(min(max(1, k), n - 1))
    _button(
        container,
        "Neighbours (CSV)",
        lambda: export.neighbours_csv(Z, k, index=index).encode(),
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
        lambda: export.notebook_from_code(code, title, figure_code),
        (f"{stem}.ipynb", "application/x-ipynb+json"),
        key,
        "recomputes this view with the public metriclab API, prints the page's number and "
        "draws the figure",
    )


def figure_fingerprint(fig) -> str:
    """A digest of what the figure draws: its traces' and layout's values, arrays by their bytes
    (plotly's JSON of a 70,000-point chart took longer than the rest of a rerun)."""
    digest = hashlib.sha1()

    def feed(value) -> None:
        if isinstance(value, dict):
            for name in sorted(value):
                digest.update(name.encode())
                feed(value[name])
        elif isinstance(value, np.ndarray):
            digest.update(
                content_digest(value).encode()
                if value.dtype != object
                else repr(value.tolist()).encode()
            )
        elif isinstance(value, list | tuple):
            digest.update(b"[")
            for item in value:
                feed(item)
            digest.update(b"]")
        else:
            digest.update(repr(value).encode())

    for trace in fig.data:
        feed(trace.to_plotly_json())
    feed(fig.layout.to_plotly_json())
    return digest.hexdigest()


def _drawn_fingerprint(fig) -> str:
    """A digest of where a figure's traces draw their points, their names, its title and axis
    ranges (the numbers only: cheaper than `figure_fingerprint` on a 70,000-point chart, whose hover
    data is text)."""
    layout = fig.layout
    digest = hashlib.sha1(
        repr((layout.title.text, layout.xaxis.range, layout.yaxis.range)).encode()
    )
    for trace in fig.data:
        digest.update(repr((trace.type, trace.name)).encode())
        for axis in ("x", "y"):
            coords = getattr(trace, axis, None)
            if coords is not None:
                digest.update(content_digest(np.asarray(coords, dtype=np.float64)).encode())
    return digest.hexdigest()


def svg_button(
    container, fig, *, stem: str, key: str, what: str = "Figure", fingerprint: str | None = None
) -> None:
    """The figure as SVG for slides: a button makes it (Kaleido starts a browser: seconds), then a
    download button offers it. Where Kaleido cannot run, the reason is shown instead; WebGL
    traces (large sets) are named, since the SVG holds them as a raster image. `fig` may be a
    function of no arguments that builds the figure, with `fingerprint` naming what it draws:
    then a rerun builds no figure until the SVG is asked for."""
    container = container or st
    store = st.session_state.setdefault(_SVG_STATE, {})
    if callable(fig) and fingerprint is None:
        raise ValueError("a figure made on request needs the fingerprint of what it draws")
    fingerprint = fingerprint or figure_fingerprint(fig)
    made = store.get(key)
    if made is None or made[0] != fingerprint:
        if container.button(f"Make {what.lower()} as SVG", key=f"{key}_make"):
            figure = fig() if callable(fig) else fig
            try:
                made = (fingerprint, export.figure_svg(figure), export.rasterised_traces(figure))
            except Exception as error:  # noqa: BLE001 - MissingExtra, Kaleido's browser: say why
                made = (fingerprint, str(error), [])
            store[key] = made
        else:
            return
    if isinstance(made[1], str):
        container.caption(f"No SVG: {made[1]}")
        return
    _button(container, f"{what} (SVG)", made[1], (f"{stem}.svg", "image/svg+xml"), key)
    raster = made[2]
    if raster:
        container.caption(
            "WebGL traces cannot be vector: the SVG holds "
            + ", ".join(raster)
            + " as a raster image."
        )


def frames_button(
    container,
    frames: Sequence[np.ndarray],
    scrubbed: tuple[str, Sequence],
    points: Points,
    *,
    stem: str,
    key: str,
) -> None:
    """A button for the frames of a scrub as one CSV (`frames_csv`), made on click."""
    name, _ = scrubbed
    _button(
        container,
        "Frames' coordinates (CSV)",
        lambda: frames_csv(frames, scrubbed, points).encode(),
        (f"{stem}-frames.csv", "text/csv"),
        key,
        f"every frame's points, one row per point and frame: {name}, then index, label, "
        "labelled, held out and the coordinates as the frame draws them",
    )


def frames_csv(frames: Sequence[np.ndarray], scrubbed: tuple[str, Sequence], points: Points) -> str:
    """The frames of a scrub as one CSV: a first column named after the scrubbed parameter
    (`scrubbed`: its name and the frames' values), then each frame's rows as `coordinates_button`
    writes them (`points` gives the labels and masks; its `Z` is ignored)."""
    p = points
    name, values = scrubbed
    header, rows = None, []
    for value, Z in zip(values, frames, strict=True):
        lines = p.csv(Z).splitlines()
        header = header or f"{name},{lines[0]}"
        rows += [f"{value!r},{line}" for line in lines[1:]]
    return "\n".join([header or name, *rows]) + "\n"


def grid_button(
    container,
    rows: tuple[str, Sequence],
    cols: tuple[str, Sequence],
    accuracies: tuple,
    *,
    stem: str,
    key: str,
) -> None:
    """A button for a parameter grid's values as CSV (`grid_csv`), made on click."""
    _button(
        container,
        "Grid (CSV)",
        lambda: grid_csv(rows, cols, accuracies).encode(),
        (f"{stem}-grid.csv", "text/csv"),
        key,
        "one row per cell: the two parameters, the accuracy, the baseline's, the difference "
        "(the colour drawn; empty cells are nan)",
    )


def grid_csv(rows: tuple[str, Sequence], cols: tuple[str, Sequence], accuracies: tuple) -> str:
    """A parameter grid's values as CSV: one row per cell with the row and column parameters'
    values, the accuracy, the baseline's and their difference (the colour drawn; `accuracies`:
    the method's grid and the baseline's, a grid or one number)."""
    (row_name, row_values), (col_name, col_values) = rows, cols
    grid, baseline = accuracies
    A = np.asarray(grid, dtype=np.float64)
    B = np.broadcast_to(np.asarray(baseline, dtype=np.float64), A.shape)
    lines = [f"{row_name},{col_name},accuracy,baseline,difference"]
    for i, r in enumerate(row_values):
        for j, c in enumerate(col_values):
            a, b = float(A[i, j]), float(B[i, j])
            lines.append(f"{r!r},{c!r},{a!r},{b!r},{a - b!r}")
    return "\n".join(lines) + "\n"


def matrix_figure(matrix, names: Sequence[str] | None = None, title: str = ""):
    """A learned matrix as a plotly heat map on a diverging scale centred at 0, the axes named
    after the features where they fit (the same array the matrix buttons offer)."""
    import plotly.graph_objects as go

    from metriclab.plots.base import _diverging

    matrix = np.asarray(matrix, dtype=np.float64)
    columns = (
        [str(n) for n in names] if names is not None and len(names) == matrix.shape[1] else None
    )
    rows = columns if columns is not None and matrix.shape[0] == matrix.shape[1] else None
    top = float(np.max(np.abs(matrix))) or 1.0
    hover = "row %{y}<br>column %{x}<br>%{z:.4g}<extra></extra>"
    heat = go.Heatmap(z=matrix, x=columns, y=rows, hovertemplate=hover, **_diverging(top))
    fig = go.Figure(heat)
    fig.update_layout(title=title or None, height=420, yaxis=dict(autorange="reversed"))
    return fig


# -- the Embed page's live view ------------------------------------------------------------------


def embed_downloads(
    request, result, code: str, k: int | None = None, held_out=None, figure=None
) -> None:
    """The live view's downloads: the chart's coordinates (and every dimension of a wider
    embedding; `held_out`: the mask of the points held out of the fit, drawn apart), the learned
    matrix where the method has one (also drawn as a heat map in a "Learned matrix" expander),
    the k nearest neighbours, the figure as SVG (`figure`: the chart as the page drew it, with
    its held-out points and new points; without it, the embedding's scatter) and the notebook
    that recomputes the view."""
    from metriclab import plots
    from metriclab.evaluation.quality import DEFAULT_K
    from metriclab.ui.shared import memo, quality_panel
    from metriclab.ui.shared.charts import draw_chart
    from metriclab.ui.shared.fit_request import QUALITY_K_KEY

    ds, _ = memo.view_data(request.data)
    spec = request.spec
    stem = file_name(data_stem(request.data), request.method)
    title = f"{spec.label} on {ds.name}"
    with download_area():
        left, middle, right = st.columns(3)
        if result.Z is not None:
            drawn = quality_panel.drawn_coordinates(request, result)
            coordinates_button(
                left,
                Points(drawn, ds.y, result.mask, held_out, classes=ds.target_names),
                stem=stem,
                key="dl_coordinates",
            )
            if result.Z.shape[1] > drawn.shape[1]:
                coordinates_button(
                    left,
                    Points(result.Z, ds.y, result.mask, held_out, classes=ds.target_names),
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
            if figure is not None:  # the chart itself: its traces' points and its title
                svg_button(
                    right,
                    lambda: figure,
                    stem=stem,
                    key="dl_svg",
                    fingerprint=_drawn_fingerprint(figure),
                )
            else:
                svg_button(
                    right,
                    lambda: plots.embedding_scatter(
                        drawn, ds.y, result.mask, ds.target_names, title=f"{title}: embedding"
                    ),
                    stem=stem,
                    key="dl_svg",
                    fingerprint=f"{content_digest(drawn, ds.y, result.mask)} {title}",
                )
        notebook_button(right, code, title=title, stem=stem, key="dl_notebook")
        st.caption(
            "Coordinates: index (the point's number on this page, as the chart's hover gives "
            "it), label, labelled (1/0), held out (1/0), the chart's coordinates, then the "
            "class's name. The "
            "notebook recomputes this view and prints the page's number."
        )
    matrices = None if result.Z is None else quality_panel.fitted_matrices(request)
    if matrices is not None:
        with st.expander("Learned matrix", expanded=False, icon=":material/grid_on:"):
            M, L = matrices
            draw_chart(
                st,
                matrix_figure(M, ds.feature_names, f"Mahalanobis matrix M of {title}"),
                key="learned_matrix_M",
            )
            if L is not None:
                draw_chart(
                    st,
                    matrix_figure(L, ds.feature_names, f"Linear map L (M = LᵀL) of {title}"),
                    key="learned_matrix_L",
                )
            st.caption(
                "The same arrays as the Download area's matrix files: blue positive, red "
                "negative; a large diagonal entry is a feature the metric stretches."
            )
