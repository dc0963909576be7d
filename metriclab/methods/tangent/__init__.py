"""Tangent distance and Mahalanobis metrics on tangent residuals (Mody 2009, after Simard et al. 1993/1998).

Each image x spans a tangent plane P_x = x + T_x α (thesis Eq. 2.6): the first-order images of
small translations, scalings, rotations, hyperbolic deformations and line thickening. The tangent
distance is the least-squares distance between the planes of two images (two-sided, Eqs. 2.7–2.13)
or between one image and the plane of the other (one-sided); the residual at the optimum is the
"shortest tangent vector". The thesis learns a Mahalanobis metric on these residuals (LMNN on
residuals of neighbouring training pairs) and classifies by 1-NN with that metric applied to the
shortest tangent vector, after a Euclidean pre-filter of the 100 nearest training images.

Shapes: a batch of images is n × d (d = h·w, row-major); tangent vectors are n × t × d.

Modules: `vectors` (tangent vectors, image checks), `distance` (least squares between tangent
planes), `knn` (k-NN with a Euclidean pre-filter), `residual` (metrics learned on residuals).
"""

from __future__ import annotations

from metriclab.methods.tangent.distance import (
    orthonormal_tangents,
    tangent_distance,
    tangent_distance_lstsq,
    tangent_residuals,
)
from metriclab.methods.tangent.knn import (
    TangentDistanceKNN,
    nearest_neighbours,
    tangent_neighbours,
)
from metriclab.methods.tangent.residual import (
    METRICS,
    TangentMetricKNN,
    lmnn_residual_metric,
    whitening_metric,
)
from metriclab.methods.tangent.vectors import (
    ALL,
    DEFAULT_SIGMA,
    PRESETS,
    TRANSFORMS,
    resolve_transforms,
    smoothed_gradients,
    tangent_vectors,
    transformed_images,
)

__all__ = [
    "ALL",
    "DEFAULT_SIGMA",
    "METRICS",
    "PRESETS",
    "TRANSFORMS",
    "TangentDistanceKNN",
    "TangentMetricKNN",
    "lmnn_residual_metric",
    "nearest_neighbours",
    "orthonormal_tangents",
    "resolve_transforms",
    "smoothed_gradients",
    "tangent_distance",
    "tangent_distance_lstsq",
    "tangent_neighbours",
    "tangent_residuals",
    "tangent_vectors",
    "transformed_images",
    "whitening_metric",
]
