import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from metriclab.datasets import load
from metriclab.evaluation import (
    SplitRequest,
    embedding_accuracy,
    fit_split,
    knn_accuracy,
    labeled_mask,
    partial_labels,
)
from metriclab.graphs import knn_graph, laplacian
from metriclab.methods import REGISTRY
from metriclab.methods.spectral import (
    TDL,
    LaplacianEigenmaps,
    cost_laplacian,
    cost_lower_bound,
    cost_matrix,
    penalized_problem,
)

LAPLACIANS = ("symmetric", "unnormalized", "random_walk")


@pytest.fixture(scope="module")
def moons():
    ds = load("harder_moons")
    mask = labeled_mask(ds.y, per_class=5, seed=0)
    return ds.X, ds.y, mask, partial_labels(ds.y, mask)


def _three_blobs(n=150, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = rng.standard_normal((n, 4)) + 2.0 * np.eye(4)[y]
    return X, y


def _subspace_cosines(A, B, inner=None):
    """Cosines of the principal angles between span(A) and span(B) (inner product diag(inner))."""
    w = np.ones(A.shape[0]) if inner is None else inner
    sq = np.sqrt(w)[:, None]
    Qa, _ = np.linalg.qr(A * sq)
    Qb, _ = np.linalg.qr(B * sq)
    return np.linalg.svd(Qa.T @ Qb, compute_uv=False)


# ---- the cost matrix (Eq. 6) and Proposition 3 -------------------------------------------------


def test_cost_matrix_known_answer_with_fewer_neighbours_than_k():
    # labeled: 0,1,2 in class 0 on a line; 3 in class 1; 4 unlabeled
    X = np.array([[0.0], [1.0], [3.0], [10.0], [0.5]])
    y = np.array([0, 0, 0, 1, -1])
    C = cost_matrix(X, y, k=2).toarray()
    # before symmetrisation: point 0 -> same {1, 2} at +1/2, other {3} at -1/1 (only one exists)
    # point 3 -> no same-class neighbour; other {2, 1} at -1/2
    raw = np.zeros((5, 5))
    raw[0, [1, 2]] = 0.5
    raw[1, [0, 2]] = 0.5
    raw[2, [1, 0]] = 0.5
    raw[[0, 1, 2], 3] = -1.0
    raw[3, [2, 1]] = -0.5
    np.testing.assert_allclose(C, (raw + raw.T) / 2)
    assert np.all(C[4] == 0) and np.all(C[:, 4] == 0)  # unlabeled point: no cost


def test_cost_matrix_takes_the_prior_metrics_neighbour_search():
    """The neighbours of Eq. (6) come from the prior metric: a search that reverses the line's
    order (the farthest first) changes the cost, and one that reproduces the Euclidean order gives
    the Euclidean cost."""
    X = np.array([[0.0], [1.0], [3.0], [10.0], [0.5]])
    y = np.array([0, 0, 0, 1, -1])

    def farthest(reference, query, k):
        q = X[reference] if query is None else X[query]
        d = np.abs(q - X[reference].T)
        if query is None:
            np.fill_diagonal(d, -np.inf)
        return np.argsort(-d, axis=1, kind="stable")[:, :k]

    def euclidean(reference, query, k):
        q = X[reference] if query is None else X[query]
        d = np.abs(q - X[reference].T)
        if query is None:
            np.fill_diagonal(d, np.inf)
        return np.argsort(d, axis=1, kind="stable")[:, :k]

    np.testing.assert_allclose(
        cost_matrix(X, y, 1, nearest=euclidean).toarray(), cost_matrix(X, y, 1).toarray()
    )
    C = cost_matrix(X, y, 1, nearest=farthest).toarray()
    assert C[0, 2] > 0 and C[0, 1] == 0  # point 0's same-class pick is now 3.0, not 1.0


def test_tdl_fit_takes_a_cost_from_another_prior_and_checks_its_shape():
    X, y = _three_blobs(60)
    y = partial_labels(y, labeled_mask(y, per_class=6, seed=1))
    default = TDL(n_components=2, k=3, n_neighbors=6).fit(X, y)
    given = TDL(n_components=2, k=3, n_neighbors=6).fit(X, y, cost=cost_matrix(X, y, 3))
    np.testing.assert_allclose(given.embedding_, default.embedding_, atol=1e-8)
    reversed_cost = -cost_matrix(X, y, 3)
    other = TDL(n_components=2, k=3, n_neighbors=6).fit(X, y, cost=reversed_cost)
    assert not np.allclose(np.abs(other.embedding_), np.abs(default.embedding_), atol=1e-3)
    with pytest.raises(ValueError, match="cost must be"):
        TDL(n_components=2, k=3, n_neighbors=6).fit(X, y, cost=np.zeros((5, 5)))


def test_cost_laplacian_quadratic_form_is_weighted_pairwise_differences():
    X, y = _three_blobs(60)
    y = partial_labels(y, labeled_mask(y, per_class=6, seed=1))
    C = cost_matrix(X, y, k=3)
    Cp = cost_laplacian(C)
    f = np.random.default_rng(2).standard_normal(60)
    Cd = C.toarray()
    assert f @ (Cp @ f) == pytest.approx(np.sum(Cd * (f[:, None] - f[None, :]) ** 2))
    np.testing.assert_allclose(Cp @ np.ones(60), 0, atol=1e-12)  # C'e = 0
    # Proposition 3: Tr(C'G) = Tr(CD) for the Gram matrix of any point set
    Z = np.random.default_rng(3).standard_normal((60, 2))
    Z -= Z.mean(axis=0)
    D2 = np.sum((Z[:, None] - Z[None]) ** 2, axis=2)
    assert np.trace(Cp.toarray() @ (Z @ Z.T)) == pytest.approx(np.trace(Cd @ D2))


# ---- eigenproblem invariants -------------------------------------------------------------------


@pytest.mark.parametrize("kind", LAPLACIANS)
def test_le_is_tdl_without_cost_exactly(moons, kind):
    X, _, _, _ = moons
    le = LaplacianEigenmaps(n_components=3, laplacian=kind).fit(X)
    unlabeled = np.full(X.shape[0], -1)
    tdl = TDL(n_components=3, lam=1.0, laplacian=kind).fit(X, unlabeled)
    assert tdl.cost_.nnz == 0
    np.testing.assert_allclose(tdl.embedding_, le.embedding_, atol=1e-12)
    np.testing.assert_allclose(tdl.eigenvalues_, le.eigenvalues_, atol=1e-12)
    # with C = 0, λ only scales the spectrum
    tdl7 = TDL(n_components=3, lam=7.0, laplacian=kind).fit(X, unlabeled)
    np.testing.assert_allclose(tdl7.eigenvalues_, 7 * le.eigenvalues_, rtol=1e-8, atol=1e-12)
    assert np.all(_subspace_cosines(tdl7.embedding_, le.embedding_) > 1 - 1e-8)


def test_defaults_are_the_reading_that_reproduces_the_papers_tables(moons):
    """TDL() and LaplacianEigenmaps() share the unnormalized Laplacian D - W and Eq. (3)'s sum of
    the costs; LE is then TDL with C = 0 at the defaults too."""
    X, _, _, _ = moons
    assert TDL().laplacian == LaplacianEigenmaps().laplacian == "unnormalized"
    assert TDL().cost_scale == "sum"
    le = LaplacianEigenmaps(n_components=2).fit(X)
    tdl = TDL(n_components=2).fit(X, np.full(X.shape[0], -1))
    np.testing.assert_allclose(tdl.embedding_, le.embedding_, atol=1e-12)
    # the penalty is D - W itself: the LE eigenvalues are those of the unnormalized Laplacian
    L = laplacian(le.affinity_, "unnormalized").toarray()
    np.testing.assert_allclose(le.eigenvalues_, np.linalg.eigvalsh(L)[1:3], atol=1e-9)


@pytest.mark.parametrize("kind", LAPLACIANS)
def test_mean_cost_is_the_sum_with_lambda_times_the_labeled_count(moons, kind):
    """cost_scale='mean' ((1/n) Σ C'_i of Eqs. 1-2) solves (1/n)(C' + nλP'): the embedding of the
    sum with λ·n, and eigenvalues 1/n of its."""
    X, _, mask, y_partial = moons
    n = int(mask.sum())
    mean = TDL(n_components=2, lam=2.0, laplacian=kind, cost_scale="mean").fit(X, y_partial)
    total = TDL(n_components=2, lam=2.0 * n, laplacian=kind).fit(X, y_partial)
    np.testing.assert_allclose(mean.cost_.toarray() * n, total.cost_.toarray(), atol=1e-12)
    np.testing.assert_allclose(mean.eigenvalues_ * n, total.eigenvalues_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.abs(mean.embedding_), np.abs(total.embedding_), atol=1e-7)
    with pytest.raises(ValueError, match="cost_scale"):
        TDL(cost_scale="median").fit(X, y_partial)


@pytest.mark.parametrize("kind", LAPLACIANS)
def test_tdl_with_huge_lambda_spans_the_le_subspace(moons, kind):
    X, _, _, y_partial = moons
    le = LaplacianEigenmaps(n_components=2, laplacian=kind).fit(X)
    d = le.degrees_ if kind == "random_walk" else None
    small = TDL(n_components=2, lam=1.0, laplacian=kind).fit(X, y_partial)
    big = TDL(n_components=2, lam=1e7, laplacian=kind).fit(X, y_partial)
    assert np.all(_subspace_cosines(big.embedding_, le.embedding_, d) > 1 - 1e-5)
    assert _subspace_cosines(small.embedding_, le.embedding_, d).min() < 0.99  # labels matter


@pytest.mark.parametrize("kind", LAPLACIANS)
def test_orthonormal_in_the_right_inner_product_and_orthogonal_to_trivial(moons, kind):
    X, _, _, y_partial = moons
    model = TDL(n_components=4, lam=4.0, laplacian=kind).fit(X, y_partial)
    Z, d = model.embedding_, model.degrees_
    e = np.ones(X.shape[0])
    if kind == "unnormalized":
        gram, trivial = Z.T @ Z, Z.T @ e
    elif kind == "symmetric":
        gram, trivial = Z.T @ Z, Z.T @ np.sqrt(d)
    else:  # D-orthonormal, D-orthogonal to e
        gram, trivial = Z.T @ (d[:, None] * Z), Z.T @ d
    np.testing.assert_allclose(gram, np.eye(4), atol=1e-10)
    np.testing.assert_allclose(trivial, 0, atol=1e-10)
    assert np.all(np.diff(model.eigenvalues_) >= -1e-12)


def test_eigenvectors_solve_the_paper_eigenproblem_and_may_have_negative_eigenvalues(moons):
    X, _, _, y_partial = moons
    # small λ: the indefinite cost dominates, eigenvalues below 0 come before the trivial 0
    model = TDL(n_components=3, lam=0.5, laplacian="unnormalized").fit(X, y_partial)
    assert model.eigenvalues_[0] < 0
    W = model.affinity_
    A = cost_laplacian(model.cost_) + 0.5 * laplacian(W)
    residual = A @ model.embedding_ - model.embedding_ * model.eigenvalues_
    assert np.abs(residual).max() < 1e-8
    # random_walk: the generalized problem (C' + λL) v = μ D v
    rw = TDL(n_components=3, lam=0.5, laplacian="random_walk").fit(X, y_partial)
    residual = A @ rw.embedding_ - (rw.degrees_[:, None] * rw.embedding_) * rw.eigenvalues_
    assert np.abs(residual).max() < 1e-8
    # the constrained minimum is attained: no vector ⊥ e gets a lower Rayleigh quotient
    rng = np.random.default_rng(0)
    for _ in range(20):
        f = rng.standard_normal(X.shape[0])
        f -= f.mean()
        assert f @ (A @ f) / (f @ f) >= model.eigenvalues_[0] - 1e-9


@pytest.mark.parametrize("kind", LAPLACIANS)
def test_sparse_dense_and_lobpcg_paths_agree(kind):
    X, y = _three_blobs(300)
    y_partial = partial_labels(y, labeled_mask(y, per_class=5, seed=0))
    models = {
        solver: TDL(n_components=3, lam=8.0, laplacian=kind, eigen_solver=solver, tol=1e-10).fit(
            X, y_partial
        )
        for solver in ("dense", "arpack", "filtered", "shift-invert", "lobpcg")
    }
    d = models["dense"].degrees_ if kind == "random_walk" else None
    for solver in ("arpack", "filtered", "shift-invert", "lobpcg"):
        np.testing.assert_allclose(
            models[solver].eigenvalues_, models["dense"].eigenvalues_, rtol=1e-5, atol=1e-7
        )
        cosines = _subspace_cosines(models[solver].embedding_, models["dense"].embedding_, d)
        assert np.all(cosines > 1 - 1e-6)
    # ARPACK and dense agree column by column (same sign convention)
    np.testing.assert_allclose(models["arpack"].embedding_, models["dense"].embedding_, atol=1e-6)


def test_label_permutation_does_not_change_the_embedding():
    X, y = _three_blobs(120)
    mask = labeled_mask(y, per_class=5, seed=3)
    y_partial = partial_labels(y, mask)
    relabeled = np.where(y_partial == -1, -1, np.array([7, 2, 5])[np.maximum(y_partial, 0)])
    a = TDL(n_components=2, lam=4.0).fit(X, y_partial)
    b = TDL(n_components=2, lam=4.0).fit(X, relabeled)
    np.testing.assert_allclose(a.embedding_, b.embedding_, atol=1e-10)
    np.testing.assert_allclose(a.eigenvalues_, b.eigenvalues_, atol=1e-12)


@pytest.mark.parametrize(("kind", "lam"), [("symmetric", 16.0), ("unnormalized", 1.0)])
def test_tdl_separates_harder_moons_in_one_dimension_better_than_le(kind, lam):
    """The paper's Figure 1 setting: kNN graph with exp(-d²/0.25), λ = 16 with the symmetric
    normalised Laplacian (with the default unnormalized D - W the same window sits near λ = 1),
    1-D embedding, 1-NN from 5 labels per moon. The effect lives in a window of λ and width."""
    ds = load("harder_moons")
    tdl, le = [], []
    for seed in range(6):
        mask = labeled_mask(ds.y, per_class=5, seed=seed)
        yp = partial_labels(ds.y, mask)
        Z = TDL(n_components=1, lam=lam, k=5, width=0.25, laplacian=kind).fit(ds.X, yp).embedding_
        tdl.append(embedding_accuracy(Z, ds.y, mask))
        Z = LaplacianEigenmaps(n_components=1, width=0.25, laplacian=kind).fit(ds.X).embedding_
        le.append(embedding_accuracy(Z, ds.y, mask))
    assert np.mean(tdl) > np.mean(le) + 0.07, (np.mean(tdl), np.mean(le))
    assert np.mean(np.array(tdl) >= np.array(le)) >= 5 / 6


# ---- out-of-sample map (Lemma 6) ---------------------------------------------------------------


def test_out_of_sample_agrees_with_transductive_embedding(moons):
    X, y, mask, y_partial = moons
    model = TDL(n_components=2, lam=16.0, width=0.25, laplacian="symmetric").fit(X, y_partial)
    Z_in = model.transform(X)
    for j in range(2):
        assert np.corrcoef(Z_in[:, j], model.embedding_[:, j])[0, 1] > 0.95
    # held-out points: fit without them, map them, compare with the fit on all points
    rng = np.random.default_rng(0)
    held = (rng.random(X.shape[0]) < 0.15) & ~mask
    part = TDL(n_components=2, lam=16.0, width=0.25, laplacian="symmetric").fit(
        X[~held], y_partial[~held]
    )
    Z_out = part.transform(X[held])
    assert np.corrcoef(Z_out[:, 0], model.embedding_[held, 0])[0, 1] > 0.9
    # and 1-NN labels of the mapped points agree with those of the transductive embedding
    ref = part.embedding_[mask[~held]][:, :1]
    pred_out = knn_accuracy(ref, y[~held][mask[~held]], Z_out[:, :1], y[held])
    pred_trans = knn_accuracy(
        model.embedding_[mask][:, :1], y[mask], model.embedding_[held][:, :1], y[held]
    )
    assert pred_out >= pred_trans - 0.1


def test_out_of_sample_interpolates_exactly_without_rkhs_penalty():
    X, y = _three_blobs(60)
    y_partial = partial_labels(y, labeled_mask(y, per_class=4, seed=0))
    # a narrow kernel makes K well conditioned, so span(K) is all of R^n
    model = LaplacianEigenmaps(n_components=2, kernel_penalty=0.0, kernel_width=0.5).fit(X)
    np.testing.assert_allclose(model.transform(X), model.embedding_, atol=1e-6)
    tdl = TDL(n_components=2, lam=2.0, kernel_penalty=0.0, kernel_width=0.5).fit(X, y_partial)
    np.testing.assert_allclose(tdl.transform(X), tdl.embedding_, atol=1e-6)


# ---- robustness, validation, registry -----------------------------------------------------------


def test_duplicates_disconnected_graph_and_isolated_points_stay_finite():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.standard_normal((30, 2)), rng.standard_normal((30, 2)) + 50.0])
    X = np.vstack([X, X[:5], np.zeros((4, 2))])  # duplicates
    y = np.full(X.shape[0], -1)
    y[[0, 1, 30, 31]] = [0, 0, 1, 1]
    for kind in LAPLACIANS:
        for graph in ("knn", "full"):
            model = TDL(
                n_components=3, lam=2.0, n_neighbors=3, width=0.01, graph=graph, laplacian=kind
            )
            Z = model.fit(X, y).embedding_
            assert np.isfinite(Z).all() and np.isfinite(model.eigenvalues_).all()


