"""TDL (Li, Yang & Wang 2007) and Laplacian Eigenmaps (its C = 0 special case).

TDL learns a Euclidean embedding of all points, labeled and unlabeled, as the eigenvectors with the
smallest eigenvalues of C' + λP' (Eq. 3, Algorithm 1):

- cost C (Eq. 6): for every labeled x_i, +1/k towards its k nearest labeled same-class neighbours
  and -1/k towards its k nearest labeled other-class neighbours (1/#available when fewer than k
  exist, Section 3.1), symmetrised as (C + Cᵀ)/2, which leaves Tr(CD) unchanged;
  C' = 2(diag(Ce) - C) (Proposition 3), so that yᵀC'y = Σ c_ij (y_i - y_j)².
- penalty P' = L, the graph Laplacian of a kNN (or full) Gaussian graph (Section 3.2).
- laplacian="unnormalized" (the default): eigenvectors of C' + λL, L = D - W (Eq. 3 as written,
  P' = L), orthonormal and ⊥ e (Eq. 3's constraint XᵀEX = 0). λ is then weighed against the heat
  weights exp(-d²/t) themselves: where neighbours are far apart against t (UCI in [0,1] at
  t = 0.25) L is small and λ = 1024 still leaves room for the labels; on dense 2-D data (the
  moons, weights near 1) the same λ is a far stronger penalty.
  laplacian="symmetric" (Section 5.1 says "the normalized Laplacian of an adjacency graph is used
  for penalty" without saying which): eigenvectors of C' + λ L_sym, L_sym = I - D^-1/2 W D^-1/2,
  orthonormal and constrained ⊥ D^1/2 e, the null vector of L_sym (the normalised counterpart of
  XᵀEX = 0); with C = 0 this is Laplacian Eigenmaps with L_sym exactly. L_sym is scale-free
  (eigenvalues in [0, 2]), so λ weighs the cost against a penalty of fixed size.
  laplacian="random_walk": the generalized problem (C' + λL) v = μ D v of Belkin & Niyogi, solved
  as D^-1/2 (C' + λL) D^-1/2 y = μ y, v = D^-1/2 y; D-orthonormal and D-orthogonal to e (the cost
  is divided by the degrees, so it grows where the graph is sparse).
- cost_scale="sum" (the default): Σ_i C'_i as in Eq. (3); cost_scale="mean": (1/n) Σ_i C'_i with
  n the number of labeled points, as in Eqs. (1)-(2), which Eq. (3) drops (the same as λ·n).
- No label at all (`TDL().fit(X)`, or y all -1): C = 0, and TDL is Laplacian Eigenmaps, the
  paper's C = 0 case (Section 2.2): the embedding of `LaplacianEigenmaps` with the same graph
  parameters exactly, its eigenvalues times λ (asserted in tests/test_spectral.py). This is kept
  as a documented equivalence rather than an error: it is the paper's own baseline and the
  limit of a labelled fraction going to 0, so a transductive fit without labels (in a pipeline,
  or an unsupervised check) gets that baseline. Labelled points of one class only are refused
  (the other-class cost would be missing, not zero).

Which reading is the paper's: `metriclab.reproduce.tdl` (experiments tdl-moons, tdl-uci,
tdl-mnist) runs them side by side; the numbers are in docs/reproduction/README.md. In short, the
default (unnormalized Laplacian, the sum) was adopted after Table 1 had been run because it is the
only reading with TDL above LE on ionosphere, yet under it sonar reverses
[claim tdl-table1-some-cases: partly]; under the symmetric Laplacian TDL rises above LE on the
moons at Figure 1's λ = 16 (83 against 69 %, 30 splits) without separating them
[claim tdl-fig1, symmetric: partly]; no reading gives both at the paper's λ.

- The trivial vector is a constraint, not a guess: the problem is solved on its orthogonal
  complement (the projected matrix P S P with the trivial vector moved to the top of the
  spectrum). Where it is an exact eigenvector (unnormalized and random_walk, since C'e = Le = 0)
  this removes it exactly when the solver would have returned it, whatever the sign of the other
  eigenvalues (C' is indefinite, so they can be negative: Section 2.1), and never drops a genuine
  eigenvector.

Solvers: `metriclab.eigen.smallest_eigenpairs` (dense eigh for small n; beyond, chosen per
problem by the estimated fill-in of the sparse LU: shift-invert ARPACK where the LU stays sparse
(manifolds), Chebyshev-filtered Lanczos where it would fill in (high-dimensional data); never an
n × n dense matrix past a few thousand points). The path used and the relative residual of the returned
eigenpairs are reported as `eigen_solver_` and `eigen_residual_`.

Out-of-sample (`transform`): Lemma 6 / Eq. (7). f(x) = Σ_i α_i k(x_i, x) with the Gaussian kernel
k(x, x') = exp(-||x - x'||² / kernel_width) on the training points (kernel_width defaults to the
graph's heat width `width_`); α minimises αᵀ(K A K + λγ K)α subject to αᵀ K B K α = I and to
orthogonality to the trivial vector, where A is the matrix whose eigenvectors `fit` returned (cost
+ λ·penalty, normalised as in fit), B its inner product (I, or D for random_walk) and γ =
`kernel_penalty` weighs the RKHS norm ‖f‖²_H against the graph penalty. With γ → 0 and a full-rank
K the map interpolates `embedding_` exactly at the training points (Theorem 4); γ > 0 smooths it.
How closely the map follows `embedding_` at the training points and how held-out points land
is asserted in tests/test_spectral.py. The map needs the n × n kernel: up to
OUT_OF_SAMPLE_MAX_POINTS.
"""

