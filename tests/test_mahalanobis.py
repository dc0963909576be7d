"""Linear Mahalanobis learners: NCA, LMNN, DNE.

Checks the maths against independent computations (finite differences, a brute-force DNE matrix,
the LMNN loss over explicit triplets) and the learned metrics against Euclidean 1-NN.
scikit-learn's estimator checks run in test_estimator_checks.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.preprocessing import StandardScaler

from metriclab.methods import REGISTRY
from metriclab.methods.mahalanobis import (
    DNE,
    LMNN,
    NCA,
    class_ranges,
    dne_weights,
    impostor_candidates,
    nca_loss_and_gradient,
    target_neighbors,
)
from metriclab.methods.mahalanobis.lmnn import _LMNNObjective

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def one_nn(Z_train, y_train, Z_test, y_test):
    return KNeighborsClassifier(n_neighbors=1).fit(Z_train, y_train).score(Z_test, y_test)


def standardised_split(X, y, seed=0):
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=seed
    )
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), scaler.transform(X_test), y_train, y_test


def central_difference(f, x, h=1e-6):
    g = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def noisy_one_feature(n=200, n_noise=6, scale=10.0, seed=0):
    """Two classes separated along feature 0 only; the other features are noise scaled up."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    informative = y + 0.15 * rng.standard_normal(n)
    noise = scale * rng.standard_normal((n, n_noise))
    return np.column_stack([informative, noise]), y


@pytest.fixture(scope="module")
def small_problem():
    rng = np.random.default_rng(1)
    y = np.sort(rng.integers(0, 3, 40))
    X = rng.standard_normal((40, 5)) + y[:, None] * 0.7
    return X, y


# ---------------------------------------------------------------------------------------------
# NCA
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_components", [2, 5])
def test_nca_gradient_matches_finite_differences(small_problem, n_components):
    X, y = small_problem
    ranges = class_ranges(y)  # y is sorted
    L = 0.3 * np.random.default_rng(2).standard_normal((n_components, X.shape[1]))

    def f(flat):
        return nca_loss_and_gradient(flat, X, ranges, n_components)[0]

    numeric = central_difference(f, L.ravel())
    analytic = nca_loss_and_gradient(L.ravel(), X, ranges, n_components)[1]
    assert np.linalg.norm(numeric - analytic) / np.linalg.norm(analytic) < 1e-5


def test_nca_loss_is_minus_expected_correct_count(small_problem):
    # Eq. (3) computed pair by pair
    X, y = small_problem
    L = np.random.default_rng(3).standard_normal((2, X.shape[1]))
    Z = X @ L.T
    total = 0.0
    for i in range(len(X)):
        weights = np.array(
            [np.exp(-np.sum((Z[i] - Z[k]) ** 2)) if k != i else 0.0 for k in range(len(X))]
        )
        total += weights[y == y[i]].sum() / weights.sum()
    assert nca_loss_and_gradient(L.ravel(), X, class_ranges(y), 2)[0] == pytest.approx(
        -total, rel=1e-10
    )


def test_nca_matches_sklearn_objective_value():
    # same objective as scikit-learn's NCA: from the same start, both reach the same loss level
    from sklearn.neighbors import NeighborhoodComponentsAnalysis

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    ours = NCA(n_components=2, init="pca", max_iter=50).fit(X, y)
    theirs = NeighborhoodComponentsAnalysis(
        n_components=2, init="pca", max_iter=50, random_state=0
    ).fit(X, y)
    ranges = class_ranges(y)  # iris is sorted by class
    ours_loss = nca_loss_and_gradient(ours.components_.ravel(), X, ranges, 2)[0]
    theirs_loss = nca_loss_and_gradient(theirs.components_.ravel(), X, ranges, 2)[0]
    assert ours_loss <= theirs_loss + 0.5  # expected correct count, out of 150
    assert ours.loss_curve_[-1] < ours.loss_curve_[0]


# ---------------------------------------------------------------------------------------------
# LMNN
# ---------------------------------------------------------------------------------------------


def lmnn_loss_by_triplets(L, X, y, targets, mu):
    """The LMNN loss of the paper (Section 2.2) over all explicit triplets (i, j, l)."""
    Z = X @ L.T
    pull, push = 0.0, 0.0
    for i in range(len(X)):
        for j in targets[i]:
            if j < 0:
                continue
            d_ij = np.sum((Z[i] - Z[j]) ** 2)
            pull += d_ij
            for l in np.flatnonzero(y != y[i]):
                push += max(0.0, 1.0 + d_ij - np.sum((Z[i] - Z[l]) ** 2))
    return (1 - mu) * pull + mu * push


