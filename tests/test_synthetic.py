import numpy as np
import pytest

from metriclab.datasets import load, names


@pytest.mark.parametrize("name", names("synthetic"))
def test_synthetic_sets_have_balanced_classes_and_are_seeded(name):
    a, b = load(name), load(name)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.X.dtype == np.float64 and a.y.dtype == np.int64
    assert set(np.unique(a.y)) == set(range(a.n_classes))
    assert np.isfinite(a.X).all()


def test_harder_moons_shifts_only_the_lower_moon():
    plain = load("harder_moons", shift=0.0)
    shifted = load("harder_moons", shift=0.4)
    np.testing.assert_allclose(shifted.X[shifted.y == 0], plain.X[plain.y == 0])
    np.testing.assert_allclose(shifted.X[shifted.y == 1, 1], plain.X[plain.y == 1, 1] + 0.4)


def test_synthetic_parameters_are_validated():
    with pytest.raises(ValueError, match="noise"):
        load("two_moons", noise=-1)
    with pytest.raises(ValueError, match="no parameter"):
        load("two_moons", radius=3)
    with pytest.raises(ValueError, match="unknown data set"):
        load("nope")
