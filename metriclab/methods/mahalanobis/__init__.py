"""Linear Mahalanobis learners: NCA, LMNN and DNE (Chatpatanasiri et al. 2009, Section 2).

Every learner learns only a linear map L (`components_`, shape n_components × d); the distance is
d_M(x, y)² = (x − y)ᵀ M (x − y) with M = LᵀL, and `transform(X) = X Lᵀ` (metric-learn's split of a
base Mahalanobis mixin from the algorithms). The kernel versions (KNCA, KLMNN, KDNE) apply these
learners to kernel-PCA coordinates (`metriclab.methods.kpca_trick`).

- NCA (Goldberger et al. 2005; paper Eq. (3)): softmax neighbour objective, analytic gradient,
  scipy L-BFGS.
- LMNN (Weinberger et al. 2006; paper Section 2.2): pull target neighbours, hinge on impostor
  triplets; optimised over L with L-BFGS; impostor candidates (pairs within a slack of the margin,
  plus each point's nearest other-class point) form an active set found by blockwise distances and
  recomputed every `impostor_refresh` iterations, when the loss has halved, and at convergence (the
  fit ends only when no impostor is missing from the active set). The gradient is accumulated as
  pair weights and applied with sparse products: no loop over points or triplets.
- DNE (Zhang et al. 2007; paper Eq. (4)): smallest eigenvectors of Xᵀ(D − W)X with AAᵀ = I.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.decomposition import PCA as _SklearnPCA
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from metriclab.methods.registry import MethodSpec, Param
from metriclab.validation import (
    check_choice,
    check_fraction,
    check_int,
    check_nonnegative,
    check_positive,
    fix_signs,
)

PAIR_BLOCK = 65_536  # impostor pairs per block in the LMNN loss (memory: block × dim floats)
_STARTS = ("pca", "lda", "identity", "random")  # starting maps of `initial_components`
_INITS = ("auto", *_STARTS)  # "auto": the learner picks one


_CONTROLLER = []


def single_thread_blas():
    """Context limiting BLAS to one thread. Our products are small or many; on the 2 shared cores
    this was faster for every learner. The controller is built once (building it costs ~10 ms)."""
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


# --------------------------------------------------------------------------------------------
# Shared base
# --------------------------------------------------------------------------------------------


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
    check_choice("init", init, _STARTS)
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


# --------------------------------------------------------------------------------------------
# NCA
# --------------------------------------------------------------------------------------------


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

    Attributes
    ----------
    components_ : (n_components, d) ndarray — L, with M = LᵀL.
    n_iter_ : int, loss_curve_ : list of the (negated) objective per iteration.
    """

    def __init__(self, n_components=None, max_iter=100, tol=1e-5, init="auto", random_state=0):
        self.n_components = n_components
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.random_state = random_state

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
        curve = []

        def record(intermediate_result):
            curve.append(float(intermediate_result.fun))

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
        return self


# --------------------------------------------------------------------------------------------
# LMNN
# --------------------------------------------------------------------------------------------


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