def test_lmnn_objective_equals_triplet_loss_and_gradient_matches_finite_differences(small_problem):
    X, y = small_problem
    targets, _ = target_neighbors(X, y, 3)
    L = 0.8 * np.random.default_rng(4).standard_normal((3, X.shape[1]))
    objective = _LMNNObjective(X, y, targets, 0.4, 3, slack=1e6)  # every pair a candidate
    Z = X @ L.T
    objective.refresh_impostors(Z, objective.target_distances(Z))
    loss, gradient = objective(L.ravel())
    assert loss == pytest.approx(lmnn_loss_by_triplets(L, X, y, targets, 0.4), rel=1e-12)
    numeric = central_difference(lambda flat: objective(flat)[0], L.ravel())
    assert np.linalg.norm(numeric - gradient) / np.linalg.norm(gradient) < 1e-5


def test_target_neighbors_are_same_class_nearest(small_problem):
    X, y = small_problem
    targets, k = target_neighbors(X, y, 3)
    assert k == 3
    for i in range(len(X)):
        same = np.flatnonzero((y == y[i]) & (np.arange(len(X)) != i))
        dist = np.sum((X[same] - X[i]) ** 2, axis=1)
        expected = same[np.argsort(dist)[:3]]
        assert set(targets[i]) == set(expected)


def test_impostor_candidates_match_brute_force(small_problem):
    X, y = small_problem
    Z = X[:, :3] * 1.3
    radius = np.random.default_rng(5).uniform(1, 6, len(X))
    rows, cols, active = impostor_candidates(Z, class_ranges(y), radius, 0.5, block_rows=7)
    D = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    expected = {
        (i, l)
        for i in range(len(X))
        for l in range(len(X))
        if y[i] != y[l] and D[i, l] < 1.5 * radius[i]
    }
    assert set(zip(rows.tolist(), cols.tolist(), strict=True)) == expected
    assert np.array_equal(active, D[rows, cols] < radius[rows])


def test_lmnn_loss_decreases_and_beats_euclidean_on_scaled_noise():
    X, y = noisy_one_feature()
    X_test, y_test = noisy_one_feature(seed=1)
    euclidean = one_nn(X, y, X_test, y_test)
    lmnn = LMNN(k=3, max_iter=100).fit(X, y)
    curve = np.asarray(lmnn.loss_curve_)
    assert len(curve) == lmnn.n_iter_ + 1
    assert curve[-1] < 0.01 * curve[0]
    # L-BFGS decreases the loss on a fixed impostor set; the exact loss recorded after a refresh
    # of the set may step up (new impostors), but the fit ends at (about) its best value and
    # most steps go down
    assert curve[-1] <= 1.05 * curve.min()
    steps = np.diff(curve)
    assert np.sum(steps < 0) >= 0.8 * steps.size
    learned = one_nn(lmnn.transform(X), y, lmnn.transform(X_test), y_test)
    assert euclidean < 0.75
    assert learned > 0.95
    # the learned distance is driven by the informative feature: its share of the expected
    # squared distance beats every noise feature's share
    share = np.diag(lmnn.mahalanobis_matrix()) * X.var(axis=0)
    assert share[0] > 3 * share[1:].max()


def test_lmnn_final_impostor_set_is_complete():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    lmnn = LMNN(max_iter=60).fit(X, y)
    # exact active impostors at the final L, recomputed independently
    Z = lmnn.transform(X)
    targets = lmnn.target_neighbors_
    d_target = ((Z[:, None, :] - Z[targets]) ** 2).sum(-1)
    radius = d_target.max(1) + 1
    D = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    exact = np.sum((D < radius[:, None]) & (y[:, None] != y[None, :]))
    assert lmnn.n_impostors_ == exact
    assert lmnn.n_iter_ <= 60 and len(lmnn.loss_curve_) >= 2


def test_lmnn_on_separated_classes_shrinks_to_the_unit_margin_and_stops():
    # no impostor at the start: the pull term alone would send L to 0; the nearest other-class
    # point kept in the active set stops the shrinking at the margin
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 0.1, (20, 3)), rng.normal(100, 0.1, (20, 3))]
    y = np.r_[np.zeros(20), np.ones(20)]
    lmnn = LMNN().fit(X, y)
    assert lmnn.n_iter_ < 50 and lmnn.n_impostors_ == 0
    Z = lmnn.transform(X)
    between = ((Z[:20, None] - Z[None, 20:]) ** 2).sum(-1).min()
    within = ((Z[:20, None] - Z[None, :20]) ** 2).sum(-1).max()
    assert between >= within + 1 - 1e-6 and np.linalg.norm(lmnn.components_) > 0


