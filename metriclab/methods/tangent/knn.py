"""k-NN with the tangent distance after a Euclidean pre-filter (thesis section 4.1): the training
images with their orthonormal tangent bases, searched by batched least squares.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from metriclab._docstrings import fill_doc
from metriclab.methods.tangent.distance import _solve_coefficients, orthonormal_tangents
from metriclab.methods.tangent.vectors import (
    DEFAULT_SIGMA,
    TRANSFORM_CHOICES,
    _as_image_rows,
    _check_image_shape,
    resolve_transforms,
    tangent_vectors,
)
from metriclab.validation import Rule, check_nonnegative, check_params, parameters

_BATCH = 8  # queries per block of the batched search: ~11 MB of gathered candidates at USPS size


class _TangentIndex:
    """Training images with orthonormal tangent bases, searched by batched least squares."""

    def __init__(self, X, image_shape, transforms, sigma, two_sided, regularization, prefilter):
        self.X = X
        self.image_shape = image_shape
        self.transforms = transforms
        self.sigma = sigma
        self.two_sided = two_sided
        self.regularization = regularization
        T = tangent_vectors(X, image_shape, transforms, sigma)
        self.Q, self.ridge = orthonormal_tangents(T, regularization)  # n × t × d, n × t
        # augmented rows [y; Q_y]: one batched product gives y·x, Q_y x, y·Q_x and Q_y Q_x'
        self.aug = np.concatenate([X[:, None, :], self.Q], axis=1)  # n × (t+1) × d
        self.qy_y = np.einsum("nid,nd->ni", self.Q, X)
        self.sq = np.einsum("nd,nd->n", X, X)
        self.prefilter = int(min(prefilter, X.shape[0]))
        self.nn = NearestNeighbors(n_neighbors=self.prefilter, algorithm="brute").fit(X)
        self.L = None  # learned Mahalanobis map (k × d), set by TangentMetricKNN
        self.LX = self.LQ = None

    def set_metric(self, L):
        self.L = L
        self.LX = self.X @ L.T  # n × k
        self.LQ = self.Q @ L.T  # n × t × k

    def query_basis(self, Q):
        T = tangent_vectors(Q, self.image_shape, self.transforms, self.sigma)
        return orthonormal_tangents(T, self.regularization)

    def candidates(self, Q, exclude_self: bool = False, prefilter: int | None = None):
        prefilter = self.prefilter if prefilter is None else prefilter
        n_cand = min(prefilter + int(exclude_self), self.X.shape[0])
        _, idx = self.nn.kneighbors(Q, n_neighbors=n_cand)
        if exclude_self:  # drop the query's own index (training points searched against themselves)
            own = np.arange(Q.shape[0])[:, None]
            keep = idx != own
            # rows where the point itself was not found keep the first n_cand-1 candidates
            keep[keep.all(axis=1), -1] = False
            idx = idx[keep].reshape(Q.shape[0], -1)
        return idx

    def solve_block(self, Xq, Qq, ridge_q, idx):
        """Plane coordinates and squared distances of queries Xq (b×d) to candidates idx (b×K)."""
        qa = np.concatenate([Xq[:, None, :], Qq], axis=1)  # b × (t+1) × d
        cand = self.aug[idx]  # b × K × (t+1) × d
        prod = cand @ np.swapaxes(qa, -1, -2)[:, None]  # b × K × (t+1) × (t+1): [y;Q_y][x;Q_x]'
        xy = prod[..., 0, 0]
        qy_x = prod[..., 1:, 0]  # Q_y x
        qx_y = prod[..., 0, 1:]  # Q_x y
        c_xy = np.swapaxes(prod[..., 1:, 1:], -1, -2)  # Q_x Q_y'
        r2 = np.einsum("bd,bd->b", Xq, Xq)[:, None] + self.sq[idx] - 2 * xy  # |x - y|²
        bx = np.einsum("bid,bd->bi", Qq, Xq)[:, None, :] - qx_y  # Q_x (x - y)
        by = qy_x - self.qy_y[idx]  # Q_y (x - y)
        beta_x, beta_y, cb = _solve_coefficients(
            c_xy, bx, by, ridge_q[:, None, :], self.ridge[idx], self.two_sided
        )
        return beta_x, beta_y, np.maximum(r2 + cb, 0.0)

    def metric_distances(self, Xq, Qq, idx, beta_x, beta_y):
        """Squared Mahalanobis norms |L(x + Q_x'β_x - y - Q_y'β_y)|² from projected pieces."""
        e = (Xq @ self.L.T)[:, None, :] - self.LX[idx]
        if self.two_sided:
            e += np.einsum("bki,bic->bkc", beta_x, Qq @ self.L.T)
        e -= np.einsum("bki,bkic->bkc", beta_y, self.LQ[idx])
        return np.einsum("bkc,bkc->bk", e, e)

    def residual_block(self, Xq, Qq, idx, beta_x, beta_y):
        """Shortest tangent vectors (b × K × d) of queries to their candidates."""
        e = Xq[:, None, :] - self.X[idx]
        if self.two_sided:
            e += np.einsum("bki,bid->bkd", beta_x, Qq)
        e -= np.einsum("bki,bkid->bkd", beta_y, self.Q[idx])
        return e

    def nearest_block(self, Xq, Qq, ridge_q, idx, k):
        """Distances and indices (ascending) of the k tangent-nearest candidates idx (b × K) of a
        block of queries Xq with tangent bases Qq."""
        beta_x, beta_y, d2 = self.solve_block(Xq, Qq, ridge_q, idx)
        if self.L is not None:
            d2 = self.metric_distances(Xq, Qq, idx, beta_x, beta_y)
        order = np.argsort(d2, axis=1, kind="stable")[:, :k]
        return np.sqrt(np.take_along_axis(d2, order, axis=1)), np.take_along_axis(
            idx, order, axis=1
        )

    def search(self, Xq, n_neighbors, exclude_self=False, progress=None):
        """Distances and indices (ascending) of the n_neighbors nearest training images of each query."""
        idx_all = self.candidates(Xq, exclude_self)
        k = min(n_neighbors, idx_all.shape[1])
        out_idx = np.empty((Xq.shape[0], k), dtype=np.intp)
        out_dist = np.empty((Xq.shape[0], k))
        for start in range(0, Xq.shape[0], _BATCH):
            stop = min(start + _BATCH, Xq.shape[0])
            qq, ridge_q = self.query_basis(Xq[start:stop])
            out_dist[start:stop], out_idx[start:stop] = self.nearest_block(
                Xq[start:stop], qq, ridge_q, idx_all[start:stop], k
            )
            if progress is not None:
                progress(stop, Xq.shape[0], "tangent distances")
        return out_dist, out_idx

    def rerank(self, rows, candidates, n_neighbors, progress=None):
        """The hierarchical search of the thesis (section 4.1) for stored images: distances and
        indices (ascending) of the n_neighbors tangent-nearest among candidates[i] (e.g. the
        Euclidean nearest ones) of each stored image rows[i]; bases reused, not recomputed."""
        k = min(n_neighbors, candidates.shape[1])
        out_idx = np.empty((len(rows), k), dtype=np.intp)
        out_dist = np.empty((len(rows), k))
        for start in range(0, len(rows), _BATCH):
            r = rows[start : start + _BATCH]
            block = slice(start, start + len(r))
            out_dist[block], out_idx[block] = self.nearest_block(
                self.X[r], self.Q[r], self.ridge[r], candidates[block], k
            )
            if progress is not None:
                progress(block.stop, len(rows), "tangent distances")
        return out_dist, out_idx


def _vote(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """Majority class of each row of neighbour labels (nearest first); ties go to the nearer class."""
    n, k = labels.shape
    votes = np.zeros((n, n_classes))
    rank_bonus = (k - np.arange(k)) / (k * (k + 1.0))  # < 1 in total: breaks ties only
    np.add.at(votes, (np.repeat(np.arange(n), k), labels.ravel()), np.tile(1.0 + rank_bonus, n))
    return votes.argmax(axis=1)


@fill_doc
@parameters
class TangentDistanceKNN(ClassifierMixin, BaseEstimator):
    """Nearest-neighbour classifier of images with tangent distance (thesis section 4.1).

    For each query the `prefilter` Euclidean nearest training images are ranked by one- or
    two-sided tangent distance (Simard et al.); the `n_neighbors` nearest vote. The training
    images' tangent vectors and their Gram matrices are computed once at fit.

    Read more in the :doc:`user guide </user_guide/tangent>`.

    %(tangent_params)s

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    image_shape_ : tuple of int
        (height, width) of the images.
    index_ : object
        The training images with their tangent vectors (the search structure).

    See Also
    --------
    tangent_distance : The distance between two images.
    TangentMetricKNN : The same classifier with a learned metric on tangent residuals.
    sklearn.neighbors.KNeighborsClassifier : The k-NN rule with a Euclidean (or other) metric.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab import TangentDistanceKNN
    >>> from metriclab.datasets import load
    >>> ds = load("usps")
    >>> train, test = np.arange(0, 1000), np.arange(7291, 7391)
    >>> knn = TangentDistanceKNN(image_shape=ds.image_shape, prefilter=20)
    >>> knn = knn.fit(ds.X[train], ds.y[train])
    >>> knn.score(ds.X[test], ds.y[test]) > 0.85
    True
    >>> distances, indices = knn.kneighbors(ds.X[test[:2]], n_neighbors=3)
    >>> indices.shape
    (2, 3)
    """

    # the values each parameter accepts, checked at fit (`metriclab.validation.check_params`);
    # image_shape is checked against the data; transforms may be any list of names
    # (`resolve_transforms` checks it)
    _parameter_rules = {
        "transforms": Rule("choice", choices=TRANSFORM_CHOICES, accepts=(str, tuple, list)),
        "two_sided": Rule("bool"),
        "n_neighbors": Rule("int", low=1),
        "prefilter": Rule("int", low=1),
        "sigma": Rule("float", low=0.0),
        "regularization": Rule("float", low=0.0),
    }

    image_shape: tuple[int, int] | None = None
    transforms: str | Sequence[str] = "affine6"
    two_sided: bool = True
    n_neighbors: int = 1
    prefilter: int = 100
    sigma: float = DEFAULT_SIGMA
    regularization: float = 0.0

    def _validate(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        if np.unique(y).size < 2:
            raise ValueError("need training images of at least two classes")
        shape = _check_image_shape(self.image_shape, X.shape[1])
        check_params(self)  # the class's _parameter_rules
        if self.prefilter < self.n_neighbors:
            raise ValueError(
                f"prefilter ({self.prefilter}) must be >= n_neighbors ({self.n_neighbors})"
            )
        return X, y, shape

    def _build_index(self, X, shape):
        return _TangentIndex(
            X,
            shape,
            resolve_transforms(self.transforms),
            float(self.sigma),
            bool(self.two_sided),
            float(self.regularization),
            self.prefilter,
        )

    def fit(self, X, y):
        """Store the training images with their tangent vectors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_pixels)
            The training images, one per row.
        y : array-like of shape (n_samples,)
            Their classes.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        X, y, shape = self._validate(X, y)
        self.classes_, self.y_ = np.unique(y, return_inverse=True)
        self.image_shape_ = shape
        self.index_ = self._build_index(X, shape)
        return self

    def _check_query(self, X):
        check_is_fitted(self, "index_")
        return validate_data(self, X, dtype=np.float64, reset=False)

    def kneighbors(self, X, n_neighbors=None, progress=None):
        """Find the nearest training images of each query under the tangent distance.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_pixels)
            The query images.
        n_neighbors : int, optional
            How many; None: `n_neighbors` of the classifier.
        progress : callable, optional
            ``progress(done, total, message)``, called after each block of queries.

        Returns
        -------
        distances : ndarray of shape (n_queries, n_neighbors)
            Their (learned) tangent distances, nearest first.
        indices : ndarray of shape (n_queries, n_neighbors)
            Their rows in the training images.
        """
        X = self._check_query(X)
        k = self.n_neighbors if n_neighbors is None else int(n_neighbors)
        return self.index_.search(X, k, progress=progress)

    def predict(self, X, progress=None):
        """Predict the class of each query image by its nearest training images' vote.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_pixels)
            The query images.
        progress : callable, optional
            ``progress(done, total, message)``, called after each block of queries.

        Returns
        -------
        ndarray of shape (n_queries,)
            The predicted classes.
        """
        _, idx = self.kneighbors(X, progress=progress)
        return self.classes_[_vote(self.y_[idx], len(self.classes_))]


