"""The smallest eigenpairs of a sparse symmetric matrix on the complement of one "trivial" vector:
the eigensolvers behind TDL and Laplacian Eigenmaps (`metriclab.methods.spectral`).

Problem: min Tr(Yᵀ S Y) subject to YᵀY = I and Yᵀt = 0 (t a unit vector; Eq. 3 of Li, Yang & Wang
2007 with its constraint XᵀEX = 0). It is solved as the smallest eigenpairs of P S P + σ t tᵀ,
P = I - t tᵀ, with σ above the spectrum: t is moved to the top, never returned, and no genuine
eigenvector is dropped (S may be indefinite: TDL's cost C' has negative eigenvalues).

Paths ("solver"):
- "dense": `scipy.linalg.eigh` on the n × n matrix (small n only).
- "arpack": Lanczos (ARPACK `eigsh`, which='SA') on the deflated operator, never factorised.
- "shift-invert": ARPACK on (P S P + σ t tᵀ - τI)^-1 with τ just below the spectrum, applied by
  one sparse LU of S - τI (SuperLU, symmetric mode) and a rank-2 Woodbury correction.
- "filtered": ARPACK on a Chebyshev polynomial of P S P that damps the unwanted part of the
  spectrum [c, b] (c above the wanted eigenvalues, from a stochastic Lanczos estimate of the
  eigenvalue count; b above the spectrum), then a Rayleigh-Ritz step on S itself (Fang & Saad
  2012's filtered Lanczos, Zhou & Saad 2007's Chebyshev filter). Each Lanczos step costs
  FILTER_DEGREE sparse products instead of one, and Lanczos needs about that many times fewer
  steps: the memory-bound reorthogonalisation of ARPACK's basis, 80 % of plain Lanczos's time on
  TDL's MNIST problem, shrinks by that factor (37 s → 10 s on one thread, bench/README.md).
- "subspace": Chebyshev-filtered subspace iteration (Zhou & Saad 2007): a block of k + 16
  columns ⊥ t is filtered by the same Chebyshev polynomial, orthonormalised and rotated by
  Rayleigh-Ritz until the residual is below tol (1e-12 for 0); converged leading columns are
  no longer filtered (soft locking). Written once against an array module
  (`metriclab.array_module`): NumPy on the CPU, CuPy on the GPU (device="gpu"), where it is
  "auto"'s path, being made only of block operations (sparse × dense block, QR, a small eigh).
  On the CPU it needs many more sparse products than filtered Lanczos, whose Krylov space
  accelerates the same filter: TDL on 5,000 MNIST digits (20-NN, λ = 128, 60 vectors) 16,600
  column products against 1,750 (25,800 before the locking; degree 6 / 12 / 20 / 24 and 8-32
  guard columns all within 15 % of each other), so "auto" does not take it there.
- "lobpcg": LOBPCG with a Jacobi preconditioner and t as a hard constraint.
- a warm start (`start=`, the eigenvectors of a neighbouring problem, e.g. the previous λ's): the
  Lanczos paths start from their sum (ARPACK's v0, projected ⊥ t) instead of a random vector, and
  LOBPCG from the block itself. On TDL's MNIST problem (10^4 digits, 2 eigenvectors, λ 128 → 64)
  filtered Lanczos then needs 572 sparse products instead of 942; with 10 eigenvectors 840 instead
  of 870 (one start vector carries little of ten directions). The path's name gets "+warm".
  (Chebyshev-filtered subspace iteration from the block was measured too: on the CPU it needed
  more products than the cold filtered Lanczos, 10-14 filtered steps of k + 16 columns to reach a
  residual of 1e-10, and it was dropped; bench/README.md.)

"auto" chooses per problem: dense up to DENSE_MAX_POINTS; beyond, it estimates how much the LU of
S would fill in (`lu_fill_ratio`: SuperLU on the principal submatrix of a breadth-first ball of
FILL_PROBE_POINTS vertices of S's graph). A kNN graph of a low-dimensional manifold (the Swiss
roll) has small separators: fill ratio about 3 on the ball, 4-6 on the whole graph, and
shift-invert converges in a few dozen steps. A kNN graph of intrinsically high-dimensional data
(10-D Gaussian clusters, MNIST) has none: fill ratio 20+ on the ball, 40 on 10^4 points and
growing with n, so the LU alone costs minutes at 10^5 points. There Lanczos converges without a
factorisation: such graphs are expanders whose smallest Laplacian eigenvalues are well separated
from the bulk (LE on 4·10^4 10-D clustered points: 1.8 CPU s to machine precision, against 7 s
for the LU alone), and "auto" takes the filtered path, which falls back to plain Lanczos if its
check fails. Measured in bench/spectral.py.

The Lanczos paths' large products run on threads (`RowBlockProduct`: scipy's sparse product
releases the GIL) in a bandwidth-reducing order (`in_bandwidth_order`), which together halve the
cost of a product on MNIST's 20-NN graph (2.7 → 1.2 ms on two cores).

Every result carries `residual`: max_j ‖(P S P) v_j - μ_j v_j‖ / ‖S‖₁ (‖S‖₁ the largest absolute
row sum, an upper bound of ‖S‖₂), so that speed is never bought with wrong eigenvectors.
"""

from __future__ import annotations

import contextlib
import functools
import os
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, reverse_cuthill_mckee
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh, lobpcg, splu
from threadpoolctl import ThreadpoolController

from metriclab.array_module import CPU, Backend
from metriclab.array_module import backend as device_backend

