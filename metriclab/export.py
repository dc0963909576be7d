"""Take it with you (issue 37, item 4): what a view shows, as files a person can download.

- `coordinates_csv`: the coordinates (index, label, labelled, held out, one column per
  coordinate), written so that reading them back gives the same floats.
- `learned_matrix`, `matrix_npy`, `matrix_csv`: a learned linear map L or Mahalanobis matrix
  M = LᵀL (`get_mahalanobis_matrix`, `components_`) as .npy bytes or CSV text.
- `neighbours_csv`: every point's k nearest neighbours under the embedding.
- `figure_svg`: a Plotly figure as SVG bytes for slides (needs Kaleido, the optional extra
  `static`; WebGL traces are embedded as a raster image: `rasterised_traces` names them).
- `notebook_from_code`: a Jupyter notebook (.ipynb, nbformat 4) from a page's "Show the code"
  snippet and a cell that draws the figure with the library's public plotting functions.

Numbers a person computes from these files equal the page's: the CSV floats round-trip exactly
(shortest repr), so `sklearn.manifold.trustworthiness` on the downloaded coordinates equals
`metriclab.evaluation.quality.trustworthiness` on the page's.
"""

from __future__ import annotations

import ast
import csv
import io
import json
from collections.abc import Sequence

import numpy as np
from sklearn.neighbors import NearestNeighbors

from metriclab.resources import require

STATIC_EXTRA = "static"  # pyproject's optional extra that brings Kaleido (figure_svg)
WEBGL_TRACES = ("scattergl", "scatterpolargl", "heatmapgl", "pointcloud", "splom")
NOTEBOOK_FIGURE = "auto"  # notebook_from_code: draw the embedding when the snippet leaves one


def _number(value) -> str:
    """A float as the shortest text that reads back to the same float ('nan', 'inf' as such)."""
    return repr(float(value))


def _flag(values, n: int, name: str) -> np.ndarray:
    if values is None:
        return np.zeros(n, dtype=bool)
    values = np.asarray(values, dtype=bool)
    if values.shape != (n,):
        raise ValueError(f"{name} must be a mask of the {n} points, got shape {values.shape}")
    return values


