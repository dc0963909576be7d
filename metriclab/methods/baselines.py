"""Baselines every comparison shows: the Euclidean input space and PCA."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA as _SklearnPCA
from sklearn.utils.validation import check_is_fitted, validate_data

from metriclab.validation import Rule, check_params, parameters


class EuclideanIdentity(TransformerMixin, BaseEstimator):
    """The input space itself: `transform` returns X unchanged (the Euclidean 1-NN baseline)."""

    def fit(self, X, y=None):
        validate_data(self, X, dtype=np.float64)
        return self

    def transform(self, X):
        check_is_fitted(self, "n_features_in_")
        return validate_data(self, X, dtype=np.float64, reset=False)


@parameters
class PCA(TransformerMixin, BaseEstimator):
    """Principal component analysis (unsupervised), clipped to what the data allows."""

    _parameter_rules = {"n_components": Rule("int", low=1)}

    n_components: int = 2

    def fit(self, X, y=None):
        check_params(self)  # the class's _parameter_rules
        X = validate_data(self, X, dtype=np.float64)
        n_components = min(int(self.n_components), *X.shape)
        self.pca_ = _SklearnPCA(n_components=n_components, svd_solver="full").fit(X)
        self.components_ = self.pca_.components_
        self.eigenvalues_ = self.pca_.explained_variance_
        return self

    def transform(self, X):
        check_is_fitted(self, "pca_")
        return self.pca_.transform(validate_data(self, X, dtype=np.float64, reset=False))
