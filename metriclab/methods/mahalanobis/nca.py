"""NCA (Goldberger et al. 2005; Chatpatanasiri et al. 2009, Eq. (3)): softmax neighbour objective,
analytic gradient, scipy L-BFGS.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import KW_ONLY

import numpy as np
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

from metriclab._docstrings import fill_doc
from metriclab.methods.mahalanobis.base import (
    ITERATIVE_RULES,
    MahalanobisMixin,
    auto_start,
    class_ranges,
    initial_components,
    metric_learn_arguments,
    resolve_start,
    single_thread_blas,
)
from metriclab.progress import FitLog
from metriclab.validation import InvalidParameterError, Rule, check_params, parameters


def nca_loss_and_gradient(flat_L, X, ranges, n_components):
    """Negative NCA objective −Σ_i Σ_{j: y_j = y_i} p_ij (paper Eq. (3)) and its gradient in L.

    The points must be sorted by class (`ranges` from `class_ranges`): the same-class pairs are
    then the diagonal blocks. p_ij = softmax_j(−||Lx_i − Lx_j||²), p_ii = 0; the softmax drops the
    row constant ||Lx_i||², so the logits are 2 z_i·z_j − ||z_j||² (one matrix product).
    Gradient (Goldberger et al. 2005): with A_ij = p_ij (p_i − [y_i = y_j]) (rows sum to 0) and
    Z = XLᵀ, ∂f/∂L = 2 Σ_ij A_ij (z_i − z_j)(x_i − x_j)ᵀ = 2 Zᵀ (Diag(colsum A) − A − Aᵀ) X.
    """
    L = flat_L.reshape(n_components, X.shape[1])
    Z = X @ L.T
    P = Z @ Z.T
    P *= 2.0
    P -= np.einsum("ij,ij->i", Z, Z)[None, :]
    np.fill_diagonal(P, -np.inf)
    P -= P.max(axis=1, keepdims=True)  # stable softmax
    np.exp(P, out=P)
    P /= P.sum(axis=1, keepdims=True)
    p = np.empty(P.shape[0])  # probability that point i is classified correctly
    for _, start, stop in ranges:
        p[start:stop] = P[start:stop, start:stop].sum(axis=1)
    loss = -float(p.sum())
    W = P  # A_ij = p_ij p_i − p_ij [y_i = y_j], in place, band by band
    for _, start, stop in ranges:
        band = W[start:stop]
        band[:, :start] *= p[start:stop, None]
        band[:, start:stop] *= p[start:stop, None] - 1.0
        band[:, stop:] *= p[start:stop, None]
    W += W.T
    np.fill_diagonal(W, 0.0)
    W[np.diag_indices_from(W)] = -W.sum(axis=0)
    gradient = Z.T @ W
    gradient = gradient @ X
    gradient *= 2.0
    return loss, gradient.ravel()


def nca_loss_and_gradient_masked(flat_L, X, same_class_mask, n_components=None):
    """The same objective for points in any order: −Σ_i p_i and its gradient, with the same-class
    pairs given by `same_class_mask` (n × n) instead of sorted class ranges (paper Eq. (3))."""
    d = X.shape[1]
    L = np.asarray(flat_L, dtype=np.float64).reshape(
        -1 if n_components is None else n_components, d
    )
    Z = X @ L.T
    P = 2.0 * (Z @ Z.T) - np.einsum("ij,ij->i", Z, Z)[None, :]
    np.fill_diagonal(P, -np.inf)
    P -= P.max(axis=1, keepdims=True)
    np.exp(P, out=P)
    P /= P.sum(axis=1, keepdims=True)
    masked = P * same_class_mask
    p = masked.sum(axis=1, keepdims=True)
    weighted = masked - P * p  # A_ij = p_ij ([y_i = y_j] − p_i), the negative of the sorted form's
    W = weighted + weighted.T
    np.fill_diagonal(W, -weighted.sum(axis=0))
    gradient = 2.0 * (Z.T @ W) @ X
    return -float(p.sum()), -gradient.ravel()


@fill_doc
@parameters
class NCA(MahalanobisMixin):
    """Neighbourhood Components Analysis (Goldberger et al. 2005), paper Eq. (3).

    Maximises the expected leave-one-out accuracy of a stochastic nearest-neighbour rule with
    scipy's L-BFGS and an analytic, fully vectorised gradient. Cost O(n² n_components) per step.
    A drop-in for scikit-learn's `NeighborhoodComponentsAnalysis`: the same parameters, starts,
    messages and hooks (scikit-learn's own test_nca.py runs against it, tests/test_sklearn_nca.py).

    %(nca_params_attributes)s

    See Also
    --------
    NeighborhoodComponentsAnalysis : The same estimator under scikit-learn's name.
    LMNN : Another linear metric learner.
    KernelPCATrick : NCA after kernel PCA (KNCA).

    References
    ----------
    J. Goldberger, S. Roweis, G. Hinton and R. Salakhutdinov, "Neighbourhood components
    analysis", NIPS 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab import NCA
    >>> from metriclab.datasets import load
    >>> ds = load("iris")
    >>> nca = NCA(n_components=2, max_iter=20, random_state=0).fit(ds.X, ds.y)
    >>> nca.transform(ds.X).shape
    (150, 2)
    >>> M = nca.get_mahalanobis_matrix()
    >>> M.shape, bool(np.allclose(M, M.T))
    ((4, 4), True)
    >>> d = nca.get_metric()
    >>> bool(np.isclose(d(ds.X[0], ds.X[1]), nca.pair_distance([[ds.X[0], ds.X[1]]])[0]))
    True
    """

    _parameter_rules = {
        **ITERATIVE_RULES,
        "tol": Rule("float", low=0.0),
        "warm_start": Rule("bool"),
    }

    n_components: int | None = None
    _: KW_ONLY
    init: str | np.ndarray = "auto"
    warm_start: bool = False
    max_iter: int = 50
    tol: float = 1e-05
    callback: Callable | None = None
    verbose: int = 0
    random_state: int | np.random.RandomState | None = None
    record_iterates: bool = False
    preprocessor: None = None  # metric-learn's: None only (checked at fit)

    def _loss_grad_lbfgs(self, transformation, X, same_class_mask, sign=1.0):
        """scikit-learn's signature: Σ_i p_i (times `sign`) and its gradient in the flattened L,
        for points in any order (`same_class_mask[i, j]`: same class)."""
        if not hasattr(self, "n_iter_"):
            self.n_iter_ = 0
        loss, gradient = nca_loss_and_gradient_masked(transformation, X, same_class_mask)
        return -sign * loss, -sign * gradient

    @fill_doc
    def fit(self, X, y):
        """Learn L from labelled points.

        %(fit_params)s

        %(returns_self)s
        """
        check_params(self)  # the class's _parameter_rules
        metric_learn_arguments(self, {})  # metric-learn's preprocessor: None only
        max_iter, tol = int(self.max_iter), float(self.tol)
        if self.callback is not None and not callable(self.callback):
            raise InvalidParameterError(f"callback must be callable or None, got {self.callback!r}")
        warm = bool(self.warm_start) and hasattr(self, "components_")
        previous = self.components_ if warm else None
        X, y = self._validate_labeled(X, y, min_classes=1)
        d = X.shape[1]
        if warm and previous.shape[1] != d:
            raise ValueError(
                f"The new inputs dimensionality ({d}) does not match the input dimensionality of "
                f"the previously learned transformation ({previous.shape[1]})."
            )
        init, n_components = resolve_start(self.init, X, self.n_components)
        if warm:
            init, n_components = previous, previous.shape[0]
        elif isinstance(init, str) and init == "auto":
            init = auto_start(X, y, n_components)
        order = np.argsort(y, kind="stable")  # sorted by class: same-class pairs are blocks
        X, y = X[order], y[order]
        ranges = class_ranges(y)
        log = FitLog(type(self).__name__, self.verbose)
        curve, iterates, count = [], [], [1]

        def objective(flat_L):
            started = time.time()
            loss, gradient = nca_loss_and_gradient(flat_L, X, ranges, n_components)
            log.line(count[0], -loss, time.time() - started)
            return loss, gradient

        def record(intermediate_result):
            curve.append(float(intermediate_result.fun))
            if self.record_iterates:
                iterates.append(intermediate_result.x.reshape(n_components, d).copy())
            if self.callback is not None:
                self.callback(intermediate_result.x.copy(), count[0])
            count[0] += 1

        with single_thread_blas():
            L0 = initial_components(init, X, n_components, self.random_state, y, self.verbose)
            result = minimize(
                objective,
                L0.ravel(),
                method="L-BFGS-B",
                jac=True,
                tol=tol,
                options={"maxiter": max_iter},
                callback=record,
            )
        self.components_ = result.x.reshape(n_components, d)
        self.n_iter_ = int(result.nit)
        self.loss_curve_ = curve
        if self.record_iterates:
            self.iterates_, self.first_iterate_ = iterates, 1
        if self.verbose:
            if not result.success:
                warnings.warn(
                    f"[{type(self).__name__}] NCA did not converge: {result.message}",
                    ConvergenceWarning,
                    stacklevel=2,
                )
            log.done()
        return self


@fill_doc
class NeighborhoodComponentsAnalysis(NCA):
    """Neighbourhood Components Analysis under scikit-learn's name.

    :class:`NCA` as a drop-in for :class:`sklearn.neighbors.NeighborhoodComponentsAnalysis`:
    ``from metriclab import NeighborhoodComponentsAnalysis`` replaces
    ``from sklearn.neighbors import NeighborhoodComponentsAnalysis`` (the same parameters; its
    progress lines and output feature names carry this name, as scikit-learn's do), and it
    works in scikit-learn's :class:`~sklearn.pipeline.Pipeline` and
    :class:`~sklearn.model_selection.GridSearchCV`. It adds metric-learn's interface
    (``get_mahalanobis_matrix``, ``get_metric``, ``pair_distance``, ``pair_score``).

    %(nca_params_attributes)s

    See Also
    --------
    NCA : The same estimator under its short name.
    sklearn.neighbors.NeighborhoodComponentsAnalysis : NCA in scikit-learn.
    KernelPCATrick : NCA after kernel PCA (KNCA).

    Examples
    --------
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> from sklearn.pipeline import make_pipeline
    >>> from metriclab import NeighborhoodComponentsAnalysis
    >>> from metriclab.datasets import load
    >>> ds = load("wine")
    >>> model = make_pipeline(
    ...     NeighborhoodComponentsAnalysis(n_components=2, max_iter=20, random_state=0),
    ...     KNeighborsClassifier(n_neighbors=1),
    ... )
    >>> scores = cross_val_score(model, ds.X, ds.y, cv=3)
    >>> scores.shape
    (3,)
    >>> model.fit(ds.X, ds.y)[0].get_feature_names_out()[:2].tolist()
    ['neighborhoodcomponentsanalysis0', 'neighborhoodcomponentsanalysis1']
    """