EIGEN_SOLVERS = ("auto", "dense", "arpack", "filtered", "subspace", "shift-invert", "lobpcg")
DENSE_MAX_POINTS = 1500  # "auto" uses dense eigh up to here
DENSE_FALLBACK_POINTS = 5000  # ARPACK failure falls back to dense eigh up to here
SA_TRIAL_RESTARTS = 10  # "auto", sparse LU: ARPACK which='SA' restarts tried before shift-invert
SA_TRIAL_MIN_RESTARTS = 3  # ... and none with fewer (Swiss roll 10^5, LE: one restart allowed,
# failed, 0.47 of the 2.3 s)
SA_TRIAL_WORK = 6_000_000  # ... at most this many (points × Lanczos vectors × restarts): none at
# 10^5 points × 60 eigenvectors, where one restart alone costs more than shift-invert
SHIFT_INVERT_MIN_NCV = 30  # Lanczos basis of shift-invert ARPACK (2k+1 when larger)
LANCZOS_MIN_NCV = 40  # Lanczos basis of which='SA' ARPACK (2k+1 when larger): on the bench's
# 10^5 10-D clusters 711 operator products against 1028 with 24
FILL_PROBE_POINTS = 1000  # vertices of the breadth-first ball whose LU estimates the fill-in
FILL_RATIO_MAX = 8.0  # "auto": shift-invert only when nnz(LU) / nnz(S) on the ball is below this
# (measured on the ball: Swiss roll 10-D 3.1, 10-D Gaussian clusters 20, MNIST 30+)
FILTER_DEGREE = 10  # Chebyshev degree per filtered Lanczos step (TDL on MNIST, one thread: degree
# 4 / 6 / 10 / 12 / 16 / 30 took 12.9 / 11.4 / 10.5 / 10.5 / 11.1 / 12.2 s)
COUNT_PROBES = 4  # random probes of the stochastic Lanczos estimate of the eigenvalue count
COUNT_STEPS = 40  # Lanczos steps per probe
FILTER_RETRIES = 3  # cuts tried (each higher) before "filtered" falls back to plain Lanczos
PARALLEL_MIN_NNZ = 200_000  # sparse products on threads from this many non-zeros
REORDER_MIN_POINTS = 20_000  # reverse Cuthill-McKee order for the products from this many points
WARM_EXTRA = 4  # random columns added to a warm start block of LOBPCG
SUBSPACE_DEGREE = 24  # Chebyshev degree per step of the filtered subspace iteration (TDL, all of
# MNIST, 60 vectors, λ 128 → 64 warm: degree 12 / 24 / 32 / 48 took 53 / 20 / 15 / 10 steps of
# about the same filtering work, 299 / 255 / 262 / 280 block products; on an H200 degree 12 / 24 /
# 32 took 0.93 / 0.60 / 0.62 s, with 10 vectors 0.29 / 0.20 / 0.24 s: fewer QRs and eighs)
SUBSPACE_GUARD = 16  # columns it iterates beyond the wanted ones (they speed up convergence)
SUBSPACE_TOL = 1e-12  # its relative residual target for tol=0
SUBSPACE_MAX_STEPS = 300  # filtered steps before it gives up (the caller falls back)


@functools.lru_cache(maxsize=1)
def _thread_controller() -> ThreadpoolController:
    return ThreadpoolController()


def thread_limit(limits: int | None):
    """`threadpoolctl.threadpool_limits(limits)` without its cost per call: that scans the loaded
    libraries every time (14 ms, three times per TDL fit: a quarter of the server's CPU per slider
    move on the teaching sets), a controller made once does it once. None: no limit."""
    if limits is None:
        return contextlib.nullcontext()
    return _thread_controller().limit(limits=limits)


class Eigenpairs(NamedTuple):
    """Ascending eigenvalues, unit eigenvectors (columns, ⊥ t), the path that computed them and
    the relative residual max_j ‖(P S P) v_j - μ_j v_j‖ / ‖S‖₁."""

    values: np.ndarray
    vectors: np.ndarray
    solver: str
    residual: float


# --------------------------------------------------------------------------------------------
# The deflated problem and its residual
# --------------------------------------------------------------------------------------------


def absolute_row_sum_norm(S) -> float:
    """‖S‖₁ = ‖S‖∞ for symmetric S: the largest absolute row sum (Gershgorin bound of ‖S‖₂)."""
    if sp.issparse(S) and S.format == "csr" and S.nnz:  # no |S| matrix built (14 ms a λ move)
        filled = np.flatnonzero(np.diff(S.indptr))  # reduceat's segments: the non-empty rows
        return float(np.add.reduceat(np.abs(S.data[: S.indptr[-1]]), S.indptr[filled]).max())
    return float(np.asarray(abs(S).sum(axis=1)).max())


def _deflation_shift(S) -> float:
    """A value above the spectrum of P S P (twice the Gershgorin bound of S), where t is moved."""
    return 2.0 * absolute_row_sum_norm(S) + 1.0


def relative_residual(
    S, trivial: np.ndarray, values: np.ndarray, vectors: np.ndarray, backend: Backend = CPU
) -> float:
    """max_j ‖P S P v_j - μ_j v_j‖ / (‖S‖₁ ‖v_j‖): how far the pairs are from eigenpairs of the
    constrained problem (0 for exact ones; the vectors are projected ⊥ t first). Computed on
    `backend`'s device, its product as the solvers make it (`_device_product`: row blocks on
    threads on the CPU; on the GPU the n × k product, 0.36 s on one CPU core for all of MNIST and
    60 vectors, no longer doubles a λ move's eigensolve)."""
    xp = backend.xp
    t = backend.to_device(np.asarray(trivial, dtype=np.float64))
    V = _without_trivial(backend.to_device(np.asarray(vectors, dtype=np.float64)), t)
    mu = backend.to_device(np.asarray(values, dtype=np.float64))
    with _device_product(S, backend) as product:
        R = _without_trivial(product(V), t) - V * mu[None, :]
    norms = xp.maximum(xp.linalg.norm(V, axis=0), 1e-300)
    scale = max(absolute_row_sum_norm(S), 1e-300)
    return float(backend.to_host((xp.linalg.norm(R, axis=0) / norms).max())) / scale


