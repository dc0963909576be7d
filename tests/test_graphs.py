import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from metriclab.graphs import (
    auto_width,
    build_graph,
    degrees,
    full_graph,
    knn_distances,
    knn_graph,
    laplacian,
)


def _points(n=60, d=3, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d))


def test_knn_graph_is_sparse_symmetric_union_with_heat_weights():
    X = _points()
    W, width = knn_graph(X, n_neighbors=5)
    assert sp.isspmatrix_csr(W) or sp.issparse(W)
    assert abs(W - W.T).max() == 0
    assert W.diagonal().max() == 0
    dist, ind = knn_distances(X, 5)
    # every point keeps its own 5 neighbours (union symmetrisation) with weight exp(-d²/t)
    for i in range(X.shape[0]):
        for j, dij in zip(ind[i], dist[i], strict=True):
            assert W[i, j] == pytest.approx(np.exp(-(dij**2) / width))
    # and an edge only where one of the two is among the other's neighbours
    rows, cols = W.nonzero()
    for i, j in zip(rows, cols, strict=True):
        assert j in ind[i] or i in ind[j]
    assert W.nnz >= 5 * X.shape[0]


def test_auto_width_is_mean_squared_knn_distance_and_explicit_width_is_kept():
    X = _points()
    dist, _ = knn_distances(X, 7)
    _, width = knn_graph(X, n_neighbors=7)
    assert width == pytest.approx(np.mean(dist**2))
    _, width = knn_graph(X, n_neighbors=7, width=0.3)
    assert width == 0.3
    _, width_full = full_graph(X, n_neighbors=7)
    assert width_full == pytest.approx(np.mean(dist**2))


def test_binary_weights_are_ones():
    W, _ = knn_graph(_points(), n_neighbors=4, weights="binary")
    assert set(np.unique(W.data)) == {1.0}


def test_full_graph_matches_gaussian_formula():
    X = _points(20)
    W, width = full_graph(X, width=0.5)
    i, j = 3, 11
    assert W[i, j] == pytest.approx(np.exp(-np.sum((X[i] - X[j]) ** 2) / 0.5))
    assert np.all(np.diag(W) == 0)
    np.testing.assert_allclose(W, W.T)


def test_duplicate_points_give_finite_graph_and_never_self_loops():
    X = np.vstack([_points(30), _points(30)[:10]])  # 10 exact duplicates
    X = np.vstack([X, np.zeros((5, 3))])  # and five identical points
    W, width = knn_graph(X, n_neighbors=3)
    assert np.isfinite(W.data).all() and width > 0
    assert W.diagonal().max() == 0
    for kind in ("unnormalized", "symmetric", "random_walk"):
        assert np.isfinite(laplacian(W, kind).data).all()
    # all points identical: width falls back to 1 and weights are 1
    W, width = knn_graph(np.ones((6, 2)), n_neighbors=2)
    assert width == 1.0 and np.allclose(W.data, 1.0)
    assert auto_width(np.zeros(4)) == 1.0


def test_laplacians_known_values_and_isolated_vertex():
    W = np.array([[0, 1, 0, 0], [1, 0, 2, 0], [0, 2, 0, 0], [0, 0, 0, 0.0]])  # vertex 3 isolated
    d = W.sum(axis=1)
    L = laplacian(W, "unnormalized")
    np.testing.assert_allclose(L, np.diag(d) - W)
    Ls = laplacian(W, "symmetric")
    assert np.isfinite(Ls).all()
    assert Ls[0, 1] == pytest.approx(-1 / np.sqrt(1 * 3))
    assert Ls[0, 0] == pytest.approx(1.0) and Ls[3, 3] == 0.0
    Lrw = laplacian(W, "random_walk")
    assert Lrw[1, 2] == pytest.approx(-2 / 3)
    np.testing.assert_allclose(Lrw.sum(axis=1), 0, atol=1e-12)
    # sparse input gives the same sparse output
    for kind in ("unnormalized", "symmetric", "random_walk"):
        np.testing.assert_allclose(laplacian(sp.csr_matrix(W), kind).toarray(), laplacian(W, kind))
    # null vectors: e for L and L_rw, D^1/2 e for L_sym (on the connected part)
    np.testing.assert_allclose(L @ np.ones(4), 0, atol=1e-12)
    np.testing.assert_allclose(Ls @ np.sqrt(d), 0, atol=1e-12)


