"""Figures of the lab for notebooks and scripts: the public plotting API.

Each function takes a fitted estimator (with its data) or plain arrays and returns a
:class:`plotly.graph_objects.Figure`, as umap-learn's ``umap.plot`` returns its figures: show it
with ``fig.show()`` or as the last line of a notebook cell, save it with ``fig.write_html(...)``
(interactive, works offline: plotly.js is written into the file) or ``fig.write_image(...)``
(PNG, SVG, PDF: needs Kaleido and a Chrome or Chromium, ``pip install "metric-learning-lab[static]"``).

- :func:`embedding`: the points in a learned embedding (or a 1-D strip), coloured by class, the
  labelled points marked.
- :func:`dissimilarity`: a learned dissimilarity matrix (or the distances in any embedding) with
  rows and columns sorted by class.
- :func:`window_map`: an estimator's accuracy minus a baseline's over a grid of two parameters.
- :func:`images`: images (digits, tangent vectors) side by side with their captions.
- :func:`comparison`: accuracy per method over seeded splits, from estimators or from
  :func:`metriclab.evaluation.compare`'s table.

The figures are the ones the app draws (``metriclab.plots`` builds both).

In a Jupyter kernel, importing this module makes Plotly's default renderer
``"plotly_mimetype+notebook"`` when it is Plotly's own choice ``"plotly_mimetype"``: JupyterLab
still draws the figure from its Plotly data, and the notebook also keeps an HTML copy with
plotly.js embedded, so the figures survive ``jupyter nbconvert --to html`` and show offline
(Plotly 6's default keeps only the Plotly data, which an exported page cannot draw). A renderer
the user chose is left alone; :func:`use_notebook_renderer` sets it explicitly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from sklearn.base import clone

from metriclab import plots

__all__ = [
    "comparison",
    "dissimilarity",
    "embedding",
    "images",
    "use_notebook_renderer",
    "window_map",
]

NOTEBOOK_RENDERER = "plotly_mimetype+notebook"


def use_notebook_renderer() -> str:
    """Make Plotly's figures show in Jupyter and survive an export to HTML.

    Sets :data:`plotly.io.renderers.default` to ``"plotly_mimetype+notebook"``: the Plotly data
    (drawn by JupyterLab, VS Code and Notebook 7) and an HTML copy with plotly.js included once
    in the notebook (kept by ``jupyter nbconvert --to html``; no network needed to view it).
    Importing :mod:`metriclab.plotting` in a Jupyter kernel does this already unless another
    renderer was chosen.

    Returns
    -------
    str
        The renderer now in use.

    See Also
    --------
    embedding : A figure to show with it.

    Examples
    --------
    >>> import plotly.io as pio
    >>> from metriclab.plotting import use_notebook_renderer
    >>> before = pio.renderers.default
    >>> use_notebook_renderer()
    'plotly_mimetype+notebook'
    >>> pio.renderers.default = before
    """
    pio.renderers.default = NOTEBOOK_RENDERER
    return NOTEBOOK_RENDERER


def _in_jupyter_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__module__.startswith("ipykernel.")


if _in_jupyter_kernel() and pio.renderers.default == "plotly_mimetype":
    use_notebook_renderer()


# ------------------------------------------------------------------------------------- helpers


def _encode_classes(y, target_names):
    """Class codes 0..c-1 and their names from any labels."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one label per point (1-D), got shape {y.shape}")
    classes, codes = np.unique(y, return_inverse=True)
    if target_names is None:
        if np.issubdtype(classes.dtype, np.integer) and np.array_equal(
            classes, np.arange(classes.size)
        ):
            names = None  # 0..c-1 already: plots names them "class 0", ...
        else:
            names = [str(c) for c in classes]
    else:
        names = list(target_names)
        if not (np.issubdtype(classes.dtype, np.integer) and classes.min() >= 0):
            raise ValueError("target_names needs y coded as 0..c-1")
        codes = y.astype(int)
    return codes, names


def _is_transductive(estimator) -> bool:
    from metriclab.methods.spectral import TDL, LaplacianEigenmaps

    return isinstance(estimator, TDL | LaplacianEigenmaps)


def _fit_on_split(estimator, X, y, mask) -> np.ndarray:
    """Fit a clone of `estimator` on one split and return the embedding of all of X.

    TDL and Laplacian Eigenmaps are fitted on all points with y = -1 on the unlabelled ones
    (their embedding is of those points); any other estimator on the labelled points, then it
    maps every point with ``transform``.
    """
    from metriclab.evaluation import partial_labels

    model = clone(estimator)
    if _is_transductive(model):
        return model.fit(X, partial_labels(y, mask)).embedding_
    return model.fit(X[mask], y[mask]).transform(X)


