"""A data set from points a person placed by hand (the app's "Draw" page): 2-D points and their
class labels, checked like an uploaded CSV (a clear ValueError on a drawing no method can use)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from metriclab.datasets.core import Dataset

MAX_POINTS = 2000  # a drawing is a teaching set; the interactive pages fit up to this many points


def from_points(
    points,
    labels,
    class_names: Sequence[str] | None = None,
    name: str = "drawn",
) -> Dataset:
    """Make a data set of 2-D points drawn by hand (the app's drawing canvas).

    Classes that have no point are left out and the rest renumbered 0..c-1 in order, so
    ``target_names`` name the classes drawn.

    Parameters
    ----------
    points : array-like of shape (n_samples, 2)
        The (x, y) positions.
    labels : array-like of int of shape (n_samples,)
        Each point's class, an index into `class_names` when given.
    class_names : sequence of str, optional
        The classes' names; None: "class 0", "class 1", ...
    name : str, default="drawn"
        The data set's name.

    Returns
    -------
    Dataset
        The points and their classes.

    Raises
    ------
    ValueError
        When the drawing has fewer than two classes, a class with a single point, coordinates
        that are not finite, or too many points.

    Examples
    --------
    >>> from metriclab.datasets import from_points
    >>> ds = from_points([[0, 0], [0, 1], [5, 5], [5, 6]], [0, 0, 2, 2], ["a", "b", "c"])
    >>> ds.y.tolist(), ds.target_names
    ([0, 0, 1, 1], ['a', 'c'])
    """
    X = np.asarray(points, dtype=np.float64)
    labels = np.asarray(labels)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"points must be an n×2 array of (x, y) positions, got shape {X.shape}")
    if labels.shape != (X.shape[0],):
        raise ValueError(f"need one label per point: {X.shape[0]} points, {labels.size} labels")
    if X.shape[0] > MAX_POINTS:
        raise ValueError(f"a drawing holds at most {MAX_POINTS} points, got {X.shape[0]}")
    if not np.all(np.isfinite(X)):
        raise ValueError("every point needs finite x and y coordinates")
    if labels.size and not np.issubdtype(labels.dtype, np.integer):
        raise ValueError("labels must be whole numbers (class indices)")
    used, y = np.unique(labels, return_inverse=True)
    names = [str(c) for c in used]
    if class_names is not None:
        if used.size and (used.min() < 0 or used.max() >= len(class_names)):
            raise ValueError(f"labels must be indices into the {len(class_names)} class names")
        names = [str(class_names[c]) for c in used]
    if used.size < 2:
        shown = f"only class {names[0]}" if used.size == 1 else "no points"
        raise ValueError(
            f"the drawing has {shown}: draw points of at least two classes (a metric learned "
            "from labels needs something to tell apart)"
        )
    counts = np.bincount(y, minlength=used.size)
    single = [names[i] for i in np.flatnonzero(counts < 2)]
    if single:
        raise ValueError(
            f"class {', '.join(single)} has a single point: draw at least two points of every "
            "class (one labelled and one to predict)"
        )
    return Dataset(
        X=X,
        y=y,
        name=name,
        feature_names=["x", "y"],
        target_names=names,
        description=f"Drawn by hand: {X.shape[0]} points in {used.size} classes.",
        source="drawn in the app",
    )