def _deflated_dense(S, trivial: np.ndarray) -> np.ndarray:
    """P S P + σ t tᵀ with P = I - t tᵀ, dense: the problem on the complement of t, t moved above
    the spectrum."""
    A = S.toarray() if sp.issparse(S) else np.array(S, dtype=np.float64)
    shift = _deflation_shift(A)
    St = A @ trivial
    A -= np.outer(trivial, St) + np.outer(St, trivial)
    A += (trivial @ St + shift) * np.outer(trivial, trivial)
    return A


def _dense_smallest(S, n_components: int, trivial: np.ndarray):
    A = _deflated_dense(S, trivial)
    return scipy.linalg.eigh(A, subset_by_index=[0, n_components - 1], driver="evr")


def smallest_eigenvalues(S, count: int, trivial: np.ndarray) -> np.ndarray:
    """The `count` smallest eigenvalues of symmetric S on the complement of the unit vector
    `trivial`, ascending, without their vectors: the values `smallest_eigenpairs(S, count,
    trivial, "dense")` gives (dense eigh, so at most DENSE_FALLBACK_POINTS points)."""
    n = S.shape[0]
    if n > DENSE_FALLBACK_POINTS:
        raise ValueError(
            f"smallest_eigenvalues is dense: {n} points is more than {DENSE_FALLBACK_POINTS}"
        )
    if not 1 <= count < n:
        raise ValueError(f"count must be in [1, {n - 1}] (n − 1 values beside t), got {count}")
    A = _deflated_dense(S, np.asarray(trivial, dtype=np.float64))
    with thread_limit(1):
        return scipy.linalg.eigh(A, eigvals_only=True, subset_by_index=[0, count - 1], driver="evr")


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class RowBlockProduct:
    """x -> S x for a vector or an n × m block, by row blocks of S on threads when S is large
    (scipy's sparse product releases the GIL: 2.7 → 1.5 ms on two cores for MNIST's 20-NN
    graph); one plain product below PARALLEL_MIN_NNZ, where starting threads costs more. Use it
    as a context manager: its threads end with the block."""

    def __init__(self, S):
        self.matrix = sp.csr_matrix(S)
        workers = min(available_cores(), 8) if self.matrix.nnz >= PARALLEL_MIN_NNZ else 1
        self._rows, self._blocks, self._pool = [], [], None
        if workers > 1:  # row blocks of equal non-zeros (the work of a product)
            cuts = np.searchsorted(self.matrix.indptr, np.linspace(0, self.matrix.nnz, workers + 1))
            self._rows = list(zip(cuts[:-1], cuts[1:], strict=True))
            self._blocks = [self.matrix[a:b] for a, b in self._rows]
            self._pool = ThreadPoolExecutor(workers)

    def __call__(self, X):
        X = np.asarray(X, dtype=np.float64)
        if self._pool is None:
            return self.matrix @ X
        out = np.empty((self.matrix.shape[0],) + X.shape[1:])

        def rows(i):
            a, b = self._rows[i]
            out[a:b] = self._blocks[i] @ X

        list(self._pool.map(rows, range(len(self._blocks))))
        return out

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._pool is not None:
            self._pool.shutdown()


def _without_trivial(X, trivial):
    """P X = X - t (tᵀX) for a vector or a block, in X's array module (NumPy or CuPy)."""
    coefficients = trivial @ X
    if X.ndim == 1:
        return X - trivial * coefficients
    return X - trivial[:, None] * coefficients[None, :]


def _projected(product, trivial, xp=np):
    """x -> P S P x with P = I - t tᵀ (t itself goes to 0); x a vector or a block of `xp`."""

    def apply(X):
        X = _without_trivial(xp.asarray(X, dtype=xp.float64), trivial)
        return _without_trivial(product(X), trivial)

    return apply


def _deflated_operator(S, trivial: np.ndarray, product) -> LinearOperator:
    """x -> (P S P + σ t tᵀ) x with P = I - t tᵀ, without forming it (S x by `product`)."""
    n = S.shape[0]
    shift = _deflation_shift(S)
    S = sp.csr_matrix(S)
    St = S @ trivial
    top = float(trivial @ St) + shift

    def matmat(X):
        X = np.asarray(X, dtype=np.float64)
        tX = trivial @ X
        return (
            product(X) - np.outer(trivial, St @ X) - np.outer(St, tX) + top * np.outer(trivial, tX)
        )

    def matvec(x):
        return matmat(np.asarray(x).reshape(-1, 1)).ravel()

    return LinearOperator((n, n), matvec=matvec, matmat=matmat, dtype=np.float64)


def _start_vector(n: int, seed: int, start: np.ndarray | None = None) -> np.ndarray:
    """ARPACK's starting vector: the sum of a warm start's columns (normalised each, so no one
    direction dominates) where one is given and not zero, else seeded uniform in [-1, 1]^n."""
    if start is not None:
        block = np.asarray(start, dtype=np.float64).reshape(n, -1)
        v0 = (block / np.maximum(np.linalg.norm(block, axis=0), 1e-300)).sum(axis=1)
        if np.linalg.norm(v0) > 0 and np.all(np.isfinite(v0)):
            return v0
    return np.random.default_rng(seed).uniform(-1.0, 1.0, n)


