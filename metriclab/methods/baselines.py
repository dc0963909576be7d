"""Baselines every comparison shows: the Euclidean input space and PCA."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA as _SklearnPCA
from sklearn.utils.validation import check_array, check_is_fitted

from metriclab.validation import check_int


class EuclideanIdentity(TransformerMixin, BaseEstimator):
    """The input space itself: `transform` returns X unchanged (the Euclidean 1-NN baseline)."""

    def fit(self, X, y=None):
        X = check_array(X, dtype=np.float64)
        self.n_features_in_ = X.shape[1]
        return self

    def transform(self, X):
        check_is_fitted(self, "n_features_in_")
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"expected {self.n_features_in_} features, got {X.shape[1]}")
        return X


class PCA(TransformerMixin, BaseEstimator):
    """Principal component analysis (unsupervised), clipped to what the data allows."""

    def __init__(self, n_components=2):
        self.n_components = n_components

    def fit(self, X, y=None):
        X = check_array(X, dtype=np.float64)
        n_components = min(check_int("n_components", self.n_components, 1), *X.shape)
        self.pca_ = _SklearnPCA(n_components=n_components, svd_solver="full").fit(X)
        self.components_ = self.pca_.components_
        self.eigenvalues_ = self.pca_.explained_variance_
        return self

    def transform(self, X):
        check_is_fitted(self, "pca_")
        return self.pca_.transform(check_array(X, dtype=np.float64))
