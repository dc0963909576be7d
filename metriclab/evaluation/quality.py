"""Quality of an embedding beyond 1-NN accuracy (issue 37, item 3).

- Trustworthiness at k (Venna & Kaski 2001; scikit-learn's `sklearn.manifold.trustworthiness`):
  are the embedding's k nearest neighbours of a point also near it in the reference space?
- Continuity at k: trustworthiness with the two spaces exchanged: are the reference space's k
  nearest neighbours of a point also near it in the embedding?
- The share of each point's k nearest neighbours kept (the same k points in both spaces).
- Per-point values of the three, for an overlay: their mean over the points is the global measure
  (see `neighbourhood_quality` for the exact relation).
- The accuracy of a classifier (1-NN, k-NN, nearest class mean: `metriclab.evaluation.scoring`)
  beside a shuffled-label baseline, so that "0.75" is read against chance.

The reference space is the input space, or a learned metric's space: pass `metric` (a fitted
estimator whose `transform` realises the metric, e.g. a Mahalanobis learner, or a d × d matrix M)
and the input is mapped so that Euclidean distances there are the metric's (`metric_space`).

The trustworthiness needs every pairwise distance of the measured points (n × n, as scikit-learn
computes it), so full-size sets are measured on a named, seeded, stratified sample
(`quality_sample`); the result says its size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.manifold import trustworthiness as _sklearn_trustworthiness
from sklearn.metrics import pairwise_distances
from sklearn.neighbors import NearestNeighbors

from metriclab.evaluation.scoring import (
    classifier_accuracy,
    nearest_references,
    parse_classifier,
)
from metriclab.evaluation.splitting import stratified_mask
from metriclab.graph_store import array_fact, content_digest  # the arrays' bytes, read in place

DEFAULT_K = 5  # scikit-learn's default n_neighbors of `trustworthiness`
FULL_MAX_POINTS = 10_000  # measured on every point up to this many (n × n distances: 800 MB)
SAMPLE_SIZE = 5_000  # the sample of larger sets (n × n distances: 200 MB)
N_PERMUTATIONS = 20  # shuffled-label baseline: permutations of the labels
_COMPARISONS = 1 << 24  # distances compared at a time when ranking (16 MB of booleans)


# -- the sample of a full-size set -------------------------------------------------------------


@dataclass(frozen=True)
class QualitySample:
    """A seeded, stratified sample of the points on which a measure runs.

    Parameters
    ----------
    indices : ndarray of int
        The sampled points (rows of the full data), in increasing order.
    n_total : int
        Number of points of the full data.
    seed : int
        Seed of the draw.

    See Also
    --------
    quality_sample : Draw one.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation import quality_sample
    >>> sample = quality_sample(np.repeat([0, 1], 50), size=20, seed=0)
    >>> sample.size, sample.n_total, sample.seed
    (20, 100, 0)
    >>> sample.name
    'a stratified sample of 20 of the 100 points (seed 0)'
    """

    indices: np.ndarray
    n_total: int
    seed: int

    @property
    def size(self) -> int:
        """Number of sampled points."""
        return int(self.indices.size)

    @property
    def name(self) -> str:
        """What a page says about it, e.g. 'a stratified sample of 5,000 of the 70,000 points
        (seed 0)'; 'all 150 points' when nothing was left out."""
        if self.size == self.n_total:
            return f"all {self.n_total:,} points"
        return (
            f"a stratified sample of {self.size:,} of the {self.n_total:,} points "
            f"(seed {self.seed})"
        )


def quality_sample(y, size: int = SAMPLE_SIZE, seed: int = 0) -> QualitySample:
    """A seeded sample of `size` points, stratified by class (`stratified_mask`).

    Parameters
    ----------
    y : array-like of shape (n,)
        Class labels of all points (-1 counts as a class of its own).
    size : int
        Number of points to keep; `size >= n` keeps every point.
    seed : int
        Seed of the draw: the same (y, size, seed) give the same sample.

    Returns
    -------
    QualitySample
        Its `indices`, `size` and `name` (what a page says).

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation.quality import quality_sample
    >>> sample = quality_sample(np.repeat([0, 1], 50), size=20, seed=0)
    >>> sample.size, sample.name
    (20, 'a stratified sample of 20 of the 100 points (seed 0)')
    """
    y = np.asarray(y)
    n = int(y.shape[0])
    size = int(size)
    if size < 1:
        raise ValueError(f"the sample size must be at least 1, got {size}")
    if size >= n:
        return QualitySample(np.arange(n), n, int(seed))
    n_classes = np.unique(y).size
    if size < n_classes:
        raise ValueError(
            f"a stratified sample needs at least one point per class: size {size} < "
            f"{n_classes} classes"
        )
    mask = stratified_mask(y, size, seed=int(seed))
    return QualitySample(np.flatnonzero(mask), n, int(seed))


