"""Discriminant kernels and multidimensional scaling (Zhang 2003).

The pipeline of the paper: a discriminant kernel on (input, label) pairs (kernels.py, Eqs. (3)-(12))
gives a Euclidean, Fisher-separable dissimilarity (Eqs. (13)-(16), Theorem 2); classical MDS embeds
the labelled points; an expansion f(x) = W' phi(x) (Eq. (17)) fitted by iterative majorization
(Eq. (19)) maps new points, whose labels are unknown.

Also here: the checks the paper's theorems are about, on any dissimilarity matrix —
`is_euclidean` (Gower & Legendre's Theorem 1) and `is_fisher_separable` (Definition 2).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import ArpackError, eigsh
from scipy.spatial.distance import cdist
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from metriclab._docstrings import fill_doc
from metriclab.kernels import (
    COMBINATIONS,
    DELTA_DISSIMILARITIES,
    base_kernel,
    class_mean_width,
    correlation_kernel,
    discriminant_kernel,
    gaussian_kernel,
    kernel_squared_distances,
    squared_distances,
)
from metriclab.validation import (
    InvalidParameterError,
    Rule,
    check_choice,
    check_int,
    check_params,
    fix_signs,
    parameters,
)

KERNELS = ("gaussian", "cosine", "linear", "polynomial")
DISSIMILARITY_CHOICES = ("kernel", *DELTA_DISSIMILARITIES)
BASES = ("rbf", "linear")
INITS = ("mds", "random")  # starting W(0) of the majorization
DENSE_EIGEN_MAX = 1000  # up to this many points classical MDS keeps the full spectrum
TILE = 256  # side of the square tiles of the majorization passes: their buffers stay in L2 cache


# --- checks on a dissimilarity matrix ------------------------------------------------------------


def _check_dissimilarity(D: np.ndarray, name: str = "D") -> np.ndarray:
    D = np.asarray(D, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] != D.shape[1]:
        raise ValueError(f"{name} must be a square dissimilarity matrix, got shape {D.shape}")
    if not np.isfinite(D).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    if (D < 0).any():
        raise ValueError(f"{name} has negative entries; dissimilarities must be >= 0")
    return D


def double_centre(Delta2: np.ndarray) -> np.ndarray:
    """-1/2 H Delta2 H with H = I - 11'/n (Theorem 1 with s = 1/n): the Gram matrix of classical MDS."""
    B = np.array(Delta2, dtype=np.float64, copy=True)
    row = B.mean(axis=1)
    col = B.mean(axis=0)
    B -= row[:, None]
    B -= col[None, :]
    B += row.mean()
    B *= -0.5
    return B


class GowerCheck(NamedTuple):
    """Verdict of Gower's test. `relative_min_eigenvalue` = most negative eigenvalue / largest |eigenvalue|."""

    euclidean: bool
    relative_min_eigenvalue: float
    min_eigenvalue: float
    scale: float


def is_euclidean(D: np.ndarray, tol: float = 1e-10, squared: bool = False) -> GowerCheck:
    """Is D (distances; squared=True: squared distances) Euclidean? Theorem 1 (Gower & Legendre).

    D is Euclidean iff -1/2 H D^2 H is positive semidefinite; the verdict allows a most negative
    eigenvalue down to -tol times the largest eigenvalue magnitude (rounding).
    """
    D = _check_dissimilarity(D)
    B = double_centre(D if squared else D**2)
    n = B.shape[0]
    lowest = scale = None
    if n > 2 * DENSE_EIGEN_MAX:
        v0 = _start_vector(n)
        try:
            lowest = float(eigsh(B, k=1, which="SA", v0=v0, return_eigenvectors=False)[0])
            scale = float(np.abs(eigsh(B, k=1, which="LM", v0=v0, return_eigenvectors=False)[0]))
        except ArpackError:  # e.g. highly repeated eigenvalues: fall back to the dense solver
            lowest = None
    if lowest is None:
        eigenvalues = scipy.linalg.eigvalsh(B)
        lowest, scale = float(eigenvalues[0]), float(np.abs(eigenvalues).max())
    scale = scale if scale > 0 else 1.0
    relative = lowest / scale
    return GowerCheck(bool(relative >= -tol), relative, lowest, scale)


