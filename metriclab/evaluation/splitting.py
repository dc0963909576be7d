"""Seeded random splits: which points are labeled (or training points) in each repetition.

`splits` is what `compare` draws from: split i depends on (y, the size, the seed, i) only, so the
same seeds give the same splits whatever the number of splits or the methods compared.
"""

from __future__ import annotations

import numpy as np

UNLABELED = -1


def labeled_mask(
    y: np.ndarray,
    fraction: float | None = None,
    per_class: int | None = None,
    n_labeled: int | None = None,
    seed: int = 0,
    max_tries: int = 100,
) -> np.ndarray:
    """Draw the labelled points of one random split.

    Give exactly one of `fraction`, `per_class` or `n_labeled`.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The classes of all points.
    fraction : float in (0, 1), optional
        The share of every class to label (stratified; at least one point, and one left
        unlabelled, per class).
    per_class : int, optional
        That many labelled points of each class.
    n_labeled : int, optional
        A simple random sample of that size, redrawn until every class appears.
    seed : int, default=0
        The split's seed.
    max_tries : int, default=100
        Draws of `n_labeled` before giving up.

    Returns
    -------
    ndarray of bool of shape (n_samples,)
        True for the labelled points.

    See Also
    --------
    partial_labels : The labels a transductive method is given.
    splits : Several seeded splits.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation import labeled_mask
    >>> y = np.repeat([0, 1, 2], 10)
    >>> mask = labeled_mask(y, per_class=2, seed=0)
    >>> np.bincount(y[mask]).tolist()
    [2, 2, 2]
    """
    y = np.asarray(y)
    if sum(v is not None for v in (fraction, per_class, n_labeled)) != 1:
        raise ValueError("give exactly one of fraction, per_class or n_labeled")
    rng = np.random.default_rng(seed)
    classes = np.unique(y)
    n = y.shape[0]
    mask = np.zeros(n, dtype=bool)
    if fraction is not None:
        if not 0 < fraction < 1:
            raise ValueError(f"labeled fraction must be in (0, 1), got {fraction!r}")
        for c in classes:
            idx = np.flatnonzero(y == c)
            take = min(len(idx) - 1, max(1, int(round(fraction * len(idx)))))
            take = max(take, 1)
            mask[rng.choice(idx, take, replace=False)] = True
        return mask
    if per_class is not None:
        if per_class < 1:
            raise ValueError(f"labels per class must be >= 1, got {per_class!r}")
        for c in classes:
            idx = np.flatnonzero(y == c)
            if len(idx) <= per_class:
                raise ValueError(
                    f"class {c} has {len(idx)} points; cannot label {per_class} and keep one unlabeled"
                )
            mask[rng.choice(idx, per_class, replace=False)] = True
        return mask
    if not len(classes) <= n_labeled < n:
        raise ValueError(f"n_labeled must be in [{len(classes)}, {n - 1}], got {n_labeled!r}")
    for _ in range(max_tries):
        mask[:] = False
        mask[rng.choice(n, n_labeled, replace=False)] = True
        if np.unique(y[mask]).size == classes.size:
            return mask
    raise ValueError(f"could not draw {n_labeled} labeled points containing every class")