def _lanczos_basis(n: int, n_components: int, minimum: int = LANCZOS_MIN_NCV) -> int:
    """ncv of ARPACK: 2k+1 Lanczos vectors, at least `minimum`, at most n - 1."""
    return min(n - 1, max(2 * n_components + 1, minimum))


# --------------------------------------------------------------------------------------------
# The paths
# --------------------------------------------------------------------------------------------


def in_bandwidth_order(solve):
    """solve(S, k, trivial, ...) -> (values, vectors[, residual]) or None, run past
    REORDER_MIN_POINTS on S in reverse Cuthill-McKee order (a product's reads of x stay near each other in memory: 2.7 →
    2.0 ms on MNIST's 20-NN graph) with the vectors mapped back to the caller's order. Only for
    the paths made of products: SuperLU orders for itself, and shift-invert on the permuted
    matrix was slower (TDL, Swiss roll 10^5: 5.6 → 7.9 s). Not on the GPU (a `backend` keyword
    naming it): there the order and the permuted copies on the host cost more than they save (TDL
    on all of MNIST, a warm λ move on an H200: 0.26 → 0.19 s with 10 vectors, 0.78 → 0.67 s with
    60)."""

    @functools.wraps(solve)
    def ordered(S, n_components, trivial, *args, **kwargs):
        on_gpu = kwargs.get("backend", CPU).device == "gpu"
        if on_gpu or not sp.issparse(S) or S.shape[0] < REORDER_MIN_POINTS:
            return solve(S, n_components, trivial, *args, **kwargs)
        S = sp.csr_matrix(S)
        order = reverse_cuthill_mckee(S, symmetric_mode=True)
        if kwargs.get("start") is not None:  # a warm start's rows, in the same order
            kwargs["start"] = np.asarray(kwargs["start"])[order]
        found = solve(S[order][:, order], n_components, trivial[order], *args, **kwargs)
        if found is None:
            return None
        values, vectors, *measured = found  # (and the residual, where the path measured it)
        unordered = np.empty_like(vectors)
        unordered[order] = vectors
        return values, unordered, *measured

    return ordered


@in_bandwidth_order
def _arpack_smallest(
    S,
    n_components: int,
    trivial: np.ndarray,
    tol: float,
    seed: int,
    maxiter: int | None = None,
    start: np.ndarray | None = None,
):
    n = S.shape[0]
    v0 = _start_vector(n, seed, start)
    ncv = _lanczos_basis(n, n_components)
    with RowBlockProduct(S) as product:
        operator = _deflated_operator(S, trivial, product)
        return eigsh(operator, k=n_components, which="SA", tol=tol, v0=v0, ncv=ncv, maxiter=maxiter)


# --------------------------------------------------------------------------------------------
# Filtered Lanczos
# --------------------------------------------------------------------------------------------


def lanczos_quadrature(apply, trivial, probes: int, steps: int, seed: int, backend: Backend = CPU):
    """Stochastic Lanczos quadrature of the spectrum of A (Ubaru, Chen & Saad 2017) on the
    complement of t: nodes θ and weights ω with #{eigenvalues < c} ≈ Σ_{θ_j < c} ω_j, and an
    estimate of λ_max(A) from above (largest Ritz value plus its residual, over the probes).

    Rademacher probes projected ⊥ t; plain Lanczos without reorthogonalisation, which leaves
    the quadrature accurate (a lost vector's weight is split among its copies). The probes run
    side by side as the columns of one block (each column its own Lanczos, the same arithmetic as
    one probe at a time): a block product per step and one copy of its coefficients to the host,
    instead of a product and two copies per probe (MNIST on the GPU: 74 ms → a quarter of it).
    `apply` and `trivial` are of `backend`'s array module; the probes are drawn on the host (the
    same on every device)."""
    n = trivial.shape[0]
    xp = backend.xp
    signs = np.random.default_rng(seed).choice([-1.0, 1.0], (probes, n))  # probe after probe
    Q = _without_trivial(backend.to_device(np.ascontiguousarray(signs.T)), trivial)
    sizes = backend.to_host(xp.sum(Q * Q, axis=0))  # zᵀ f(A) z ≈ ‖z‖² Σ_j τ_j² f(θ_j)
    Q = Q / backend.to_device(np.sqrt(sizes))[None, :]
    previous, beta = xp.zeros_like(Q), xp.zeros(probes)
    alphas, betas = [], []  # per step, one value per probe
    running = np.ones(probes, dtype=bool)  # probes whose Lanczos has not broken down
    lengths = np.zeros(probes, dtype=int)
    for _ in range(min(steps, n - 1)):
        W = apply(Q) - previous * beta[None, :]
        alpha = xp.sum(Q * W, axis=0)
        W -= Q * alpha[None, :]
        beta = xp.linalg.norm(W, axis=0)
        a, b = backend.to_host(xp.stack([alpha, beta]))
        alphas.append(a)
        betas.append(b)
        lengths[running] += 1
        # an invariant subspace: that probe's quadrature is exact, its Lanczos stops here
        running &= ~(b <= 1e-12 * np.maximum(np.abs(a), 1.0))
        if not running.any():
            break
        safe = backend.to_device(np.where(running, b, 1.0))
        previous, Q = Q, W / safe[None, :]
    alphas, betas = np.array(alphas), np.array(betas)
    nodes, weights, top = [], [], -np.inf
    for j in range(probes):
        m = lengths[j]
        theta, U = scipy.linalg.eigh_tridiagonal(alphas[:m, j], betas[: m - 1, j])
        nodes.append(theta)
        weights.append(sizes[j] * U[0] ** 2 / probes)
        top = max(top, float(theta[-1] + betas[m - 1, j] * abs(U[-1, -1])))
    return np.concatenate(nodes), np.concatenate(weights), top