from __future__ import annotations

import time
from dataclasses import KW_ONLY, field

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn import config_context
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from metriclab._docstrings import fill_doc
from metriclab.array_module import DEVICES, resolve_device
from metriclab.cache import array_digest, canonical_json, module_digest
from metriclab.eigen import (
    EIGEN_SOLVERS,
    Eigenpairs,
    smallest_eigenpairs,
    smallest_eigenvalues,
    thread_limit,
)
from metriclab.graph_store import SharedGraph, array_fact, is_frozen, label_cost
from metriclab.graphs import (
    GRAPH_KINDS,
    LAPLACIAN_KINDS,
    WEIGHT_KINDS,
    brute_force_neighbors,
    build_graph,
    degrees,
    inverse_sqrt_degrees,
    laplacian,
)
from metriclab.kernels import gaussian_kernel, squared_distances
from metriclab.progress import FitLog
from metriclab.validation import Rule, check_int, check_params, fix_signs, parameters

PAPER = "li-yang-wang-2007-transductive-metric-learning-TDL"
COST_SCALES = ("sum", "mean")  # Σ_i C'_i (Eq. 3) or (1/n) Σ_i C'_i (Eqs. 1-2)
OUT_OF_SAMPLE_MAX_POINTS = 4000
SINGLE_THREAD_MAX_POINTS = 3000
GPU_COST_MIN_WORK = 1e9  # (labelled points)² × features from which a GPU fit finds the label
# cost's neighbours there (all of MNIST, the app's 10 % labelled: 3.8e10, 1.5 s on 2 CPU cores)
DEFAULT_NEIGHBORS = 10  # k of the kNN graph for n_neighbors=None (at most n − 1)


# --------------------------------------------------------------------------------------------
# The matrices of the paper
# --------------------------------------------------------------------------------------------


def _nearest(reference: np.ndarray, query: np.ndarray | None, k: int) -> np.ndarray:
    """Indices of the k nearest reference points of each query point (query None: the reference
    points themselves, each excluding itself). Small problems by one distance matrix (no thread
    pool start-up), large ones by scikit-learn's NearestNeighbors."""
    n_query = reference.shape[0] if query is None else query.shape[0]
    if n_query * reference.shape[0] > 4_000_000:
        model = NearestNeighbors(n_neighbors=k).fit(reference)
        return model.kneighbors(query, return_distance=False)
    D2 = squared_distances(reference if query is None else query, reference)
    if query is None:
        np.fill_diagonal(D2, np.inf)
    part = np.argpartition(D2, k - 1, axis=1)[:, :k] if k < D2.shape[1] else np.argsort(D2, axis=1)
    order = np.argsort(np.take_along_axis(D2, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def cost_matrix(X: np.ndarray, y: np.ndarray, k: int, nearest=None) -> sp.csr_matrix:
    """Build TDL's symmetric label cost matrix C of Eq. (6) on all points.

    c_ij = +1/k_in for the k nearest labelled same-class neighbours x_j of a labelled x_i and
    -1/k_out for its k nearest labelled other-class neighbours, with k_in = min(k, #same - 1) and
    k_out = min(k, #other) (Section 3.1: average over the available neighbours); then (C + Cᵀ)/2.
    Only labelled rows and columns are non-zero.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        All points.
    y : ndarray of shape (n_samples,)
        Integer classes, -1 for an unlabelled point.
    k : int
        Same-class and other-class neighbours per labelled point.
    nearest : callable, optional
        The prior metric's neighbour search ``nearest(reference, query, k)``: row indices of X
        (query None: the reference rows, each excluding itself), returning positions in
        `reference`, nearest first (e.g. the tangent distance); None: Euclidean.

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        C, symmetric.

    See Also
    --------
    cost_laplacian : C' of Proposition 3.
    metriclab.TDL : Its ``fit`` takes a precomputed C as ``cost``.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.methods.spectral import cost_matrix
    >>> X = np.array([[0.0], [1.0], [5.0], [6.0], [3.0]])
    >>> C = cost_matrix(X, np.array([0, 0, 1, 1, -1]), k=1)
    >>> C.toarray()[:2].tolist()
    [[0.0, 1.0, -0.5, 0.0, 0.0], [1.0, 0.0, -1.0, -0.5, 0.0]]
    """
    if nearest is None:

        def nearest(reference, query, k):
            return _nearest(X[reference], None if query is None else X[query], k)

    n = X.shape[0]
    labeled = np.flatnonzero(y != -1)
    rows, cols, vals = [], [], []
    for c in np.unique(y[labeled]):
        same = labeled[y[labeled] == c]
        other = labeled[y[labeled] != c]
        k_in = min(k, same.size - 1)
        if k_in > 0:
            rows.append(np.repeat(same, k_in))
            cols.append(same[nearest(same, None, k_in).ravel()])
            vals.append(np.full(same.size * k_in, 1.0 / k_in))
        k_out = min(k, other.size)
        if k_out > 0:
            rows.append(np.repeat(same, k_out))
            cols.append(other[nearest(other, same, k_out).ravel()])
            vals.append(np.full(same.size * k_out, -1.0 / k_out))
    if not rows:
        return sp.csr_matrix((n, n))
    C = sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)
    )
    return ((C + C.T) * 0.5).tocsr()