def _quoted(text: str) -> str:
    """A CSV field: quoted (inner quotes doubled) where it holds a comma, a quote or a newline."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def coordinates_csv(
    Z,
    y,
    labeled=None,
    held_out=None,
    *,
    index=None,
    column_prefix: str = "dimension_",
    target_names=None,
) -> str:
    """The coordinates of every point as CSV text.

    Columns: ``index`` (the point's row in the data set), ``label`` (its class code), ``labelled``
    and ``held_out`` (1 or 0), then one column per coordinate (``dimension_1``, ...), and with
    `target_names` a last column ``class``: the class's name. Floats are written as their
    shortest round-trip text, so reading the file gives the same arrays.

    Parameters
    ----------
    Z : array-like of shape (n, m) or (n,)
        The coordinates.
    y : array-like of shape (n,)
        The class codes.
    labeled, held_out : array-like of bool of shape (n,), optional
        The labelled and the held-out points (none when omitted).
    index : array-like of int of shape (n,), optional
        The points' rows in the data set (0..n-1 when omitted; a subsample's rows).
    column_prefix : str
        Prefix of the coordinate columns.
    target_names : sequence of str, optional
        The classes' names by code (``Dataset.target_names``): a last column ``class`` names
        each point's class (quoted where a name holds a comma).

    Returns
    -------
    str
        The CSV: one row per point with its index, class, flags and coordinates.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.export import coordinates_csv
    >>> print(coordinates_csv(np.array([[0.5, 1.0], [2.0, -1.25]]), [0, 1], labeled=[True, False]))
    index,label,labelled,held_out,dimension_1,dimension_2
    0,0,1,0,0.5,1.0
    1,1,0,0,2.0,-1.25
    <BLANKLINE>
    >>> print(coordinates_csv(np.array([[0.5], [2.0]]), [0, 1], target_names=["a, b", "c"]))
    index,label,labelled,held_out,dimension_1,class
    0,0,0,0,0.5,"a, b"
    1,1,0,0,2.0,c
    <BLANKLINE>
    """
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    if Z.ndim != 2:
        raise ValueError(f"Z must be a 1-D or 2-D array of coordinates, got shape {Z.shape}")
    n = Z.shape[0]
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"y must hold one label per point ({n}), got shape {y.shape}")
    index = np.arange(n) if index is None else np.asarray(index)
    if index.shape != (n,):
        raise ValueError(f"index must hold one row number per point ({n}), got {index.shape}")
    labeled, held_out = _flag(labeled, n, "labeled"), _flag(held_out, n, "held_out")
    header = ["index", "label", "labelled", "held_out"]
    header += [f"{column_prefix}{j + 1}" for j in range(Z.shape[1])]
    names = None
    if target_names is not None:
        names = [_quoted(str(t)) for t in target_names]
        codes = y.astype(np.int64) if n else y
        if n and (not np.array_equal(codes, y) or codes.min() < 0 or codes.max() >= len(names)):
            raise ValueError(f"the labels must be class codes 0..{len(names) - 1} to be named")
        header.append("class")
    lines = [",".join(header)]
    for i in range(n):
        fields = [str(int(index[i])), str(y[i].item()), str(int(labeled[i])), str(int(held_out[i]))]
        fields += [_number(v) for v in Z[i]]
        lines.append(",".join(fields + ([names[int(y[i])]] if names is not None else [])))
    return "\n".join(lines) + "\n"


def read_coordinates_csv(text: str) -> dict[str, np.ndarray]:
    """Read `coordinates_csv` text back: index, label, labelled, held_out and Z (n × m).

    Parameters
    ----------
    text : str
        What `coordinates_csv` wrote (or a file's content).

    Returns
    -------
    dict
        ``index``, ``label`` (int arrays), ``labelled``, ``held_out`` (bool arrays), ``Z``, and
        ``class`` (the class names) where the file has that column.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.export import coordinates_csv, read_coordinates_csv
    >>> Z = np.random.default_rng(0).normal(size=(4, 2))
    >>> bool(np.array_equal(read_coordinates_csv(coordinates_csv(Z, [0, 1, 0, 1]))["Z"], Z))
    True
    """
    rows = list(csv.reader(io.StringIO(text.strip())))
    header, body = rows[0], rows[1:]
    if header[:4] != ["index", "label", "labelled", "held_out"]:
        raise ValueError(f"not a coordinates file: its columns are {header[:4]}")
    table = np.array(body, dtype=object).reshape(len(body), len(header))
    named = header[-1] == "class"
    out = {
        "index": table[:, 0].astype(np.int64),
        "label": table[:, 1].astype(np.int64),
        "labelled": table[:, 2].astype(np.int64).astype(bool),
        "held_out": table[:, 3].astype(np.int64).astype(bool),
        "Z": table[:, 4 : len(header) - named].astype(np.float64),
    }
    if named:
        out["class"] = table[:, -1].astype(str)
    return out


def learned_matrix(estimator, which: str = "M") -> np.ndarray:
    """The learned matrix of a fitted linear or Mahalanobis learner.

    Parameters
    ----------
    estimator : fitted estimator
        With ``get_mahalanobis_matrix()`` (M = LᵀL) and/or ``components_`` (L, one row per
        output dimension), as metric-learn's and scikit-learn's NCA.
    which : {'M', 'L'}
        'M' the Mahalanobis matrix M = LᵀL (d × d); 'L' the linear map (m × d).

    Returns
    -------
    ndarray
        M (d × d) or L (m × d).

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab import NCA
    >>> from metriclab.export import learned_matrix
    >>> rng = np.random.default_rng(0)
    >>> X, y = rng.normal(size=(30, 3)), np.repeat([0, 1], 15)
    >>> model = NCA(n_components=2, random_state=0).fit(X, y)
    >>> learned_matrix(model, "L").shape, learned_matrix(model, "M").shape
    ((2, 3), (3, 3))
    """
    if which not in ("M", "L"):
        raise ValueError(f"which must be 'M' (M = LᵀL) or 'L' (the linear map), got {which!r}")
    L = getattr(estimator, "components_", None)
    if which == "L":
        if L is None:
            raise ValueError(
                f"{type(estimator).__name__} has no learned linear map (components_): export M "
                "or the coordinates instead"
            )
        return np.asarray(L, dtype=np.float64)
    if hasattr(estimator, "get_mahalanobis_matrix"):
        return np.asarray(estimator.get_mahalanobis_matrix(), dtype=np.float64)
    if L is not None:
        L = np.asarray(L, dtype=np.float64)
        return L.T @ L
    raise ValueError(
        f"{type(estimator).__name__} learns no linear map or Mahalanobis matrix "
        "(get_mahalanobis_matrix, components_)"
    )


def matrix_npy(matrix) -> bytes:
    """A matrix as the bytes of a NumPy .npy file (`numpy.load` reads it back exactly).

    Parameters
    ----------
    matrix : array-like
        The matrix.

    Returns
    -------
    bytes
        The .npy file's bytes.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from metriclab.export import matrix_npy
    >>> np.load(io.BytesIO(matrix_npy(np.eye(2)))).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(matrix, dtype=np.float64), allow_pickle=False)
    return buffer.getvalue()


