"""NCA (Goldberger et al. 2005; Chatpatanasiri et al. 2009, Eq. (3)): softmax neighbour objective,
analytic gradient, scipy L-BFGS.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from metriclab.methods.mahalanobis.base import (
    _INITS,
    MahalanobisMixin,
    class_ranges,
    initial_components,
    single_thread_blas,
)
from metriclab.validation import check_choice, check_int, check_positive


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


class NCA(MahalanobisMixin):
    """Neighbourhood Components Analysis (Goldberger et al. 2005), paper Eq. (3).

    Maximises the expected leave-one-out accuracy of a stochastic nearest-neighbour rule with
    scipy's L-BFGS and an analytic, fully vectorised gradient. Cost O(n² n_components) per step.

    Parameters
    ----------
    n_components : int or None — output dimension (None: d).
    max_iter : int — L-BFGS iterations.
    tol : float — L-BFGS tolerance (relative change of the loss).
    init : "auto" | "pca" | "identity" | "random" — "auto" is PCA when n_components < d, else identity.
    random_state : int, RandomState or None — for init="random".
    record_iterates : bool — keep L after every iteration in `iterates_` (for watching the fit
        learn); off by default, and the fit is the same either way.

    Attributes
    ----------
    components_ : (n_components, d) ndarray — L, with M = LᵀL.
    n_iter_ : int, loss_curve_ : list of the (negated) objective per iteration.
    iterates_ : list of (n_components, d) ndarrays, L after each iteration (with record_iterates).
    first_iterate_ : 1, the iteration `iterates_[0]` shows (NCA records after each step).
    """

    def __init__(
        self,
        n_components=None,
        max_iter=100,
        tol=1e-5,
        init="auto",
        random_state=0,
        record_iterates=False,
    ):
        self.n_components = n_components
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.random_state = random_state
        self.record_iterates = record_iterates

    def fit(self, X, y):
        max_iter = check_int("max_iter", self.max_iter, 1)
        tol = check_positive("tol", self.tol)
        check_choice("init", self.init, _INITS)
        X, y = self._validate_labeled(X, y)
        d = X.shape[1]
        n_components = self._resolve_n_components(d)
        init = self.init
        if init == "auto":
            init = "pca" if n_components < d else "identity"
        order = np.argsort(y, kind="stable")  # sorted by class: same-class pairs are blocks
        X, y = X[order], y[order]
        ranges = class_ranges(y)
        curve, iterates = [], []

        def record(intermediate_result):
            curve.append(float(intermediate_result.fun))
            if self.record_iterates:
                iterates.append(intermediate_result.x.reshape(n_components, d).copy())

        with single_thread_blas():
            L0 = initial_components(init, X, n_components, self.random_state, y)
            result = minimize(
                nca_loss_and_gradient,
                L0.ravel(),
                args=(X, ranges, n_components),
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
        return self