def nearest_neighbours(
    query,
    X_train,
    image_shape,
    n_neighbors: int = 5,
    transforms="affine6",
    two_sided: bool = True,
    sigma: float = DEFAULT_SIGMA,
    prefilter: int = 100,
) -> dict:
    """Nearest training images of one query under the Euclidean and the tangent distance.

    Returns {"euclidean": (indices, distances), "tangent": (indices, distances)}, nearest first.
    """
    X_train = check_array(X_train, dtype=np.float64)
    q, shape, _ = _as_image_rows(query, image_shape)
    if q.shape[0] != 1:
        raise ValueError("nearest_neighbours takes one query image")
    if q.shape[1] != X_train.shape[1]:
        raise ValueError(f"query has {q.shape[1]} pixels, training images {X_train.shape[1]}")
    k = int(min(n_neighbors, X_train.shape[0]))
    d2 = np.sum((X_train - q) ** 2, axis=1)
    e_idx = np.argsort(d2, kind="stable")[:k]
    index = _TangentIndex(
        X_train,
        shape,
        resolve_transforms(transforms),
        check_nonnegative("sigma", sigma),
        bool(two_sided),
        0.0,
        max(prefilter, k),
    )
    t_dist, t_idx = index.search(q, k)
    return {
        "euclidean": (e_idx, np.sqrt(d2[e_idx])),
        "tangent": (t_idx[0], t_dist[0]),
    }


