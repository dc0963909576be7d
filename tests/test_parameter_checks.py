"""One rule for parameters: `metriclab.validation` and every estimator.

Before, spectral's check accepted n_components=3.0 while mahalanobis's refused it, zhang accepted
degree=2.0 and refused n_components=2.0, and the tangent k-NN accepted n_components=2.0. Now every
estimator takes integer parameters as scikit-learn does: an integer type, 3.0 refused with a
ValueError naming the parameter.
"""

from __future__ import annotations

import numbers

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris
from sklearn.utils import check_scalar

from metriclab.methods.baselines import PCA
from metriclab.methods.kpca_trick import KernelPCATrick
from metriclab.methods.mahalanobis import DNE, LMNN, NCA
from metriclab.methods.spectral import TDL, LaplacianEigenmaps
from metriclab.methods.tangent import TangentDistanceKNN, TangentMetricKNN
from metriclab.methods.zhang import DiscriminantKernelMDS
from metriclab.params import Param
from metriclab.validation import (
    InvalidParameterError,
    check_choice,
    check_fraction,
    check_int,
    check_positive,
    check_real,
    fix_signs,
    whole_number,
)

INTEGER_LIKE = [3, np.int64(3), np.int32(3), 3.0, np.float64(3.0), 3.5, True, "3", None, [3]]


@pytest.mark.parametrize("value", INTEGER_LIKE, ids=repr)
def test_check_int_accepts_what_scikit_learns_check_scalar_accepts(value):
    """The rule is scikit-learn's (check_scalar with numbers.Integral), except that bools are
    refused (scikit-learn counts True as the integer 1)."""
    try:
        check_scalar(value, "k", numbers.Integral)
        sklearn_accepts = not isinstance(value, bool)
    except (TypeError, ValueError):
        sklearn_accepts = False
    try:
        ours = check_int("k", value)
    except ValueError as exc:
        assert not sklearn_accepts
        assert str(exc).startswith("k must be an integer") and repr(value) in str(exc)
    else:
        assert sklearn_accepts and ours == 3 and type(ours) is int


def test_bounds_and_messages():
    assert check_int("k", 1, 1, 5) == 1 and check_int("k", 5, 1, 5) == 5
    for bad in (0, 6):
        with pytest.raises(
            InvalidParameterError, match=rf"k must be {'>= 1' if bad < 1 else '<= 5'}, got {bad}"
        ):
            check_int("k", bad, 1, 5)
    assert check_int("n", None, 1, allow_none=True) is None
    with pytest.raises(ValueError, match="n must be >= 1, got 0"):
        check_int("n", 0, 1, allow_none=True)
    with pytest.raises(ValueError, match="n must be an integer >= 1 or None, got 1.0"):
        check_int("n", 1.0, 1, allow_none=True)
    assert check_real("mu", 0, 0, 1, high_open=True) == 0.0
    with pytest.raises(ValueError, match="mu must be < 1, got 1"):
        check_fraction("mu", 1, high_open=True)
    with pytest.raises(ValueError, match=r"mu must be a finite number in \[0, 1\], got 'a'"):
        check_fraction("mu", "a")
    for bad in (0, -1.0):
        with pytest.raises(ValueError, match=f"width must be > 0, got {bad}"):
            check_positive("width", bad)
    for bad in (float("nan"), float("inf"), "1", True):
        with pytest.raises(ValueError, match="width must be a finite number > 0, got"):
            check_positive("width", bad)
    assert check_positive("width", np.float32(0.5)) == 0.5
    assert check_int("k", 10**400) == 10**400  # an int has no float range to leave
    with pytest.raises(ValueError, match="x must be a finite number"):
        check_real("x", 10**400)
    with pytest.raises(ValueError, match=r"kernel must be one of \['a', 'b'\], got 'c'"):
        check_choice("kernel", "c", ("a", "b"))
    with pytest.raises(ValueError, match="kernel must be one of"):
        check_choice("kernel", np.array(["a", "b"]), ("a", "b"))
    # scikit-learn's InvalidParameterError is both; callers catching either keep working
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InvalidParameterError, TypeError)


def test_values_from_widgets_and_urls_become_whole_numbers_first():
    """`Param.validate` reads 3.0 and "3" from a form or a URL as 3, then applies `check_int`."""
    assert whole_number("k", 3.0) == 3 and whole_number("k", "3") == 3
    for bad, text in [(3.5, "a whole number"), ("x", "a number"), (float("nan"), "finite")]:
        with pytest.raises(ValueError, match=f"k must be {text}"):
            whole_number("k", bad)
    p = Param("k", "k", "int", 3, low=1, high=10)
    assert p.validate(4.0) == 4 and type(p.validate(np.int64(4))) is int
    with pytest.raises(ValueError, match="k must be <= 10, got 11"):
        p.validate("11")


def test_fix_signs_makes_the_largest_entry_positive_along_either_axis():
    V = np.array([[0.1, -0.9, 0.0], [-0.8, 0.2, 0.0], [0.3, 0.1, 0.0]])
    fixed = fix_signs(V)
    np.testing.assert_array_equal(fixed, V * [-1.0, -1.0, 1.0])  # zero column unchanged
    np.testing.assert_array_equal(fix_signs(V.T, axis=1), fixed.T)
    np.testing.assert_array_equal(fix_signs(-V), fixed)  # the sign an eigensolver picks is gone
    assert fix_signs(V) is not V


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, y


def _iris_transductive():
    X, y = load_iris(return_X_y=True)
    y = y.copy()
    y[1::3] = -1
    return X, y


def _digits():
    X, y = load_digits(return_X_y=True)
    keep = np.flatnonzero(y < 3)[:60]
    return X[keep], y[keep]


# (estimator class, fixed parameters, integer parameter tried as 3 and as 3.0, data)
INTEGER_PARAMETERS = [
    (NCA, {"max_iter": 5}, "n_components", _iris),
    (LMNN, {"max_iter": 5}, "k", _iris),
    (DNE, {}, "k", _iris),
    (PCA, {}, "n_components", _iris),
    (DiscriminantKernelMDS, {"max_iter": 2}, "degree", _iris),
    (DiscriminantKernelMDS, {"max_iter": 2}, "n_components", _iris),
    (KernelPCATrick, {"max_iter": 5}, "kpca_components", _iris),
    (TangentDistanceKNN, {"image_shape": (8, 8)}, "n_neighbors", _digits),
    (TangentMetricKNN, {"image_shape": (8, 8), "max_iter": 3}, "k", _digits),
    (TangentMetricKNN, {"image_shape": (8, 8), "metric": "whiten"}, "n_components", _digits),
    (TDL, {}, "n_components", _iris_transductive),
    (TDL, {}, "k", _iris_transductive),
    (LaplacianEigenmaps, {}, "n_neighbors", _iris_transductive),
]


@pytest.mark.parametrize(
    "cls, fixed, name, data",
    INTEGER_PARAMETERS,
    ids=lambda v: v.__name__ if isinstance(v, type) else (v if isinstance(v, str) else ""),
)
def test_every_estimator_takes_integers_as_integers_and_refuses_3_point_0(cls, fixed, name, data):
    X, y = data()
    cls(**fixed, **{name: 3}).fit(X, y)
    cls(**fixed, **{name: np.int64(3)}).fit(X, y)
    with pytest.raises(ValueError, match=f"{name} must be an integer"):
        cls(**fixed, **{name: 3.0}).fit(X, y)