def count_cut(nodes: np.ndarray, weights: np.ndarray, count: float) -> float:
    """The smallest node below which the quadrature counts at least `count` eigenvalues (the
    largest node if it never does)."""
    order = np.argsort(nodes)
    reached = np.searchsorted(np.cumsum(weights[order]), count)
    return float(nodes[order][min(reached, order.size - 1)])


def chebyshev_filter(apply, cut: float, top: float, degree: int):
    """x -> T_m((2A - (top + cut) I) / (top - cut)) x, m = degree: |·| <= 1 on the eigenvalues in
    [cut, top], growing like cosh(m·arccosh) below cut (Zhou & Saad 2007's filter)."""
    half, centre = 0.5 * (top - cut), 0.5 * (top + cut)

    def filtered(x):
        previous, current = x, (apply(x) - centre * x) / half
        for _ in range(degree - 1):  # T_{j+1}(z) = 2 z T_j(z) - T_{j-1}(z)
            previous, current = current, 2.0 * (apply(current) - centre * current) / half - previous
        return current

    return filtered


def _rayleigh_ritz(apply, V: np.ndarray):
    """Ritz values and vectors of A on the span of V's orthonormal columns, ascending."""
    H = V.T @ apply(V)
    values, U = np.linalg.eigh(0.5 * (H + H.T))
    return values, V @ U


@in_bandwidth_order
def _filtered_smallest(
    S, n_components: int, trivial: np.ndarray, tol: float, seed: int, start=None
):
    """Filtered Lanczos (module docstring): ARPACK's largest eigenvalues of p(P S P), p the
    Chebyshev filter of [cut, top], then Rayleigh-Ritz with S. Correct when every returned Ritz
    value of S lies below the cut: p is decreasing below it and at most 1 in modulus above it, so
    the largest values of p are then those of the smallest eigenvalues. A cut that proves too low
    is raised and tried again; None after FILTER_RETRIES cuts (the caller falls back)."""
    n = S.shape[0]
    k = n_components
    with RowBlockProduct(S) as product:
        apply = _projected(product, trivial)
        nodes, weights, top = lanczos_quadrature(apply, trivial, COUNT_PROBES, COUNT_STEPS, seed)
        top += 0.01 * abs(top)  # a margin above the estimate of λ_max, whatever its sign
        cut = count_cut(nodes, weights, 2 * k + 10)  # about twice the wanted count below it
        v0 = _start_vector(n, seed, start)
        for _ in range(FILTER_RETRIES):
            if not cut < top:
                return None
            filtered = chebyshev_filter(apply, cut, top, FILTER_DEGREE)

            def matvec(x, filtered=filtered):
                x = np.asarray(x, dtype=np.float64).ravel()
                return filtered(x - trivial * (trivial @ x))

            operator = LinearOperator((n, n), matvec=matvec, dtype=np.float64)
            try:
                _, V = eigsh(operator, k=k, which="LA", tol=tol, v0=v0, ncv=_lanczos_basis(n, k))
            except ArpackNoConvergence:
                return None
            values, vectors = _rayleigh_ritz(apply, V)
            if values[-1] < cut:
                return values, vectors
            bottom = min(values[0], nodes.min())  # about λ_min
            cut = bottom + 2.0 * (cut - bottom)  # twice as far above the smallest eigenvalue
        return None


# --------------------------------------------------------------------------------------------
# Chebyshev-filtered subspace iteration: one algorithm for NumPy and CuPy
# --------------------------------------------------------------------------------------------


def _device_product(S, backend: Backend):
    """A context manager giving x -> S x on `backend`'s arrays: `RowBlockProduct` on the CPU, the
    matrix copied once to the device (cupyx.scipy.sparse CSR, or a dense array) on the GPU."""
    if backend.device == "cpu":
        if sp.issparse(S):
            return RowBlockProduct(S)
        dense = np.asarray(S, dtype=np.float64)
        return contextlib.nullcontext(dense.__matmul__)
    if sp.issparse(S):
        on_device = backend.sparse.csr_matrix(sp.csr_matrix(S, dtype=np.float64))
    else:
        on_device = backend.to_device(np.asarray(S, dtype=np.float64))
    return contextlib.nullcontext(on_device.__matmul__)


def _start_block(n: int, columns: int, seed: int, start=None) -> np.ndarray:
    """The first block of the subspace iteration, on the host: a warm start's columns (the
    previous λ's eigenvectors) and seeded random columns after them, uniform in [-1, 1): any
    random start with a part along the wanted eigenvectors converges, and Gaussian columns for
    MNIST's block took 37 ms of a λ move on the GPU machine's host (uniform: 5x faster)."""
    block = np.random.default_rng(seed).random((n, columns))
    block *= 2.0
    block -= 1.0
    if start is not None:
        warm = np.asarray(start, dtype=np.float64).reshape(n, -1)[:, :columns]
        if np.all(np.isfinite(warm)):
            block[:, : warm.shape[1]] = warm
    return block


