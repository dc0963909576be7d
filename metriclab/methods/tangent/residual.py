"""Mahalanobis metrics learned on tangent residuals (thesis sections 2.2.2 and 4.1–4.2): LMNN on
the shortest tangent vectors of neighbouring training pairs, or the inverse second moment of the
same-class residuals; 1-NN with the learned metric applied to the shortest tangent vector.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from metriclab._docstrings import fill_doc
from metriclab.methods.mahalanobis.base import MetricLearnInterface, _split_pairs
from metriclab.methods.tangent.distance import tangent_residuals
from metriclab.methods.tangent.knn import _BATCH, TangentDistanceKNN, _TangentIndex
from metriclab.methods.tangent.vectors import resolve_transforms
from metriclab.validation import Rule, parameters

METRICS = ("lmnn", "whiten", "identity")  # Mahalanobis metrics of TangentMetricKNN


def _residual_neighbourhoods(
    index: _TangentIndex, y, k: int, n_impostors: int, prefilter: int, progress=None
):
    """Shortest tangent vectors of each training image to its k same-class target neighbours and
    its n_impostors nearest other-class images, both by tangent distance among the pre-filter set.
    `progress(done, n, message)` hears each finished block of images.

    Returns V_t (n×k×d), mask_t (n×k), V_i (n×m×d), mask_i (n×m); missing slots are masked out.
    """
    X = index.X
    n, d = X.shape
    idx_all = index.candidates(X, exclude_self=True, prefilter=prefilter)
    V_t = np.zeros((n, k, d), dtype=np.float32)  # float32 halves memory and the LMNN products
    V_i = np.zeros((n, n_impostors, d), dtype=np.float32)
    mask_t = np.zeros((n, k), dtype=bool)
    mask_i = np.zeros((n, n_impostors), dtype=bool)
    for start in range(0, n, _BATCH):
        stop = min(start + _BATCH, n)
        q = X[start:stop]
        qq, ridge_q = index.Q[start:stop], index.ridge[start:stop]
        idx = idx_all[start:stop]
        beta_x, beta_y, d2 = index.solve_block(q, qq, ridge_q, idx)
        e = index.residual_block(q, qq, idx, beta_x, beta_y)
        same = y[idx] == y[start:stop, None]
        for kind, want, V, mask in ((same, k, V_t, mask_t), (~same, n_impostors, V_i, mask_i)):
            key = np.where(kind, d2, np.inf)
            order = np.argsort(key, axis=1, kind="stable")[:, :want]
            ok = np.isfinite(np.take_along_axis(key, order, axis=1))
            rows = np.arange(stop - start)[:, None]
            V[start:stop, : order.shape[1]] = e[rows, order] * ok[..., None]
            mask[start:stop, : order.shape[1]] = ok
        if progress is not None:
            progress(stop, n, "shortest tangent vectors to each training image's neighbours")
    return V_t, mask_t, V_i, mask_i


def whitening_metric(V_t, mask_t, shrinkage: float = 0.1) -> np.ndarray:
    """L with L'L = (S + s·tr(S)/d·I)^-1, S the second moment of same-class tangent residuals.

    The Mahalanobis matrix M = Σ⁻¹ of thesis section 2.2.2, estimated on residuals, shrunk
    towards the identity for stability.
    """
    V = V_t[mask_t]
    S = V.T @ V / max(len(V), 1)
    d = S.shape[0]
    S = (1 - shrinkage) * S + shrinkage * np.trace(S) / d * np.eye(d)
    evals, evecs = np.linalg.eigh(S)
    return (evecs / np.sqrt(np.maximum(evals, 1e-12))).T


def _lmnn_residual_loss(flat_L, shape, V_t, w_t, V_i, w_i, mu, C_t):
    """LMNN objective (thesis Eq. 2.19) on shortest tangent vectors, and its gradient in L.

    (1-μ) Σ_ij |L v_ij|² + μ Σ_ijl [1 + |L v_ij|² - |L v_il|²]_+ over targets j and impostor
    candidates l of each i. Gradient 2 L Σ c_v v v' with c_v the weight of each residual; the pull
    part 2(1-μ) L C_t uses the precomputed C_t = Σ_targets v v', the hinge part only active rows.
    """
    L = flat_L.reshape(shape)
    Lf = L.astype(V_t.dtype)
    Pt = V_t @ Lf.T  # n·k × c
    Pi = V_i @ Lf.T  # n·m × c
    dt = np.einsum("ac,ac->a", Pt, Pt, dtype=np.float64).reshape(w_t.shape)
    di = np.einsum("ac,ac->a", Pi, Pi, dtype=np.float64).reshape(w_i.shape)
    hinge = 1.0 + dt[:, :, None] - di[:, None, :]
    active = (hinge > 0) & w_t[:, :, None] & w_i[:, None, :]
    loss = (1 - mu) * dt[w_t].sum() + mu * hinge[active].sum()
    grad = 2 * (1 - mu) * (L @ C_t)
    count_t = active.sum(axis=2).ravel()
    count_i = active.sum(axis=1).ravel()
    rows_t, rows_i = np.flatnonzero(count_t), np.flatnonzero(count_i)
    if rows_t.size:
        push = (Pt[rows_t] * count_t[rows_t, None].astype(Pt.dtype)).T @ V_t[rows_t]
        push -= (Pi[rows_i] * count_i[rows_i, None].astype(Pi.dtype)).T @ V_i[rows_i]
        grad += 2 * mu * push.astype(np.float64)
    return float(loss), grad.ravel()


def lmnn_residual_metric(
    V_t, mask_t, V_i, mask_i, n_components=None, mu=0.5, max_iter=100, progress=None
):
    """L minimising the LMNN loss on tangent residuals by L-BFGS, started at a scaled identity.

    Target and impostor residuals are fixed (computed once with the Euclidean tangent distance),
    as in the thesis, where LMNN is trained on the shortest tangent vectors instead of x_i - x_j.
    Residuals may be float32 (the products run in their precision; sums in float64).
    `progress(iteration, max_iter, message)` hears each L-BFGS iteration and its loss.
    """
    n, k, d = V_t.shape
    c = d if n_components is None else int(min(n_components, d))
    Vt = V_t.reshape(-1, d)
    sq = np.einsum("ad,ad->a", Vt, Vt, dtype=np.float64)[mask_t.ravel()]
    scale = np.sqrt(sq.mean()) if sq.size and sq.mean() > 0 else 1.0
    L0 = np.eye(c, d) / scale  # identity start (thesis 4.2), unit mean target distance
    Vm = Vt[mask_t.ravel()].astype(np.float64)
    C_t = Vm.T @ Vm
    args = ((c, d), Vt, mask_t, V_i.reshape(-1, d), mask_i, float(mu), C_t)
    # One BLAS thread: these tall-skinny products gain little from threads and lose much on a
    # shared machine (bench/README.md, "Notes measured once").
    iterations = 0

    def report(intermediate_result):
        nonlocal iterations
        iterations += 1
        loss = intermediate_result.fun
        progress(iterations, int(max_iter), f"LMNN iteration {iterations}, loss {loss:.4g}")

    with threadpool_limits(limits=1, user_api="blas"):
        result = minimize(
            _lmnn_residual_loss,
            L0.ravel(),
            args=args,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": int(max_iter)},
            callback=None if progress is None else report,
        )
    return result.x.reshape(c, d), result


@fill_doc
@parameters
class TangentMetricKNN(MetricLearnInterface, TangentDistanceKNN):
    """1-NN (k-NN) with a Mahalanobis metric applied to the shortest tangent vector (thesis 4.1).

    metric: "lmnn" learns L by LMNN on tangent residuals of neighbouring training pairs (k target
    neighbours of the same class, `impostors` nearest other-class images, both by tangent distance
    in the pre-filter set); "whiten" uses the inverse second moment of same-class residuals;
    "identity" is plain tangent distance. At prediction the shortest tangent vector is found in
    the Euclidean metric (Eqs. 2.12–2.13) and measured with ‖L e‖.

    metric-learn's interface: `get_mahalanobis_matrix()` is M = LᵀL on the shortest tangent
    vectors; `pair_distance(pairs)`, `pair_score(pairs)` and `get_metric()` measure a pair of
    images as the classifier does, ‖L e‖ with e their shortest tangent vector.

    %(tangent_params)s
    metric : {"lmnn", "whiten", "identity"}, default="lmnn"
        How L is learned: LMNN on tangent residuals, the inverse second moment of same-class
        residuals, or none (plain tangent distance).
    n_components : int or None, default=None
        Rows of L (None: one per pixel).
    k : int, default=3
        Same-class target neighbours per training image (LMNN).
    impostors : int, default=10
        Nearest other-class images per training image whose residuals enter LMNN's push term.
    mu : float, default=0.5
        LMNN's push weight (1 − mu weighs the pull).
    max_iter : int, default=100
        LMNN's L-BFGS iterations.
    train_prefilter : int, default=30
        Euclidean candidates per training image when its tangent neighbours are searched.
    shrinkage : float, default=0.1
        Shrinkage of the second moment towards its scaled identity ("whiten").

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_pixels)
        L, applied to the shortest tangent vector.
    n_iter_ : int
        LMNN's L-BFGS iterations (0 for "whiten" and "identity").
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    image_shape_ : tuple of int
        (height, width) of the images.

    See Also
    --------
    TangentDistanceKNN : The same classifier with the plain tangent distance.
    LMNN : LMNN on the images themselves.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab import TangentMetricKNN
    >>> from metriclab.datasets import load
    >>> ds = load("usps")
    >>> train, test = np.arange(0, 300), np.arange(7291, 7341)
    >>> knn = TangentMetricKNN(image_shape=ds.image_shape, metric="whiten", prefilter=20)
    >>> knn = knn.fit(ds.X[train], ds.y[train])
    >>> knn.predict(ds.X[test]).shape
    (50,)
    >>> knn.get_mahalanobis_matrix().shape
    (256, 256)
    >>> pair = np.stack([ds.X[test[0]], ds.X[test[1]]])[None]
    >>> bool(np.isclose(knn.pair_distance(pair)[0], -knn.pair_score(pair)[0]))
    True
    """

    # added to TangentDistanceKNN's rules (`metriclab.validation.check_params` reads both)
    _parameter_rules = {
        "metric": Rule("choice", choices=METRICS),
        "n_components": Rule("int", low=1, none_ok=True),
        "k": Rule("int", low=1),
        "impostors": Rule("int", low=1),
        "mu": Rule("float", low=0.0, high=1.0),
        "max_iter": Rule("int", low=1),
        "train_prefilter": Rule("int", low=1),
        "shrinkage": Rule("float", low=0.0, high=1.0),
    }

    metric: str = "lmnn"
    n_components: int | None = None
    k: int = 3
    impostors: int = 10
    mu: float = 0.5
    max_iter: int = 100
    train_prefilter: int = 30
    shrinkage: float = 0.1

    def fit(self, X, y, progress=None):
        """Learn the metric on the training images.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_pixels)
            The training images, one per row.
        y : array-like of shape (n_samples,)
            Their classes.
        progress : callable, optional
            ``progress(done, total, message)`` hears the stages (the residuals of each block of
            images, then each LMNN iteration).

        Returns
        -------
        self : object
            The fitted classifier.
        """
        X, y, shape = self._validate(X, y)  # with the ranges declared in the methods' specs
        if X.shape[0] < 2:
            raise ValueError("need at least two training images to learn a metric")
        self.classes_, self.y_ = np.unique(y, return_inverse=True)
        self.image_shape_ = shape
        index = self._build_index(X, shape)
        self.n_iter_ = 0  # L-BFGS iterations of the LMNN metric (none for whiten / identity)
        if self.metric == "identity":
            L = np.eye(X.shape[1])
        else:
            V_t, mask_t, V_i, mask_i = _residual_neighbourhoods(
                index,
                self.y_,
                int(self.k),
                int(self.impostors),
                int(self.train_prefilter),
                progress,
            )
            if self.metric == "whiten":
                L = whitening_metric(V_t, mask_t, float(self.shrinkage))
                if self.n_components is not None:
                    L = L[-int(self.n_components) :]
            else:
                L, self.optimizer_result_ = lmnn_residual_metric(
                    V_t,
                    mask_t,
                    V_i,
                    mask_i,
                    self.n_components,
                    float(self.mu),
                    int(self.max_iter),
                    progress,
                )
                self.n_iter_ = int(self.optimizer_result_.nit)
        index.set_metric(L)
        self.components_ = L
        self.index_ = index
        return self

    # metric-learn's interface (`MetricLearnInterface`) on pairs of images
    def _metric_matrix(self):
        check_is_fitted(self, "components_")
        return self.components_.T @ self.components_

    def pair_distance(self, pairs, b=None):
        """Return ‖L e‖ of each pair of images, e its shortest tangent vector.

        The pairs are measured as `predict` measures them.

        Parameters
        ----------
        pairs : array-like of shape (n_pairs, 2, n_pixels)
            The pairs; or, with `b`, the first images of shape (n_pairs, n_pixels).
        b : array-like of shape (n_pairs, n_pixels), optional
            The second images, paired by row.

        Returns
        -------
        ndarray of shape (n_pairs,)
            The distances.
        """
        check_is_fitted(self, "components_")
        a, b = _split_pairs(pairs, b)
        e = tangent_residuals(
            a,
            b,
            self.image_shape_,
            two_sided=bool(self.two_sided),
            transforms=resolve_transforms(self.transforms),
            sigma=self.sigma,
            regularization=self.regularization,
        )
        return np.linalg.norm(np.atleast_2d(e) @ self.components_.T, axis=1)

    def get_metric(self):
        """Return the learned distance of two images as a function.

        Returns
        -------
        callable
            ``metric(u, v, squared=False)``: the distance of two images as `pair_distance`
            measures them (its square with ``squared=True``).
        """
        check_is_fitted(self, "components_")

        def metric(u, v, squared=False):
            d = float(self.pair_distance(np.stack([u, v])[None])[0])
            return d * d if squared else d

        return metric