_CANDIDATE_CHUNK = 2000  # stored images per block of the Euclidean pre-filter (a progress step)


def euclidean_candidates(index: _TangentIndex, rows, prefilter: int) -> np.ndarray:
    """The `prefilter` Euclidean nearest stored images of each stored image rows[i], itself
    excluded (len(rows) × prefilter indices, nearest first)."""
    rows = np.asarray(rows)
    n_cand = min(prefilter + 1, index.X.shape[0])
    _, idx = index.nn.kneighbors(index.X[rows], n_neighbors=n_cand)
    keep = idx != rows[:, None]
    keep[keep.all(axis=1), -1] = False  # the image itself was not found (duplicates): drop the last
    return idx[keep].reshape(len(rows), n_cand - 1)


def hierarchical_neighbours(index: _TangentIndex, n_neighbors: int, progress=None):
    """Distances and indices (n × n_neighbors, ascending) of every stored image's nearest other
    images under the tangent distance, among its `index.prefilter` Euclidean nearest (the
    thesis' section 4.1 pre-filter; Simard et al.'s hierarchical search)."""
    n = index.X.shape[0]
    k = min(n_neighbors, index.prefilter, n - 1)
    distances, indices = np.empty((n, k)), np.empty((n, k), dtype=np.intp)
    for start in range(0, n, _CANDIDATE_CHUNK):
        rows = np.arange(start, min(start + _CANDIDATE_CHUNK, n))
        candidates = euclidean_candidates(index, rows, index.prefilter)
        distances[rows], indices[rows] = index.rerank(rows, candidates, k)
        if progress is not None:
            progress(rows[-1] + 1, n, "tangent-distance neighbours")
    return distances, indices