def minimize_lmnn(objective, L, max_iter, tol):
    """L-BFGS on the LMNN loss over a fixed active set of impostor candidates, restarted with a
    recomputed set every `objective.refresh` iterations, or sooner once the loss has halved since
    the last refresh (L has then moved far). Each L-BFGS run thus sees one consistent function.
    The fit ends when L-BFGS converges and a recomputation at the optimum finds no active impostor
    outside the set. Returns L, iterations and the loss per iteration; the value recorded at each
    refresh is the exact loss with the new set, so the curve may step up there."""
    shape = L.shape
    curve, n_iter = [], 0
    run_start = [0.0]

    def record(intermediate_result):
        curve.append(float(intermediate_result.fun))
        if curve[-1] < 0.5 * run_start[0]:
            raise StopIteration  # refresh the impostor set before going further

    Z = objective.X @ L.T
    objective.refresh_impostors(Z, objective.target_distances(Z))
    curve.append(objective(L.ravel())[0])  # exact: the set was just built at L
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
    n_components : int or None — output dimension (None: d).
    k : int — target neighbours per point.
    mu : float in [0, 1) — weight of the push (impostor) term; 1 − mu weights the pull term.
    max_iter : int — total L-BFGS iterations.
    tol : float — L-BFGS tolerance (relative change of the loss).
    init : "pca" | "lda" | "identity" | "random" | "auto" ("auto" = "pca").
    impostor_refresh : int — L-BFGS iterations between recomputations of the impostor set.
    impostor_slack : float — relative slack of the candidate radius.
    random_state : int, RandomState or None.

    Attributes
    ----------
    components_, n_iter_, loss_curve_ (loss per iteration), target_neighbors_ (n × k),
    n_impostors_ (active impostor pairs at the end).
    """

    def __init__(
        self,
        n_components=None,
        k=3,
        mu=0.5,
        max_iter=200,
        tol=1e-5,
        init="pca",
        impostor_refresh=25,
        impostor_slack=0.1,
        random_state=0,
    ):
        self.n_components = n_components
        self.k = k
        self.mu = mu
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.impostor_refresh = impostor_refresh
        self.impostor_slack = impostor_slack
        self.random_state = random_state

    def fit(self, X, y, X_neighbors=None):
        """Learn L. `X_neighbors` (optional, same rows as X) is the space in which target
        neighbours are chosen (the KPCA trick with an unweighted kernel uses the input space)."""
        k = check_int("k", self.k, 1)
        max_iter = check_int("max_iter", self.max_iter, 1)
        refresh = check_int("impostor_refresh", self.impostor_refresh, 1)
        tol = check_positive("tol", self.tol)
        slack = check_nonnegative("impostor_slack", self.impostor_slack)
        mu = check_fraction("mu", self.mu, high_open=True)
        check_choice("init", self.init, _INITS)
        X, y = self._validate_labeled(X, y)
        n, d = X.shape
        n_components = self._resolve_n_components(d)
        if X_neighbors is None:
            X_neighbors = X
        else:
            X_neighbors = np.asarray(X_neighbors, dtype=np.float64)
            if X_neighbors.ndim != 2 or X_neighbors.shape[0] != n:
                raise ValueError(
                    f"X_neighbors must have {n} rows like X, got shape {X_neighbors.shape}"
                )
        # work on the points sorted by class: same-class blocks are then contiguous slices
        order = np.argsort(y, kind="stable")
        X, y, X_neighbors = X[order], y[order], X_neighbors[order]
        with single_thread_blas():
            targets, _ = target_neighbors(X_neighbors, y, k)
        if targets.size == 0 or not (targets >= 0).any():
            raise ValueError("LMNN needs a class with at least two samples (no target neighbours)")
        init = "pca" if self.init == "auto" else self.init
        objective = _LMNNObjective(X, y, targets, mu, n_components, refresh=refresh, slack=slack)
        with single_thread_blas():
            L = initial_components(init, X, n_components, self.random_state, y)
            L, n_iter, curve = minimize_lmnn(objective, L, max_iter, tol)
            radius, Z = objective.margin_radius(L)
            rows, _, _ = impostor_candidates(Z, objective.ranges, radius, 0.0)
        self.components_ = L
        self.n_iter_ = n_iter
        self.loss_curve_ = curve
        target_neighbors_ = np.full_like(targets, -1)
        target_neighbors_[order] = np.where(targets >= 0, order[np.maximum(targets, 0)], -1)
        self.target_neighbors_ = target_neighbors_
        self.n_impostors_ = int(rows.size)
        return self


# --------------------------------------------------------------------------------------------
# DNE
# --------------------------------------------------------------------------------------------


def dne_weights(X, y, k):
    """Symmetric W of DNE (paper Section 2.3): +1 for within-class k-NN pairs, −1 for
    between-class k-NN pairs (either direction), 0 otherwise. Sparse n × n."""
    n = X.shape[0]
    within, _ = target_neighbors(X, y, k)
    rows, cols, vals = [], [], []
    valid = within >= 0
    rows.append(np.broadcast_to(np.arange(n)[:, None], within.shape)[valid])
    cols.append(within[valid])
    vals.append(np.ones(valid.sum()))
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        others = np.flatnonzero(y != c)
        kc = min(k, others.size)
        ind = nearest_rows(X[members], X[others], kc)
        rows.append(np.repeat(members, kc))
        cols.append(others[ind].ravel())
        vals.append(-np.ones(members.size * kc))
    rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    W = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    W = W + W.T  # symmetrise: j ∈ Neig(i) or i ∈ Neig(j)
    W.data = np.sign(W.data)  # a pair found from both sides still has weight ±1
    return W


class DNE(MahalanobisMixin):
    """Discriminant Neighbourhood Embedding (Zhang et al. 2007), paper Eq. (4).

    A* = argmin_{AAᵀ = I} trace(A Xᵀ(D − W)X Aᵀ): the rows of A are the eigenvectors of
    Xᵀ(D − W)X with the smallest eigenvalues (they may be negative; D − W is not PSD).

    Parameters
    ----------
    n_components : int or None — output dimension (None: d).
    k : int — within-class and between-class neighbours per point (within-class k is clipped to
        class size − 1, between-class k to the number of other-class points).

    Attributes
    ----------
    components_ : (n_components, d), orthonormal rows. eigenvalues_ : ascending.
    """

    def __init__(self, n_components=2, k=3):
        self.n_components = n_components
        self.k = k

    def fit(self, X, y, X_neighbors=None):
        """`X_neighbors` (optional, same rows as X): the space in which neighbours are chosen."""
        k = check_int("k", self.k, 1)
        X, y = self._validate_labeled(X, y)
        n, d = X.shape
        n_components = self._resolve_n_components(d)
        if X_neighbors is None:
            X_neighbors = X
        else:
            X_neighbors = np.asarray(X_neighbors, dtype=np.float64)
            if X_neighbors.ndim != 2 or X_neighbors.shape[0] != n:
                raise ValueError(
                    f"X_neighbors must have {n} rows like X, got shape {X_neighbors.shape}"
                )
        with single_thread_blas():
            W = dne_weights(X_neighbors, y, k)
            laplacian = sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W
            S = X.T @ (laplacian @ X)  # Eq. (4): X(D − W)Xᵀ in the paper's column convention
            S = 0.5 * (S + S.T)
            eigenvalues, eigenvectors = np.linalg.eigh(S)  # ascending
        self.eigenvalues_ = eigenvalues[:n_components]
        self.components_ = fix_signs(eigenvectors[:, :n_components].T, axis=1)
        self.all_eigenvalues_ = eigenvalues
        return self


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------

_N_COMPONENTS = Param(
    "n_components",
    "Output dimension",
    "int",
    2,
    low=1,
    high=50,
    help="Rows of L (dimension of the learned space); at most the number of features.",
)
_K = Param(
    "k",
    "Neighbours k",
    "int",
    3,
    low=1,
    high=30,
    help="Same-class target neighbours per point (clipped to the class size − 1).",
)

SPECS = [
    MethodSpec(
        key="nca",
        label="NCA",
        paper="chatpatanasiri-2009",
        params=[
            _N_COMPONENTS,
            Param(
                "max_iter",
                "Iterations",
                "int",
                100,
                low=5,
                high=1000,
                log=True,
                help="L-BFGS iterations.",
            ),
        ],
        factory=NCA,
        family="mahalanobis",
        needs_labels=True,
        transductive=False,
        baseline="euclidean",
        description="Neighbourhood Components Analysis: a linear map maximising the expected "
        "leave-one-out accuracy of a soft nearest-neighbour rule (Goldberger et al. 2005).",
    ),
    MethodSpec(
        key="lmnn",
        label="LMNN",
        paper="chatpatanasiri-2009",
        params=[
            _N_COMPONENTS,
            _K,
            Param(
                "mu",
                "Push weight μ",
                "float",
                0.5,
                low=0.05,
                high=0.95,
                help="Weight of the impostor (push) term; 1 − μ weights the pull term "
                "(μ = 0 would only pull, shrinking the map to zero).",
            ),
            Param(
                "max_iter",
                "Iterations",
                "int",
                200,
                low=5,
                high=2000,
                log=True,
                help="Total L-BFGS iterations.",
            ),
        ],
        factory=LMNN,
        family="mahalanobis",
        needs_labels=True,
        transductive=False,
        baseline="euclidean",
        description="Large Margin Nearest Neighbor: pulls k same-class target neighbours close and "
        "pushes other-class impostors out of a unit margin (Weinberger et al. 2006).",
    ),
    MethodSpec(
        key="dne",
        label="DNE",
        paper="chatpatanasiri-2009",
        params=[_N_COMPONENTS, _K],
        factory=DNE,
        family="mahalanobis",
        needs_labels=True,
        transductive=False,
        baseline="euclidean",
        description="Discriminant Neighbourhood Embedding: an orthonormal projection that squeezes "
        "same-class neighbours and spreads other-class neighbours, by one eigenproblem "
        "(Zhang et al. 2007).",
    ),
]
