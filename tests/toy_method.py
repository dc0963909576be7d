"""A method added from outside the package, in one file: its estimator and its spec. Importing
this module registers it (tests/test_toy_method.py checks that the app, the comparison and the
code snippets pick it up from the registry alone)."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from metriclab.methods import MethodSpec, Param, register
from metriclab.validation import Rule, check_params


class ToyStretch(TransformerMixin, BaseEstimator):
    """Centre the data and stretch its first feature by `strength`: a tiny inductive map."""

    _parameter_rules = {"strength": Rule("float", low=0.5, high=8.0)}  # checked at fit

    def __init__(self, strength=2.0):
        self.strength = strength

    def fit(self, X, y=None):
        check_params(self)  # the class's declaration, as every metriclab estimator does
        X = validate_data(self, X, dtype=np.float64)
        self.mean_ = X.mean(axis=0)
        return self

    def transform(self, X):
        check_is_fitted(self, "mean_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Z = X - self.mean_
        Z[:, 0] *= self.strength
        return Z


STRENGTH = Param.of(
    ToyStretch,
    "strength",
    "Toy strength",
    log=True,
    help="How much the toy map stretches the first feature.",
)

SPEC = register(
    MethodSpec(
        key="toy_stretch",
        label="Toy stretch",
        paper="none (a test)",
        params=[STRENGTH],
        factory=ToyStretch,
        estimator=ToyStretch,
        tags={"unsupervised", "linear_map"},
        description="Centres the data and stretches the first feature.",
    ),
    replace=True,
)