class FisherCheck(NamedTuple):
    """Definition 2: separable iff every within-class dissimilarity < every between-class one.
    `tie`: the margin is within rounding of the dissimilarities' scale (separable in exact
    arithmetic perhaps, but no separation a picture or a classifier can show)."""

    separable: bool
    margin: float  # min between-class minus max within-class dissimilarity
    max_within: float
    min_between: float
    tie: bool = False  # |margin| within rounding of the dissimilarities' scale


def is_fisher_separable(D: np.ndarray, y: np.ndarray, rel_tol: float = 1e-8) -> FisherCheck:
    """Fisher separability of a dissimilarity matrix under labels y (Definition 2); `tie` flags a
    margin within rel_tol × max(D) of zero (e.g. delta3 on nearly orthogonal points)."""
    D = _check_dissimilarity(D)
    y = np.asarray(y)
    if y.shape != (D.shape[0],):
        raise ValueError(f"y has {y.shape[0] if y.ndim else 0} labels for {D.shape[0]} points")
    if np.unique(y).size < 2:
        raise ValueError("Fisher separability needs points of at least two classes")
    same = y[:, None] == y[None, :]
    np.fill_diagonal(same, False)
    different = y[:, None] != y[None, :]
    max_within = float(D[same].max()) if same.any() else 0.0
    min_between = float(D[different].min())
    margin = min_between - max_within
    tie = abs(margin) <= rel_tol * float(np.abs(D).max())
    return FisherCheck(bool(margin > 0), margin, max_within, min_between, bool(tie))


# --- classical MDS -------------------------------------------------------------------------------


def _start_vector(n: int) -> np.ndarray:
    """Deterministic ARPACK start vector (not 1: it spans the null space of a centred matrix)."""
    return np.random.default_rng(0).standard_normal(n)


def classical_mds(
    D: np.ndarray,
    n_components: int = 2,
    eigen_solver: str = "auto",
    n_eigenvalues: int = 10,
) -> tuple[np.ndarray, np.ndarray]:
    """Classical (Torgerson-Gower) MDS of distances D: top eigenvectors of -1/2 H D^2 H.

    Returns (embedding n x n_components, eigenvalues in decreasing order). eigen_solver "dense"
    (scipy eigh) returns the whole spectrum; "arpack" (eigsh, for large n) returns the leading
    max(n_components, n_eigenvalues). "auto" is dense up to DENSE_EIGEN_MAX points. Negative
    eigenvalues (a non-Euclidean D) give zero coordinates.
    """
    D = _check_dissimilarity(D)
    n = D.shape[0]
    check_int("n_components", n_components, 1)
    check_choice("eigen_solver", eigen_solver, ("auto", "dense", "arpack"))
    B = double_centre(D**2)
    if eigen_solver == "auto":
        eigen_solver = "dense" if n <= DENSE_EIGEN_MAX else "arpack"
    m = min(int(n_components), n)  # n points span at most n - 1 dimensions: the rest are zeros
    k = max(m, n_eigenvalues)
    eigenvalues = None
    if eigen_solver == "arpack" and k < n - 1:
        try:
            eigenvalues, V = eigsh(B, k=k, which="LA", v0=_start_vector(n))
        except ArpackError:  # e.g. highly repeated eigenvalues: fall back to the dense solver
            eigenvalues = None
    if eigenvalues is None:
        eigenvalues, V = scipy.linalg.eigh(B)
    order = np.argsort(eigenvalues)[::-1]
    eigenvalues, V = eigenvalues[order], fix_signs(V[:, order[:m]])
    Y = np.zeros((n, int(n_components)))
    Y[:, :m] = V * np.sqrt(np.maximum(eigenvalues[:m], 0.0))
    return Y, eigenvalues


# --- expansion technique and iterative majorization (Section 4) -----------------------------------