def _coordinates(source, X) -> np.ndarray:
    if isinstance(source, np.ndarray | list | tuple):
        return np.asarray(source, dtype=np.float64)
    if X is not None:
        if not hasattr(source, "transform"):
            raise ValueError(f"{type(source).__name__} has no transform: pass its embedding")
        return np.asarray(source.transform(X), dtype=np.float64)
    if hasattr(source, "embedding_"):
        return np.asarray(source.embedding_, dtype=np.float64)
    raise ValueError(
        f"{type(source).__name__} has no embedding_ (not fitted, or an inductive method): "
        "pass the points to map as X"
    )


# ------------------------------------------------------------------------------------- figures


def embedding(
    source,
    y,
    *,
    X=None,
    labeled=None,
    target_names: Sequence[str] | None = None,
    title: str | None = None,
) -> go.Figure:
    """Draw the points of an embedding, coloured by class.

    Two or more dimensions: a scatter of the first two at equal scales (distances in the picture
    are the embedding's). One dimension: a strip per class with a little vertical jitter. The
    labelled points, when given, are drawn as outlined diamonds above the others.

    Parameters
    ----------
    source : array-like of shape (n_samples, n_components) or fitted estimator
        The embedding itself, or a fitted estimator: its ``transform(X)`` when `X` is given,
        else its ``embedding_`` (TDL, LaplacianEigenmaps, DiscriminantKernelMDS).
    y : array-like of shape (n_samples,)
        The class of every point (all of them, also the unlabelled ones: the colours).
    X : array-like of shape (n_samples, n_features), optional
        Points to map with the estimator's ``transform``.
    labeled : array-like of bool of shape (n_samples,), optional
        True for the points whose labels the estimator saw.
    target_names : sequence of str, optional
        Class names, indexed by class code (``Dataset.target_names``).
    title : str, optional
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        One trace per class (and one per class of labelled points); hover shows each point's
        index and class.

    See Also
    --------
    dissimilarity : The distances between the same points.
    metriclab.evaluation.embedding_accuracy : The 1-NN accuracy of an embedding.

    Examples
    --------
    >>> from metriclab import NCA
    >>> from metriclab.datasets import load
    >>> from metriclab.plotting import embedding
    >>> ds = load("iris")
    >>> nca = NCA(n_components=2, max_iter=20).fit(ds.X, ds.y)
    >>> fig = embedding(nca, ds.y, X=ds.X, target_names=ds.target_names, title="NCA on Iris")
    >>> [trace.name for trace in fig.data]
    ['setosa', 'versicolor', 'virginica']
    """
    Z = _coordinates(source, X)
    codes, names = _encode_classes(y, target_names)
    if Z.ndim == 1:
        Z = Z[:, None]
    if Z.ndim != 2 or Z.shape[0] != codes.shape[0]:
        raise ValueError(f"{codes.shape[0]} labels for an embedding of shape {Z.shape}")
    if labeled is not None:
        labeled = np.asarray(labeled, dtype=bool)
        if labeled.shape != codes.shape:
            raise ValueError(f"labeled has shape {labeled.shape}; expected {codes.shape}")
    return plots.embedding_scatter(Z, codes, labeled=labeled, target_names=names, title=title)


def dissimilarity(source, y, *, X=None, title: str | None = None) -> go.Figure:
    """Draw a dissimilarity matrix with its rows and columns sorted by class.

    A discriminant dissimilarity separates the classes when the blocks on the diagonal are dark
    (small within-class distances) and the others light. White lines mark the class
    boundaries; past 400 points the matrix is thinned evenly for the browser.

    Parameters
    ----------
    source : array-like of shape (n_samples, n_samples) or fitted estimator
        The matrix itself (dense or sparse), or a fitted estimator: the Euclidean distances
        between its ``transform(X)`` when `X` is given, else its ``dissimilarity_``
        (DiscriminantKernelMDS) or the distances in its ``embedding_`` (TDL,
        LaplacianEigenmaps).
    y : array-like of shape (n_samples,)
        The class of every point: the order of the rows.
    X : array-like of shape (n_samples, n_features), optional
        Points to map with the estimator's ``transform``.
    title : str, optional
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        A heat map.

    See Also
    --------
    embedding : The points themselves.
    metriclab.DiscriminantKernelMDS : Zhang's dissimilarities.

    Examples
    --------
    >>> from metriclab import DiscriminantKernelMDS
    >>> from metriclab.datasets import load
    >>> from metriclab.plotting import dissimilarity
    >>> ds = load("iris")
    >>> mds = DiscriminantKernelMDS(max_iter=5).fit(ds.X[::3], ds.y[::3])
    >>> fig = dissimilarity(mds, ds.y[::3], title="Zhang's dissimilarity")
    >>> fig.data[0].z.shape
    (50, 50)
    """
    codes, _ = _encode_classes(y, None)
    if hasattr(source, "toarray") or isinstance(source, np.ndarray | list | tuple):
        M = source
    elif X is None and hasattr(source, "dissimilarity_"):
        M = source.dissimilarity_
    else:
        from scipy.spatial.distance import cdist

        Z = _coordinates(source, X)
        Z = Z[:, None] if Z.ndim == 1 else Z
        M = cdist(Z, Z)
    return plots.matrix_heatmap(M, codes, title=title)