def test_lmnn_low_rank_fit_converges_without_oscillating():
    # a 2-D LMNN on iris whose active set used to alternate between refreshes (it ran to the
    # 200-iteration cap and ended at twice its best loss): candidate pairs now stay while near
    X, y = load_iris(return_X_y=True)
    X_train, _, y_train, _ = standardised_split(X, y, seed=2)
    lmnn = LMNN(n_components=2).fit(X_train, y_train)
    curve = np.asarray(lmnn.loss_curve_)
    assert lmnn.n_iter_ < 150
    assert curve[-1] < 0.5 * curve[0]
    assert np.all(np.abs(np.diff(curve[-10:])) < 0.01 * curve[-1])  # settled, not swinging


def test_lmnn_target_neighbors_in_given_space():
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(0)
    X_other = X @ rng.standard_normal((4, 4))
    a = LMNN(max_iter=5).fit(X_other, y, X_neighbors=X)
    b = LMNN(max_iter=5).fit(X, y)
    assert np.array_equal(np.sort(a.target_neighbors_, 1), np.sort(b.target_neighbors_, 1))
    with pytest.raises(ValueError, match="X_neighbors"):
        LMNN().fit(X, y, X_neighbors=X[:10])


def test_lmnn_k_larger_than_a_class_is_clipped():
    X, y = load_iris(return_X_y=True)
    keep = np.r_[0:3, 50:100, 100:150]  # class 0 has 3 samples: k clipped to 2 there
    lmnn = LMNN(k=5, max_iter=10).fit(X[keep], y[keep])
    targets = lmnn.target_neighbors_
    assert targets.shape[1] == 5
    assert np.all(targets[:3, 2:] == -1) and np.all(targets[:3, :2] >= 0)
    assert np.all(targets[3:] >= 0)


# ---------------------------------------------------------------------------------------------
# DNE
# ---------------------------------------------------------------------------------------------


def brute_force_dne_matrix(X, y, k):
    """Xᵀ(D − W)X with W from the paper's definition, built pair by pair."""
    n = len(X)
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    within = np.zeros((n, n), bool)
    between = np.zeros((n, n), bool)
    for i in range(n):
        same = [j for j in np.argsort(D2[i], kind="stable") if j != i and y[j] == y[i]][:k]
        other = [j for j in np.argsort(D2[i], kind="stable") if y[j] != y[i]][:k]
        within[i, same] = True
        between[i, other] = True
    W = (within | within.T).astype(float) - (between | between.T).astype(float)
    return X.T @ (np.diag(W.sum(1)) - W) @ X


def test_dne_matches_brute_force_eigenproblem(small_problem):
    X, y = small_problem
    dne = DNE(n_components=3, k=3).fit(X, y)
    S = brute_force_dne_matrix(X, y, 3)
    expected = np.linalg.eigvalsh(S)[:3]
    np.testing.assert_allclose(dne.eigenvalues_, expected, rtol=1e-10, atol=1e-10)
    A = dne.components_
    # each row is an eigenvector: A S = Λ A; objective of Eq. (4) = sum of the smallest eigenvalues
    np.testing.assert_allclose(A @ S, dne.eigenvalues_[:, None] * A, atol=1e-8)
    assert np.trace(A @ S @ A.T) == pytest.approx(expected.sum())


def test_dne_eigenvalues_sorted_and_projection_orthonormal():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    dne = DNE(n_components=6, k=4).fit(X, y)
    assert np.all(np.diff(dne.eigenvalues_) >= 0)
    np.testing.assert_allclose(dne.components_ @ dne.components_.T, np.eye(6), atol=1e-10)
    assert dne.eigenvalues_[0] < 0  # between-class repulsion dominates the best direction


def test_dne_weights_symmetric_and_signed(small_problem):
    X, y = small_problem
    W = dne_weights(X, y, 2).toarray()
    np.testing.assert_array_equal(W, W.T)
    same = y[:, None] == y[None, :]
    assert np.all(W[same] >= 0) and np.all(W[~same] <= 0)
    assert set(np.unique(W)) <= {-1.0, 0.0, 1.0}


# ---------------------------------------------------------------------------------------------
# shared behaviour, accuracy levels, validation
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [NCA, LMNN, DNE])
def test_mixin_transform_metric_and_pair_distance(cls):
    X, y = load_iris(return_X_y=True)
    est = cls(n_components=3).fit(X, y)
    L = est.components_
    assert L.shape == (3, 4)
    np.testing.assert_allclose(est.transform(X), X @ L.T)
    M = est.mahalanobis_matrix()
    assert np.all(np.linalg.eigvalsh(M) > -1e-10)
    a, b = X[:20], X[20:40]
    diff = a - b
    np.testing.assert_allclose(
        est.pair_distance(a, b), np.sqrt(np.einsum("ij,jk,ik->i", diff, M, diff))
    )
    np.testing.assert_allclose(
        est.pair_distance(a, b), np.linalg.norm(est.transform(a) - est.transform(b), axis=1)
    )