def _device_nearest(X: np.ndarray, device: str):
    """`cost_matrix`'s ``nearest`` by exact brute force on `device`
    (`metriclab.graphs.brute_force_neighbors`): the label cost's distance products on the GPU.
    The same neighbours as the CPU's exact search, up to the order of equally distant ones."""

    def nearest(reference, query, k):
        queries = None if query is None else X[query]
        return brute_force_neighbors(X[reference], k, query=queries, device=device)[1]

    return nearest


def cost_laplacian(C) -> sp.csr_matrix:
    """Turn a cost matrix C into C' = 2(diag(Ce) - C) (Proposition 3).

    Then Tr(C'G) = Tr(CD) and yᵀC'y = Σ_ij c_ij (y_i - y_j)².

    Parameters
    ----------
    C : sparse matrix or ndarray of shape (n_samples, n_samples)
        A symmetric cost matrix (:func:`cost_matrix`).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        C'.

    See Also
    --------
    cost_matrix : C itself.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.methods.spectral import cost_laplacian
    >>> C = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> cost_laplacian(C).toarray().tolist()
    [[2.0, -2.0], [-2.0, 2.0]]
    """
    C = sp.csr_matrix(C)
    return (2.0 * (sp.diags(np.asarray(C.sum(axis=1)).ravel()) - C)).tocsr()


def penalized_problem(C_prime, W, d: np.ndarray, lam: float, kind: str):
    """(S, scale, trivial): the symmetric matrix whose constrained smallest eigenvectors Y give the
    embedding `scale * Y`, and the unit trivial vector the eigenvectors must be orthogonal to.

    unnormalized: S = C' + λ(D - W), trivial ∝ e (Eq. 3 with P' = L; Y ⊥ e is Eq. 3's XᵀEX = 0).
    symmetric:    S = C' + λ L_sym (Section 5.1: the normalised Laplacian as penalty), trivial ∝
                  D^1/2 e, the null vector of L_sym, so that C = 0 is Laplacian Eigenmaps exactly.
    random_walk:  S = D^-1/2 (C' + λL) D^-1/2, trivial ∝ D^1/2 e, embedding D^-1/2 Y: the
                  generalized problem (C' + λL) v = μ D v with vᵀD e = 0 (Belkin & Niyogi).
    An isolated vertex (degree 0) gets unit degree in D^-1/2 (its Laplacian row is zero).
    """
    n = d.shape[0]
    ones = np.ones(n)
    if kind == "unnormalized":
        scale, trivial = ones, ones
        S = _combine(C_prime, _kept_laplacian(W, "unnormalized"), lam)
    elif kind == "symmetric":
        scale, trivial = ones, np.sqrt(d)
        S = _combine(C_prime, _kept_laplacian(W, "symmetric"), lam)
    elif kind == "random_walk":
        scale = inverse_sqrt_degrees(d, isolated=1.0)
        trivial = 1.0 / scale
        S = _combine(C_prime, _kept_laplacian(W, "unnormalized"), lam)
        if sp.issparse(S):
            S = (sp.diags(scale) @ S @ sp.diags(scale)).tocsr()
        else:
            S = scale[:, None] * S * scale[None, :]
    else:
        raise ValueError(f"laplacian must be one of {LAPLACIAN_KINDS}, got {kind!r}")
    norm = np.linalg.norm(trivial)
    trivial = trivial / norm if norm > 0 else ones / np.sqrt(n)
    return S, scale, trivial


def _kept_laplacian(W, kind: str):
    """laplacian(W, kind), kept with W while it lives where W cannot change (a stored graph)."""
    return array_fact(W, ("laplacian", kind), lambda: read_only(laplacian(W, kind)))


def read_only(A):
    """A (an array or a sparse matrix) with its arrays made read-only: a value kept and shared
    (`array_fact`) that no caller may change."""
    for array in (
        (A.data, A.indices, A.indptr) if sp.issparse(A) and A.format in ("csr", "csc") else (A,)
    ):
        if isinstance(array, np.ndarray):
            array.flags.writeable = False
    return A