def window_map(
    estimator,
    X,
    y,
    labeled,
    param_grid: Mapping[str, Sequence[float]],
    *,
    baseline=None,
    log: tuple[bool, bool] = (True, True),
    title: str | None = None,
) -> go.Figure:
    """Draw where an estimator beats a baseline over a grid of two of its parameters.

    Every cell is a fit of a clone of `estimator` with that cell's parameters on the split
    `labeled`, scored by the 1-NN accuracy on the unlabelled points
    (:func:`metriclab.evaluation.embedding_accuracy`). The colour is the accuracy minus the
    baseline's (blue: the estimator wins) and a black line surrounds the winning cells: the
    "window" of parameters in which the method helps.

    Parameters
    ----------
    estimator : estimator
        TDL and LaplacianEigenmaps are fitted on all points with y = -1 on the unlabelled ones;
        any other estimator on the labelled points, then it maps all of them with
        ``transform``.
    X : array-like of shape (n_samples, n_features)
        All points.
    y : array-like of shape (n_samples,)
        The class of every point; only the labelled ones are shown to the estimator.
    labeled : array-like of bool of shape (n_samples,)
        True for the labelled points (:func:`metriclab.evaluation.labeled_mask`).
    param_grid : mapping of str to sequence of float
        Exactly two parameters of the estimator: the first varies along the rows (vertical
        axis), the second along the columns.
    baseline : estimator or float, optional
        The reference: an estimator fitted in each cell with the cell's parameters that it
        shares (LaplacianEigenmaps beside TDL on the same graph), or an accuracy. None: 1-NN in
        the input space.
    log : tuple of bool, default=(True, True)
        Logarithmic row and column axes.
    title : str, optional
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        A heat map of accuracy differences; hover shows both accuracies of each cell.

    See Also
    --------
    comparison : Accuracies over several splits.

    Examples
    --------
    >>> from metriclab import LaplacianEigenmaps, TDL
    >>> from metriclab.datasets import load
    >>> from metriclab.evaluation import labeled_mask
    >>> from metriclab.plotting import window_map
    >>> ds = load("two_moons")
    >>> mask = labeled_mask(ds.y, per_class=5, seed=0)
    >>> fig = window_map(
    ...     TDL(n_components=1), ds.X, ds.y, mask, {"lam": [1, 16], "width": [0.1, 1.0]},
    ...     baseline=LaplacianEigenmaps(n_components=1),
    ... )
    >>> fig.data[0].z.shape
    (2, 2)
    """
    from metriclab.evaluation import embedding_accuracy, knn_accuracy

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    labeled = np.asarray(labeled, dtype=bool)
    if len(param_grid) != 2:
        raise ValueError(f"param_grid needs exactly two parameters, got {list(param_grid)}")
    (row_name, row_values), (col_name, col_values) = param_grid.items()
    known = estimator.get_params()
    for name in (row_name, col_name):
        if name not in known:
            raise ValueError(f"{type(estimator).__name__} has no parameter {name!r}")
    accuracy = np.full((len(row_values), len(col_values)), np.nan)
    base = np.full(accuracy.shape, np.nan)
    baseline_name = "Euclidean 1-NN"
    if baseline is None:
        base[:] = knn_accuracy(X[labeled], y[labeled], X[~labeled], y[~labeled])
    elif np.isscalar(baseline):
        base[:] = float(baseline)
        baseline_name = "baseline"
    else:
        baseline_name = type(baseline).__name__
    for i, row_value in enumerate(row_values):
        for j, col_value in enumerate(col_values):
            cell = {row_name: row_value, col_name: col_value}
            Z = _fit_on_split(clone(estimator).set_params(**cell), X, y, labeled)
            accuracy[i, j] = embedding_accuracy(Z, y, labeled)
            if baseline is not None and not np.isscalar(baseline):
                shared = {k: v for k, v in cell.items() if k in baseline.get_params()}
                Zb = _fit_on_split(clone(baseline).set_params(**shared), X, y, labeled)
                base[i, j] = embedding_accuracy(Zb, y, labeled)
    return plots.window_map(
        row_values,
        col_values,
        accuracy,
        base,
        row_name=row_name,
        col_name=col_name,
        title=title,
        row_log=log[0],
        col_log=log[1],
        baseline_name=baseline_name,
    )


