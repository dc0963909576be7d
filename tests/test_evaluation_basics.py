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