def _pairwise_distances(A: np.ndarray, X: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Euclidean distances rows(A) x rows(X) into the C-contiguous `out`: from the differences
    (exact, no cancellation) in low dimension, by the Gram expansion otherwise."""
    if X.shape[1] <= 8:
        return cdist(A, X, out=out)
    np.matmul(A, X.T, out=out)
    out *= -2.0
    out += (A**2).sum(1)[:, None]
    out += (X**2).sum(1)[None, :]
    np.maximum(out, 0.0, out=out)
    return np.sqrt(out, out=out)


def _majorization_pass(D: np.ndarray, X: np.ndarray, tiny: float) -> tuple[np.ndarray, float]:
    """(L_c X, e^2) for the configuration X: the C(V)V term of Eq. (19) and the stress of Eq. (18).

    L_c = diag(rowsum c) - c with c_ij = d_ij / q_ij (0 where q_ij = 0), so that
    C(V) = 2 Phi' L_c Phi and C(V)V = 2 Phi' (L_c X). D must be symmetric: the pass visits the
    tiles on and above the diagonal only, each sized to stay in cache, with reused buffers.
    """
    n = X.shape[0]
    b = min(n, TILE)
    Q, T, small = np.empty(b * b), np.empty(b * b), np.empty(b * b, dtype=bool)
    rowsum = np.zeros(n)
    CX = np.zeros_like(X)
    stress = 0.0
    for i in range(0, n, b):
        I = slice(i, min(i + b, n))
        for j in range(i, n, b):
            J = slice(j, min(j + b, n))
            shape = (I.stop - i, J.stop - j)
            size = shape[0] * shape[1]
            q, t = Q[:size].reshape(shape), T[:size].reshape(shape)
            z = small[:size].reshape(shape)
            _pairwise_distances(X[I], X[J], q)
            Dij = D[I, J]
            np.subtract(Dij, q, out=t)
            flat = T[:size]
            stress += (1.0 if i == j else 2.0) * float(flat @ flat)  # Eq. (18), (i, j) and (j, i)
            np.less_equal(q, tiny, out=z)
            q[z] = np.inf  # c_ij = 0 where q_ij = 0
            np.divide(Dij, q, out=t)
            rowsum[I] += t.sum(axis=1)
            CX[I] += t @ X[J]
            if i != j:
                rowsum[J] += t.sum(axis=0)
                CX[J] += t.T @ X[I]
    return rowsum[:, None] * X - CX, stress


def majorization_stress(D: np.ndarray, X: np.ndarray) -> float:
    """e^2 = sum_ij (d_ij - ||x_i - x_j||)^2 over all ordered pairs, Eq. (18)."""
    return _majorization_pass(np.asarray(D, dtype=np.float64), np.asarray(X, dtype=np.float64), 0)[
        1
    ]


def fit_expansion(
    D: np.ndarray,
    Phi: np.ndarray,
    W0: np.ndarray,
    max_iter: int = 100,
    tol: float = 1e-6,
) -> tuple[np.ndarray, np.ndarray]:
    """Fit W of f(x) = W' phi(x) to the dissimilarities D by iterative majorization, Eq. (19).

    W <- B^+ C(V) V with B = sum_ij (phi_i - phi_j)(phi_i - phi_j)' = 2 Phi' (nI - 11') Phi. Stops
    when an iteration lowers e^2 by less than tol * sum_ij d_ij^2 (the normalised stress, as
    scikit-learn's SMACOF). Returns (W, stress per iteration, starting with the stress of W0);
    the stress never increases (majorization). D must be symmetric.
    """
    n = Phi.shape[0]
    s = Phi.sum(axis=0)
    B = n * (Phi.T @ Phi) - np.outer(s, s)  # Phi' (nI - 11') Phi; the factor 2 cancels with C(V)
    B_pinv = scipy.linalg.pinvh(B, atol=0.0, rtol=1e-10 * max(B.shape[0], 1))
    tiny = 1e-12 * float(D.max()) if D.size else 0.0
    scale = float(np.einsum("ij,ij->", D, D))
    W = np.array(W0, dtype=np.float64, copy=True)
    LcX, stress = _majorization_pass(D, Phi @ W, tiny)
    history = [stress]
    for _ in range(max_iter):
        W = B_pinv @ (Phi.T @ LcX)  # Eq. (19)
        LcX, stress = _majorization_pass(D, Phi @ W, tiny)
        history.append(stress)
        if history[-2] - stress <= tol * scale:
            break
    return W, np.asarray(history)


def rbf_basis(X: np.ndarray, centres: np.ndarray, width: float) -> np.ndarray:
    """phi_j(x) = exp(-||x - m_j||^2 / beta), the Gaussian radial basis of Section 5."""
    return gaussian_kernel(X, centres, width=width)


def default_n_basis(n_train: int) -> int:
    """A quarter of the training points (the paper's 10 of 40), at least 10 (or all), at most 200."""
    return min(200, max(min(10, n_train), n_train // 4))


def expansion_width(X: np.ndarray, centres: np.ndarray) -> float:
    """Width of the RBF basis that scales with the data: the median squared distance from the
    training points to the centres (so a typical point sits at exp(-1) of a typical centre).

    The paper's beta (Sect. 5) is a distance (average distance to the class means) divided into
    squared distances; on its 2-D and 4-D sets the two are of one size, but in 256-D every basis
    function is ~0 away from its centre and unseen points collapse onto a few positions."""
    d2 = squared_distances(X, centres)
    width = float(np.median(d2))
    if not (np.isfinite(width) and width > 0):
        positive = d2[d2 > 0]
        width = float(np.median(positive)) if positive.size else 1.0
    return width


def _stratified_centres(y_codes: np.ndarray, n_basis: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of n_basis training points, shared among the classes like the paper (5 of each ...)."""
    classes, counts = np.unique(y_codes, return_counts=True)
    n_basis = min(n_basis, y_codes.size)
    share = np.maximum(1, np.floor(n_basis * counts / counts.sum()).astype(int))
    share = np.minimum(share, counts)
    while share.sum() < n_basis:  # hand out the remainder to classes with points left
        spare = np.flatnonzero(share < counts)
        share[spare[np.argmax(counts[spare] - share[spare])]] += 1
    chosen = [
        rng.choice(np.flatnonzero(y_codes == c), k, replace=False)
        for c, k in zip(classes, share, strict=True)
    ]
    return np.sort(np.concatenate(chosen))


# --- the estimator ---------------------------------------------------------------------------------


@parameters
class DiscriminantKernelMDS(TransformerMixin, BaseEstimator):
    """Zhang (2003): discriminant-kernel dissimilarities, classical MDS, and an RBF expansion.

    fit(X, y) on labelled points builds the kernel k1 (x) label kernel (combine="tensor") or
    alpha1 k1 + alpha2 label kernel (combine="sum"), its feature-space distances `dissimilarity_`
    (square roots of the paper's delta), and embeds them by classical MDS (`embedding_`,
    `eigenvalues_`). Then the expansion f(x) = W' phi(x) is fitted to the same dissimilarities by
    iterative majorization (`stress_` per iteration) and `transform(X_new)` maps any points.

    Parameters
    ----------
    n_components : int
        Dimension l of the embedding (may exceed the number of labelled points, as in the
        paper's l = d on soybean: classical MDS then pads with zero coordinates).
    kernel : {"gaussian", "cosine", "linear", "polynomial"}
        Base kernel k1: the Gaussian g_ij(beta) of Eq. (7), the correlation kernel rho^q of
        Eq. (8) (q = `degree`), linear, or polynomial (x'y + 1)^degree.
    width : float or None
        beta of the Gaussian kernel; None: the average distance of the labelled points to their
        class means (the paper's rule).
    combine : {"tensor", "sum"}
        Tensor product (Eq. 3) or direct sum (Eq. 4).
    dissimilarity : {"kernel", "delta1", "delta2", "delta3", "delta4"}
        "kernel" (from `kernel` and `combine`) or one of the paper's dissimilarities, which fix
        (kernel, combine) to (gaussian, tensor), (gaussian, sum), (cosine, tensor) and
        (cosine, sum): Eqs. (13)-(16) exactly at alpha1 = alpha2 = 1/2.
    degree : int
        q of the correlation kernel (even q keeps Fisher separability), or the polynomial degree.
    alpha1, alpha2 : float
        Mixing weights of the direct sum, Eq. (4).
    basis : {"rbf", "linear"}
        Gaussian radial basis (Sections 5.1-5.2) or phi(x) = x (Section 5.3).
    n_basis : int or None
        Number p of RBF centres, sampled from the training points class by class; None: a
        quarter of the training points (the paper's 10 of 40), at least 10, at most 200.
    basis_width : float or None
        Width of the RBF basis; None: the median squared distance from the training points to
        the centres (`expansion_width`, which scales with the data). The paper uses beta itself
        on its 2-D/4-D sets (metriclab.reproduce.zhang passes it); in many dimensions beta leaves
        every basis function near 0 and unseen points collapse.
    init : {"mds", "random"}
        Initial W(0): a least-squares fit of the classical MDS embedding, or random.
    max_iter : int
        Iterative majorization stops after `max_iter` updates ...
    tol : float
        ... or when an update lowers the stress e^2 by less than tol * sum_ij d_ij^2.
    random_state : int
        Seed of the centres and of a random W(0).

    Attributes
    ----------
    kernel_ : ndarray
        The training discriminant kernel matrix.
    dissimilarity_ : ndarray
        The distances sqrt(delta_ij).
    embedding_ : ndarray
        Classical MDS of the training points.
    eigenvalues_ : ndarray
        The MDS spectrum, decreasing (whole for n <= 1000, else the leading 10).
    width_ : float
        beta used.
    basis_width_ : float
        The RBF width used.
    coef_, intercept_ : ndarray
        The expansion: transform(X) = phi(X) ``coef_`` + ``intercept_``, rotated onto `embedding_` by
        Procrustes (which leaves all distances unchanged).
    stress_ : ndarray
        e^2 per majorization iteration.
    n_iter_ : int
        Majorization iterations run.
    centres_ : ndarray
        The RBF centres.
    classes_ : ndarray
        The labels.

    See Also
    --------
    sklearn.manifold.MDS : Metric MDS (SMACOF) in scikit-learn.
    metriclab.plotting.dissimilarity : Draw ``dissimilarity_``.

    References
    ----------
    Z. Zhang, "Learning metrics via discriminant kernels and multidimensional scaling: toward
    expected Euclidean representation", ICML 2003.

    Examples
    --------
    >>> from metriclab import DiscriminantKernelMDS
    >>> from metriclab.datasets import load
    >>> from metriclab.evaluation import labeled_mask, nearest_mean_accuracy
    >>> ds = load("two_rings")
    >>> mask = labeled_mask(ds.y, per_class=20, seed=0)
    >>> mds = DiscriminantKernelMDS(dissimilarity="delta2", max_iter=20)
    >>> mds = mds.fit(ds.X[mask], ds.y[mask])
    >>> mds.dissimilarity_.shape
    (40, 40)
    >>> F = mds.transform(ds.X)
    >>> nearest_mean_accuracy(F[mask], ds.y[mask], F[~mask], ds.y[~mask]) > 0.9
    True
    """

    # the values each parameter accepts, checked at fit (`metriclab.validation.check_params`)
    _parameter_rules = {
        "n_components": Rule("int", low=1),
        "dissimilarity": Rule("choice", choices=DISSIMILARITY_CHOICES, none_ok=True),
        "kernel": Rule("choice", choices=KERNELS),
        "combine": Rule("choice", choices=COMBINATIONS),
        "width": Rule("float", low=0.0, low_open=True, none_ok=True),
        "degree": Rule("int", low=1),
        "alpha1": Rule("float", low=0.0),
        "alpha2": Rule("float", low=0.0),
        "basis": Rule("choice", choices=BASES),
        "n_basis": Rule("int", low=1, none_ok=True),
        "basis_width": Rule("float", low=0.0, low_open=True, none_ok=True),
        "init": Rule("choice", choices=INITS),
        "max_iter": Rule("int", low=0),
        "tol": Rule("float", low=0.0),
    }

    n_components: int = 2
    kernel: str = "gaussian"
    width: float | None = None
    combine: str = "sum"
    dissimilarity: str | None = "kernel"
    degree: int = 2
    alpha1: float = 0.5
    alpha2: float = 0.5
    basis: str = "rbf"
    n_basis: int | None = None
    basis_width: float | None = None
    init: str = "mds"
    max_iter: int = 100
    tol: float = 1e-06
    random_state: int | np.random.RandomState | None = 0

    # -- validation --
    def _resolved_kernel(self) -> tuple[str, str]:
        dissimilarity = "kernel" if self.dissimilarity is None else self.dissimilarity
        check_choice("dissimilarity", dissimilarity, DISSIMILARITY_CHOICES)
        if dissimilarity != "kernel":
            return DELTA_DISSIMILARITIES[dissimilarity]
        return check_choice("kernel", self.kernel, KERNELS), check_choice(
            "combine", self.combine, COMBINATIONS
        )

    def _check_params(self) -> None:
        check_params(self)  # the class's _parameter_rules
        if self.alpha1 + self.alpha2 == 0:
            raise InvalidParameterError("alpha1 and alpha2 must not both be 0")

    # -- the maths --
    def _base_kernel(self, kernel: str, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
        if kernel == "gaussian":
            return gaussian_kernel(X, Y, width=self.width_)  # Eq. (7)
        if kernel == "cosine":
            return correlation_kernel(X, Y, degree=int(self.degree))  # Eq. (8)
        return base_kernel(kernel, X, Y, degree=int(self.degree), coef0=1.0)

    def _basis(self, X: np.ndarray) -> np.ndarray:
        if self.basis == "linear":
            return X  # phi(x) = x, Section 5.3
        return rbf_basis(X, self.centres_, self.basis_width_)

    @fill_doc
    def fit(self, X, y):
        """Learn the dissimilarities, their MDS embedding and the expansion from labelled points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The labelled points.
        y : array-like of shape (n_samples,)
            Their classes (no -1: every training point is labelled).

        %(returns_self)s
        """
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        if y is None:
            raise ValueError(
                "DiscriminantKernelMDS needs the class labels y of the training points"
            )
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y has {y.size} labels for {X.shape[0]} points")
        if y.dtype.kind in "iu" and (y == -1).any():
            raise ValueError(
                "labels of -1 mark unlabelled points; DiscriminantKernelMDS is fitted on the "
                "labelled points only (fit(X[labelled], y[labelled]))"
            )
        self.classes_, codes = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError("DiscriminantKernelMDS needs labelled points of at least two classes")
        n = X.shape[0]
        self._check_params()
        kernel, combine = self._resolved_kernel()
        self.kernel_name_, self.combine_ = kernel, combine
        self.width_ = float(self.width) if self.width is not None else class_mean_width(X, codes)

        with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below
            K1 = self._base_kernel(kernel, X)
        self.kernel_ = discriminant_kernel(
            K1, codes, combine=combine, alpha1=self.alpha1, alpha2=self.alpha2
        )
        if not np.isfinite(self.kernel_).all():
            raise ValueError(
                f"the {kernel} kernel overflows on these features (values too large); scale the "
                "features or lower the degree"
            )
        self.dissimilarity_ = np.sqrt(kernel_squared_distances(self.kernel_))  # Eqs. (5)-(6)
        self.embedding_, self.eigenvalues_ = classical_mds(self.dissimilarity_, self.n_components)

        rng = np.random.default_rng(self.random_state)
        if self.basis == "rbf":
            n_basis = self.n_basis if self.n_basis is not None else default_n_basis(n)
            self.centres_ = X[_stratified_centres(codes, int(n_basis), rng)]
            self.basis_width_ = (
                float(self.basis_width)
                if self.basis_width is not None
                else expansion_width(X, self.centres_)
            )
        else:
            self.centres_ = None
            self.basis_width_ = None
        Phi = self._basis(X)
        W0 = self._initial_coefficients(Phi, rng)
        W, self.stress_ = fit_expansion(self.dissimilarity_, Phi, W0, int(self.max_iter), self.tol)
        self.n_iter_ = len(self.stress_) - 1
        self.coef_, self.intercept_ = self._align(Phi @ W, W)
        return self

    def _initial_coefficients(self, Phi: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        Phi_c = Phi - Phi.mean(axis=0)
        if self.init == "mds":  # least-squares fit of the centred MDS configuration
            return np.linalg.lstsq(Phi_c, self.embedding_ - self.embedding_.mean(0), rcond=None)[0]
        W0 = rng.standard_normal((Phi.shape[1], self.n_components))
        spread = np.linalg.norm(Phi_c @ W0) / np.sqrt(Phi.shape[0])
        target = np.sqrt(np.mean(self.dissimilarity_**2) / 2.0)
        return W0 * (target / spread) if spread > 0 else W0

    def _align(self, F: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rotate/reflect the expansion onto the MDS embedding (orthogonal Procrustes)."""
        f_mean, y_mean = F.mean(axis=0), self.embedding_.mean(axis=0)
        U, _, Vt = np.linalg.svd((F - f_mean).T @ (self.embedding_ - y_mean))
        R = U @ Vt
        return W @ R, y_mean - f_mean @ R

    @fill_doc
    def transform(self, X):
        """Map points with the fitted expansion f(x) = W' phi(x) (Eq. 17; no labels needed).

        %(transform_params)s
            Their coordinates (the training points land near ``embedding_``).
        """
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._basis(X) @ self.coef_ + self.intercept_

    @fill_doc
    def fit_transform(self, X, y=None, **fit_params):
        """Fit on labelled points and map them with the expansion.

        %(fit_params)s
        **fit_params : dict
            Ignored.

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            ``transform(X)`` (the expansion's map, not ``embedding_`` itself).
        """
        return self.fit(X, y).transform(X)
