"""The base of the linear Mahalanobis learners (metric-learn's split of a base mixin from the
algorithms that only learn L): `MahalanobisMixin` (transform, M = LᵀL, paired distances,
validation of labels and n_components) and what NCA, LMNN and DNE share — the starting map, exact
blockwise nearest rows, same-class target neighbours and the one-thread BLAS context.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.decomposition import PCA as _SklearnPCA
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from metriclab.validation import InvalidParameterError, Rule, check_choice, check_int

STARTS = ("pca", "lda", "identity", "random")  # starting maps of `initial_components`
_INITS = ("auto", *STARTS)  # "auto": the learner picks one
# The parameters NCA and LMNN share (their `_parameter_rules`): a start by name or a matrix
# (n_components × d, checked at fit against the data), the iterations, progress and recording.
ITERATIVE_RULES = {
    "init": Rule("choice", choices=(*STARTS, "auto"), accepts=(np.ndarray, list, tuple)),
    "max_iter": Rule("int", low=1),
    "verbose": Rule("int", low=0),
    "record_iterates": Rule("bool"),
}

# metric-learn 0.7's constructor arguments that are not ours (keyword-only parameters of NCA and
# LMNN, None by default, read at fit by `metric_learn_arguments`): LMNN takes n_neighbors and
# regularization with their meaning; a preprocessor and these are refused with ours named.
METRIC_LEARN_REFUSED = {
    "learn_rate": "{cls} runs L-BFGS, which chooses its own step sizes: set max_iter and tol",
    "convergence_tol": "metric-learn stops on an absolute change of the objective; {cls} stops "
    "L-BFGS on tol, the relative change of the loss",
    "min_iter": "{cls} has no minimum number of iterations: L-BFGS stops on tol or max_iter",
}


def metric_learn_arguments(estimator, accepted: dict) -> dict:
    """{our name: value} for the metric-learn 0.7 arguments given to `estimator` (at fit).

    `accepted`: {their name: (our name, our default, their value -> ours)}; where their name is
    given, our parameter must be left at its default. `preprocessor` must be None (no
    preprocessor: the estimator takes the points themselves); learn_rate, convergence_tol and
    min_iter must be None: each is refused with a message naming ours."""
    cls = f"metriclab's {type(estimator).__name__}"
    params = estimator.get_params(deep=False)
    if params.get("preprocessor") is not None:
        raise InvalidParameterError(
            f"preprocessor (metric-learn's) is not accepted: {cls} takes the points themselves: "
            "give fit the rows (X = preprocessor[indices])"
        )
    for name, why in METRIC_LEARN_REFUSED.items():
        if params.get(name) is not None:
            raise InvalidParameterError(
                f"{name} (metric-learn's) is not accepted: {why.format(cls=cls)}"
            )
    ours = {}
    for name, (our, default, convert) in accepted.items():
        if params.get(name) is None:
            continue
        if params[our] != default:
            raise InvalidParameterError(
                f"{name} is metric-learn's name for {type(estimator).__name__}'s {our}: give one "
                "of the two"
            )
        ours[our] = convert(params[name])
    return ours


_CONTROLLER = []


def single_thread_blas():
    """Context limiting BLAS to one thread. Our products are small or many; on the 2 shared cores
    this was faster for every learner. The controller is built once (building it costs ~10 ms)."""
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


class MetricLearnInterface:
    """metric-learn's Mahalanobis interface over `_metric_map` (a map f with d(x, y) = ‖f(x) −
    f(y)‖, linear for the Mahalanobis learners) and `_metric_matrix` (M with d² = (x−y)ᵀM(x−y)
    in the space the matrix acts on): `get_mahalanobis_matrix`, `get_metric`,
    `pair_distance(pairs)` and `pair_score(pairs)`, with metric-learn's signatures."""

    def get_mahalanobis_matrix(self):
        """Return the learned Mahalanobis matrix M = LᵀL (metric-learn's name).

        Returns
        -------
        ndarray of shape (n_features, n_features)
            M, symmetric positive semi-definite: d(x, y)² = (x − y)ᵀ M (x − y) in the space
            the metric acts on (the input features; for KernelPCATrick the kernel-PCA
            coordinates, ``kpca_transform``).
        """
        return self._metric_matrix()

    def mahalanobis_matrix(self):
        """Return the learned Mahalanobis matrix M = LᵀL (as `get_mahalanobis_matrix`).

        Returns
        -------
        ndarray of shape (n_features, n_features)
            M, symmetric positive semi-definite.
        """
        return self._metric_matrix()

    def get_metric(self):
        """Return the learned distance as a function of two points, as metric-learn's.

        Returns
        -------
        callable
            ``metric(u, v, squared=False)``: the learned distance between two 1-D points (its
            square with ``squared=True``), usable as
            ``KNeighborsClassifier(metric=model.get_metric())``.
        """
        self._metric_matrix()  # fitted?
        transform = self._metric_map

        def metric(u, v, squared=False):
            z = transform(np.atleast_2d(np.asarray(u, dtype=np.float64)))
            w = transform(np.atleast_2d(np.asarray(v, dtype=np.float64)))
            d2 = float(np.sum((z - w) ** 2))
            return d2 if squared else float(np.sqrt(d2))

        return metric

    def pair_distance(self, pairs, b=None):
        """Return the learned distance of each pair of points.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features)
            The pairs, as metric-learn takes them; or, with `b`, the first points of the pairs,
            of shape (n_pairs, n_features).
        b : array-like of shape (n_pairs, n_features), optional
            The second points of the pairs (rows paired with those of `pairs`).

        Returns
        -------
        ndarray of shape (n_pairs,)
            The distances.
        """
        a, b = _split_pairs(pairs, b)
        return np.linalg.norm(self._metric_map(a) - self._metric_map(b), axis=1)

    def pair_score(self, pairs):
        """Return metric-learn's score of each pair: the opposite of its distance.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_features)
            The pairs.

        Returns
        -------
        ndarray of shape (n_pairs,)
            Minus the distances: higher is more similar.
        """
        return -self.pair_distance(pairs)


