"""metric-learn's Mahalanobis interface (issue 27) on NCA, LMNN, DNE, the KPCA-trick learners and
the tangent-residual metric: get_mahalanobis_matrix, get_metric, pair_distance(pairs) and
pair_score(pairs) give what metric-learn's own estimator gives for the same matrix."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.neighbors import KNeighborsClassifier

from metriclab import DNE, LMNN, NCA, KernelPCATrick
from metriclab.methods.tangent import TangentMetricKNN, tangent_residuals
from tests.peers import import_metric_learn

metric_learn = import_metric_learn()
pytestmark = pytest.mark.skipif(metric_learn is None, reason="metric-learn is in the test extra")

X, y = load_iris(return_X_y=True)
RNG = np.random.default_rng(0)
PAIRS = X[RNG.integers(0, len(X), size=(40, 2))]  # (40, 2, 4), as metric-learn takes pairs


def their_with(L: np.ndarray, d: int):
    """metric-learn's Mahalanobis estimator holding the matrix L (their NCA, given our L)."""
    theirs = metric_learn.NCA()
    theirs.components_ = np.asarray(L, dtype=np.float64)
    theirs.n_features_in_ = d
    theirs.preprocessor_ = None  # what their fit leaves without a preprocessor
    return theirs


@pytest.mark.parametrize(
    "ours",
    [NCA(n_components=2, max_iter=20), LMNN(n_components=3, max_iter=20), DNE(n_components=2)],
    ids=["NCA", "LMNN", "DNE"],
)
def test_linear_learners_agree_with_metric_learn_on_the_same_matrix(ours):
    ours.fit(X, y)
    theirs = their_with(ours.components_, X.shape[1])
    np.testing.assert_allclose(ours.get_mahalanobis_matrix(), theirs.get_mahalanobis_matrix())
    np.testing.assert_allclose(ours.pair_distance(PAIRS), theirs.pair_distance(PAIRS), atol=1e-10)
    np.testing.assert_allclose(ours.pair_score(PAIRS), theirs.pair_score(PAIRS), atol=1e-10)
    mine, their_metric = ours.get_metric(), theirs.get_metric()
    for u, v in PAIRS[:5]:
        assert mine(u, v) == pytest.approx(their_metric(u, v))
        assert mine(u, v, squared=True) == pytest.approx(their_metric(u, v, squared=True))
    # the older two-array form of pair_distance still works, and agrees
    np.testing.assert_allclose(
        ours.pair_distance(PAIRS[:, 0], PAIRS[:, 1]), ours.pair_distance(PAIRS)
    )
    # a callable usable by scikit-learn's k-NN: the same neighbours as k-NN on the mapped points
    knn = KNeighborsClassifier(n_neighbors=1, metric=ours.get_metric()).fit(X[::3], y[::3])
    mapped = KNeighborsClassifier(n_neighbors=1).fit(ours.transform(X[::3]), y[::3])
    assert np.array_equal(knn.predict(X[1::3]), mapped.predict(ours.transform(X[1::3])))


def test_kpca_trick_matrix_lives_on_kernel_pca_coordinates():
    ours = KernelPCATrick(learner="nca", n_components=2, kpca_components=10).fit(X, y)
    M = ours.get_mahalanobis_matrix()
    assert M.shape == (10, 10) and np.allclose(M, M.T)
    theirs = their_with(ours.learner_.components_, M.shape[0])
    coords = ours.kpca_transform(PAIRS.reshape(-1, X.shape[1])).reshape(len(PAIRS), 2, -1)
    np.testing.assert_allclose(ours.pair_distance(PAIRS), theirs.pair_distance(coords), atol=1e-9)
    np.testing.assert_allclose(ours.pair_score(PAIRS), theirs.pair_score(coords), atol=1e-9)
    u, v = PAIRS[0]
    assert ours.get_metric()(u, v) == pytest.approx(theirs.get_metric()(*coords[0]))


def test_tangent_metric_measures_the_shortest_tangent_vector():
    from metriclab.datasets import load

    digits = load("digits")
    Xd, yd = digits.X[:200], digits.y[:200]
    ours = TangentMetricKNN(digits.image_shape, "translation", metric="whiten").fit(Xd, yd)
    pairs = Xd[RNG.integers(0, 200, size=(10, 2))]
    e = tangent_residuals(
        pairs[:, 0],
        pairs[:, 1],
        digits.image_shape,
        transforms=("x_translation", "y_translation"),
        sigma=ours.sigma,
    )
    theirs = their_with(ours.components_, Xd.shape[1])
    as_pairs = np.stack([e, np.zeros_like(e)], axis=1)  # |L e| is their distance of (e, 0)
    np.testing.assert_allclose(ours.pair_distance(pairs), theirs.pair_distance(as_pairs), atol=1e-8)
    np.testing.assert_allclose(ours.get_mahalanobis_matrix(), theirs.get_mahalanobis_matrix())
    assert ours.get_metric()(*pairs[0]) == pytest.approx(ours.pair_distance(pairs)[0])


@pytest.mark.parametrize("cls", [NCA, LMNN, DNE, KernelPCATrick])
def test_the_interface_needs_a_fitted_model(cls):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        cls().get_mahalanobis_matrix()
    with pytest.raises(NotFittedError):
        cls().pair_distance(PAIRS)