def _resolve_sample(y, n: int, sample, seed: int) -> QualitySample:
    """`sample`: 'auto' (every point up to FULL_MAX_POINTS, else SAMPLE_SIZE of them), None (every
    point), a size, or a QualitySample."""
    if isinstance(sample, QualitySample):
        if sample.n_total != n:
            raise ValueError(f"the sample was drawn from {sample.n_total} points, not {n}")
        return sample
    if sample is None:
        return QualitySample(np.arange(n), n, int(seed))
    if isinstance(sample, str):
        if sample != "auto":
            raise ValueError(f"sample must be 'auto', None, a size or a QualitySample: {sample!r}")
        if n <= FULL_MAX_POINTS:
            return QualitySample(np.arange(n), n, int(seed))
        sample = SAMPLE_SIZE
    labels = np.zeros(n, dtype=int) if y is None else np.asarray(y)
    return quality_sample(labels, int(sample), seed)


# -- the reference space ------------------------------------------------------------------------


def metric_space(X, metric=None) -> np.ndarray:
    """The input mapped so that Euclidean distances there are the distances of `metric`.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Input points.
    metric : None, ndarray of shape (d, d), or a fitted estimator
        None: the input space itself. A d × d symmetric positive semi-definite matrix M:
        d(x, x')² = (x − x')ᵀ M (x − x'), realised as x ↦ Lx with M = LᵀL (from M's
        eigendecomposition). A fitted estimator with `transform` (the Mahalanobis learners, whose
        `transform` is x ↦ Lx with `get_mahalanobis_matrix()` = LᵀL, the KPCA-trick learners,
        PCA): its `transform(X)`.

    Returns
    -------
    ndarray of shape (n, r)
        The mapped points: their Euclidean distances are those of `metric`.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation.quality import metric_space
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> metric_space(X, np.diag([4.0, 1.0])).round(6).tolist()
    [[0.0, 2.0], [1.0, 0.0]]
    """
    if metric is None:
        return np.asarray(X)
    if hasattr(metric, "transform") and hasattr(metric, "fit"):
        return np.asarray(metric.transform(X), dtype=np.float64)
    M = np.asarray(metric, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] != X.shape[1]:
        raise ValueError(
            f"metric must be a fitted estimator with transform or a {X.shape[1]} × {X.shape[1]} "
            f"matrix M (d² = (x − x')ᵀ M (x − x')), got shape {M.shape}"
        )
    if not np.allclose(M, M.T, rtol=1e-8, atol=1e-12 * max(1.0, np.abs(M).max())):
        raise ValueError("the metric matrix M must be symmetric (M = LᵀL)")
    values, vectors = np.linalg.eigh((M + M.T) / 2)
    if values.min() < -1e-8 * max(1.0, values.max()):
        raise ValueError(
            f"the metric matrix M must be positive semi-definite; its smallest eigenvalue is "
            f"{values.min():.3g}"
        )
    L = np.sqrt(np.clip(values, 0.0, None))[:, None] * vectors.T  # M = LᵀL
    return X @ L.T


# -- trustworthiness, continuity, kept neighbours -------------------------------------------------


def _check_k(k, n: int) -> int:
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise ValueError(f"k must be a whole number >= 1, got {k!r}")
    k = int(k)
    if k >= n / 2:
        raise ValueError(
            f"k ({k}) must be less than half the number of points measured ({n}); "
            f"choose k < {n / 2:g}"
        )
    return k