@in_bandwidth_order
def _subspace_smallest(
    S, n_components: int, trivial, tol: float, seed: int, start=None, backend: Backend = CPU
):
    """Chebyshev-filtered subspace iteration (Zhou & Saad 2007) on P S P, written once for
    `backend`'s array module (NumPy or CuPy): a block of k + SUBSPACE_GUARD columns ⊥ t is
    multiplied by the Chebyshev filter of [cut, top] (degree SUBSPACE_DEGREE; the unwanted part
    of the spectrum damped to |·| <= 1, the wanted part amplified), orthonormalised (QR) and
    rotated by a Rayleigh-Ritz step, until the k smallest Ritz pairs have relative residual
    max_j ‖P S P v_j - θ_j v_j‖ / ‖S‖₁ below tol (SUBSPACE_TOL for 0). The first cut comes from
    the stochastic Lanczos count, later ones are the largest Ritz value of the block; top is the
    Lanczos bound of λ_max. Block operations only (sparse × dense block, QR, a small eigh), which
    is what a GPU does fast. (values, vectors, residual) on the host, or None after
    SUBSPACE_MAX_STEPS."""
    n = S.shape[0]
    k = n_components
    xp = backend.xp
    columns = min(n - 1, k + SUBSPACE_GUARD)
    target = tol if tol > 0 else SUBSPACE_TOL
    scale = max(absolute_row_sum_norm(S), 1e-300)
    t = backend.to_device(np.asarray(trivial, dtype=np.float64))
    with _device_product(S, backend) as product:
        apply = _projected(product, t, xp)
        nodes, weights, top = lanczos_quadrature(apply, t, COUNT_PROBES, COUNT_STEPS, seed, backend)
        top += 0.01 * abs(top)  # a margin above the estimate of λ_max, whatever its sign
        cut = count_cut(nodes, weights, columns)
        V = _without_trivial(backend.to_device(_start_block(n, columns, seed, start)), t)
        V, _ = xp.linalg.qr(V)
        locked = 0  # leading columns converged: no longer filtered (soft locking)
        for _ in range(SUBSPACE_MAX_STEPS):
            active = V[:, locked:]
            if cut < top:  # (a cut at the top: the block holds the whole spectrum below it)
                active = chebyshev_filter(apply, cut, top, SUBSPACE_DEGREE)(active)
            # t is an eigenvector of P S P (eigenvalue 0): the filter would amplify its rounding
            active = _without_trivial(active, t)
            if locked:  # orthogonal to the locked columns (twice: rounding)
                kept = V[:, :locked]
                for _ in range(2):
                    active = active - kept @ (kept.T @ active)
            active, _ = xp.linalg.qr(active)
            V = xp.concatenate([V[:, :locked], active], axis=1) if locked else active
            AV = apply(V)
            H = V.T @ AV
            theta, U = xp.linalg.eigh(0.5 * (H + H.T))  # Rayleigh-Ritz, ascending
            V, AV = V @ U, AV @ U
            R = AV[:, :k] - V[:, :k] * theta[None, :k]
            residuals = backend.to_host(xp.linalg.norm(R, axis=0)) / scale
            if residuals.max() <= target:  # (V's columns are unit vectors ⊥ t: `relative_residual`)
                return backend.to_host(theta[:k]), backend.to_host(V[:, :k]), residuals.max()
            locked = int(np.argmax(residuals > target))  # the converged leading columns
            cut = float(theta[-1])  # damp everything above the block's largest Ritz value
    return None


def _factorize_positive_definite(A):
    """Sparse LU of a symmetric positive definite A (S - σI with σ below the spectrum).

    No pivoting and a minimum-degree ordering of A + Aᵀ (SuperLU's symmetric mode), which keeps
    the factor symmetric in structure: on the bench's 10^5-point graph 7.8 M non-zeros in 0.9 s
    against 19 M in 1.5 s with the default column ordering and partial pivoting, and ARPACK 2x
    faster. Falls back to the default when a pivot vanishes (A not numerically definite)."""
    try:
        return splu(
            A, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True}
        )
    except RuntimeError:  # "Factor is exactly singular"
        return splu(A)


def lu_fill_ratio(S, points: int = FILL_PROBE_POINTS, seed: int = 0) -> float:
    """nnz(L + U) / nnz(A) of the symmetric-mode LU of A = S + ‖S‖₁ I (definite, same pattern)
    restricted to a breadth-first ball of `points` vertices of S's graph: a cheap estimate of how
    much the shift-invert factorisation fills in (it grows with n where the ratio is large)."""
    S = sp.csr_matrix(S)
    n = S.shape[0]
    if n <= points:
        ball = np.arange(n)
    else:
        start = int(np.random.default_rng(seed).integers(n))
        order = breadth_first_order(S, start, directed=False, return_predecessors=False)
        if order.size < points:  # a small component: top up with the next vertices
            rest = np.setdiff1d(np.arange(n), order, assume_unique=False)
            order = np.concatenate([order, rest[: points - order.size]])
        ball = np.sort(order[:points])
    A = S[ball][:, ball]
    A = (A + absolute_row_sum_norm(A) * sp.identity(ball.size, format="csr")).tocsc()
    lu = _factorize_positive_definite(A)
    return (lu.L.nnz + lu.U.nnz) / max(A.nnz, 1)