def _combine(C_prime, P, lam: float):
    """C' + λP' (Eq. 3), sparse when the penalty is sparse."""
    if sp.issparse(P):
        return (C_prime + lam * P).tocsr()
    return C_prime.toarray() + lam * np.asarray(P)


def cost_lower_bound(C, scale: np.ndarray) -> float:
    """A lower bound of λ_min(S): λP' and the same-class part of C' are PSD, so λ_min(S) >=
    -λ_max(diag(scale) C'_- diag(scale)), bounded by Gershgorin (C'_- from the other-class part)."""
    C = sp.csr_matrix(C)
    negative = C.copy()
    negative.data = np.maximum(-negative.data, 0.0)
    negative.eliminate_zeros()
    if negative.nnz == 0:
        return 0.0
    N = cost_laplacian(negative)
    N = sp.diags(scale) @ N @ sp.diags(scale)
    return -float(np.asarray(abs(N).sum(axis=1)).max())


# --------------------------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------------------------


@parameters
class _GraphSpectralEmbedding(TransformerMixin, BaseEstimator):
    """Shared fit / transform of TDL and Laplacian Eigenmaps (see the module docstring)."""

    # the values each parameter accepts, checked at fit (`metriclab.validation.check_params`)
    _parameter_rules = {
        "n_components": Rule("int", low=1),
        "n_neighbors": Rule("int", low=1, none_ok=True),  # None: DEFAULT_NEIGHBORS, at most n − 1
        "width": Rule("float", low=0.0, low_open=True, none_ok=True),
        "graph": Rule("choice", choices=GRAPH_KINDS),
        "weights": Rule("choice", choices=WEIGHT_KINDS),
        "laplacian": Rule("choice", choices=LAPLACIAN_KINDS),
        "eigen_solver": Rule("choice", choices=EIGEN_SOLVERS),
        "kernel_penalty": Rule("float", low=0.0),
        "kernel_width": Rule("float", low=0.0, low_open=True, none_ok=True),
        "tol": Rule("float", low=0.0),
        "verbose": Rule("int", low=0),
        "device": Rule("choice", choices=DEVICES),
    }

    # the parameters both embeddings take (`parameters`: the constructor is written from them);
    # all but n_components by keyword, as scikit-learn's SpectralEmbedding
    n_components: int = 2
    _: KW_ONLY
    n_neighbors: int | None = None
    width: float | None = None
    graph: str = "knn"
    weights: str = "heat"
    laplacian: str = "unnormalized"
    eigen_solver: str = "auto"
    kernel_penalty: float = 1e-3
    kernel_width: float | None = None
    tol: float = 0.0
    random_state: int | np.random.RandomState | None = 0
    verbose: int = 0
    device: str = "auto"

    def _cost_and_lam(self, X, y, cost=None, store=None) -> tuple[sp.csr_matrix, float]:
        raise NotImplementedError

    def _validate_common(self, X, y):
        # a read-only data set is checked finite once, not on every λ move (`array_fact`)
        finite = (
            is_frozen(X)
            and X.dtype.kind == "f"
            and array_fact(X, "finite", lambda: bool(np.isfinite(X).all()))
        )
        with config_context(assume_finite=finite):
            X = check_array(X, dtype=np.float64, ensure_min_samples=3)
        n = X.shape[0]
        if y is None:
            y = np.full(n, -1, dtype=np.int64)
        else:
            y = np.asarray(y)
            if y.ndim != 1 or y.shape[0] != n:
                raise ValueError(f"y must be a 1-D array of {n} labels (-1 = unlabeled)")
            if y.dtype.kind == "O":  # numbers held as objects are read as numbers
                try:
                    y = y.astype(np.float64)
                except (TypeError, ValueError):
                    raise ValueError(
                        "Unknown label type: y must hold integer class labels, with -1 for "
                        "unlabeled"
                    ) from None
            if y.dtype.kind not in "iub":
                if y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y)):
                    y = y.astype(np.int64)
                else:
                    raise ValueError(
                        "Unknown label type: y must hold integer class labels, with -1 for "
                        "unlabeled"
                    )
            y = y.astype(np.int64)
        check_params(self)  # the class's _parameter_rules
        self.device_ = resolve_device(self.device)  # "gpu" without CuPy: one line naming the extra
        check_int("n_components", self.n_components, 1, n - 2)  # and those the data set
        if self.n_neighbors is not None:  # None: DEFAULT_NEIGHBORS, at most n - 1
            check_int("n_neighbors", self.n_neighbors, 1, n - 1)
        return X, y

    def _graph_neighbors(self, n: int) -> int:
        """The k of the kNN graph on n points: n_neighbors, or for None DEFAULT_NEIGHBORS capped
        at n − 1 (a default that fits small data, as SpectralEmbedding's does)."""
        if self.n_neighbors is None:
            return min(DEFAULT_NEIGHBORS, n - 1)
        return int(self.n_neighbors)

    @fill_doc
    def fit(self, X, y=None, graph=None, cost=None):
        """Embed the points X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            All points, labelled and unlabelled.
        y : array-like of shape (n_samples,), default=None
            Integer class labels, -1 for an unlabelled point (ignored by LaplacianEigenmaps).
        graph : tuple (W, width), optional
            A graph from :func:`metriclab.graphs.build_graph` on this X with this model's graph
            parameters, reused by fits that differ only in the labels or λ (the splits of a
            reproduction), or built from another prior metric than the Euclidean one (the
            tangent distance, Section 5.3).
        cost : sparse matrix of shape (n_samples, n_samples), optional
            TDL's cost matrix C of Eq. (6) (:func:`metriclab.methods.spectral.cost_matrix`),
            when its neighbours come from another prior metric.

        %(returns_self)s
        """
        X, y = self._validate_common(X, y)
        n = X.shape[0]
        if graph is not None and getattr(graph[0], "shape", None) != (n, n):
            raise ValueError(f"graph must be a ({n} × {n}) affinity and a width")
        if cost is not None and getattr(cost, "shape", None) != (n, n):
            raise ValueError(f"cost must be the ({n} × {n}) cost matrix C of Eq. (6)")
        # small problems: one thread (BLAS/OpenMP thread start-up costs more than the work)
        with thread_limit(1 if n <= SINGLE_THREAD_MAX_POINTS else None):
            return self._fit(X, y, graph, cost)

    def _fit(self, X, y, graph=None, cost=None):
        log = FitLog(type(self).__name__, self.verbose)
        clock = time.perf_counter()
        self.n_neighbors_ = self._graph_neighbors(X.shape[0])
        W, self.width_ = graph if graph is not None else self._graph(X)
        t_graph = time.perf_counter()
        log.say(
            f"graph: {self.graph} on {X.shape[0]:,} points ({W.nnz if sp.issparse(W) else W.size:,}"
            f" weights)... done in {t_graph - clock:5.2f}s"
        )
        # a graph from metriclab.graph_store: the label cost and solved problems are kept there
        shared = graph if isinstance(graph, SharedGraph) else None
        with thread_limit(1):  # many small products: threads only add start-up and contention
            C, lam = self._cost_and_lam(X, y, cost, None if shared is None else shared.store)
        # a stored graph's and label cost's derived matrices are kept while they live: a λ move
        # changes none of them (`array_fact`; 28 ms a move on all of MNIST)
        C_prime = array_fact(C, "cost laplacian", lambda: read_only(cost_laplacian(C)))
        t_cost = time.perf_counter()
        log.say(f"label cost... done in {t_cost - t_graph:5.2f}s")
        d = array_fact(W, "degrees", lambda: read_only(degrees(W)))
        S, scale, trivial = penalized_problem(C_prime, W, d, lam, self.laplacian)
        if self.laplacian == "random_walk":  # (scale: the graph's degrees)
            lower = cost_lower_bound(C, scale)
        else:  # scale 1
            lower = array_fact(C, "cost lower bound", lambda: cost_lower_bound(C, scale))
        eigen = self._eigenpairs(S, trivial, lower, shared, C, lam)
        values, Y = eigen.values, eigen.vectors
        t_eigen = time.perf_counter()
        log.say(
            f"eigensolve ({eigen.solver}, {self.n_components} vectors, residual "
            f"{eigen.residual:.1e})... done in {t_eigen - t_cost:5.2f}s"
        )
        log.done()
        # seconds per stage (graph, cost, eigensolve incl. the Laplacian): for the bench and the app
        self.timings_ = {
            "graph": t_graph - clock,
            "cost": t_cost - t_graph,
            "eigensolve": t_eigen - t_cost,
        }
        Y = fix_signs(Y)
        self.eigenvalues_ = values
        self.eigen_solver_, self.eigen_residual_ = eigen.solver, eigen.residual
        self.embedding_ = scale[:, None] * Y if self.laplacian == "random_walk" else Y
        # a stored graph as it is (no new matrix object), so facts about it are kept (array_fact)
        self.affinity_ = W if shared is not None and sp.isspmatrix_csr(W) else sp.csr_matrix(W)
        self.cost_ = C
        self.degrees_ = d
        self.lam_ = lam
        self.n_features_in_ = X.shape[1]
        self._X_fit = X
        self._S = S
        self._scale = scale
        self._trivial = trivial
        self._out_of_sample = _LazyMap()  # filled by the first transform (fit does not pay)
        return self

    def _eigenpairs(self, S, trivial, lower, shared, C, lam):
        """`smallest_eigenpairs` of S; on a `SharedGraph`, warm-started from the last eigenvectors
        of the same problem at another λ (kept on the graph in this process), and read from /
        written to the graph's store, keyed by the problem (graph, cost, λ, settings, code)."""

        def solve(start=None):
            return smallest_eigenpairs(
                S,
                self.n_components,
                trivial,
                self.eigen_solver,
                self.tol,
                self.random_state,
                lower,
                start=start,
                device=self.device_,
            )

        if shared is None:
            return solve()
        family = {
            "method": type(self).__name__,
            "graph": shared.digest,
            "cost": _sparse_digest(C),
            "laplacian": self.laplacian,
            "n_components": int(self.n_components),
        }
        problem = {
            **family,
            "lam": float(lam),
            "solver": self.eigen_solver,
            "tol": float(self.tol),
            "seed": self.random_state if isinstance(self.random_state, int) else None,
            "code": module_digest("metriclab.methods.spectral"),
            "device": self.device_,
        }
        family_key = canonical_json(family)
        if shared.store is not None and problem["seed"] is not None:
            arrays, scalars = shared.store.get_or_compute(
                "eigenpairs", problem, lambda: _stored_pairs(solve(shared.warm_start(family_key)))
            )
            eigen = Eigenpairs(
                np.asarray(arrays["values"]),
                np.asarray(arrays["vectors"]),
                scalars["solver"],
                scalars["residual"],
            )
        else:
            eigen = solve(shared.warm_start(family_key))
        shared.remember(family_key, eigen.vectors)
        return eigen

    def _graph(self, X):
        """(W, width) of the model's graph parameters on X (`metriclab.graphs.build_graph`)."""
        return build_graph(
            X,
            graph=self.graph,
            n_neighbors=self._graph_neighbors(X.shape[0]),
            weights=self.weights,
            width=self.width,
            device=self.device_,
        )

    def fit_transform(self, X, y=None, **fit_params):
        """Embed the points X and return their embedding.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            All points, labelled and unlabelled.
        y : array-like of shape (n_samples,), default=None
            Integer class labels, -1 for an unlabelled point.
        **fit_params : dict
            Passed to `fit` (``graph``, ``cost``).

        Returns
        -------
        ndarray of shape (n_samples, n_components)
            ``embedding_``.
        """
        return self.fit(X, y).embedding_

    # ---- out-of-sample map: Lemma 6 / Eq. (7) ----

    def _reported_problem(self):
        """(A, b, t): the embedding returned by fit is the smallest-μ solution of A u = μ diag(b) u,
        u ⊥_b t, in the coordinates of `embedding_`."""
        scale, trivial = self._scale, self._trivial
        if self.laplacian == "random_walk":
            # v = scale * y: A = scale^-1 S scale^-1, b = scale^-2, trivial ∝ e
            inv = 1.0 / scale
            A = self._S.multiply(np.outer(inv, inv)) if sp.issparse(self._S) else None
            if A is None:
                A = inv[:, None] * self._S * inv[None, :]
            return A, inv**2, scale * trivial
        return self._S, np.ones_like(scale), trivial

    def _fit_out_of_sample(self):
        X = self._X_fit
        n = X.shape[0]
        if n > OUT_OF_SAMPLE_MAX_POINTS:
            raise ValueError(
                f"the out-of-sample map (Lemma 6) needs the n × n kernel matrix; {n} training "
                f"points is more than {OUT_OF_SAMPLE_MAX_POINTS}: fit on a subsample to use "
                "transform, or use embedding_ for the training points"
            )
        width = self.kernel_width if self.kernel_width is not None else self.width_
        K = gaussian_kernel(X, X, width=width)
        sigma, U = scipy.linalg.eigh(K)
        keep = sigma > 1e-10 * sigma.max()
        sigma, U = sigma[keep], U[:, keep]
        A, b, t = self._reported_problem()
        AU = A @ U
        A_r = U.T @ AU + (self.lam_ * self.kernel_penalty) * np.diag(1.0 / sigma)  # Eq. (7)
        B_r = U.T @ (b[:, None] * U)
        constraint = U.T @ (b * t)
        Q = scipy.linalg.null_space(constraint[None, :])
        if Q.shape[1] < self.n_components:
            raise ValueError(
                f"the out-of-sample kernel (width {width:.3g}) on the {n} training points has "
                f"only {sigma.size} numerically independent directions, too few for "
                f"n_components={self.n_components}: the points are nearly identical at this "
                "width; set a smaller kernel_width or standardise the features"
            )
        A_q = Q.T @ A_r @ Q
        B_q = Q.T @ B_r @ Q
        _, w = scipy.linalg.eigh(
            (A_q + A_q.T) / 2, (B_q + B_q.T) / 2, subset_by_index=[0, self.n_components - 1]
        )
        z = Q @ w
        alpha = U @ (z / sigma[:, None])
        on_training = U @ z
        # same sign as embedding_ (eigenvectors are defined up to sign)
        signs = np.sign(np.sum(on_training * self.embedding_, axis=0))
        signs[signs == 0] = 1.0
        self._out_of_sample.value = (alpha * signs, width)

    @fill_doc
    def transform(self, X):
        """Map new points with the out-of-sample map (Lemma 6).

        f(x) = Σ_i α_i exp(-‖x_i - x‖² / kernel_width), with α from the generalized
        eigenproblem of Eq. (7) on the training points (computed on the first call; up to
        4000 training points).

        %(transform_params)s
            Their coordinates in the embedding.
        """
        check_is_fitted(self, "embedding_")
        # scikit-learn's feature-count check and message ("X has 3 features, but TDL is expecting 2")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self._out_of_sample.value is None:
            self._fit_out_of_sample()
        alpha, width = self._out_of_sample.value
        return gaussian_kernel(X, self._X_fit, width=width) @ alpha

    def spectrum(self, count):
        """The smallest eigenvalues of the fitted problem, more of them than the embedding uses.

        The eigenvalues a fit with ``n_components=count`` on the same data would report in
        `eigenvalues_` (the same graph, cost and λ), without fitting again: one dense
        eigenvalue solve of the kept problem, no eigenvectors. For the spectrum's gap after the
        eigenvectors used.

        Parameters
        ----------
        count : int
            How many eigenvalues, in [1, n_samples − 1]; at most 5,000 training points (dense).

        Returns
        -------
        ndarray of shape (count,)
            Ascending; the first `n_components` are `eigenvalues_`, to the solver's accuracy.

        Examples
        --------
        >>> import numpy as np
        >>> from metriclab.methods.spectral import LaplacianEigenmaps
        >>> X = np.random.default_rng(0).normal(size=(60, 3))
        >>> le = LaplacianEigenmaps(n_components=2).fit(X)
        >>> values = le.spectrum(5)
        >>> bool(np.allclose(values[:2], le.eigenvalues_))
        True
        """
        check_is_fitted(self, "embedding_")
        count = check_int("count", count, 1, self._S.shape[0] - 1)
        return smallest_eigenvalues(self._S, count, self._trivial)