def tangent_neighbours(
    X,
    image_shape,
    n_neighbors: int = 20,
    prefilter: int = 100,
    transforms="all7",
    sigma: float = DEFAULT_SIGMA,
    progress=None,
):
    """Find each image's nearest other images under the two-sided tangent distance.

    Each image's `prefilter` Euclidean nearest images are ranked by tangent distance. For a graph
    under the tangent distance (TDL's prior in Li, Yang & Wang 2007, Section 5.3),
    ``metriclab.graphs.neighbour_graph(distances, indices)`` gives the (W, width) pair that
    ``TDL.fit(X, y, graph=...)`` and ``LaplacianEigenmaps.fit(X, graph=...)`` take.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_pixels)
        The images, one per row.
    image_shape : tuple of int or None
        (height, width) of the images; None: square.
    n_neighbors : int, default=20
        Neighbours per image.
    prefilter : int, default=100
        Euclidean candidates per image (more than `n_neighbors`, fewer than the images).
    transforms : str or sequence of str, default="all7"
        The tangent transformations (a preset or names, as in :class:`TangentDistanceKNN`).
    sigma : float, default=0.75
        Smoothing width of the image gradients.
    progress : callable, optional
        ``progress(done, total, message)``, called after each block of images.

    Returns
    -------
    distances : ndarray of shape (n_samples, n_neighbors)
        Tangent distances to the neighbours, nearest first.
    indices : ndarray of shape (n_samples, n_neighbors)
        Their rows in X (never the image itself).

    See Also
    --------
    tangent_distance : The distance of two images.
    metriclab.graphs.neighbour_graph : A graph from these neighbour lists.

    Examples
    --------
    >>> from metriclab import tangent_neighbours
    >>> from metriclab.datasets import load
    >>> ds = load("usps")
    >>> distances, indices = tangent_neighbours(ds.X[:300], ds.image_shape, n_neighbors=5,
    ...                                         prefilter=20)
    >>> indices.shape
    (300, 5)
    >>> bool((distances[:, :-1] <= distances[:, 1:]).all())
    True
    """
    X = check_array(X, dtype=np.float64)
    shape = _check_image_shape(image_shape, X.shape[1])
    if not 1 <= n_neighbors <= prefilter < X.shape[0]:
        raise ValueError(
            f"need 1 <= n_neighbors ({n_neighbors}) <= prefilter ({prefilter}) < the number of "
            f"images ({X.shape[0]})"
        )
    index = _TangentIndex(
        X, shape, resolve_transforms(transforms), float(sigma), True, 0.0, prefilter
    )
    return hierarchical_neighbours(index, n_neighbors, progress)