def test_cost_lower_bound_is_below_the_spectrum(moons):
    X, _, _, y_partial = moons
    for kind in LAPLACIANS:
        model = TDL(n_components=1, lam=0.1, laplacian=kind).fit(X, y_partial)
        W = model.affinity_
        S, scale, _ = penalized_problem(cost_laplacian(model.cost_), W, model.degrees_, 0.1, kind)
        bound = cost_lower_bound(model.cost_, scale)
        assert bound <= np.linalg.eigvalsh(S.toarray()).min() + 1e-12 < 0


def test_penalized_problem_trivial_vector_is_a_null_vector_where_promised():
    X, y = _three_blobs(80)
    W, _ = knn_graph(X, 6)
    d = np.asarray(W.sum(axis=1)).ravel()
    Cp = cost_laplacian(cost_matrix(X, partial_labels(y, labeled_mask(y, per_class=4)), 3))
    for kind in ("unnormalized", "random_walk"):
        S, _, t = penalized_problem(Cp, W, d, 3.0, kind)
        np.testing.assert_allclose(S @ t, 0, atol=1e-12)
    S, _, t = penalized_problem(sp.csr_matrix((80, 80)), W, d, 3.0, "symmetric")
    np.testing.assert_allclose(S @ t, 0, atol=1e-12)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"lam": -1.0}, "lam"),
        ({"lam": "big"}, "lam"),
        ({"k": 0}, "k"),
        ({"n_components": 0}, "n_components"),
        ({"n_components": 500}, "n_components"),
        ({"n_neighbors": 2.5}, "n_neighbors"),
        ({"laplacian": "normalized"}, "laplacian"),
        ({"graph": "complete"}, "graph"),
        ({"eigen_solver": "magic"}, "eigen_solver"),
        ({"width": -0.1}, "width"),
    ],
)
def test_invalid_parameters_raise_value_errors_naming_them(moons, params, message):
    X, _, _, y_partial = moons
    with pytest.raises(ValueError, match=message):
        TDL(**params).fit(X, y_partial)