def _shift_invert_smallest(
    S, n_components: int, trivial: np.ndarray, lower: float, tol: float, seed: int, start=None
):
    """ARPACK in shift-invert mode: the largest eigenvalues of (P S P + c t tᵀ - σI)^-1 with σ just
    below the spectrum (σ < `lower` <= λ_min(S)), applied by one sparse LU of S - σI and a rank-2
    Woodbury correction for the projection. Much faster than which='SA' when the wanted
    eigenvalues cluster near 0 (Laplacian Eigenmaps); the factorisation costs memory (fill-in)."""
    n = S.shape[0]
    S = sp.csr_matrix(S)
    spread = _deflation_shift(S)
    sigma = lower - 1e-7 * max(spread, 1.0)  # close to the spectrum: fast convergence
    lu = _factorize_positive_definite((S - sigma * sp.identity(n, format="csr")).tocsc())
    St = S @ trivial
    # P S P + c t tᵀ = S + U M Uᵀ with U = [t, St]
    U = np.column_stack([trivial, St])
    M = np.array([[float(trivial @ St) + spread, -1.0], [-1.0, 0.0]])
    AiU = lu.solve(U)
    core = np.linalg.inv(np.linalg.inv(M) + U.T @ AiU)

    def matvec(x):
        z = lu.solve(np.asarray(x, dtype=np.float64).ravel())
        return z - AiU @ (core @ (U.T @ z))

    operator = LinearOperator((n, n), matvec=matvec, dtype=np.float64)
    v0 = _start_vector(n, seed, start)
    ncv = _lanczos_basis(n, n_components, SHIFT_INVERT_MIN_NCV)
    values, vectors = eigsh(operator, k=n_components, which="LA", tol=tol, v0=v0, ncv=ncv)
    return sigma + 1.0 / values, vectors


def _smallest_eigenvalue_estimate(S, seed: int, bound: float | None) -> float:
    """λ_min(S) minus a margin, from Lanczos (which='SA', k=1: the extreme eigenvalue converges in
    few steps); never below the rigorous `bound`. Used as the shift-invert shift for TDL, where the
    Gershgorin bound is loose (-56.8 against λ_min = -13.1 on the bench's 10^5-point TDL matrix)
    and a far shift converges 4x slower."""
    n = S.shape[0]
    v0 = _start_vector(n, seed)
    try:
        theta = float(eigsh(sp.csr_matrix(S), k=1, which="SA", tol=1e-6, v0=v0)[0][0])
    except ArpackNoConvergence:
        return bound if bound is not None else 0.0
    estimate = theta - 1e-3 * max(1.0, abs(theta))
    return max(estimate, bound) if bound is not None else estimate


def _lobpcg_smallest(S, n_components: int, trivial: np.ndarray, tol: float, seed: int, start=None):
    n = S.shape[0]
    S = sp.csr_matrix(S)
    X0 = np.random.default_rng(seed).standard_normal((n, n_components + 2))
    if start is not None:  # the warm block, with WARM_EXTRA random columns beside it
        block = np.asarray(start, dtype=np.float64).reshape(n, -1)
        X0 = np.column_stack([block, X0[:, :WARM_EXTRA]])
    diagonal = S.diagonal()
    diagonal[diagonal <= 0] = 1.0
    jacobi = sp.diags(1.0 / diagonal)
    with warnings.catch_warnings():  # judged below by the residual, in our own words
        warnings.simplefilter("ignore", UserWarning)
        values, vectors = lobpcg(
            S, X0, M=jacobi, Y=trivial[:, None], tol=tol or None, largest=False, maxiter=2000
        )
    order = np.argsort(values)[:n_components]
    values, vectors = values[order], vectors[:, order]
    residual = relative_residual(S, trivial, values, vectors)
    if residual > 1e-4:
        warnings.warn(
            f"LOBPCG stopped with relative residual {residual:.1e}; the embedding may be "
            "inaccurate: use eigen_solver='arpack' or 'auto'",
            RuntimeWarning,
            stacklevel=4,
        )
    return values, vectors


# --------------------------------------------------------------------------------------------
# The choice
# --------------------------------------------------------------------------------------------


def _ascending(values, vectors):
    order = np.argsort(values)
    return values[order], vectors[:, order]


