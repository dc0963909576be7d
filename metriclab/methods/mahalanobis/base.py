"""The base of the linear Mahalanobis learners (metric-learn's split of a base mixin from the
algorithms that only learn L): `MahalanobisMixin` (transform, M = LᵀL, paired distances,
validation of labels and n_components) and what NCA, LMNN and DNE share — the starting map, exact
blockwise nearest rows, same-class target neighbours and the one-thread BLAS context.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.decomposition import PCA as _SklearnPCA
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from metriclab.validation import check_choice, check_int

STARTS = ("pca", "lda", "identity", "random")  # starting maps of `initial_components`
_INITS = ("auto", *STARTS)  # "auto": the learner picks one


_CONTROLLER = []


def single_thread_blas():
    """Context limiting BLAS to one thread. Our products are small or many; on the 2 shared cores
    this was faster for every learner. The controller is built once (building it costs ~10 ms)."""
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


class MahalanobisMixin(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base of the linear learners: a learned map L (`components_`) with M = LᵀL.

    Subclasses implement `fit(X, y)` and set `components_`; everything else is shared.
    """

    def transform(self, X):
        """Map X into the learned space: X Lᵀ (n × n_components)."""
        check_is_fitted(self, "components_")
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        return X @ self.components_.T

    def mahalanobis_matrix(self):
        """M = LᵀL (d × d, symmetric positive semi-definite)."""
        check_is_fitted(self, "components_")
        return self.components_.T @ self.components_

    def pair_distance(self, a, b):
        """Mahalanobis distances sqrt((a_i − b_i)ᵀ M (a_i − b_i)) between rows of a and b (paired)."""
        check_is_fitted(self, "components_")
        a = np.atleast_2d(np.asarray(a, dtype=np.float64))
        b = np.atleast_2d(np.asarray(b, dtype=np.float64))
        if a.shape != b.shape or a.shape[1] != self.components_.shape[1]:
            raise ValueError(
                f"pair_distance needs two arrays of the same shape with {self.components_.shape[1]} "
                f"columns, got {a.shape} and {b.shape}"
            )
        return np.linalg.norm((a - b) @ self.components_.T, axis=1)

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    # -- validation shared by the learners -------------------------------------------------

    def _validate_labeled(self, X, y, *, min_per_class=1):
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        classes, y_index = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise ValueError(
                f"{type(self).__name__} needs labels of at least two classes; y has only "
                f"the class {classes[0]!r}"
            )
        counts = np.bincount(y_index)
        if counts.min() < min_per_class:
            raise ValueError(
                f"{type(self).__name__} needs at least {min_per_class} samples per class; "
                f"class {classes[counts.argmin()]!r} has {counts.min()}"
            )
        self.classes_ = classes
        return X, y_index

    def _resolve_n_components(self, d):
        if self.n_components is None:
            return d
        n = check_int("n_components", self.n_components, 1)
        if n > d:
            raise ValueError(
                f"n_components={n} is larger than the number of features ({d}); choose at most {d}"
            )
        return n


def initial_components(init, X, n_components, random_state, y=None):
    """Starting L: PCA or LDA directions, the identity (first rows) or a random Gaussian matrix."""
    check_choice("init", init, STARTS)
    n, d = X.shape
    if init == "lda":  # as scikit-learn's NCA; needs n_components <= classes - 1, else PCA
        if y is None:
            raise ValueError("init='lda' needs the labels y")
        if n_components <= min(d, np.unique(y).size - 1):
            from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

            lda = LinearDiscriminantAnalysis(n_components=n_components).fit(X, y)
            if lda.scalings_.shape[1] >= n_components:  # fewer when the scatter is rank-deficient
                return lda.scalings_.T[:n_components].copy()
        init = "pca"
    if init == "identity":
        return np.eye(n_components, d)
    if init == "random":
        return check_random_state(random_state).standard_normal((n_components, d))
    # "pca"
    if n_components > min(n, d):  # PCA cannot give more directions than samples
        return np.eye(n_components, d)
    pca = _SklearnPCA(n_components=n_components, svd_solver="full").fit(X)
    return pca.components_.copy()


def neighbor_space(X_neighbors, X):
    """The space in which neighbours are chosen: X itself, or `X_neighbors` with the same rows."""
    if X_neighbors is None:
        return X
    X_neighbors = np.asarray(X_neighbors, dtype=np.float64)
    if X_neighbors.ndim != 2 or X_neighbors.shape[0] != X.shape[0]:
        raise ValueError(
            f"X_neighbors must have {X.shape[0]} rows like X, got shape {X_neighbors.shape}"
        )
    return X_neighbors


def squared_row_distances(A, B):
    """||a_i − b_j||² for all rows, clipped at 0 (BLAS-3 form)."""
    D = (A * A).sum(1)[:, None] - 2.0 * (A @ B.T) + (B * B).sum(1)[None, :]
    np.maximum(D, 0.0, out=D)
    return D


def class_ranges(y):
    """(class, start, stop) of the contiguous rows of each class; y must be sorted."""
    classes, starts = np.unique(y, return_index=True)
    stops = np.append(starts[1:], y.size)
    return list(zip(classes.tolist(), starts.tolist(), stops.tolist(), strict=True))


def nearest_rows(A, B, k, *, exclude_diagonal=False, block_rows=1024):
    """Indices (len(A) × k) of the k nearest rows of B for each row of A (blockwise, exact).

    With exclude_diagonal (A is B), a row is never its own neighbour.
    """
    out = np.empty((A.shape[0], k), dtype=np.intp)
    for start in range(0, A.shape[0], block_rows):
        stop = min(start + block_rows, A.shape[0])
        D = squared_row_distances(A[start:stop], B)
        if exclude_diagonal:
            D[np.arange(stop - start), np.arange(start, stop)] = np.inf
        part = (
            np.argpartition(D, k - 1, axis=1)[:, :k]
            if k < D.shape[1]
            else np.tile(np.arange(D.shape[1]), (stop - start, 1))
        )
        order = np.argsort(np.take_along_axis(D, part, axis=1), axis=1, kind="stable")
        out[start:stop] = np.take_along_axis(part, order, axis=1)
    return out


def target_neighbors(X, y, k):
    """Indices (n × k') of the k same-class nearest neighbours of each point (input space).

    k is clipped per class to (class size − 1); the columns of a point with fewer than k
    same-class neighbours are −1. Returns the index array and the clipped k' = max over classes.
    """
    n = X.shape[0]
    counts = np.bincount(y)
    k_used = int(min(k, counts.max() - 1))
    targets = np.full((n, max(k_used, 0)), -1, dtype=np.intp)
    for c in np.flatnonzero(counts > 1):
        members = np.flatnonzero(y == c)
        kc = min(k_used, members.size - 1)
        chosen = nearest_rows(X[members], X[members], kc, exclude_diagonal=True)
        targets[members, :kc] = members[chosen]
    return targets, k_used
