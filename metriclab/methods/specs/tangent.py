"""Registry entries of the tangent-distance classifiers (Mody 2009): labels, slider ranges and
help; image methods receive the data set's `image_shape` from the factory.
"""

from __future__ import annotations

from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.methods.specs.shared import iterations, neighbours
from metriclab.methods.tangent import TangentDistanceKNN, TangentMetricKNN
from metriclab.params import Param

EXPLANATION = Explanation(
    "**Tangent distance (Simard et al.; Mody 2009).** An image may move along its tangent "
    "vectors (shift, scale, rotate, shear, thickness) at no cost; the distance is the shortest "
    "distance between the two tangent planes. The picture shows the data's PCA view coloured by "
    "the classifier's predictions; diamonds are the labeled (training) images.",
    (r"d_T(x,y) = \min_{\alpha,\beta} \|x + T_x\alpha - y - T_y\beta\|",),
)


def _common_params(cls: type) -> list[Param]:
    return [
        Param.of(
            cls,
            "transforms",
            "Transformations",
            help="affine6: x/y translation, scaling, rotation, two hyperbolic deformations (the "
            "thesis); all7 adds line thickening; translation: x and y shifts only.",
        ),
        Param.of(
            cls,
            "two_sided",
            "Two-sided",
            help="Move both images along their tangent planes (two-sided) or only the training image.",
        ),
        Param.of(
            cls,
            "sigma",
            "Smoothing σ (pixels)",
            slider=(0.0, 3.0),
            help="Width of the Gaussian smoothing before the image gradients are taken.",
        ),
        Param.of(
            cls,
            "prefilter",
            "Euclidean pre-filter",
            slider=(1, 1000),
            help="Rank only this many Euclidean nearest training images by tangent distance.",
        ),
        neighbours(
            cls,
            "n_neighbors",
            "Neighbours k",
            "Number of nearest training images that vote.",
            (1, 25),
        ),
    ]


def _make_tangent_knn(image_shape=None, **params):
    return TangentDistanceKNN(image_shape=image_shape, **params)


def _make_tangent_lmnn(image_shape=None, **params):
    return TangentMetricKNN(image_shape=image_shape, metric="lmnn", **params)


def _make_tangent_whiten(image_shape=None, **params):
    return TangentMetricKNN(image_shape=image_shape, metric="whiten", **params)


# What the two learned metrics share: the classifier with a Mahalanobis metric on tangent residuals,
# shown beside plain tangent distance.
_LEARNED_METRIC = dict(
    family="tangent",
    tags={"needs_images", "classifier", "mahalanobis"},
    explanation=EXPLANATION,
    estimator=TangentMetricKNN,
    baseline="tangent_knn",
)

SPECS = [
    MethodSpec(
        key="tangent_knn",
        label="Tangent distance k-NN",
        paper="mody-2009-tangent-distance-mahalanobis-thesis",
        params=_common_params(TangentDistanceKNN),
        factory=_make_tangent_knn,
        family="tangent",
        tags={"needs_images", "classifier"},
        explanation=EXPLANATION,
        estimator=TangentDistanceKNN,
        baseline="euclidean",
        description="k-NN with the tangent distance (Simard et al.): images may shift, scale, "
        "rotate and shear slightly at no cost; Euclidean pre-filter, then batched least squares.",
    ),
    MethodSpec(
        key="tangent_lmnn",
        label="LMNN on tangent residuals (k-NN)",
        paper="mody-2009-tangent-distance-mahalanobis-thesis",
        params=[
            *_common_params(TangentMetricKNN),
            neighbours(
                TangentMetricKNN,
                "k",
                "Target neighbours",
                "Same-class neighbours (by tangent distance) pulled in by LMNN.",
                (1, 10),
            ),
            Param.of(
                TangentMetricKNN,
                "mu",
                "Push weight μ",
                help="Weight of the impostor (push) term against the target (pull) term.",
            ),
            iterations(
                TangentMetricKNN,
                "L-BFGS iterations",
                "Iterations of the metric optimisation.",
                (1, 1000),
                log=False,
            ),
        ],
        factory=_make_tangent_lmnn,
        **_LEARNED_METRIC,
        description="The thesis' method: LMNN trained on shortest tangent vectors between "
        "neighbouring training images; classify by the learned metric on the shortest tangent vector.",
    ),
    MethodSpec(
        key="tangent_whiten",
        label="Whitened tangent residuals (k-NN)",
        paper="mody-2009-tangent-distance-mahalanobis-thesis",
        params=[
            *_common_params(TangentMetricKNN),
            Param.of(
                TangentMetricKNN,
                "shrinkage",
                "Shrinkage",
                help="Blend of the residual covariance with a multiple of the identity.",
            ),
        ],
        factory=_make_tangent_whiten,
        **_LEARNED_METRIC,
        description="Mahalanobis metric M = Σ⁻¹ of same-class shortest tangent vectors (shrunk "
        "towards the identity), applied to the shortest tangent vector.",
    ),
]