def test_invalid_data_raise_value_errors(moons):
    X, _, _, y_partial = moons
    with pytest.raises(ValueError, match="y must"):
        TDL().fit(X, y_partial[:-1])
    with pytest.raises(ValueError, match="y must"):
        TDL().fit(X, np.array(["a"] * X.shape[0]))
    bad = X.copy()
    bad[3, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        TDL().fit(bad, y_partial)
    model = TDL().fit(X, y_partial)
    with pytest.raises(ValueError, match="features"):
        model.transform(np.ones((2, 3)))


def test_a_single_labelled_class_is_refused_but_no_labels_is_laplacian_eigenmaps(moons):
    X, y, mask, _ = moons
    one_class = np.where(mask & (y == 0), y, -1)
    with pytest.raises(ValueError, match="two classes"):
        TDL().fit(X, one_class)
    assert TDL().fit(X, np.full(X.shape[0], -1)).cost_.nnz == 0


def test_out_of_sample_on_nearly_identical_points_is_a_clear_error():
    # four points 1e-6 apart: the Gaussian kernel at width 1 has rank 1, so no 2-D map exists
    X = np.array([[1.3e-7], [-1.3e-7], [1.6e-6], [1.1e-6]])
    model = LaplacianEigenmaps(n_components=2, n_neighbors=2, width=1.0).fit(X)
    with pytest.raises(ValueError, match="kernel_width"):
        model.transform(X[:3])
    assert model._out_of_sample.value is None


def test_registry_specs_build_working_estimators(moons):
    X, y, mask, _ = moons
    assert REGISTRY["tdl"].baseline == "le" and REGISTRY["le"].baseline == "euclidean"
    for key in ("tdl", "le"):
        spec = REGISTRY[key]
        assert spec.family == "spectral" and spec.transductive and spec.out_of_sample
        fitted = fit_split(SplitRequest(spec, X, y, mask))
        model = fitted.estimator
        assert clone(model).get_params() == model.get_params()
        acc = fitted.accuracy()
        assert 0.5 <= acc <= 1.0
        assert model.embedding_.shape == (X.shape[0], 2)
        assert sp.issparse(model.affinity_) and sp.issparse(model.cost_)
        assert model.width_ > 0
    assert not REGISTRY["le"].needs_labels and REGISTRY["tdl"].needs_labels
    assert REGISTRY["tdl"].param("lam").log
    spec = REGISTRY["tdl"]
    spec.make(lam=1e3, k=3, n_neighbors=15, width=0.5, n_components=10, laplacian="random_walk")
    with pytest.raises(ValueError, match="lam must be >= 0.0, got -1.0"):
        spec.make(lam=-1.0)
    spec.make(lam=0.0)  # the estimator takes λ = 0 (the label cost alone); the slider starts above
    assert spec.param("lam").ui_range == (1e-3, 1e4)


def test_auto_solver_past_the_dense_limit_matches_dense():
    from metriclab.eigen import DENSE_MAX_POINTS

    X, y = _three_blobs(DENSE_MAX_POINTS + 100)
    y_partial = partial_labels(y, labeled_mask(y, fraction=0.1, seed=0))
    auto = TDL(n_components=4, lam=16.0).fit(X, y_partial)
    dense = TDL(n_components=4, lam=16.0, eigen_solver="dense").fit(X, y_partial)
    np.testing.assert_allclose(auto.eigenvalues_, dense.eigenvalues_, rtol=1e-7, atol=1e-9)
    assert np.all(_subspace_cosines(auto.embedding_, dense.embedding_) > 1 - 1e-7)
    le = LaplacianEigenmaps(n_components=4).fit(X)
    le_dense = LaplacianEigenmaps(n_components=4, eigen_solver="dense").fit(X)
    np.testing.assert_allclose(le.eigenvalues_, le_dense.eigenvalues_, rtol=1e-7, atol=1e-10)


def test_a_precomputed_graph_gives_the_same_embedding_and_a_wrong_one_is_refused(moons):
    """fit(X, y, graph=build_graph(X, ...)) reuses the graph across splits (the MNIST run)."""
    from metriclab.graphs import build_graph

    X, _, _, y_partial = moons
    graph = build_graph(X, n_neighbors=10, width=0.25)
    a = TDL(n_components=2, width=0.25).fit(X, y_partial)
    b = TDL(n_components=2, width=0.25).fit(X, y_partial, graph=graph)
    np.testing.assert_allclose(a.embedding_, b.embedding_, atol=1e-12)
    assert b.width_ == 0.25
    le = LaplacianEigenmaps(n_components=2, width=0.25)
    np.testing.assert_allclose(le.fit(X).embedding_, le.fit(X, graph=graph).embedding_, atol=1e-12)
    with pytest.raises(ValueError, match="graph must be"):
        TDL().fit(X[:50], y_partial[:50], graph=graph)


# ---- the estimators at their defaults (issue 38 item 7) ----------------------------------------


@pytest.mark.parametrize("cls", [TDL, LaplacianEigenmaps])
def test_the_default_graph_fits_small_data_and_keeps_ten_neighbours_beyond(cls, moons):
    """n_neighbors=None is 10, at most n − 1: ten points fit at the defaults (scikit-learn's
    check data), one feature works, and from eleven points on the graph is the old default's."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((10, 3))
    y = np.array([0, 1] * 3 + [-1] * 4)
    model = cls().fit(X, y)
    assert model.n_neighbors_ == 9 and model.embedding_.shape == (10, 2)
    assert cls().fit(X[:, :1], y).embedding_.shape == (10, 2)  # one feature
    X_moons, _, _, y_partial = moons
    default, ten = cls().fit(X_moons, y_partial), cls(n_neighbors=10).fit(X_moons, y_partial)
    assert default.n_neighbors_ == 10
    np.testing.assert_array_equal(default.embedding_, ten.embedding_)
    with pytest.raises(ValueError, match="n_neighbors must be <= 9, got 10"):
        cls(n_neighbors=10).fit(X, y)  # an explicit value is never changed


@pytest.mark.parametrize("cls", [TDL, LaplacianEigenmaps])
@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nan_and_inf_are_refused(cls, bad):
    X = np.random.default_rng(0).standard_normal((12, 2))
    X[3, 1] = bad
    with pytest.raises(ValueError, match="NaN|infinity"):
        cls().fit(X, np.array([0, 1] * 6))


def test_tdl_without_any_label_is_laplacian_eigenmaps_as_documented(moons):
    """No label (y None or all -1): C = 0, and TDL is Laplacian Eigenmaps (the module docstring
    says so and why it is not an error); λ scales the eigenvalues only."""
    X = moons[0]
    le = LaplacianEigenmaps().fit(X)
    for y in (None, np.full(X.shape[0], -1)):
        tdl = TDL(lam=3.0).fit(X, y)
        assert tdl.cost_.nnz == 0
        np.testing.assert_allclose(tdl.embedding_, le.embedding_, atol=1e-12)
        np.testing.assert_allclose(tdl.eigenvalues_, 3.0 * le.eigenvalues_, rtol=1e-8)
    with pytest.raises(ValueError, match="at least two classes"):
        TDL().fit(X, np.where(np.arange(X.shape[0]) < 5, 0, -1))


@pytest.mark.parametrize("kind", LAPLACIANS)
def test_the_spectrum_is_what_a_fit_with_more_components_reports(moons, kind):
    # the Embed page's spectrum shows 10 eigenvalues of a 2-D fit: read from the fitted problem,
    # they are the eigenvalues a second fit with n_components=10 gives, its first two the fit's own
    X, _, _, partial = moons
    two = TDL(n_components=2, lam=3.0, laplacian=kind).fit(X, partial)
    ten = TDL(n_components=10, lam=3.0, laplacian=kind).fit(X, partial)
    values = two.spectrum(10)
    assert values.shape == (10,) and np.all(np.diff(values) >= 0)
    np.testing.assert_allclose(values, ten.eigenvalues_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(values[:2], two.eigenvalues_, rtol=1e-9, atol=1e-12)
    for bad in (0, X.shape[0], 2.5):
        with pytest.raises(ValueError, match="count"):
            two.spectrum(bad)
