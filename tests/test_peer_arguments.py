"""A drop-in keeps the peer's constructor (issue 38 item 6): our NeighborhoodComponentsAnalysis has
scikit-learn's signature (names, order, defaults and kinds; our extras keyword-only), and NCA and
LMNN take metric-learn 0.7's constructor arguments with its meaning or refuse each with a message
naming ours."""

import inspect

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.neighbors import NeighborhoodComponentsAnalysis as SklearnNCA

from metriclab import LMNN, NCA, NeighborhoodComponentsAnalysis

X, y = load_iris(return_X_y=True)


def test_nca_has_scikit_learns_signature():
    ours = inspect.signature(NeighborhoodComponentsAnalysis.__init__).parameters
    theirs = inspect.signature(SklearnNCA.__init__).parameters
    assert list(ours)[: len(theirs)] == list(theirs)  # the same names in the same order
    for name, p in theirs.items():
        assert (ours[name].kind, ours[name].default) == (p.kind, p.default), name
    extras = [p for name, p in ours.items() if name not in theirs]
    assert extras and all(p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in extras), extras
    assert NCA is NeighborhoodComponentsAnalysis.__mro__[1]
    theirs_params = SklearnNCA().get_params()
    ours_params = NeighborhoodComponentsAnalysis().get_params()
    assert {k: ours_params[k] for k in theirs_params} == theirs_params
    assert set(ours_params) - set(theirs_params) == {"record_iterates", "preprocessor"}
    with pytest.raises(TypeError):
        NCA(2, "pca")  # init is keyword-only, as scikit-learn's


def test_lmnn_takes_metric_learns_n_neighbors_and_regularization_with_their_meaning():
    # metric-learn's loss is regularization * pull + (1 - regularization) * push; ours is
    # (1 - mu) * pull + mu * push
    theirs_style = LMNN(n_neighbors=5, regularization=0.25, max_iter=20)
    ours_style = LMNN(k=5, mu=0.75, max_iter=20)
    clone(theirs_style).fit(X, y)  # the arguments survive scikit-learn's clone
    np.testing.assert_array_equal(
        theirs_style.fit(X, y).components_, ours_style.fit(X, y).components_
    )
    np.testing.assert_array_equal(theirs_style.target_neighbors_, ours_style.target_neighbors_)
    assert theirs_style.target_neighbors_.shape[1] == 5
    other = LMNN(n_neighbors=2, regularization=0.875, max_iter=20).fit(X, y)  # mu = 0.125
    np.testing.assert_array_equal(
        other.components_, LMNN(k=2, mu=0.125, max_iter=20).fit(X, y).components_
    )
    plain = LMNN(preprocessor=None, max_iter=5).fit(X, y)
    np.testing.assert_array_equal(plain.components_, LMNN(max_iter=5).fit(X, y).components_)


def test_a_metric_learn_name_given_with_ours_is_refused():
    with pytest.raises(ValueError, match="n_neighbors is metric-learn's name for LMNN's k"):
        LMNN(k=4, n_neighbors=5).fit(X, y)
    with pytest.raises(ValueError, match="regularization is metric-learn's name for LMNN's mu"):
        LMNN(mu=0.2, regularization=0.5).fit(X, y)
    with pytest.raises(ValueError, match="^regularization must be > 0"):
        LMNN(regularization=0.0).fit(X, y)  # their 0 would be our mu = 1: no pull at all


@pytest.mark.parametrize(
    "cls, name, value, ours",
    [
        (LMNN, "learn_rate", 1e-7, "max_iter and tol"),
        (LMNN, "convergence_tol", 1e-3, "tol, the relative change of the loss"),
        (LMNN, "min_iter", 50, "tol or max_iter"),
        (LMNN, "preprocessor", X, "give fit the rows"),
        (NCA, "preprocessor", X, "give fit the rows"),
    ],
)
def test_metric_learn_arguments_without_our_meaning_are_refused_naming_ours(cls, name, value, ours):
    estimator = cls(**{name: value})  # stored, as scikit-learn's constructors store
    with pytest.raises(ValueError) as info:
        estimator.fit(X, y)
    message = str(info.value)
    assert message.startswith(f"{name} (metric-learn's) is not accepted") and ours in message
    assert f"metriclab's {cls.__name__}" in message


def test_nca_takes_no_preprocessor_as_none_and_has_no_lmnn_names():
    np.testing.assert_array_equal(
        NCA(preprocessor=None, max_iter=5).fit(X, y).components_,
        NCA(max_iter=5).fit(X, y).components_,
    )
    with pytest.raises(TypeError, match="unexpected keyword argument 'n_neighbors'"):
        NCA(n_neighbors=3)  # metric-learn's NCA has no such argument either