def _check_pair(A, B) -> tuple[np.ndarray, np.ndarray]:
    A, B = np.asarray(A), np.asarray(B)
    if A.ndim == 1:
        A = A[:, None]
    if B.ndim == 1:
        B = B[:, None]
    if A.shape[0] != B.shape[0]:
        raise ValueError(
            f"the two spaces must hold the same points: {A.shape[0]} rows against {B.shape[0]}"
        )
    for name, array in (("reference", A), ("embedding", B)):
        # a read-only data set is checked once, not on every λ move (`array_fact`)
        if not array_fact(array, "finite", lambda array=array: bool(np.isfinite(array).all())):
            raise ValueError(f"the {name} contains NaN or infinite values")
    return A, B


def _neighbours(B: np.ndarray, k: int) -> np.ndarray:
    """Each point's k nearest other points in B (n × k), as scikit-learn's trustworthiness
    finds them."""
    return NearestNeighbors(n_neighbors=k).fit(B).kneighbors(return_distance=False)


def _rank_penalties(A: np.ndarray, neighbours_B: np.ndarray, k: int) -> np.ndarray:
    """p_i = Σ_{j ∈ N_k^B(i)} max(0, r_A(i, j) − k): r_A(i, j) is the rank of j among i's
    neighbours in A (1 = nearest). The same distances and ranks as scikit-learn's
    `trustworthiness(A, B)` (whose sum over i is Σ p_i), a block of rows at a time: r = 1 + the
    number of points strictly nearer, and where j's distance is tied with another point's, the
    rank scikit-learn's sort gives (the row is sorted the same way)."""
    n = A.shape[0]
    distances = pairwise_distances(A)
    np.fill_diagonal(distances, np.inf)  # a point is not its own neighbour
    penalties = np.empty(n, dtype=np.int64)
    block = max(1, _COMPARISONS // (k * n))
    count = np.int16 if n < 2**15 else np.int64  # counts of at most n: int16 sums 2.4× faster
    for start in range(0, n, block):
        rows = slice(start, min(n, start + block))
        D, near = distances[rows], neighbours_B[rows]  # views: no copy of the block
        at = np.take_along_axis(D, near, axis=1)[:, :, None]  # d(i, j), j ∈ N_k
        rank = 1 + (D[:, None, :] < at).sum(axis=2, dtype=count).astype(np.int64)
        tied = np.flatnonzero(((D[:, None, :] == at).sum(axis=2, dtype=count) > 1).any(axis=1))
        if tied.size:  # the order scikit-learn's argsort puts tied points in
            order = np.argsort(D[tied], axis=1)
            position = np.empty_like(order)
            np.put_along_axis(
                position, order, np.broadcast_to(np.arange(1, n + 1), order.shape), axis=1
            )
            rank[tied] = np.take_along_axis(position, near[tied], axis=1)
        excess = rank - k
        penalties[rows] = np.where(excess > 0, excess, 0).sum(axis=1)
    return penalties


def _positions(A: np.ndarray) -> np.ndarray:
    """positions[i, j]: the rank of j among i's neighbours in A (1 = nearest; i itself last), as
    scikit-learn's argsort of the distance rows orders them, ties included: what
    `_rank_penalties` computes for the pairs it is asked about, here for every pair at once
    (int16: 50 MB for 5,000 points)."""
    n = A.shape[0]
    distances = pairwise_distances(A)
    np.fill_diagonal(distances, np.inf)
    order = np.argsort(distances, axis=1)
    del distances
    dtype = np.int16 if n < np.iinfo(np.int16).max else np.int32
    positions = np.empty((n, n), dtype=dtype)
    ranks = np.arange(1, n + 1, dtype=dtype)
    for start in range(0, n, 1024):  # a block of rows at a time: no n × n temporary of ranks
        rows = slice(start, min(n, start + 1024))
        np.put_along_axis(positions[rows], order[rows], ranks[None, :], axis=1)
    return positions


def _penalties_from_positions(positions: np.ndarray, neighbours_B: np.ndarray, k: int):
    """`_rank_penalties(A, neighbours_B, k)` read from A's `_positions`."""
    rank = np.take_along_axis(positions, neighbours_B, axis=1).astype(np.int64)
    return np.maximum(rank - k, 0).sum(axis=1)


class _ReferenceMemo:
    """The reference side of the measures, kept for the last few reference arrays: a λ move
    changes the embedding, never the sampled inputs, whose distances, ranks and neighbours were
    1.3 s of the measures' 1.5 s per move on all of MNIST, and 1.4 ms of a 30 ms slider move on
    two moons with 150 students (issue 41). The ranks (`_positions`) are made the second time an
    array is seen, so a one-off measure costs no more than before. Arrays of up to MEMO_POINTS
    points are kept, the least recently used dropped past ENTRIES arrays or BYTES of ranks (two
    5,000-point samples, or many small sets: a class on two moons and Iris and their uploads);
    thread-safe."""

    MEMO_POINTS = SAMPLE_SIZE
    ENTRIES = 32
    BYTES = 2 * 2 * SAMPLE_SIZE**2  # two 5,000-point samples' int16 ranks: 100 MB

    def __init__(self):
        import threading
        from collections import OrderedDict

        self._entries: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def entry(self, A: np.ndarray, key: str | None = None) -> dict | None:
        """The memo's record of `A` (created on first sight), found by A's content digest (`key`
        where the caller has it); None for sizes it does not keep."""
        if not 0 < A.shape[0] <= self.MEMO_POINTS:
            return None
        key = content_digest(A) if key is None else key
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                record = self._entries[key]
                record["seen"] += 1
                return record
            record = {"seen": 1, "positions": None, "neighbours": {}}
            self._entries[key] = record
            self._trim()
            return record

    def positions(self, record: dict, A: np.ndarray) -> np.ndarray:
        """A's `_positions`, made once for `record` (and counted against BYTES)."""
        ranks = _positions(A)
        with self._lock:
            record["positions"] = ranks
            self._trim()
        return ranks

    def _trim(self) -> None:
        """Drop the least recently used records past ENTRIES or BYTES (the newest is kept)."""
        held = sum(
            r["positions"].nbytes for r in self._entries.values() if r["positions"] is not None
        )
        while len(self._entries) > 1 and (len(self._entries) > self.ENTRIES or held > self.BYTES):
            _, dropped = self._entries.popitem(last=False)
            if dropped["positions"] is not None:
                held -= dropped["positions"].nbytes

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_REFERENCE_MEMO = _ReferenceMemo()


def _sample_key(A: np.ndarray, indices: np.ndarray, rows: np.ndarray) -> str:
    """The reference memo's key of `rows`, the rows `indices` of A: their content digest, kept
    with a read-only data set (`array_fact`: hashing MNIST's 5,000 sampled images is 25 ms a λ
    move)."""
    which = content_digest(np.asarray(indices))
    return array_fact(A, ("sample", which), lambda: content_digest(rows))


def _reference_side(A: np.ndarray, neighbours_B: np.ndarray, k: int, key: str | None = None):
    """(neighbours of A at k, A's rank penalties of the B-neighbours): from the memo where A was
    seen before, else computed (and the neighbours kept). `key`: A's content digest if known."""
    record = _REFERENCE_MEMO.entry(A, key)
    if record is None:
        return _neighbours(A, k), _rank_penalties(A, neighbours_B, k)
    neighbours_A = record["neighbours"].get(k)
    if neighbours_A is None:
        neighbours_A = record["neighbours"][k] = _neighbours(A, k)
    positions = record["positions"]
    if positions is None and record["seen"] > 1:
        positions = _REFERENCE_MEMO.positions(record, A)
    if positions is None:
        return neighbours_A, _rank_penalties(A, neighbours_B, k)
    return neighbours_A, _penalties_from_positions(positions, neighbours_B, k)


def _from_penalties(penalties: np.ndarray, n: int, k: int) -> tuple[float, np.ndarray]:
    """(global value, per-point values) of trustworthiness from the rank penalties p_i:
    T = 1 − 2/(nk(2n − 3k − 1)) Σ p_i (scikit-learn's expression) and t_i = 1 − 2 p_i/(k(2n −
    3k − 1)), so that T = mean(t_i); k(2n − 3k − 1)/2 is the largest p_i, so t_i ∈ [0, 1]."""
    total = float(np.sum(penalties))
    value = 1.0 - total * (2.0 / (n * k * (2.0 * n - 3.0 * k - 1.0)))
    per_point = 1.0 - penalties * (2.0 / (k * (2.0 * n - 3.0 * k - 1.0)))
    return value, per_point


def trustworthiness(X, Z, k: int = DEFAULT_K, metric=None) -> float:
    """Trustworthiness at k of the embedding `Z` against the input `X` (or a metric's space).

    scikit-learn's `sklearn.manifold.trustworthiness(metric_space(X, metric), Z, n_neighbors=k)`
    itself, so the number equals scikit-learn's on the same arrays.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Input points.
    Z : array-like of shape (n, m)
        Their embedding.
    k : int
        Neighbours considered (< n / 2).
    metric : None, ndarray or fitted estimator
        The reference space's metric (`metric_space`); None: Euclidean in the input.

    Returns
    -------
    float
        In [0, 1]; 1 when every point's k nearest neighbours in `Z` are among its k nearest in
        the reference space.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation.quality import trustworthiness
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> trustworthiness(X, 2 * X + 1, k=5)  # an isometry up to scale keeps every neighbour
    1.0
    """
    A, B = _check_pair(metric_space(X, metric), Z)
    k = _check_k(k, A.shape[0])
    return float(_sklearn_trustworthiness(A, B, n_neighbors=k))


def continuity(X, Z, k: int = DEFAULT_K, metric=None) -> float:
    """Continuity at k: trustworthiness with the roles of the two spaces exchanged.

    scikit-learn's `trustworthiness(Z, metric_space(X, metric), n_neighbors=k)`: the reference
    space's k nearest neighbours of each point are penalised by their rank in the embedding.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Input points, as in `trustworthiness`.
    Z : array-like of shape (n, m)
        Their embedding.
    k : int, default=5
        Neighbours considered.
    metric : None, ndarray or fitted estimator, optional
        The reference space's metric (`metric_space`).

    Returns
    -------
    float
        In [0, 1]; 1 when no reference-space neighbour is torn away in the embedding.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation.quality import continuity
    >>> X = np.random.default_rng(0).normal(size=(40, 3))
    >>> continuity(X, X[:, :1], k=5) < 1.0  # dropping two coordinates tears neighbours apart
    True
    """
    A, B = _check_pair(metric_space(X, metric), Z)
    k = _check_k(k, A.shape[0])
    return float(_sklearn_trustworthiness(B, A, n_neighbors=k))


def kept_neighbours(X, Z, k: int = DEFAULT_K, metric=None) -> np.ndarray:
    """Share of each point's k nearest neighbours in the reference space that are also among its
    k nearest in the embedding.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Input points, as in `trustworthiness`.
    Z : array-like of shape (n, m)
        Their embedding.
    k : int, default=5
        Neighbours considered (here k < n is enough).
    metric : None, ndarray or fitted estimator, optional
        The reference space's metric (`metric_space`).

    Returns
    -------
    ndarray of shape (n,)
        ``|N_k^X(i) ∩ N_k^Z(i)| / k`` per point, in {0, 1/k, ..., 1}; its mean is the share kept
        over all points.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation.quality import kept_neighbours
    >>> X = np.random.default_rng(0).normal(size=(30, 4))
    >>> float(kept_neighbours(X, X, k=3).mean())
    1.0
    """
    A, B = _check_pair(metric_space(X, metric), Z)
    n = A.shape[0]
    if isinstance(k, bool) or int(k) != k or not 1 <= k < n:
        raise ValueError(f"k must be a whole number in [1, {n - 1}], got {k!r}")
    k = int(k)
    return _kept(_neighbours(A, k), _neighbours(B, k), k)


def _kept(neighbours_A: np.ndarray, neighbours_B: np.ndarray, k: int) -> np.ndarray:
    """|row of A ∩ row of B| / k, vectorised (the rows hold distinct indices)."""
    same = neighbours_A[:, :, None] == neighbours_B[:, None, :]
    return same.any(axis=2).sum(axis=1) / k


@dataclass(frozen=True)
class NeighbourhoodQuality:
    """Trustworthiness, continuity and the kept-neighbour share at k, globally and per point.

    Parameters
    ----------
    k : int
        Neighbours per point.
    trustworthiness, continuity : float
        Equal to scikit-learn's `trustworthiness(reference, Z)` and `trustworthiness(Z,
        reference)` on the measured points (`indices`).
    kept : float
        Mean share of the reference space's k nearest neighbours kept in the embedding.
    trustworthiness_per_point, continuity_per_point, kept_per_point : ndarray of shape (m,)
        One value per measured point, each in [0, 1]; the mean of each is the global value.
    indices : ndarray of int of shape (m,)
        The measured points (rows of the data given): all, or the sample.
    sample : QualitySample
        The points measured, with its `name` and `size` for the page.
    against : str
        'input' or 'metric': the reference space.

    See Also
    --------
    neighbourhood_quality : Measure an embedding against a reference space.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation import neighbourhood_quality
    >>> X = np.random.default_rng(0).normal(size=(60, 5))
    >>> q = neighbourhood_quality(X, X[:, :2], k=5)
    >>> q.k, q.n_points, q.against, q.kept_per_point.shape
    (5, 60, 'input', (60,))
    >>> bool(0 <= q.continuity <= 1 and 0 <= q.trustworthiness <= 1)
    True
    """

    k: int
    trustworthiness: float
    continuity: float
    kept: float
    trustworthiness_per_point: np.ndarray
    continuity_per_point: np.ndarray
    kept_per_point: np.ndarray
    indices: np.ndarray
    sample: QualitySample
    against: str

    @property
    def n_points(self) -> int:
        """Number of points measured (the sample's size)."""
        return int(self.indices.size)


def neighbourhood_quality(
    X, Z, k: int = DEFAULT_K, *, metric=None, y=None, sample="auto", seed: int = 0
) -> NeighbourhoodQuality:
    """Trustworthiness, continuity and kept neighbours at k, globally and per point, in one pass.

    The per-point trustworthiness of point i is t_i = 1 − 2 p_i / (k(2n − 3k − 1)), where
    p_i = Σ_{j ∈ N_k^Z(i)} max(0, r(i, j) − k) and r(i, j) is the rank of j among i's neighbours
    in the reference space; then **trustworthiness = mean_i t_i** exactly (up to rounding), and
    t_i ∈ [0, 1] (k(2n − 3k − 1)/2 is the largest p_i can be). The continuity's per-point values
    are the same with the spaces exchanged, and the kept share is the mean of `kept_per_point`.
    The global values are computed with scikit-learn's distances, sort and neighbour search and
    its expression, so they equal `sklearn.manifold.trustworthiness` on the measured points
    (ties included).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Input points (scaled as the method saw them).
    Z : array-like of shape (n, m)
        Their embedding.
    k : int
        Neighbours considered (< m / 2, m the number of points measured).
    metric : None, ndarray or fitted estimator
        The reference space's metric (`metric_space`): None for the input space, else a learned
        metric (against='metric').
    y : array-like of shape (n,), optional
        Labels to stratify the sample by (-1 is a class of its own).
    sample : 'auto', None, int or QualitySample
        'auto': every point up to FULL_MAX_POINTS, else a stratified sample of SAMPLE_SIZE; None:
        every point; an int: a stratified sample of that size; or a given sample.
    seed : int
        Seed of the sample.

    Returns
    -------
    NeighbourhoodQuality
        Trustworthiness, continuity and kept neighbours at k, globally and per point.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation.quality import neighbourhood_quality
    >>> X = np.random.default_rng(0).normal(size=(60, 5))
    >>> q = neighbourhood_quality(X, X[:, :2], k=5)
    >>> bool(np.isclose(q.trustworthiness_per_point.mean(), q.trustworthiness))
    True
    >>> q.sample.name
    'all 60 points'
    """
    reference = metric_space(X, metric)
    A, B = _check_pair(reference, Z)
    chosen = _resolve_sample(y, A.shape[0], sample, seed)
    sampled = A[chosen.indices]
    memo_keeps = chosen.indices.size <= _REFERENCE_MEMO.MEMO_POINTS  # else the memo keeps no record
    key = _sample_key(A, chosen.indices, sampled) if memo_keeps else None
    A, B = sampled, B[chosen.indices]
    n = A.shape[0]
    k = _check_k(k, n)
    neighbours_B = _neighbours(B, k)
    neighbours_A, penalties_A = _reference_side(A, neighbours_B, k, key)
    trust, trust_points = _from_penalties(penalties_A, n, k)
    cont, cont_points = _from_penalties(_rank_penalties(B, neighbours_A, k), n, k)
    kept_points = _kept(neighbours_A, neighbours_B, k)
    return NeighbourhoodQuality(
        k=k,
        trustworthiness=float(trust),
        continuity=float(cont),
        kept=float(kept_points.mean()),
        trustworthiness_per_point=trust_points,
        continuity_per_point=cont_points,
        kept_per_point=kept_points,
        indices=chosen.indices,
        sample=chosen,
        against="input" if metric is None else "metric",
    )


# -- accuracy beside a shuffled-label baseline ---------------------------------------------------


@dataclass(frozen=True)
class BaselinedAccuracy:
    """A classifier's accuracy in an embedding beside the same classifier with shuffled labels.

    Parameters
    ----------
    classifier : str
        '1nn', 'knn:K' or 'nearest_mean' (`parse_classifier`).
    accuracy : float
        On every scored (unlabelled) point, with the labelled points as reference: the page's
        score (`classifier_accuracy`, `embedding_accuracy` for 1-NN).
    baseline_mean, baseline_std : float
        Mean and standard deviation (ddof=0) of the accuracy over `n_permutations` draws in
        which the labels of the labelled points are permuted among themselves (the class counts
        of the reference kept, each label moved to a random labelled point); the scored points'
        own labels are not touched.
    baseline_accuracies : ndarray of shape (n_permutations,)
        The accuracy under each permutation.
    n_permutations, seed : int
        How many permutations, and the seed of their draw.
    n_reference : int
        Labelled points (the classifier's reference).
    n_scored : int
        Points the accuracy is scored on.
    baseline_sample : QualitySample
        The scored points the baseline is measured on (all, or a stratified sample of them).

    See Also
    --------
    accuracy_with_baseline : Compute one.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation import accuracy_with_baseline
    >>> y = np.repeat([0, 1, 2], 30)
    >>> Z = np.column_stack([y * 10.0 + np.arange(90) % 3, np.zeros(90)])
    >>> result = accuracy_with_baseline(Z, y, np.arange(90) % 3 == 0, seed=0)
    >>> result.accuracy, result.n_reference, result.n_scored, result.baseline_accuracies.shape
    (1.0, 30, 60, (20,))
    >>> bool(result.baseline_mean < 0.6)
    True
    """

    classifier: str
    accuracy: float
    baseline_mean: float
    baseline_std: float
    baseline_accuracies: np.ndarray
    n_permutations: int
    seed: int
    n_reference: int
    n_scored: int
    baseline_sample: QualitySample

    permuted = "the labels of the labelled points, among themselves"


def shuffled_accuracies(Z_ref, y_ref, Z_scored, y_scored, classifier, permutations) -> np.ndarray:
    """`classifier_accuracy(Z_ref, y_ref[p], Z_scored, y_scored, classifier)` for each permutation
    `p` of the reference labels, equal to it point for point. For k-NN the neighbours do not depend
    on the labels: they are searched once and every permutation's votes are counted in one
    `bincount` (21 k-NN fits took about 27 ms of a page rerun on Iris; a loop of votes 1 ms); a
    tied vote goes to the smaller class, as scikit-learn's."""
    rule, k = parse_classifier(classifier)
    if rule != "knn" or not len(permutations):
        return np.array(
            [
                classifier_accuracy(Z_ref, y_ref[p], Z_scored, y_scored, classifier)
                for p in permutations
            ]
        )
    k = min(k, y_ref.shape[0])
    nearest = nearest_references(Z_ref, Z_scored, k)  # the search `classifier_accuracy` makes
    classes, codes = np.unique(y_ref, return_inverse=True)
    codes = codes.ravel()
    truth = np.searchsorted(classes, y_scored)
    known = np.isin(y_scored, classes)  # a scored class no reference point carries is never right
    n_scored, n_classes = nearest.shape[0], classes.size
    # every permutation's votes at once: cell (permutation, scored point, class) of one bincount
    voted = codes[np.asarray(permutations)][:, nearest]  # (permutations, scored, k) classes
    cell = np.arange(voted.shape[0] * n_scored).reshape(-1, n_scored, 1) * n_classes + voted
    votes = np.bincount(cell.ravel(), minlength=cell.shape[0] * n_scored * n_classes)
    winners = votes.reshape(-1, n_scored, n_classes).argmax(axis=2)  # ties: the smaller class
    return np.mean(known & (winners == truth), axis=1)


def accuracy_with_baseline(
    Z,
    y,
    mask,
    classifier: str = "1nn",
    *,
    n_permutations: int = N_PERMUTATIONS,
    seed: int = 0,
    sample="auto",
) -> BaselinedAccuracy:
    """A classifier's accuracy on the unlabelled points beside a shuffled-label baseline.

    The accuracy is `classifier_accuracy(Z[mask], y[mask], Z[~mask], y[~mask], classifier)` (for
    '1nn' the same number as `embedding_accuracy(Z, y, mask)`). The baseline runs the same
    classifier `n_permutations` times with the labelled points' labels permuted among themselves
    (a seeded permutation each time) and scores it on the same unlabelled points with their own
    labels: what the score would be if the embedding placed the labels at random, with the
    reference's class counts kept. Mean and standard deviation over the permutations.

    Parameters
    ----------
    Z : array-like of shape (n, m)
        The embedding.
    y : array-like of shape (n,)
        True classes of every point.
    mask : array-like of bool of shape (n,)
        True for the labelled points (the reference), False for the scored ones.
    classifier : str
        '1nn', 'knn:K' (e.g. 'knn:5') or 'nearest_mean' (`parse_classifier`): the library's
        classifiers (`metriclab.evaluation.scoring`).
    n_permutations : int
        Number of label permutations (20 by default).
    seed : int
        Seed of the permutations (and of the sample).
    sample : 'auto', None, int or QualitySample
        Which scored points the permutations are scored on: 'auto' all up to FULL_MAX_POINTS,
        else a stratified sample of SAMPLE_SIZE of them; None all. The accuracy itself is always
        scored on every unlabelled point.

    Returns
    -------
    BaselinedAccuracy
        The accuracy on every unlabelled point beside the accuracies of the shuffled labels.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation.quality import accuracy_with_baseline
    >>> y = np.repeat([0, 1, 2], 30)
    >>> Z = np.column_stack([y * 10.0 + np.arange(90) % 3, np.zeros(90)])
    >>> mask = np.arange(90) % 3 == 0
    >>> result = accuracy_with_baseline(Z, y, mask, seed=0)
    >>> result.accuracy, result.baseline_mean < 0.6
    (1.0, True)
    """
    parse_classifier(classifier)  # a clear ValueError for an unknown name
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    y, mask = np.asarray(y), np.asarray(mask, dtype=bool)
    if not (Z.shape[0] == y.shape[0] == mask.shape[0]):
        raise ValueError(
            f"Z, y and mask must hold the same points: {Z.shape[0]}, {y.shape[0]}, {mask.shape[0]}"
        )
    if not mask.any() or mask.all():
        raise ValueError("the accuracy needs labelled points (mask True) and points to score")
    if isinstance(n_permutations, bool) or int(n_permutations) != n_permutations:
        raise ValueError(f"n_permutations must be a whole number >= 1, got {n_permutations!r}")
    if n_permutations < 1:
        raise ValueError(f"n_permutations must be a whole number >= 1, got {n_permutations!r}")
    Z_ref, y_ref = Z[mask], y[mask]
    Z_test, y_test = Z[~mask], y[~mask]
    if not (np.all(np.isfinite(Z_ref)) and np.all(np.isfinite(Z_test))):
        raise ValueError("the embedding contains NaN or infinite values; cannot classify")
    scored = _resolve_sample(y_test, y_test.shape[0], sample, seed)
    Z_scored, y_scored = Z_test[scored.indices], y_test[scored.indices]
    rng = np.random.default_rng(seed)
    permutations = [rng.permutation(y_ref.shape[0]) for _ in range(int(n_permutations))]
    if scored.size == y_test.shape[0]:  # every scored point: the labels as they are come first
        identity = np.arange(y_ref.shape[0])
        every = shuffled_accuracies(
            Z_ref, y_ref, Z_scored, y_scored, classifier, [identity, *permutations]
        )
        accuracy, shuffled = every[0], every[1:]
    else:
        accuracy = classifier_accuracy(Z_ref, y_ref, Z_test, y_test, classifier)
        shuffled = shuffled_accuracies(Z_ref, y_ref, Z_scored, y_scored, classifier, permutations)
    return BaselinedAccuracy(
        classifier=str(classifier),
        accuracy=float(accuracy),
        baseline_mean=float(shuffled.mean()),
        baseline_std=float(shuffled.std()),
        baseline_accuracies=shuffled,
        n_permutations=int(n_permutations),
        seed=int(seed),
        n_reference=int(mask.sum()),
        n_scored=int((~mask).sum()),
        baseline_sample=scored,
    )