def matrix_csv(
    matrix,
    row_names: Sequence[str] | None = None,
    column_names: Sequence[str] | None = None,
    corner: str = "",
) -> str:
    """A matrix as CSV text (shortest round-trip floats), optionally with row and column names.

    Parameters
    ----------
    matrix : array-like of shape (r, c)
        The matrix.
    row_names : sequence of str, optional
        A first column with these names (e.g. the output dimensions of L).
    column_names : sequence of str, optional
        A header row (e.g. the feature names); with `row_names`, its first cell is `corner`.
    corner : str
        The header's first cell above the row names (e.g. ``'index'`` when rows and columns are
        points); empty by default.

    Returns
    -------
    str
        The CSV text.

    Examples
    --------
    >>> from metriclab.export import matrix_csv
    >>> print(matrix_csv([[1.0, 0.5], [0.5, 2.0]], column_names=["a", "b"]))
    a,b
    1.0,0.5
    0.5,2.0
    <BLANKLINE>
    """
    M = np.asarray(matrix, dtype=np.float64)
    if M.ndim != 2:
        raise ValueError(f"a matrix must be 2-D, got shape {M.shape}")
    if row_names is not None and len(row_names) != M.shape[0]:
        raise ValueError(f"{len(row_names)} row names for {M.shape[0]} rows")
    if column_names is not None and len(column_names) != M.shape[1]:
        raise ValueError(f"{len(column_names)} column names for {M.shape[1]} columns")
    lines = []
    if column_names is not None:
        lines.append(",".join(([corner] if row_names is not None else []) + list(column_names)))
    for i, row in enumerate(M):
        cells = [_number(v) for v in row]
        lines.append(",".join(([str(row_names[i])] if row_names is not None else []) + cells))
    return "\n".join(lines) + "\n"


