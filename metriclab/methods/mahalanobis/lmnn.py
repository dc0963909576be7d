"""LMNN (Weinberger et al. 2006; Chatpatanasiri et al. 2009, Section 2.2): pull target
neighbours, hinge on impostor triplets; optimised over L with L-BFGS.

Impostor candidates (pairs within a slack of the margin, plus each point's nearest other-class
point) form an active set found by blockwise distances and recomputed every `impostor_refresh`
iterations, when the loss has halved, and at convergence (the fit ends only when no impostor is
missing from the active set). The gradient is accumulated as pair weights and applied with sparse
products: no loop over points or triplets.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import KW_ONLY

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize

from metriclab._docstrings import fill_doc
from metriclab.methods.mahalanobis.base import (
    ITERATIVE_RULES,
    MahalanobisMixin,
    class_ranges,
    initial_components,
    metric_learn_arguments,
    neighbor_space,
    resolve_start,
    single_thread_blas,
    target_neighbors,
)
from metriclab.progress import FitLog
from metriclab.validation import InvalidParameterError, Rule, check_params, parameters

PAIR_BLOCK = 65_536  # impostor pairs per block in the LMNN loss (memory: block × dim floats)


def pair_distances(Z, rows, cols, block=PAIR_BLOCK):
    """||z_rows[p] − z_cols[p]||² per pair, in blocks of pairs: the pairs × dim differences of all
    impostor pairs at once would take tens of GB at USPS size (millions of pairs × 256)."""
    out = np.empty(rows.shape[0])
    for start in range(0, rows.shape[0], block):
        diff = Z[rows[start : start + block]]
        diff -= Z[cols[start : start + block]]
        out[start : start + block] = np.einsum("pd,pd->p", diff, diff)
    return out


def impostor_candidates(Z, ranges, radius, slack, n_nearest=0, block_rows=1024):
    """Pairs (i, l) with y_l ≠ y_i and ||z_i − z_l||² < (1 + slack) · radius_i, found blockwise,
    together with the `n_nearest` other-class points of each i (they become impostors first if the
    map shrinks, so the set never starts empty).

    The points must be sorted by class (`ranges` from `class_ranges`), so that the same-class
    columns of a block of rows are one slice. Returns rows, cols (rows ascending) and a mask of
    the pairs active now (inside radius_i itself).
    """
    rows_out, cols_out, active_out = [], [], []
    sq = (Z * Z).sum(1)
    n = Z.shape[0]
    for _, class_start, class_stop in ranges:
        n_other = n - (class_stop - class_start)
        nearest = min(n_nearest, n_other)
        for start in range(class_start, class_stop, block_rows):
            stop = min(start + block_rows, class_stop)
            D = Z[start:stop] @ Z.T
            D *= -2.0
            D += sq[start:stop, None]
            D += sq[None, :]
            D[:, class_start:class_stop] = np.inf
            hit = D < (1.0 + slack) * radius[start:stop, None]
            if nearest == 1:
                hit[np.arange(stop - start), D.argmin(axis=1)] = True
            elif nearest > 1:
                closest = np.argpartition(D, nearest - 1, axis=1)[:, :nearest]
                np.put_along_axis(hit, closest, True, axis=1)
            r, c = np.nonzero(hit)
            active_out.append(D[r, c] < radius[start + r])
            rows_out.append(r + start)
            cols_out.append(c)
    return np.concatenate(rows_out), np.concatenate(cols_out), np.concatenate(active_out)


class _LMNNObjective:
    """LMNN loss in L on a fixed active set of impostor pairs (paper Section 2.2).

    f(L) = (1 − μ) Σ_{i,j∈T(i)} ||L(x_i − x_j)||² + μ Σ_{i,j∈T(i),l} [1 + ||L(x_i−x_j)||² − ||L(x_i−x_l)||²]_+

    Its gradient is 2 L Σ_p c_p (x_a − x_b)(x_a − x_b)ᵀ over pairs p = (a, b) with weights c_p
    (each active triplet adds μ to its target pair and −μ to its impostor pair). With C the sparse
    matrix of the c_p and the Laplacian Diag(deg) − C − Cᵀ this is
    2 [Zᵀ(deg ∘ X) − Zᵀ(CX) − (CZ)ᵀX], Z = XLᵀ: sparse products, no loop over triplets.
    """

    def __init__(self, X, y, targets, mu, n_components, *, refresh=10, slack=0.5):
        self.X = X
        self.y = y
        self.n, self.d = X.shape
        self.n_components = n_components
        self.mu = mu
        self.refresh = refresh
        self.slack = slack
        self.k = targets.shape[1]
        self.ranges = class_ranges(y)
        self.valid = targets >= 0
        self.all_valid = bool(self.valid.all())
        # missing targets point at the point itself with weight 0 (no effect on loss or gradient)
        self.targets = np.where(self.valid, targets, np.arange(self.n)[:, None])
        self.target_indptr = np.arange(0, self.n * self.k + 1, self.k)
        self.set_impostors(np.empty(0, np.intp), np.empty(0, np.intp))

    def set_impostors(self, rows, cols):
        self.i_rows, self.i_cols = rows, cols  # rows ascending (as impostor_candidates gives)
        # flat index of the target pair (i, j) of each (impostor pair, j) entry
        self.triplet_target = (self.i_rows[:, None] * self.k + np.arange(self.k)).ravel()

    def target_distances(self, Z):
        diff = Z[:, None, :] - Z[self.targets]
        dist = np.einsum("ikd,ikd->ik", diff, diff)
        if not self.all_valid:
            dist[~self.valid] = -np.inf  # never active, never pulled
        return dist

    def refresh_impostors(self, Z, target_dist):
        """Add the candidates found at Z to the active set; True if the set already held every
        impostor active at Z. Pairs already in the set stay while they are within twice the
        candidate radius, so that L-BFGS does not oscillate between sets (seen in 2-D fits)."""
        radius = target_dist.max(axis=1, initial=-np.inf) + 1.0
        rows, cols, active = impostor_candidates(Z, self.ranges, radius, self.slack, 1)
        known = self.i_rows * self.n + self.i_cols
        found = rows * self.n + cols
        complete = bool(np.isin(found[active], known).all())
        near = pair_distances(Z, self.i_rows, self.i_cols) < (
            2.0 * (1.0 + self.slack) * radius[self.i_rows]
        )
        merged = np.union1d(known[near], found)  # sorted keys: rows ascending
        self.set_impostors(merged // self.n, merged % self.n)
        return complete

    def __call__(self, flat_L):
        n, mu = self.n, self.mu
        L = flat_L.reshape(self.n_components, self.d)
        X = self.X
        Z = X @ L.T
        target_dist = self.target_distances(Z)
        pull = float(target_dist.sum() if self.all_valid else target_dist[self.valid].sum())
        rows, cols = self.i_rows, self.i_cols
        impostor_dist = pair_distances(Z, rows, cols)
        margins = target_dist[rows]  # (pairs × k) hinge arguments 1 + d_ij − d_il
        margins += 1.0
        margins -= impostor_dist[:, None]
        active = margins > 0.0
        push = float(margins[active].sum())
        loss = (1.0 - mu) * pull + mu * push
        # pair weights: each active triplet pulls its target pair and pushes its impostor pair
        n_active = np.bincount(self.triplet_target, weights=active.ravel(), minlength=n * self.k)
        target_weight = (1.0 - mu) + mu * n_active
        if not self.all_valid:
            target_weight[~self.valid.ravel()] = 0.0
        impostor_weight = -mu * active.sum(axis=1)
        keep = np.flatnonzero(impostor_weight)
        i_rows, i_cols, i_weight = rows[keep], cols[keep], impostor_weight[keep]
        T = sp.csr_array((target_weight, self.targets.ravel(), self.target_indptr), shape=(n, n))
        i_indptr = np.zeros(n + 1, dtype=np.intp)
        np.cumsum(np.bincount(i_rows, minlength=n), out=i_indptr[1:])
        I = sp.csr_array((i_weight, i_cols, i_indptr), shape=(n, n))
        degree = (
            target_weight.reshape(n, self.k).sum(axis=1)
            + np.bincount(self.targets.ravel(), weights=target_weight, minlength=n)
            + np.bincount(i_rows, weights=i_weight, minlength=n)
            + np.bincount(i_cols, weights=i_weight, minlength=n)
        )
        CX = T @ X + I @ X
        CZ = T @ Z + I @ Z
        gradient = Z.T @ (degree[:, None] * X - CX) - CZ.T @ X
        gradient *= 2.0
        return loss, gradient.ravel()

    def margin_radius(self, L):
        """Per point: largest squared target distance + 1 (an impostor inside it is active)."""
        Z = self.X @ L.T
        dist = self.target_distances(Z)
        return dist.max(axis=1, initial=-np.inf) + 1.0, Z


def minimize_lmnn(objective, L, max_iter, tol, on_iterate=None):
    """L-BFGS on the LMNN loss over a fixed active set of impostor candidates, restarted with a
    recomputed set every `objective.refresh` iterations, or sooner once the loss has halved since
    the last refresh (L has then moved far). Each L-BFGS run thus sees one consistent function.
    The fit ends when L-BFGS converges and a recomputation at the optimum finds no active impostor
    outside the set. Returns L, iterations and the loss per iteration; the value recorded at each
    refresh is the exact loss with the new set, so the curve may step up there.
    `on_iterate(flat_L, loss)` (optional) hears every value put on the curve and its L, in order
    (the loss at a refresh is the one L-BFGS saw; the curve then holds the exact one)."""
    shape = L.shape
    curve, n_iter = [], 0
    run_start = [0.0]

    def record(intermediate_result):
        curve.append(float(intermediate_result.fun))
        if on_iterate is not None:
            on_iterate(intermediate_result.x, curve[-1])
        if curve[-1] < 0.5 * run_start[0]:
            raise StopIteration  # refresh the impostor set before going further

    Z = objective.X @ L.T
    objective.refresh_impostors(Z, objective.target_distances(Z))
    curve.append(objective(L.ravel())[0])  # exact: the set was just built at L
    if on_iterate is not None:
        on_iterate(L.ravel(), curve[-1])
    while n_iter < max_iter:
        run_start[0] = curve[-1]
        result = minimize(
            objective,
            L.ravel(),
            method="L-BFGS-B",
            jac=True,
            tol=tol,
            options={"maxiter": min(objective.refresh, max_iter - n_iter)},
            callback=record,
        )
        L = result.x.reshape(shape)
        n_iter += int(result.nit)
        Z = objective.X @ L.T
        complete = objective.refresh_impostors(Z, objective.target_distances(Z))
        curve[-1] = objective(L.ravel())[0]  # the exact loss at this iterate
        converged = result.nit < objective.refresh and curve[-1] >= 0.5 * run_start[0]
        if (complete and converged) or result.nit == 0:
            break
    return L, n_iter, curve


# metric-learn 0.7's LMNN arguments with a counterpart here: n_neighbors is k; its loss is
# regularization·pull + (1 − regularization)·push, ours (1 − μ)·pull + μ·push
FROM_METRIC_LEARN = {
    "n_neighbors": ("k", 3, int),
    "regularization": ("mu", 0.5, lambda value: 1.0 - value),
}


@fill_doc
@parameters
class LMNN(MahalanobisMixin):
    """Large Margin Nearest Neighbor (Weinberger et al. 2006), optimised over L with L-BFGS.

    Loss: (1 − mu) · pull + mu · push (paper Section 2.2 with c = mu / (1 − mu)). Target neighbours
    are the k same-class nearest neighbours in the input space (k is clipped to class size − 1;
    points of a one-sample class have none). Impostors (i, l) are kept in an active set: pairs
    within (1 + impostor_slack) times the margin radius of i and i's nearest other-class point,
    found every `impostor_refresh` L-BFGS iterations (sooner when the loss has halved); pairs
    already in the set stay while within twice that radius. The fit stops only after a search
    finds no impostor outside the set, so the final loss is the exact LMNN loss.
    `loss_curve_` holds the loss after each iteration (exact at each recomputation, where it can
    step up when new impostors enter).

    Parameters
    ----------
    n_components : int or None
        Output dimension (None: d).
    k : int
        Target neighbours per point.
    mu : float in [0, 1)
        Weight of the push (impostor) term; 1 − mu weights the pull term.
    max_iter : int
        Total L-BFGS iterations.
    tol : float
        L-BFGS tolerance (relative change of the loss).
    init : {"pca", "lda", "identity", "random", "auto"} or ndarray of shape (n_components, d)
        The start ("auto" = "pca"); a matrix is checked as scikit-learn's NCA checks it.
    impostor_refresh : int
        L-BFGS iterations between recomputations of the impostor set.
    impostor_slack : float
        Relative slack of the candidate radius.
    callback : callable or None
        Called after every iteration as `callback(transformation, n_iter)` (the flattened L), as
        scikit-learn's NCA calls it.
    verbose : int
        0: silent; 1: progress lines in scikit-learn's style on stdout (the loss at every
        iteration, each recomputation of the impostor set, the training time).
    random_state : int, RandomState or None
        For init="random".
    record_iterates : bool
        Keep L at every value of `loss_curve_` in `iterates_` (for watching the fit learn; the
        start first); off by default, and the fit is the same either way.
    n_neighbors, regularization : int or None, float or None
        metric-learn's names, with its meaning: k, and 1 − mu (its loss is
        regularization·pull + (1 − regularization)·push); given with k or mu changed, refused.
    learn_rate, convergence_tol, min_iter, preprocessor : None
        metric-learn's arguments with no counterpart here: None only (a value is refused at fit
        with what to use instead).

    %(lbfgs_attributes)s
    loss_curve_ : list of float
        The loss per iteration.
    target_neighbors_ : ndarray of shape (n, k)
        Each point's target neighbours (−1 where its class has fewer).
    n_impostors_ : int
        Active impostor pairs at the end.
    iterates_, first_iterate_ : list of ndarray, int
        With record_iterates: L at every value of the curve; 0 (iterates_[0] is the start).

    See Also
    --------
    NCA : Neighbourhood Components Analysis.
    TangentMetricKNN : LMNN on tangent residuals.

    Notes
    -----
    metric-learn's `LMNN` and this one, parameter by parameter:

    ======================  =========================  ======================================
    metriclab               metric-learn 0.7           note
    ======================  =========================  ======================================
    ``k``                   ``n_neighbors``            target neighbours per point
    ``mu``                  ``regularization``         push weight; theirs is (1 − mu)'s
                                                       counterpart: loss = (1 − μ)·pull + μ·push
                                                       in both
    ``max_iter``            ``max_iter``               ours counts L-BFGS iterations, theirs
                                                       gradient-descent steps
    (L-BFGS step sizes)     ``learn_rate``             no counterpart: L-BFGS chooses its steps
    ``tol``                 ``convergence_tol``        relative change of the loss
    ``init``                ``init``                   the same names, plus a matrix
    ``n_components``        ``n_components``
    ``verbose``             ``verbose``
    ``impostor_refresh``    —                          how often the impostor set is recomputed
    ======================  =========================  ======================================

    References
    ----------
    K. Weinberger, J. Blitzer and L. Saul, "Distance metric learning for large margin nearest
    neighbor classification", NIPS 2006.

    Examples
    --------
    >>> from metriclab import LMNN
    >>> from metriclab.datasets import load
    >>> from metriclab.evaluation import knn_accuracy
    >>> ds = load("wine")
    >>> lmnn = LMNN(k=3, max_iter=50).fit(ds.X[::2], ds.y[::2])
    >>> lmnn.components_.shape
    (13, 13)
    >>> Z_train, Z_test = lmnn.transform(ds.X[::2]), lmnn.transform(ds.X[1::2])
    >>> accuracy = knn_accuracy(Z_train, ds.y[::2], Z_test, ds.y[1::2])
    >>> accuracy > knn_accuracy(ds.X[::2], ds.y[::2], ds.X[1::2], ds.y[1::2])
    True
    """

    _parameter_rules = {
        **ITERATIVE_RULES,
        "k": Rule("int", low=1),
        "mu": Rule("float", low=0, high=1, high_open=True),
        "tol": Rule("float", low=0.0, low_open=True),
        "impostor_refresh": Rule("int", low=1),
        "impostor_slack": Rule("float", low=0.0),
        "n_neighbors": Rule("int", low=1, none_ok=True),  # metric-learn's k
        "regularization": Rule("float", low=0, high=1, low_open=True, none_ok=True),  # its 1 − μ
    }

    n_components: int | None = None
    k: int = 3
    mu: float = 0.5
    max_iter: int = 200
    tol: float = 1e-05
    init: str | np.ndarray = "pca"
    impostor_refresh: int = 25
    impostor_slack: float = 0.1
    callback: Callable | None = None
    verbose: int = 0
    random_state: int | np.random.RandomState | None = 0
    record_iterates: bool = False
    # metric-learn 0.7's names (checked at fit: `metric_learn_arguments`)
    _: KW_ONLY
    n_neighbors: int | None = None
    regularization: float | None = None
    learn_rate: float | None = None
    convergence_tol: float | None = None
    min_iter: int | None = None
    preprocessor: None = None

    @fill_doc
    def fit(self, X, y, X_neighbors=None):
        """Learn L from labelled points.

        %(fit_params)s
        %(x_neighbors_param)s

        %(returns_self)s
        """
        check_params(self)  # the class's _parameter_rules
        theirs = metric_learn_arguments(self, FROM_METRIC_LEARN)
        k, max_iter, refresh = (
            int(theirs.get("k", self.k)),
            int(self.max_iter),
            int(self.impostor_refresh),
        )
        tol, slack, mu = (
            float(self.tol),
            float(self.impostor_slack),
            float(theirs.get("mu", self.mu)),
        )
        if self.callback is not None and not callable(self.callback):
            raise InvalidParameterError(f"callback must be callable or None, got {self.callback!r}")
        X, y = self._validate_labeled(X, y)
        d = X.shape[1]
        asked = None if self.n_components is None else self._resolve_n_components(d)
        init, n_components = resolve_start(self.init, X, asked)
        X_neighbors = neighbor_space(X_neighbors, X)
        # work on the points sorted by class: same-class blocks are then contiguous slices
        order = np.argsort(y, kind="stable")
        X, y, X_neighbors = X[order], y[order], X_neighbors[order]
        with single_thread_blas():
            targets, _ = target_neighbors(X_neighbors, y, k)
        if targets.size == 0 or not (targets >= 0).any():
            raise ValueError("LMNN needs a class with at least two samples (no target neighbours)")
        init = "pca" if isinstance(init, str) and init == "auto" else init
        objective = _LMNNObjective(X, y, targets, mu, n_components, refresh=refresh, slack=slack)
        log = FitLog(type(self).__name__, self.verbose)
        with single_thread_blas():
            L = initial_components(init, X, n_components, self.random_state, y, self.verbose)
            iterates, count, clock = [], [0], [time.time()]

            def on_iterate(flat_L, loss):
                if self.record_iterates:
                    iterates.append(flat_L.reshape(L.shape).copy())
                if count[0] > 0 and self.callback is not None:  # after an iteration, not the start
                    self.callback(flat_L.copy(), count[0])
                log.line(count[0], loss, time.time() - clock[0])
                count[0] += 1
                clock[0] = time.time()

            L, n_iter, curve = minimize_lmnn(objective, L, max_iter, tol, on_iterate)
            radius, Z = objective.margin_radius(L)
            rows, _, _ = impostor_candidates(Z, objective.ranges, radius, 0.0)
        self.components_ = L
        self.n_iter_ = n_iter
        self.loss_curve_ = curve
        if self.record_iterates:
            self.iterates_, self.first_iterate_ = iterates, 0  # the start L is iteration 0
        target_neighbors_ = np.full_like(targets, -1)
        target_neighbors_[order] = np.where(targets >= 0, order[np.maximum(targets, 0)], -1)
        self.target_neighbors_ = target_neighbors_
        self.n_impostors_ = int(rows.size)
        log.say(f"{n_iter} iterations, {self.n_impostors_} active impostor pairs at the end")
        log.done()
        return self