def test_laplacian_is_positive_semidefinite_with_quadratic_form():
    W, _ = knn_graph(_points(40), n_neighbors=5)
    L = laplacian(W).toarray()
    f = np.random.default_rng(1).standard_normal(40)
    Wd = W.toarray()
    assert f @ L @ f == pytest.approx(0.5 * np.sum(Wd * (f[:, None] - f[None, :]) ** 2))
    assert np.linalg.eigvalsh(L).min() > -1e-10
    assert degrees(W) == pytest.approx(Wd.sum(axis=1))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"graph": "star"}, "graph"),
        ({"weights": "cosine"}, "weights"),
        ({"width": -1.0}, "width"),
        ({"n_neighbors": 0}, "n_neighbors"),
        ({"n_neighbors": 60}, "n_neighbors"),
    ],
)
def test_bad_graph_parameters_raise_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        build_graph(_points(), **kwargs)
    with pytest.raises(ValueError, match="laplacian"):
        laplacian(np.eye(3), "normalised")


# ---- the search: kd-tree where it prunes, brute force elsewhere, PCA candidates past a size ----


def test_tree_is_chosen_on_a_manifold_and_brute_force_on_high_dimensional_clusters():
    from sklearn.datasets import make_blobs, make_swiss_roll

    from metriclab.graphs import tree_prunes

    roll, _ = make_swiss_roll(4000, random_state=0)
    roll10 = np.hstack([roll, 0.01 * np.random.default_rng(0).standard_normal((4000, 7))])
    blobs, _ = make_blobs(4000, n_features=10, centers=6, center_box=(-4, 4), random_state=0)
    assert tree_prunes(roll10, 10)
    assert not tree_prunes(blobs, 10)
    assert not tree_prunes(np.random.default_rng(0).standard_normal((500, 20)), 10)  # > 15-D
    for X in (roll10, blobs):  # either search gives the exact neighbours
        dist, ind = knn_distances(X, 10)
        ref = NearestNeighbors(n_neighbors=10, algorithm="brute").fit(X).kneighbors()
        np.testing.assert_allclose(dist, ref[0], rtol=1e-9)


def test_pca_candidate_neighbours_have_exact_distances_and_high_recall(monkeypatch):
    import metriclab.graphs as graphs
    from metriclab.datasets import load

    X = load("mnist_5000").X[:2000]
    exact_d, exact_i = knn_distances(X, 10, algorithm="exact")
    dist, ind = knn_distances(X, 10, algorithm="approximate")
    # the distances are exact for the neighbours returned, ascending, never the point itself
    np.testing.assert_allclose(dist, np.linalg.norm(X[ind] - X[:, None, :], axis=2), rtol=1e-9)
    assert np.all(np.diff(dist, axis=1) >= 0)
    assert not np.any(ind == np.arange(2000)[:, None])
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(ind, exact_i, strict=True)])
    assert recall > 0.9
    # a missed neighbour can only make the k-th distance larger
    assert np.all(dist[:, -1] >= exact_d[:, -1] - 1e-9)
    # "auto" stays exact below APPROXIMATE_MIN_WORK and switches above it
    np.testing.assert_array_equal(knn_distances(X, 10)[1], exact_i)
    monkeypatch.setattr(graphs, "APPROXIMATE_MIN_WORK", 0)
    np.testing.assert_array_equal(knn_distances(X, 10)[1], ind)
    with pytest.raises(ValueError, match="algorithm"):
        knn_distances(X, 10, algorithm="ball")


def test_neighbour_graph_of_the_knn_lists_is_the_knn_graph():
    from metriclab.graphs import knn_distances, knn_graph, neighbour_graph

    X = np.random.default_rng(0).standard_normal((80, 3))
    W, width = knn_graph(X, 6)
    W2, width2 = neighbour_graph(*knn_distances(X, 6))
    assert width2 == pytest.approx(width)
    np.testing.assert_allclose(W2.toarray(), W.toarray())
    assert (abs(W2 - W2.T)).max() == 0  # symmetric