def _sparse_digest(C) -> str:
    C = sp.csr_matrix(C)
    return array_digest(C.data, C.indices, C.indptr, np.asarray(C.shape))


def _stored_pairs(eigen: Eigenpairs):
    """An eigensolve's result as an ArrayStore entry (arrays, scalars)."""
    arrays = {"values": eigen.values, "vectors": eigen.vectors}
    return arrays, {"solver": eigen.solver, "residual": float(eigen.residual)}


class _LazyMap:
    """The out-of-sample map, computed on the first `transform` and kept here: a holder set by
    fit, so that computing it leaves the estimator's own attributes unchanged (scikit-learn's
    check_dict_unchanged) while fit still does not pay the n × n kernel eigenproblem."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = None


@fill_doc
@parameters
class TDL(_GraphSpectralEmbedding):
    """Transductive distance learning (Li, Yang & Wang 2007): an embedding from C' + λL.

    The embedding of all points, labelled and unlabelled, is given by the eigenvectors of
    C' + λP' with the smallest eigenvalues, the trivial one removed (Eq. 3, Algorithm 1): the cost
    C' pulls each labelled point towards its k nearest labelled same-class neighbours and pushes
    it from its k nearest other-class ones (Eq. 6), and the graph-Laplacian penalty P' = L keeps
    the embedding smooth on a neighbourhood graph of all points. ``transform`` maps new points by
    the representer theorem (Lemma 6).

    Read more in the :doc:`user guide </user_guide/tdl>`.

    Parameters
    ----------
    n_components : int, default=2
        Output dimension: eigenvectors kept after the trivial one.
    lam : float, default=16.0
        λ, the weight of the graph-Laplacian penalty against the label cost (the paper: 16 on
        two moons, 1024 on UCI, 128 on MNIST). 0 leaves the cost alone.
    k : int, default=5
        Labelled same-class and other-class neighbours per labelled point in the cost (Eq. 6;
        fewer where a class has fewer).
    %(spectral_graph_params)s
    verbose : int, default=0
        0 prints nothing; 1 prints each stage (graph, label cost, eigensolve) with its time.
    %(spectral_device_param)s
    cost_scale : {"sum", "mean"}, default="sum"
        Σ_i C'_i as in Eq. (3), or (1/n) Σ_i C'_i over the n labelled points as in Eqs. (1)-(2)
        (the same as λ·n).

    Attributes
    ----------
    %(spectral_graph_attributes)s
    cost_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The symmetric label cost C of Eq. (6) (non-zero on labelled rows and columns only).
    lam_ : float
        The λ used.

    See Also
    --------
    LaplacianEigenmaps : The same embedding without labels (C = 0).
    sklearn.manifold.SpectralEmbedding : Laplacian Eigenmaps in scikit-learn.

    Notes
    -----
    ``y == -1`` marks an unlabelled point, scikit-learn's convention for semi-supervised
    learning; ``fit(X, y)`` embeds all of X. With no label at all (``fit(X)`` or y all -1) TDL
    is Laplacian Eigenmaps (the paper's C = 0 case); labelled points of a single class are an
    error.

    References
    ----------
    F. Li, J. Yang and J. Wang, "A transductive framework of distance metric learning by
    spectral dimensionality reduction", ICML 2007.

    Examples
    --------
    >>> from metriclab import TDL
    >>> from metriclab.datasets import load
    >>> from metriclab.evaluation import embedding_accuracy, labeled_mask, partial_labels
    >>> ds = load("two_moons")
    >>> mask = labeled_mask(ds.y, per_class=5, seed=0)
    >>> tdl = TDL(n_components=1, lam=16, laplacian="symmetric")
    >>> tdl = tdl.fit(ds.X, partial_labels(ds.y, mask))
    >>> tdl.embedding_.shape
    (200, 1)
    >>> 0.5 < embedding_accuracy(tdl.embedding_, ds.y, mask) <= 1.0
    True
    >>> tdl.transform(ds.X[:3]).shape
    (3, 1)
    """

    _parameter_rules = {
        "lam": Rule("float", low=0.0),
        "k": Rule("int", low=1),
        "cost_scale": Rule("choice", choices=COST_SCALES),
    }

    lam: float = 16.0  # before the base's keyword-only parameters: TDL(2, 16.0, 5)
    k: int = 5
    cost_scale: str = field(default="sum", kw_only=True)

    def _cost_and_lam(self, X, y, cost=None, store=None):
        k, lam = (
            int(self.k),
            float(self.lam),
        )  # checked at fit (_parameter_rules); λ = 0: the cost alone
        classes = np.unique(y[y != -1])
        # no label at all (y None or all -1): C = 0, Laplacian Eigenmaps exactly (module docstring)
        if classes.size == 1:
            raise ValueError(
                f"TDL needs labelled points of at least two classes; all labelled points are "
                f"class {classes[0]} (mark unlabeled points with -1)"
            )
        if cost is None:  # once per label set: a λ move refits with the same labels (issue 42)
            labelled = float(np.count_nonzero(y != -1))
            on_gpu = self.device_ == "gpu" and labelled**2 * X.shape[1] >= GPU_COST_MIN_WORK
            nearest = _device_nearest(X, "gpu") if on_gpu else None
            C = label_cost(
                X, y, k, lambda: cost_matrix(X, y, k, nearest), store, "gpu" if on_gpu else "cpu"
            )
        else:
            C = sp.csr_matrix(cost, dtype=np.float64)
        if self.cost_scale == "mean":  # Eqs. (1)-(2): (1/n) Σ_i C_i over the n labeled points
            count = np.count_nonzero(y != -1)  # (kept with a stored cost: a λ move's facts of C)
            C = array_fact(C, ("mean", count), lambda: read_only((C / count).tocsr()))
        return C, lam


@fill_doc
class LaplacianEigenmaps(_GraphSpectralEmbedding):
    """Laplacian Eigenmaps (Belkin & Niyogi 2003): TDL with C = 0 and λ = 1 (Section 2.2).

    The eigenvectors of the graph Laplacian with the smallest eigenvalues, the trivial one
    removed. Uses no labels (``fit(X, y)`` accepts and ignores y); the same graph, Laplacian and
    solver options and the same out-of-sample map as :class:`TDL`, so that the two compare on
    one graph.

    Read more in the :doc:`user guide </user_guide/tdl>`.

    Parameters
    ----------
    n_components : int, default=2
        Output dimension: eigenvectors kept after the trivial one.
    %(spectral_graph_params)s
    verbose : int, default=0
        0 prints nothing; 1 prints each stage (graph, eigensolve) with its time.
    %(spectral_device_param)s

    Attributes
    ----------
    %(spectral_graph_attributes)s

    See Also
    --------
    TDL : The same embedding with a label cost.
    sklearn.manifold.SpectralEmbedding : Laplacian Eigenmaps in scikit-learn.

    Examples
    --------
    >>> from metriclab import LaplacianEigenmaps
    >>> from metriclab.datasets import load
    >>> ds = load("swiss_roll")
    >>> le = LaplacianEigenmaps(n_components=2, n_neighbors=10).fit(ds.X)
    >>> le.embedding_.shape == (ds.X.shape[0], 2)
    True
    >>> bool(le.eigenvalues_[0] <= le.eigenvalues_[1])
    True
    """

    @fill_doc
    def fit(self, X, y=None, graph=None):
        """Embed the points X (no labels).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The points.
        y : None
            Ignored (accepted for pipelines and for fitting beside TDL).
        graph : tuple (W, width), optional
            A graph from :func:`metriclab.graphs.build_graph` on this X with this model's
            graph parameters.

        %(returns_self)s
        """
        return super().fit(X, None, graph)

    def _cost_and_lam(self, X, y, cost=None, store=None):
        return sp.csr_matrix((X.shape[0], X.shape[0])), 1.0