def partial_labels(y: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Hide the labels of the unlabelled points: -1 where `mask` is False.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The classes of all points.
    mask : array-like of bool of shape (n_samples,)
        True for the labelled points (:func:`labeled_mask`).

    Returns
    -------
    ndarray of shape (n_samples,)
        A copy of y with -1 (scikit-learn's mark of an unlabelled point) outside the mask: what
        TDL's ``fit`` takes.

    Examples
    --------
    >>> from metriclab.evaluation import partial_labels
    >>> partial_labels([0, 1, 1, 0], [True, False, True, False]).tolist()
    [0, -1, 1, -1]
    """
    y_partial = np.asarray(y).copy()
    y_partial[~np.asarray(mask, dtype=bool)] = UNLABELED
    return y_partial


def split_seed(seed: int, index: int) -> int:
    """Seed of split `index` of a run seeded with `seed` (independent streams, reproducible)."""
    return int(np.random.SeedSequence([int(seed), int(index)]).generate_state(1)[0])


def stratified_counts(y: np.ndarray, n_train: int) -> dict:
    """How many training points to take from each class so that they sum to `n_train`.

    Proportional to the class sizes (largest remainders), at least one per class, and at most
    all but one point of a class (so that every class is also scored where possible).
    """
    classes, counts = np.unique(y, return_counts=True)
    n = int(counts.sum())
    if not classes.size <= n_train < n:
        raise ValueError(
            f"number of training points must be in [{classes.size}, {n - 1}] "
            f"(one per class at least, one point left to score), got {n_train!r}"
        )
    upper = np.maximum(counts - 1, 1)
    if n_train > upper.sum():  # so many that some class must be used up entirely
        upper = counts
    share = counts * n_train / n
    take = np.clip(np.floor(share).astype(int), 1, upper)
    while (gap := n_train - int(take.sum())) != 0:  # largest-remainder rounding within the bounds
        behind = share - take
        if gap > 0:
            candidates = np.flatnonzero(take < upper)
            take[candidates[np.argmax(behind[candidates])]] += 1
        else:
            candidates = np.flatnonzero(take > 1)
            take[candidates[np.argmin(behind[candidates])]] -= 1
    return {c: int(t) for c, t in zip(classes, take, strict=True)}


def stratified_mask(y: np.ndarray, n_train: int, seed: int = 0) -> np.ndarray:
    """Mask of `n_train` training points drawn class by class in proportion to the class sizes."""
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    mask = np.zeros(y.shape[0], dtype=bool)
    for c, take in stratified_counts(y, n_train).items():
        mask[rng.choice(np.flatnonzero(y == c), take, replace=False)] = True
    return mask


def splits(
    y: np.ndarray,
    n_splits: int = 5,
    *,
    fraction: float | None = None,
    n_train: int | None = None,
    per_class: int | None = None,
    stratify: bool = True,
    seed: int = 0,
    max_tries: int = 1000,
) -> list[tuple[int, np.ndarray]]:
    """Draw seeded random splits into labelled (training) and other points.

    Give one of `fraction`, `n_train` or `per_class`. A draw in which a class has no labelled
    point is redrawn. The same (y, sizes, seed) always give the same splits; split i does not
    depend on `n_splits`.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The classes of all points.
    n_splits : int, default=5
        Number of splits.
    fraction : float in (0, 1), optional
        The share of each class in the training points.
    n_train : int, optional
        The number of training points (stratified over the classes unless `stratify` is
        False).
    per_class : int, optional
        Training points per class.
    stratify : bool, default=True
        Whether `n_train` is split over the classes in proportion.
    seed : int, default=0
        The seed the splits' seeds derive from.
    max_tries : int, default=1000
        Draws per split before giving up.

    Returns
    -------
    list of (int, ndarray of bool)
        Per split, its seed and the mask of its training points.

    See Also
    --------
    labeled_mask : One split.
    compare : Methods compared on such splits.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation import splits
    >>> y = np.repeat([0, 1], 20)
    >>> drawn = splits(y, 3, n_train=10, seed=0)
    >>> [int(mask.sum()) for _, mask in drawn]
    [10, 10, 10]
    """
    y = np.asarray(y)
    if not isinstance(n_splits, int | np.integer) or n_splits < 1:
        raise ValueError(f"n_splits must be a whole number >= 1, got {n_splits!r}")
    if sum(v is not None for v in (fraction, n_train, per_class)) != 1:
        raise ValueError("give exactly one of fraction, n_train or per_class for the split size")
    if n_train is not None and (isinstance(n_train, bool) or int(n_train) != n_train):
        raise ValueError(f"n_train must be a whole number, got {n_train!r}")
    n_classes = np.unique(y).size
    out = []
    for i in range(n_splits):
        s = split_seed(seed, i)
        for attempt in range(max_tries):
            draw_seed = s if attempt == 0 else split_seed(s, attempt)
            if n_train is not None and stratify:
                mask = stratified_mask(y, int(n_train), seed=draw_seed)
            elif n_train is not None:
                if not n_classes <= n_train < y.shape[0]:
                    raise ValueError(
                        f"n_train must be in [{n_classes}, {y.shape[0] - 1}], got {n_train!r}"
                    )
                mask = np.zeros(y.shape[0], dtype=bool)  # a simple random sample
                chosen = np.random.default_rng(draw_seed).choice(
                    y.shape[0], int(n_train), replace=False
                )
                mask[chosen] = True
            else:
                mask = labeled_mask(y, fraction=fraction, per_class=per_class, seed=draw_seed)
            if np.unique(y[mask]).size == n_classes:
                break
        else:
            raise ValueError(
                f"could not draw a split with every class labeled in {max_tries} tries"
            )
        out.append((s, mask))
    return out