def _sa_trial(S, n_components, trivial, tol, seed, start=None):
    """Cheap Lanczos first (converges in a few restarts when the cost spreads the spectrum), for
    at most SA_TRIAL_RESTARTS restarts and SA_TRIAL_WORK; None when it did not converge or
    fewer than SA_TRIAL_MIN_RESTARTS fit in the work."""
    n = S.shape[0]
    restarts = min(SA_TRIAL_RESTARTS, SA_TRIAL_WORK // (n * _lanczos_basis(n, n_components)))
    if restarts < SA_TRIAL_MIN_RESTARTS:
        return None
    try:
        return _arpack_smallest(S, n_components, trivial, tol, seed, maxiter=restarts, start=start)
    except ArpackNoConvergence:
        return None


def _choose(S, n_components, trivial, tol, seed, lower, start=None, backend=CPU):
    """(solver, values, vectors or None, lower) of "auto": see the module docstring."""
    n = S.shape[0]
    if n <= DENSE_MAX_POINTS:
        return "dense", None, lower
    if backend.device == "gpu":  # block products only: the one path that runs on the GPU
        return "subspace", None, lower
    if lu_fill_ratio(S, seed=seed) > FILL_RATIO_MAX:
        return "filtered", None, lower  # the LU would fill in: Lanczos, never factorised
    trial = _sa_trial(S, n_components, trivial, tol, seed, start)
    if trial is not None:
        return "arpack", trial, lower
    if lower != 0.0:  # a tight shift: the smallest eigenvalue of S, by a few Lanczos steps
        lower = _smallest_eigenvalue_estimate(S, seed, lower)
    return "shift-invert", None, lower


def _solve(S, n_components, trivial, solver, tol, seed, lower, start=None, backend=CPU):
    """(values, vectors, solver that produced them, residual or None) for a forced solver, with its
    fallbacks; the residual where the path measured it already (the subspace iteration)."""
    n = S.shape[0]
    if solver == "shift-invert":
        if lower is None:
            raise ValueError("eigen_solver='shift-invert' needs a lower bound of the spectrum")
        try:
            values, vectors = _ascending(
                *_shift_invert_smallest(S, n_components, trivial, lower, tol, seed, start)
            )
            if values[0] >= lower - 1e-8 * max(1.0, abs(lower)):
                return values, vectors, solver, None
        except ArpackNoConvergence:
            pass
        solver = "arpack"  # the shift was not below the spectrum: fall back to which='SA'
    if solver == "dense":
        if n > DENSE_FALLBACK_POINTS:
            raise ValueError(
                f"eigen_solver='dense' builds an n × n matrix; {n} points is more than "
                f"{DENSE_FALLBACK_POINTS}: use eigen_solver='arpack' or 'auto'"
            )
        return *_dense_smallest(S, n_components, trivial), solver, None
    if solver == "lobpcg":
        return *_lobpcg_smallest(S, n_components, trivial, tol, seed, start), solver, None
    if solver == "subspace":
        found = _subspace_smallest(
            S, n_components, trivial, tol, seed, start=start, backend=backend
        )
        if found is not None:
            values, vectors, residual = found
            return values, vectors, solver, residual
        solver = "filtered"  # no convergence within SUBSPACE_MAX_STEPS: Lanczos on the CPU
    if solver == "filtered":
        found = _filtered_smallest(S, n_components, trivial, tol, seed, start=start)
        if found is not None:
            return *found, solver, None
        solver = "arpack"  # no cut proved above the wanted eigenvalues, or no convergence
    try:
        values, vectors = _arpack_smallest(S, n_components, trivial, tol, seed, start=start)
    except ArpackNoConvergence:
        if n <= DENSE_FALLBACK_POINTS:
            return *_dense_smallest(S, n_components, trivial), "dense", None
        raise ValueError(
            "ARPACK did not converge to the smallest eigenvalues. Try more n_neighbors (a "
            "connected graph converges faster), fewer n_components, a larger tol, or "
            "eigen_solver='lobpcg'."
        ) from None
    return *_ascending(values, vectors), "arpack", None


def smallest_eigenpairs(
    S,
    n_components: int,
    trivial: np.ndarray,
    solver: str = "auto",
    tol: float = 0.0,
    seed: int = 0,
    lower: float | None = None,
    start: np.ndarray | None = None,
    device: str = "cpu",
) -> Eigenpairs:
    """The `n_components` smallest eigenpairs of symmetric S restricted to the complement of the unit
    vector `trivial` (min Tr(Yᵀ S Y) s.t. YᵀY = I, Yᵀt = 0), with the path used and the residual.

    When t is an exact null vector of S (unnormalized, random_walk) this is "all eigenvectors but
    the trivial one", whatever the sign of the others' eigenvalues. `lower` is a lower bound of
    the spectrum of S (0 for a Laplacian), needed by solver="shift-invert".

    "auto": dense eigh up to DENSE_MAX_POINTS; beyond, filtered Lanczos when the sparse LU
    would fill in (`lu_fill_ratio` > FILL_RATIO_MAX: high-dimensional data); otherwise a cheap
    bounded Lanczos trial, then shift-invert ARPACK with the shift just below 0 (Laplacian
    Eigenmaps: lower == 0) or just below a Lanczos estimate of λ_min (TDL: the cost makes S
    indefinite), falling back to which='SA' if the shift was not below the spectrum.

    `start`: an n × m block of approximate eigenvectors, e.g. the previous λ's: the Lanczos
    paths start from their sum, LOBPCG from the block (module docstring); the reported solver
    then ends in "+warm". The result is the same eigenpairs to the solver's accuracy.

    `device` ("cpu", "gpu" or "auto", `metriclab.array_module`): where solver="subspace" runs,
    and on "gpu" "auto" takes "subspace" past DENSE_MAX_POINTS (the one path made only of block
    operations); the ARPACK, SuperLU and LOBPCG paths run on the CPU whatever the device.
    Values and vectors are NumPy arrays on every device."""
    if solver not in EIGEN_SOLVERS:
        raise ValueError(f"eigen_solver must be one of {list(EIGEN_SOLVERS)}, got {solver!r}")
    backend = device_backend(device)
    trivial = np.asarray(trivial, dtype=np.float64)
    # one BLAS thread: ARPACK and LOBPCG make many n × (few) products, where a second thread only
    # adds start-up and spin-waiting (10^5 clusters, LE: 8.5 CPU s at 1 thread, 84 at 2 under load)
    with thread_limit(1):
        return _smallest_eigenpairs(
            S, n_components, trivial, solver, tol, seed, lower, start, backend
        )


def _smallest_eigenpairs(
    S, n_components, trivial, solver, tol, seed, lower, start, backend=CPU
) -> Eigenpairs:
    if start is not None and np.shape(start)[0] != S.shape[0]:
        raise ValueError(f"start must have {S.shape[0]} rows, got shape {np.shape(start)}")
    if solver == "auto":
        solver, found, lower = _choose(S, n_components, trivial, tol, seed, lower, start, backend)
        if found is not None:
            values, vectors = _ascending(*found)
            return Eigenpairs(
                values,
                vectors,
                _named(solver, start),
                relative_residual(S, trivial, values, vectors, backend),
            )
    values, vectors, solver, residual = _solve(
        S, n_components, trivial, solver, tol, seed, lower, start, backend
    )
    if residual is None:  # (the subspace iteration's is its last step's: not measured twice)
        residual = relative_residual(S, trivial, values, vectors, backend)
    return Eigenpairs(values, vectors, _named(solver, start), residual)


def _named(solver: str, start) -> str:
    """The path's name, "+warm" when it started from a warm start (the dense path has none)."""
    return solver if start is None or solver == "dense" else f"{solver}+warm"
