"""Stratified subsamples of a data set: what the app's interactive pages fit on large sets."""

from __future__ import annotations

import numpy as np

from metriclab.datasets.core import Dataset


def subsample_indices(y: np.ndarray, max_points: int | None, seed: int = 0) -> np.ndarray:
    """Rows of a stratified subsample: about `max_points` points, each class in its share.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The class labels.
    max_points : int or None
        About how many points to keep (each class keeps at least two, so a little more can
        come back); None, or no more points than this: all.
    seed : int, default=0
        The seed of the draw.

    Returns
    -------
    ndarray of int
        The rows kept, ascending.

    See Also
    --------
    subsample : The same draw, as a Dataset.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.datasets import subsample_indices
    >>> y = np.repeat([0, 1], [80, 20])
    >>> rows = subsample_indices(y, 10, seed=0)
    >>> rows.size, int((y[rows] == 1).sum())
    (10, 2)
    >>> subsample_indices(y, None).size
    100
    """
    y = np.asarray(y)
    n = y.shape[0]
    if max_points is None or n <= max_points:
        return np.arange(n)
    rng = np.random.default_rng(seed)
    keep = []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        take = max(2, int(round(max_points * idx.size / n)))
        keep.append(rng.choice(idx, min(take, idx.size), replace=False))
    return np.sort(np.concatenate(keep))


def subsample(ds: Dataset, max_points: int | None, seed: int = 0) -> tuple[Dataset, np.ndarray]:
    """Keep at most `max_points` points of a data set, stratified by class.

    Parameters
    ----------
    ds : Dataset
        The data set.
    max_points : int or None
        The most points to keep (at least two per class); None: all.
    seed : int, default=0
        The seed of the draw.

    Returns
    -------
    Dataset
        The points kept (`ds` itself when it has no more than `max_points`).
    ndarray of int
        Their rows in `ds`, ascending.

    Examples
    --------
    >>> from metriclab.datasets import load, subsample
    >>> small, rows = subsample(load("digits"), 300, seed=0)
    >>> small.n_samples == rows.size <= 310
    True
    """
    keep = subsample_indices(ds.y, max_points, seed)
    if keep.shape[0] == ds.n_samples:
        return ds, keep
    sub = Dataset(
        ds.X[keep],
        ds.y[keep],
        ds.name,
        ds.feature_names,
        ds.target_names,
        ds.description,
        ds.source,
        ds.image_shape,
        params=dict(ds.params),
    )
    return sub, keep