def comparison(
    source,
    X=None,
    y=None,
    *,
    per_class: int = 5,
    n_splits: int = 5,
    seed: int = 0,
    dataset_name: str = "data",
    title: str | None = "Accuracy per split",
) -> go.Figure:
    """Draw the accuracy of several methods over the same seeded splits.

    Parameters
    ----------
    source : dict of str to estimator, or pandas.DataFrame
        Estimators by name, fitted here on `n_splits` splits of (`X`, `y`) with `per_class`
        labelled points of each class and scored by 1-NN on the unlabelled points (TDL and
        LaplacianEigenmaps transductively, the others on the labelled points); or the table of
        :func:`metriclab.evaluation.compare` (one box per method and data set) or of
        :func:`metriclab.evaluation.summarize` (bars of mean and standard deviation).
    X : array-like of shape (n_samples, n_features), optional
        The points, with estimators.
    y : array-like of shape (n_samples,), optional
        Their classes, with estimators.
    per_class : int, default=5
        Labelled points per class in each split, with estimators.
    n_splits : int, default=5
        Number of splits, with estimators.
    seed : int, default=0
        Seed of the first split, with estimators (split i uses ``seed + i``).
    dataset_name : str, default="data"
        The data set's name on the horizontal axis, with estimators.
    title : str, optional
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        Box plots of the per-split accuracies (every split a point), or bars with error bars
        from a summary.

    See Also
    --------
    metriclab.evaluation.compare : Repeated-split comparisons of registered methods.
    window_map : One method over a grid of two parameters.

    Examples
    --------
    >>> from metriclab import DNE, NCA
    >>> from metriclab.datasets import load
    >>> from metriclab.plotting import comparison
    >>> ds = load("wine")
    >>> fig = comparison(
    ...     {"NCA": NCA(max_iter=10), "DNE": DNE(k=2)}, ds.X, ds.y, n_splits=2, dataset_name="wine"
    ... )
    >>> [trace.name for trace in fig.data]
    ['NCA', 'DNE']
    """
    if isinstance(source, pd.DataFrame):
        if {"accuracy_mean", "accuracy_std"} <= set(source.columns):
            summary = source.rename(columns={"accuracy_mean": "mean", "accuracy_std": "std"})
            summary = summary.assign(method=summary.get("label", summary["method"]))
            return plots.comparison_chart(summary, title=title)
        if not {"dataset", "accuracy"} <= set(source.columns):
            raise ValueError("pass compare()'s or summarize()'s table, or a dict of estimators")
        table = source
        if "status" in table.columns:
            table = table[table["status"] == "ok"]
        if "label" not in table.columns:
            table = table.assign(label=table["method"])
        return plots.comparison_boxes(table, title=title)
    if not isinstance(source, Mapping) or X is None or y is None:
        raise ValueError("pass a dict of estimators with X and y, or compare()'s table")
    from metriclab.evaluation import embedding_accuracy, labeled_mask

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    rows = []
    for split in range(n_splits):
        mask = labeled_mask(y, per_class=per_class, seed=seed + split)
        for name, estimator in source.items():
            Z = _fit_on_split(estimator, X, y, mask)
            accuracy = embedding_accuracy(Z, y, mask)
            rows.append({"dataset": dataset_name, "label": name, "accuracy": accuracy})
    return plots.comparison_boxes(pd.DataFrame(rows), title=title)


def images(
    X,
    image_shape: tuple[int, int],
    *,
    titles: Sequence[str] | None = None,
    n_cols: int = 10,
    signed: bool = False,
    title: str | None = None,
) -> go.Figure:
    """Draw images side by side, each with its caption.

    Parameters
    ----------
    X : array-like of shape (n_images, height * width)
        One image per row (``Dataset.X`` of an image data set, or tangent vectors).
    image_shape : tuple of int
        (height, width) of every image (``Dataset.image_shape``).
    titles : sequence of str, optional
        A caption per image.
    n_cols : int, default=10
        Images per row of the grid.
    signed : bool, default=False
        Draw signed images (tangent vectors, differences) red and blue around a white 0, instead
        of grey levels.
    title : str, optional
        The figure's title.

    Returns
    -------
    plotly.graph_objects.Figure
        One heat map holding the tiled images.

    See Also
    --------
    metriclab.tangent_neighbours : The nearest images under tangent distance.

    Examples
    --------
    >>> from metriclab.datasets import load
    >>> from metriclab.plotting import images
    >>> ds = load("digits")
    >>> fig = images(ds.X[:5], ds.image_shape, titles=[str(c) for c in ds.y[:5]])
    >>> fig.data[0].type
    'heatmap'
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != int(np.prod(image_shape)):
        raise ValueError(f"images of shape {X.shape} are not rows of {tuple(image_shape)} pixels")
    return plots.image_grid(
        X, tuple(image_shape), titles=titles, n_cols=n_cols, title=title, signed=signed
    )