# 1-NN test accuracy on three stratified 70/30 splits (standardised), measured: the learners
# match or beat Euclidean 1-NN (iris 0.956/0.933/0.978, wine 1.0/0.981/0.944) in the mean.
@pytest.mark.parametrize(
    "loader, cls, n_components, level",
    [
        (load_iris, NCA, 2, 0.96),
        (load_iris, LMNN, None, 0.96),
        (load_iris, LMNN, 2, 0.92),
        (load_iris, DNE, 4, 0.93),
        (load_wine, NCA, 2, 0.96),
        (load_wine, LMNN, 2, 0.95),
        (load_wine, DNE, None, 0.95),
    ],
)
def test_known_accuracy_levels(loader, cls, n_components, level):
    X, y = loader(return_X_y=True)
    accuracies = []
    for seed in range(3):
        X_train, X_test, y_train, y_test = standardised_split(X, y, seed)
        est = cls(n_components=n_components).fit(X_train, y_train)
        accuracies.append(one_nn(est.transform(X_train), y_train, est.transform(X_test), y_test))
    assert np.mean(accuracies) >= level


@pytest.mark.parametrize("cls", [NCA, LMNN, DNE])
def test_validation_messages(cls):
    X, y = load_iris(return_X_y=True)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cls().fit(bad, y)
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        cls().fit(bad, y)
    if cls is NCA:  # scikit-learn's NCA fits one class (its start, unchanged)
        one = cls(init="identity").fit(X[:50], y[:50])
        np.testing.assert_allclose(one.transform(X[:50]), X[:50])
        too_many = "cannot be greater than the given data dimensionality"  # scikit-learn's words
    else:
        with pytest.raises(ValueError, match="two classes"):
            cls().fit(X[:50], y[:50])
        too_many = "n_components=5 is larger"
    with pytest.raises(ValueError, match=too_many):
        cls(n_components=5).fit(X, y)
    with pytest.raises(ValueError, match="n_components"):
        cls(n_components=0).fit(X, y)
    est = cls(n_components=2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.transform(X[:, :3])


def test_parameter_validation():
    X, y = load_iris(return_X_y=True)
    for est, match in [
        (LMNN(k=0), "k must be"),
        (LMNN(mu=1.0), "mu must be < 1, got 1.0"),
        (LMNN(mu=-0.1), "mu must be"),
        (LMNN(max_iter=0), "max_iter"),
        (NCA(tol=-1), "tol"),
        (NCA(init="magic"), "init must be one of"),
        (DNE(k=1.5), "k must be"),
    ]:
        with pytest.raises(ValueError, match=match):
            est.fit(X, y)


def test_registry_entries():
    for key, cls in [("nca", NCA), ("lmnn", LMNN), ("dne", DNE)]:
        spec = REGISTRY[key]
        assert spec.family == "mahalanobis" and not spec.transductive and spec.needs_labels
        assert spec.baseline == "euclidean"
        p = spec.param("n_components")
        assert (p.low, p.ui_high, p.default) == (1, 50, 2)  # valid from 1; the slider to 50
        est = spec.make()
        assert isinstance(est, cls) and est.n_components == 2
    assert {p.name for p in REGISTRY["lmnn"].params} == {"n_components", "k", "mu", "max_iter"}
    with pytest.raises(ValueError, match="mu"):
        REGISTRY["lmnn"].make(mu=2.0)
    X, y = load_iris(return_X_y=True)
    Z = REGISTRY["lmnn"].make(k=2, max_iter=10).fit(X, y).transform(X)
    assert Z.shape == (150, 2)


def test_blocked_pair_distances_equal_the_direct_ones():
    from metriclab.methods.mahalanobis import pair_distances

    rng = np.random.default_rng(0)
    Z = rng.standard_normal((20, 4))
    rows, cols = rng.integers(0, 20, 50), rng.integers(0, 20, 50)
    direct = ((Z[rows] - Z[cols]) ** 2).sum(axis=1)
    np.testing.assert_allclose(pair_distances(Z, rows, cols, block=7), direct)
    assert pair_distances(Z, rows[:0], cols[:0]).shape == (0,)


def test_lda_start_on_rank_deficient_scatter_falls_back_to_pca():
    # the failing fuzz case: 4 points, 3 classes, LDA keeps one direction where 2 are asked for
    from metriclab.methods.mahalanobis import NCA, initial_components

    X = np.array([[0.92, 0.057], [-0.33, -0.24], [-0.22, -0.38], [-0.38, 0.57]])
    y = np.array([0, 1, 2, 2])
    assert initial_components("lda", X, 2, 0, y).shape == (2, 2)
    assert NCA(n_components=2, init="lda").fit(X, y).components_.shape == (2, 2)