def neighbours_csv(Z, k: int = 5, *, index=None) -> str:
    """Every point's k nearest other points under the embedding, as CSV text.

    Columns: ``index``, then ``neighbour_1`` … ``neighbour_k`` (their indices, nearest first),
    then ``distance_1`` … ``distance_k`` (Euclidean in the embedding). Found with scikit-learn's
    `NearestNeighbors` (the neighbours the trustworthiness counts).

    Parameters
    ----------
    Z : array-like of shape (n, m)
        The embedding.
    k : int
        Neighbours per point (< n).
    index : array-like of int of shape (n,), optional
        The points' rows in the data set; the neighbours are written as these indices too.

    Returns
    -------
    str
        The CSV: one row per point and neighbour, nearest first.

    Examples
    --------
    >>> from metriclab.export import neighbours_csv
    >>> print(neighbours_csv([[0.0], [1.0], [3.0]], k=1))
    index,neighbour_1,distance_1
    0,1,1.0
    1,0,1.0
    2,1,2.0
    <BLANKLINE>
    """
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    n = Z.shape[0]
    if isinstance(k, bool) or int(k) != k or not 1 <= k < n:
        raise ValueError(f"k must be a whole number in [1, {n - 1}], got {k!r}")
    k = int(k)
    index = np.arange(n) if index is None else np.asarray(index)
    if index.shape != (n,):
        raise ValueError(f"index must hold one row number per point ({n}), got {index.shape}")
    distances, neighbours = NearestNeighbors(n_neighbors=k).fit(Z).kneighbors()
    header = ["index"] + [f"neighbour_{j + 1}" for j in range(k)]
    header += [f"distance_{j + 1}" for j in range(k)]
    lines = [",".join(header)]
    for i in range(n):
        cells = [str(int(index[i]))] + [str(int(index[j])) for j in neighbours[i]]
        lines.append(",".join(cells + [_number(d) for d in distances[i]]))
    return "\n".join(lines) + "\n"


# -- the figure as SVG ----------------------------------------------------------------------------


def rasterised_traces(fig) -> list[str]:
    """The WebGL traces of a figure (e.g. ``scattergl``, used for large sets): SVG export embeds
    them as a raster image, so they are not vector in the file.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.

    Returns
    -------
    list of str
        The names (or types) of those traces; empty when the whole figure is vector.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from metriclab.export import rasterised_traces
    >>> rasterised_traces(go.Figure([go.Scattergl(x=[0], y=[0], name="points")]))
    ['points']
    """
    return [
        trace.name or trace.type for trace in fig.data if getattr(trace, "type", "") in WEBGL_TRACES
    ]


def figure_svg(fig, *, width: int | None = None, height: int | None = None) -> bytes:
    """A Plotly figure as SVG bytes, for slides.

    Uses Plotly's `to_image(format='svg')`, which needs Kaleido (the optional extra ``static``)
    and a Chrome or Chromium browser for Kaleido to drive. WebGL traces (``scattergl``, which
    the app uses for large sets) cannot be vector: Plotly embeds them in the SVG as a raster
    image (`rasterised_traces` names them, so a page can say so).

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        The figure.
    width, height : int, optional
        Size in pixels (the figure's layout size when omitted).

    Returns
    -------
    bytes
        The SVG document.

    Raises
    ------
    metriclab.resources.MissingExtra
        When Kaleido is not installed: one line naming the extra ``static`` that installs it.
    RuntimeError
        When Kaleido cannot start a browser.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from metriclab.export import figure_svg
    >>> svg = figure_svg(go.Figure(go.Scatter(x=[0, 1], y=[1, 0])))  # doctest: +SKIP
    >>> svg[:4]  # doctest: +SKIP
    b'<svg'
    """
    require("kaleido", STATIC_EXTRA, "SVG export of a figure")  # MissingExtra naming the extra
    try:
        return fig.to_image(format="svg", width=width, height=height)
    except Exception as error:  # Kaleido's own errors: no browser, a crashed browser, ...
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise RuntimeError(
            f"SVG export failed in Kaleido ({first}); it needs a Chrome or Chromium browser "
            "(kaleido.get_chrome_sync() installs one)"
        ) from error


# -- a notebook from a page's code ---------------------------------------------------------------


