"""scikit-learn's estimator checks for every estimator of metriclab.

`ESTIMATORS` is the one table: an estimator, and the checks that cannot apply to it with the reason
(`EXPECTED_FAILED`, handed to `parametrize_with_checks`, which marks them xfail with that reason).
A check is never left out by omission. The spectral estimators (TDL, LaplacianEigenmaps) run at
their defaults: the graph's n_neighbors=None is 10 capped at n − 1, so the checks' 10-point data
fits (issue 38 item 7; they ran with a 3-neighbour graph before).

The image classifiers take h×w images (h, w >= 3) of a fixed `image_shape`, while most checks
make their own data with 1 to 10 features: those checks cannot apply, and
`test_image_classifiers_follow_the_estimator_contract_on_images` runs what they check (clone,
get/set_params, fit returns self, not-fitted error, pickling, idempotent fit, n_features_in_,
feature-count and NaN errors) on real digit images instead.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from metriclab.methods.baselines import PCA, EuclideanIdentity
from metriclab.methods.kpca_trick import KernelPCATrick
from metriclab.methods.mahalanobis import DNE, LMNN, NCA
from metriclab.methods.spectral import TDL, LaplacianEigenmaps
from metriclab.methods.tangent import TangentDistanceKNN, TangentMetricKNN
from metriclab.methods.zhang import DiscriminantKernelMDS

# The checks below build data whose number of features is no h×w image (h, w >= 3) of the
# estimator's image_shape, so the estimator refuses it (ValueError "image_shape ... does not match
# the ... features") before the property checked can be seen.
IMAGE_ONLY = (
    "image input: the check's data has a number of features that is no image of the estimator's "
    "image_shape (h, w >= 3); test_image_classifiers_follow_the_estimator_contract_on_images "
    "checks this on images"
)
_IMAGE_CHECKS = (
    "check_classifier_data_not_an_array",
    "check_classifiers_classes",
    "check_classifiers_train",
    "check_dict_unchanged",
    "check_dont_overwrite_parameters",
    "check_dtype_object",
    "check_estimators_dtypes",
    "check_estimators_fit_returns_self",
    "check_estimators_nan_inf",
    "check_estimators_overwrite_params",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_fit2d_1feature",
    "check_fit2d_1sample",
    "check_fit2d_predict1d",
    "check_fit_check_is_fitted",
    "check_fit_idempotent",
    "check_fit_score_takes_y",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_n_features_in",
    "check_n_features_in_after_fitting",
    "check_pipeline_consistency",
    "check_positive_only_tag_during_fit",
    "check_readonly_memmap_input",
    "check_supervised_y_2d",
)
IMAGE_SHAPE = (3, 3)

ESTIMATORS = [
    EuclideanIdentity(),
    PCA(),
    NCA(max_iter=10),
    LMNN(max_iter=10),
    DNE(),
    DiscriminantKernelMDS(max_iter=5),
    KernelPCATrick(max_iter=10),
    KernelPCATrick(learner=NCA(n_components=2, max_iter=10)),
    TangentDistanceKNN(image_shape=IMAGE_SHAPE),
    TangentMetricKNN(image_shape=IMAGE_SHAPE, max_iter=5),  # LMNN on tangent residuals
    TDL(),
    LaplacianEigenmaps(),
]
EXPECTED_FAILED = {
    TangentDistanceKNN: dict.fromkeys(_IMAGE_CHECKS, IMAGE_ONLY),
    # n_iter_ is checked after a fit on the check's own data (the metric has max_iter)
    TangentMetricKNN: dict.fromkeys(
        (*_IMAGE_CHECKS, "check_non_transformer_estimators_n_iter"), IMAGE_ONLY
    ),
}


def expected_failed_checks(estimator) -> dict[str, str]:
    return EXPECTED_FAILED.get(type(estimator), {})


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_every_registered_estimator_is_in_the_table():
    """A method added to the registry without a row here fails, so no estimator escapes the checks
    by omission."""
    from metriclab.methods import REGISTRY

    tabled = {type(e) for e in ESTIMATORS}
    for key, spec in REGISTRY.items():
        kwargs = {"image_shape": (8, 8)} if spec.input == "image" else {}
        cls = type(spec.make(**kwargs))
        assert cls in tabled, f"{key}: {cls.__name__} is not in tests/test_estimator_checks.py"


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    keep = np.flatnonzero(y < 3)[:90]
    return X[keep], y[keep]


@pytest.mark.parametrize(
    "estimator",
    [
        TangentDistanceKNN(image_shape=(8, 8), prefilter=20),
        TangentMetricKNN(image_shape=(8, 8), max_iter=5, train_prefilter=10),
    ],
    ids=type,
)
def test_image_classifiers_follow_the_estimator_contract_on_images(estimator, digits):
    X, y = digits
    train, test = slice(0, 60), slice(60, None)
    params = estimator.get_params()
    with pytest.raises(NotFittedError):
        estimator.predict(X[test])
    model = clone(estimator)
    assert model.set_params(**params).get_params() == params  # get/set_params round trip
    assert model.fit(X[train], y[train]) is model  # fit returns self
    assert estimator.get_params() == params and not hasattr(estimator, "classes_")
    assert model.n_features_in_ == 64
    predicted = model.predict(X[test])
    assert predicted.dtype == y.dtype and set(predicted) <= set(y)
    assert np.mean(predicted == y[test]) > 0.9  # digits 0-2 are easy for tangent distance
    again = pickle.loads(pickle.dumps(model)).predict(X[test])
    np.testing.assert_array_equal(again, predicted)
    refit = clone(estimator).fit(X[train], y[train]).fit(X[train], y[train])  # idempotent
    np.testing.assert_array_equal(refit.predict(X[test]), predicted)
    shuffled = np.random.default_rng(0).permutation(np.arange(60, X.shape[0]))
    np.testing.assert_array_equal(
        model.predict(X[shuffled]), predicted[shuffled - 60]
    )  # sample order invariance
    np.testing.assert_array_equal(
        model.predict(np.asfortranarray(X[test]).astype(np.float32)), predicted
    )
    with pytest.raises(ValueError, match="features"):
        model.predict(X[test, :49])
    bad = X[train].copy()
    bad[0, 5] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clone(estimator).fit(bad, y[train])