def _split_pairs(pairs, b=None) -> tuple[np.ndarray, np.ndarray]:
    if b is None:
        pairs = np.asarray(pairs, dtype=np.float64)
        if pairs.ndim != 3 or pairs.shape[1] != 2:
            raise ValueError(f"pairs must have shape (n_pairs, 2, n_features), got {pairs.shape}")
        return pairs[:, 0, :], pairs[:, 1, :]
    a = np.atleast_2d(np.asarray(pairs, dtype=np.float64))
    b = np.atleast_2d(np.asarray(b, dtype=np.float64))
    if a.shape != b.shape:
        raise ValueError(
            f"pair_distance needs two arrays of the same shape, got {a.shape} and {b.shape}"
        )
    return a, b


class MahalanobisMixin(
    MetricLearnInterface, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Base of the linear learners: a learned map L (`components_`) with M = LᵀL.

    Subclasses implement `fit(X, y)` and set `components_`; everything else is shared, among it
    metric-learn's interface (`get_mahalanobis_matrix`, `get_metric`, `pair_distance`,
    `pair_score`).
    """

    # the values each parameter accepts, checked at fit (`metriclab.validation.check_params`)
    _parameter_rules = {"n_components": Rule("int", low=1, none_ok=True)}  # None: d

    def transform(self, X):
        """Map points into the learned space: X Lᵀ.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            Their coordinates, in which the Euclidean distance is the learned one.
        """
        check_is_fitted(self, "components_")
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        return X @ self.components_.T

    def _metric_matrix(self):
        check_is_fitted(self, "components_")
        return self.components_.T @ self.components_

    def _metric_map(self, X):
        check_is_fitted(self, "components_")
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        if X.shape[1] != self.components_.shape[1]:
            raise ValueError(
                f"the points have {X.shape[1]} features; the metric was learned on "
                f"{self.components_.shape[1]}"
            )
        return X @ self.components_.T

    @property
    def _n_features_out(self):
        return self.components_.shape[0]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    # -- validation shared by the learners -------------------------------------------------

    def _validate_labeled(self, X, y, *, min_per_class=1, min_classes=2, reset=True):
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, reset=reset)
        check_classification_targets(y)
        classes, y_index = np.unique(y, return_inverse=True)
        if classes.size < min_classes:
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


def resolve_start(init, X, n_components):
    """The start (a name of `_INITS`, or a matrix n_components × d) checked against the data,
    with scikit-learn's NCA messages; returns (init, n_components) with n_components resolved
    (None: the matrix's rows, else d)."""
    d = X.shape[1]
    if n_components is not None and n_components > d:
        raise ValueError(
            "The preferred dimensionality of the projected space `n_components` "
            f"({n_components}) cannot be greater than the given data dimensionality ({d})!"
        )
    if isinstance(init, str):
        check_choice("init", init, _INITS)
        return init, d if n_components is None else n_components
    try:
        init = check_array(init)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"init must be one of {list(_INITS)} or an array of shape (n_components, "
            f"n_features), got {init!r}"
        ) from exc
    if init.shape[1] != d:
        raise ValueError(
            f"The input dimensionality ({init.shape[1]}) of the given linear transformation "
            f"`init` must match the dimensionality of the given inputs `X` ({d})."
        )
    if init.shape[0] > init.shape[1]:
        raise ValueError(
            f"The output dimensionality ({init.shape[0]}) of the given linear transformation "
            f"`init` cannot be greater than its input dimensionality ({init.shape[1]})."
        )
    if n_components is not None and n_components != init.shape[0]:
        raise ValueError(
            "The preferred dimensionality of the projected space `n_components` "
            f"({n_components}) does not match the output dimensionality of the given linear "
            f"transformation `init` ({init.shape[0]})!"
        )
    return np.array(init, dtype=np.float64), init.shape[0]


def auto_start(X, y, n_components) -> str:
    """scikit-learn's documented rule for init="auto": LDA when n_components <= min(d, classes
    − 1), else PCA when n_components < min(d, n), else the identity."""
    n, d = X.shape
    if n_components <= min(d, np.unique(y).size - 1):
        return "lda"
    if n_components < min(d, n):
        return "pca"
    return "identity"


def initial_components(init, X, n_components, random_state, y=None, verbose=0):
    """Starting L: PCA or LDA directions, the identity (first rows) or a random Gaussian matrix."""
    if not isinstance(init, str):  # a matrix checked by resolve_start
        return np.array(init, dtype=np.float64)
    check_choice("init", init, STARTS)
    n, d = X.shape
    if init in ("pca", "lda") and verbose:
        what = "principal" if init == "pca" else "most discriminative"
        print(f"Finding {what} components... ", end="", flush=True)
        started = time.time()
        L = initial_components(init, X, n_components, random_state, y)
        print(f"done in {time.time() - started:5.2f}s")
        return L
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