def _assigned_names(code: str) -> set[str]:
    """Names the code assigns at its top level (and in its loops and branches)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def embedding_figure_code(title: str | None = None) -> str:
    """The notebook cell that draws a snippet's embedding `Z` of `ds` with the labelled points
    `mask` marked, with `metriclab.plots.embedding_scatter` (the page's scatter builder).

    Parameters
    ----------
    title : str, optional
        The figure's title.

    Returns
    -------
    str
        Python code ending in ``fig`` (shown by Jupyter).

    Examples
    --------
    >>> from metriclab.export import embedding_figure_code
    >>> "embedding_scatter" in embedding_figure_code("TDL on iris")
    True
    """
    call = "fig = embedding_scatter(Z, ds.y, labeled=mask, target_names=ds.target_names" + (
        f", title={title!r})" if title else ")"
    )
    return "\n".join(
        [
            "from metriclab.plots import embedding_scatter",
            "",
            "# the embedding's first two coordinates; the labelled points as outlined diamonds",
            call,
            "fig",
        ]
    )


def _cell(kind: str, source: str, number: int) -> dict:
    lines = source.splitlines(keepends=True)
    cell = {"cell_type": kind, "id": f"cell-{number}", "metadata": {}, "source": lines}
    if kind == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    return cell


def notebook_from_code(code: str, title: str, figure_code: str | None = NOTEBOOK_FIGURE) -> bytes:
    """A Jupyter notebook (.ipynb, nbformat 4.5 JSON) from a page's "Show the code" snippet.

    Cells: a title, the snippet (it recomputes the view and prints the page's headline number),
    and a cell that draws the figure. With ``figure_code='auto'`` the figure is the embedding
    scatter (`embedding_figure_code`) when the snippet leaves an embedding ``Z`` of a data set
    ``ds`` with labelled points ``mask`` (the Embed page's snippets do), else no figure cell.

    Parameters
    ----------
    code : str
        The snippet (`metriclab.ui.shared.code_snippets`), runnable Python.
    title : str
        The notebook's title (a Markdown heading).
    figure_code : str or None
        'auto', the code of the figure cell, or None for none.

    Returns
    -------
    bytes
        UTF-8 JSON of the notebook.

    Examples
    --------
    >>> import json
    >>> from metriclab.export import notebook_from_code
    >>> nb = json.loads(notebook_from_code('print("0.950")', "Iris"))
    >>> nb["nbformat"], [c["cell_type"] for c in nb["cells"]]
    (4, ['markdown', 'code'])
    """
    if not isinstance(code, str) or not code.strip():
        raise ValueError("the notebook needs the page's code (a non-empty snippet)")
    try:
        assigned = _assigned_names(code)
    except SyntaxError as error:
        raise ValueError(f"the snippet is not valid Python: {error}") from None
    if figure_code == NOTEBOOK_FIGURE:
        draws = {"Z", "ds", "mask"} <= assigned
        figure_code = embedding_figure_code(title) if draws else None
    cells = [
        _cell(
            "markdown",
            f'# {title}\n\nMade by metriclab from the page\'s "Show the code": the next cell '
            "recomputes the view with the public metriclab API and prints the page's number.",
            0,
        ),
        _cell("code", code.rstrip("\n"), 1),
    ]
    if figure_code:
        cells.append(_cell("markdown", "The figure, drawn with `metriclab.plots`.", 2))
        cells.append(_cell("code", figure_code.rstrip("\n"), 3))
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return (json.dumps(notebook, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def notebook_code_cells(notebook: bytes | str) -> list[str]:
    """The code cells of a notebook, in order (to run them, e.g. in a test).

    Parameters
    ----------
    notebook : bytes or str
        The .ipynb JSON.

    Returns
    -------
    list of str
        The source of each code cell.

    Examples
    --------
    >>> from metriclab.export import notebook_code_cells, notebook_from_code
    >>> notebook_code_cells(notebook_from_code("x = 1\\nprint(x)", "t"))
    ['x = 1\\nprint(x)']
    """
    data = json.loads(notebook)
    return ["".join(c["source"]) for c in data["cells"] if c["cell_type"] == "code"]
