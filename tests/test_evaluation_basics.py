import numpy as np
import pytest

from metriclab.evaluation import embedding_accuracy, labeled_mask, nearest_mean_accuracy


def test_labeled_mask_is_stratified_and_seeded():
    y = np.repeat([0, 1, 2], [50, 30, 20])
    m = labeled_mask(y, fraction=0.1, seed=3)
    assert [int(m[y == c].sum()) for c in range(3)] == [5, 3, 2]
    np.testing.assert_array_equal(m, labeled_mask(y, fraction=0.1, seed=3))
    assert labeled_mask(y, per_class=4).sum() == 12
    assert np.unique(y[labeled_mask(y, n_labeled=5, seed=1)]).size == 3


def test_labeled_mask_rejects_impossible_requests():
    y = np.repeat([0, 1], [3, 10])
    with pytest.raises(ValueError, match="class 0"):
        labeled_mask(y, per_class=3)
    with pytest.raises(ValueError, match="fraction"):
        labeled_mask(y, fraction=1.5)


def test_classifiers_on_separated_clusters():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 40)
    Z = rng.standard_normal((80, 2)) * 0.1 + y[:, None] * 5
    mask = labeled_mask(y, fraction=0.2)
    assert embedding_accuracy(Z, y, mask) == 1.0
    assert nearest_mean_accuracy(Z[mask], y[mask], Z[~mask], y[~mask]) == 1.0


@pytest.mark.parametrize("dimensions", [1, 2, 10, 12])
@pytest.mark.parametrize("k", [1, 3, 4])
def test_knn_rule_equals_scikit_learns_classifier(dimensions, k):
    """SciPy's kd-tree (few dimensions) and scikit-learn's search (more) give the k-NN rule of
    KNeighborsClassifier: the same predictions point for point, ties of the vote to the smaller
    class (with k = 4 and 3 classes many votes tie)."""
    from sklearn.neighbors import KNeighborsClassifier

    from metriclab.evaluation import knn_accuracy
    from metriclab.evaluation.scoring import knn_predictions

    rng = np.random.default_rng(dimensions * 10 + k)
    Z_train, Z_test = rng.normal(size=(300, dimensions)), rng.normal(size=(2_500, dimensions))
    y_train, y_test = rng.integers(0, 3, 300), rng.integers(0, 3, 2_500)
    expected = KNeighborsClassifier(n_neighbors=k).fit(Z_train, y_train).predict(Z_test)
    np.testing.assert_array_equal(knn_predictions(Z_train, y_train, Z_test, k), expected)
    assert knn_accuracy(Z_train, y_train, Z_test, y_test, k) == np.mean(expected == y_test)


def test_knn_rule_rejects_non_finite_points():
    from metriclab.evaluation import knn_accuracy

    Z = np.array([[0.0, 1.0], [np.nan, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="NaN"):
        knn_accuracy(Z, [0, 1, 1], Z[[0]], [0])


def test_knn_rule_refuses_empty_sets_as_scikit_learn_does():
    from metriclab.evaluation import knn_accuracy

    with pytest.raises(ValueError, match="0 sample"):
        knn_accuracy(np.zeros((3, 2)), [0, 1, 1], np.zeros((0, 2)), [])
    with pytest.raises(ValueError, match="n_neighbors"):
        knn_accuracy(np.zeros((0, 2)), [], np.zeros((2, 2)), [0, 1])
