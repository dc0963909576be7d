"""metriclab.eigen: every solver path returns the dense reference's eigenpairs on small problems of
each kind (a Laplacian with its trivial null vector, TDL's indefinite C' + λL, a disconnected
graph), "auto" picks its path by the estimated LU fill-in, and the reported residual is honest."""

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from scipy.stats import ortho_group
from sklearn.datasets import make_swiss_roll

import metriclab.eigen as eigen
from metriclab.eigen import lu_fill_ratio, relative_residual, smallest_eigenpairs
from metriclab.evaluation import labeled_mask, partial_labels
from metriclab.graphs import degrees, knn_graph
from metriclab.methods.spectral import (
    TDL,
    LaplacianEigenmaps,
    cost_laplacian,
    cost_lower_bound,
    cost_matrix,
    penalized_problem,
)

PATHS = ("dense", "arpack", "filtered", "subspace", "shift-invert", "lobpcg")


def _swiss_roll(n, seed=0):
    roll, t = make_swiss_roll(n, noise=0.0, random_state=seed)
    X = roll @ ortho_group.rvs(10, random_state=seed)[:3]
    return X + 0.01 * np.random.default_rng(seed).standard_normal((n, 10)), (t * 1.5).astype(int)


def _clusters(n, dim=10, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 5
    return rng.standard_normal((n, dim)) + rng.uniform(-4, 4, (5, dim))[y], y


def _problem(X, y, kind, lam=16.0, laplacian="symmetric"):
    """(S, trivial, lower) of TDL (kind 'tdl') or LE (kind 'le') on the 10-NN graph of X."""
    W, _ = knn_graph(X, n_neighbors=10)
    C = cost_matrix(X, partial_labels(y, labeled_mask(y, fraction=0.2, seed=0)), 5)
    if kind == "le":
        C, lam = C * 0.0, 1.0
    S, scale, trivial = penalized_problem(cost_laplacian(C), W, degrees(W), lam, laplacian)
    return S, trivial, cost_lower_bound(C, scale)


def _reference(S, trivial, k):
    """Dense eigh of the constrained problem: S on an orthonormal basis of the complement of t."""
    Q = scipy.linalg.null_space(trivial[None, :])
    values, vectors = scipy.linalg.eigh(Q.T @ S.toarray() @ Q, subset_by_index=[0, k - 1])
    return values, Q @ vectors


def _subspace_cosines(A, B):
    return np.linalg.svd(np.linalg.qr(A)[0].T @ np.linalg.qr(B)[0], compute_uv=False)


@pytest.mark.parametrize("solver", PATHS)
@pytest.mark.parametrize(
    "kind,laplacian",
    [("le", "symmetric"), ("tdl", "symmetric"), ("tdl", "unnormalized"), ("tdl", "random_walk")],
)
def test_every_path_returns_the_dense_reference_eigenpairs(solver, kind, laplacian):
    X, y = _clusters(400)
    S, trivial, lower = _problem(X, y, kind, laplacian=laplacian)
    ref_values, ref_vectors = _reference(S, trivial, 4)
    result = smallest_eigenpairs(S, 4, trivial, solver=solver, tol=1e-10, lower=lower)
    assert result.solver == solver
    np.testing.assert_allclose(result.values, ref_values, rtol=1e-6, atol=1e-8)
    assert np.all(_subspace_cosines(result.vectors, ref_vectors) > 1 - 1e-6)
    assert np.abs(trivial @ result.vectors).max() < 1e-6
    # LOBPCG stalls near 1e-5 on the indefinite TDL matrices (it warns past 1e-4); ARPACK and
    # eigh reach rounding level
    assert result.residual < (1e-4 if solver == "lobpcg" else 1e-8)
    if kind == "tdl":  # the label cost makes S indefinite: negative eigenvalues are kept
        assert result.values[0] < 0


def test_disconnected_graph_keeps_every_zero_eigenvalue_but_the_trivial_one():
    """Three far-apart clusters: L_sym has a 3-dimensional null space; the constraint removes only
    the trivial direction D^1/2 e, so two zero eigenvalues remain (the component indicators)."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.standard_normal((150, 3)) + 100.0 * c for c in range(3)])
    S, trivial, lower = _problem(X, np.repeat(np.arange(3), 150), "le")
    ref_values, ref_vectors = _reference(S, trivial, 4)
    assert np.sum(np.abs(ref_values) < 1e-10) == 2
    for solver in PATHS:
        result = smallest_eigenpairs(S, 4, trivial, solver=solver, tol=1e-10, lower=lower)
        np.testing.assert_allclose(result.values, ref_values, atol=1e-7)
        assert np.all(_subspace_cosines(result.vectors, ref_vectors) > 1 - 1e-6)


def test_fill_ratio_separates_a_manifold_graph_from_a_high_dimensional_one():
    """The LU of a Swiss-roll kNN graph stays sparse; that of 10-D Gaussian clusters fills in."""
    roll, _ = _swiss_roll(5000)
    clusters, _ = _clusters(5000)
    low = lu_fill_ratio(knn_graph(roll, 10)[0])
    high = lu_fill_ratio(knn_graph(clusters, 10)[0])
    assert low < eigen.FILL_RATIO_MAX < high
    assert low < 4 and high > 15  # measured 3.0 and 21.7


@pytest.mark.parametrize("kind", ["le", "tdl"])
def test_auto_picks_shift_invert_on_a_manifold_and_filtered_lanczos_on_high_dimensional_data(
    kind, monkeypatch
):
    # at 1,200 points the ball is nearly the whole graph and both LUs are cheap (fill ratio 2.8
    # against 5.4): a lower threshold makes the small problem take the large-problem path
    monkeypatch.setattr(eigen, "DENSE_MAX_POINTS", 500)
    monkeypatch.setattr(eigen, "FILL_RATIO_MAX", 4.0)
    monkeypatch.setattr(eigen, "SA_TRIAL_WORK", 0)  # no Lanczos trial: the fill decides alone
    expected = {"roll": "shift-invert", "clusters": "filtered"}
    for name, (X, y) in {"roll": _swiss_roll(1200), "clusters": _clusters(1200)}.items():
        S, trivial, lower = _problem(X, y, kind)
        ref_values, ref_vectors = _reference(S, trivial, 5)
        result = smallest_eigenpairs(S, 5, trivial, lower=lower)
        assert result.solver == expected[name], name
        np.testing.assert_allclose(result.values, ref_values, rtol=1e-7, atol=1e-9)
        assert np.all(_subspace_cosines(result.vectors, ref_vectors) > 1 - 1e-7)
        assert result.residual < 1e-8


def test_relative_residual_is_zero_for_eigenpairs_and_grows_with_the_error():
    X, y = _clusters(300)
    S, trivial, _ = _problem(X, y, "tdl")
    values, vectors = _reference(S, trivial, 3)
    assert relative_residual(S, trivial, values, vectors) < 1e-12
    noisy = vectors + 1e-3 * np.random.default_rng(0).standard_normal(vectors.shape)
    assert 1e-5 < relative_residual(S, trivial, values, noisy) < 1e-1
    assert relative_residual(S, trivial, values + 0.1, vectors) > 1e-3


def test_estimators_report_the_solver_path_and_residual():
    X, y = _clusters(300)
    y_partial = partial_labels(y, labeled_mask(y, fraction=0.2, seed=0))
    for model in (TDL(n_components=3), LaplacianEigenmaps(n_components=3, eigen_solver="arpack")):
        model.fit(X, y_partial)
        assert model.eigen_solver_ in ("dense", "arpack")
        assert 0 <= model.eigen_residual_ < 1e-8


def test_unknown_solver_and_missing_shift_are_value_errors():
    X, y = _clusters(200)
    S, trivial, _ = _problem(X, y, "le")
    with pytest.raises(ValueError, match="eigen_solver"):
        smallest_eigenpairs(S, 2, trivial, solver="magic")
    with pytest.raises(ValueError, match="lower bound"):
        smallest_eigenpairs(S, 2, trivial, solver="shift-invert", lower=None)
    assert sp.issparse(S)


def test_sparse_paths_run_with_one_blas_thread(monkeypatch):
    """ARPACK's many n × (few) products only spin on a second BLAS thread (10^5 clusters: 84 CPU s
    against 8.5 with one; bench/README.md): every sparse path runs inside a one-thread limit."""
    from threadpoolctl import threadpool_info, threadpool_limits

    seen = []

    def recording(original):
        def wrapper(*args, **kwargs):
            seen.extend(
                pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"
            )
            return original(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(eigen, "eigsh", recording(eigen.eigsh))
    monkeypatch.setattr(eigen, "lobpcg", recording(eigen.lobpcg))
    X, y = _clusters(400)
    S, trivial, lower = _problem(X, y, "le")
    with threadpool_limits(2):
        for solver in ("arpack", "filtered", "shift-invert", "lobpcg"):
            smallest_eigenpairs(S, 3, trivial, solver=solver, tol=1e-10, lower=lower)
    assert seen and set(seen) == {1}


# ---- filtered Lanczos ------------------------------------------------------------------------


def _wide_diagonal(n=3000, seed=0):
    """A sparse diagonal S with TDL's spread (eigenvalues from 1 to 8,000, the wanted ones well
    inside the lowest percent) and t = e_0, whose eigenvalue 0 the constraint must remove: the
    answer is known exactly."""
    rng = np.random.default_rng(seed)
    spread = np.sort(rng.uniform(1.0, 8000.0, n - 1))
    low = rng.uniform(1.0, 60.0, 40)  # in place of the smallest 40: a dense low end
    values = np.concatenate([[0.0], np.sort(np.concatenate([low, spread[40:]]))])
    order = rng.permutation(n)  # not already sorted along the diagonal
    S = sp.diags(values[order]).tocsr()
    trivial = np.zeros(n)
    trivial[np.flatnonzero(order == 0)[0]] = 1.0
    return S, trivial, values


def test_filtered_lanczos_returns_the_exact_smallest_eigenpairs_of_a_known_spectrum():
    S, trivial, values = _wide_diagonal()
    result = smallest_eigenpairs(S, 12, trivial, solver="filtered", tol=0.0)
    assert result.solver == "filtered"
    np.testing.assert_allclose(result.values, values[1:13], rtol=1e-12)
    # each eigenvector is a coordinate vector: the one where its eigenvalue sits on the diagonal
    expected = np.abs(result.vectors).argmax(axis=0)
    np.testing.assert_allclose(S.diagonal()[expected], result.values, rtol=1e-12)
    assert np.abs(np.abs(result.vectors).max(axis=0) - 1.0).max() < 1e-10
    assert result.residual < 1e-14


def test_lanczos_quadrature_counts_the_eigenvalues_below_a_cut_and_bounds_the_top():
    S, trivial, values = _wide_diagonal()
    apply = eigen._projected(S.__matmul__, trivial)
    nodes, weights, top = eigen.lanczos_quadrature(apply, trivial, probes=8, steps=60, seed=0)
    assert values[-1] <= top <= 1.01 * values[-1]
    for cut in (100.0, 400.0, 1500.0):
        exact = np.count_nonzero(values[1:] < cut)  # t's eigenvalue 0 carries no weight
        estimate = weights[nodes < cut].sum()
        # Hutchinson's spread for a projector of rank N: sqrt(2N / probes); plus the quadrature's
        # resolution, one node's weight
        assert abs(estimate - exact) < 3 * np.sqrt(2 * exact / 8) + weights.max(), cut
    assert eigen.count_cut(nodes, weights, 50) > values[40]


def _quadrature_one_probe_at_a_time(apply, trivial, probes, steps, seed):
    """The quadrature as it was written before the probes ran as one block (the reference)."""
    n = trivial.shape[0]
    rng = np.random.default_rng(seed)
    nodes, weights, top = [], [], -np.inf
    for _ in range(probes):
        q = rng.choice([-1.0, 1.0], n)
        q = q - trivial * (trivial @ q)
        size = float(q @ q)
        q /= np.sqrt(size)
        previous, beta, alphas, betas = np.zeros(n), 0.0, [], []
        for _ in range(min(steps, n - 1)):
            w = apply(q) - beta * previous
            alpha = float(q @ w)
            w -= alpha * q
            beta = float(np.linalg.norm(w))
            alphas.append(alpha)
            betas.append(beta)
            if beta <= 1e-12 * max(abs(alpha), 1.0):
                break
            previous, q = q, w / beta
        theta, U = scipy.linalg.eigh_tridiagonal(np.array(alphas), np.array(betas[:-1]))
        nodes.append(theta)
        weights.append(size * U[0] ** 2 / probes)
        top = max(top, float(theta[-1] + betas[-1] * abs(U[-1, -1])))
    return np.concatenate(nodes), np.concatenate(weights), top


@pytest.mark.parametrize("distinct", [None, 5])
def test_the_probes_as_one_block_give_the_one_at_a_time_quadrature(distinct):
    """Issue 42: the probes of the stochastic Lanczos quadrature run as one block (one product
    and one copy to the host per step); each column is the same Lanczos as one probe alone, also
    where a probe's Lanczos breaks down early (5 distinct eigenvalues: an invariant subspace
    after at most 5 steps, while another probe may run on)."""
    S, trivial, _ = _wide_diagonal()
    if distinct is not None:
        diagonal = np.repeat(np.linspace(1.0, 9.0, distinct), S.shape[0] // distinct + 1)
        S = sp.diags(diagonal[: S.shape[0]]).tocsr()
        trivial = np.zeros(S.shape[0])
        trivial[0] = 1.0
    apply = eigen._projected(S.__matmul__, trivial)
    got = eigen.lanczos_quadrature(apply, trivial, probes=6, steps=40, seed=3)
    want = _quadrature_one_probe_at_a_time(apply, trivial, probes=6, steps=40, seed=3)
    assert got[0].shape == want[0].shape  # the same number of nodes: the same breakdowns
    np.testing.assert_allclose(got[0], want[0], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-9, atol=1e-12)
    assert got[2] == pytest.approx(want[2], rel=1e-9)


def test_a_cut_below_the_wanted_eigenvalues_is_detected_and_raised(monkeypatch):
    """The filter's correctness check: a cut under λ_k returns a Ritz value at or above it; the
    path doubles the cut's distance from the smallest eigenvalue and tries again, and after
    FILTER_RETRIES cuts falls back to plain Lanczos."""
    S, trivial, values = _wide_diagonal()
    calls = []
    original = eigen.eigsh

    def counting(*args, **kwargs):
        calls.append(kwargs.get("which"))
        return original(*args, **kwargs)

    monkeypatch.setattr(eigen, "eigsh", counting)
    monkeypatch.setattr(eigen, "count_cut", lambda nodes, weights, count: float(values[4]))
    result = smallest_eigenpairs(S, 12, trivial, solver="filtered", tol=0.0)
    assert result.solver == "filtered" and calls == ["LA", "LA"]
    np.testing.assert_allclose(result.values, values[1:13], rtol=1e-12)

    calls.clear()
    monkeypatch.setattr(eigen, "FILTER_RETRIES", 1)
    result = smallest_eigenpairs(S, 12, trivial, solver="filtered", tol=0.0)
    assert result.solver == "arpack" and calls == ["LA", "SA"]
    np.testing.assert_allclose(result.values, values[1:13], rtol=1e-12)


def test_row_block_product_is_the_sparse_product_on_threads(monkeypatch):
    monkeypatch.setattr(eigen, "PARALLEL_MIN_NNZ", 0)
    monkeypatch.setattr(eigen, "available_cores", lambda: 3)
    X, y = _clusters(900)
    S, _, _ = _problem(X, y, "tdl", laplacian="unnormalized")
    x = np.random.default_rng(0).standard_normal((900, 4))
    with eigen.RowBlockProduct(S) as product:
        assert len(product._blocks) == 3
        np.testing.assert_array_equal(product(x[:, 0]), S @ x[:, 0])
        np.testing.assert_array_equal(product(x), S @ x)


@pytest.mark.parametrize("solver", ["auto", "filtered", "arpack", "shift-invert"])
def test_large_problems_are_solved_in_bandwidth_order_and_mapped_back(solver, monkeypatch):
    """Past REORDER_MIN_POINTS the Lanczos paths permute the problem (reverse Cuthill-McKee) for
    the products' memory locality; the eigenvectors come back in the caller's order."""
    orders = []
    original = eigen.reverse_cuthill_mckee
    monkeypatch.setattr(
        eigen, "reverse_cuthill_mckee", lambda *a, **k: orders.append(1) or original(*a, **k)
    )
    monkeypatch.setattr(eigen, "REORDER_MIN_POINTS", 100)
    monkeypatch.setattr(eigen, "DENSE_MAX_POINTS", 100)
    X, y = _clusters(600)
    S, trivial, lower = _problem(X, y, "tdl", laplacian="symmetric")
    ref_values, ref_vectors = _reference(S, trivial, 4)
    result = smallest_eigenpairs(S, 4, trivial, solver=solver, lower=lower)
    np.testing.assert_allclose(result.values, ref_values, rtol=1e-8, atol=1e-10)
    assert np.all(_subspace_cosines(result.vectors, ref_vectors) > 1 - 1e-8)
    assert relative_residual(S, trivial, result.values, result.vectors) < 1e-12
    assert bool(orders) == (result.solver in ("filtered", "arpack"))
