"""Registry entries of the tangent-distance classifiers (Mody 2009): labels, slider ranges and
help; image methods receive the data set's `image_shape` from the factory.
"""

from __future__ import annotations

from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.methods.tangent import DEFAULT_SIGMA, TangentDistanceKNN, TangentMetricKNN
from metriclab.methods.tangent.residual import METRICS
from metriclab.params import Param

EXPLANATION = Explanation(
    "**Tangent distance (Simard et al.; Mody 2009).** An image may move along its tangent "
    "vectors (shift, scale, rotate, shear, thickness) at no cost; the distance is the shortest "
    "distance between the two tangent planes. The picture shows the data's PCA view coloured by "
    "the classifier's predictions; diamonds are the labeled (training) images.",
    (r"d_T(x,y) = \min_{\alpha,\beta} \|x + T_x\alpha - y - T_y\beta\|",),
)
_TRANSFORM_CHOICES = ("affine6", "all7", "translation")


def _common_params():
    return [
        Param(
            "transforms",
            "Transformations",
            "choice",
            "affine6",
            choices=_TRANSFORM_CHOICES,
            accepts=(str, tuple, list),  # any set or list of names: resolve_transforms checks it
            help="affine6: x/y translation, scaling, rotation, two hyperbolic deformations (the "
            "thesis); all7 adds line thickening; translation: x and y shifts only.",
        ),
        Param(
            "two_sided",
            "Two-sided",
            "bool",
            True,
            help="Move both images along their tangent planes (two-sided) or only the training image.",
        ),
        Param(
            "sigma",
            "Smoothing σ (pixels)",
            "float",
            DEFAULT_SIGMA,
            low=0.0,
            slider=(0.0, 3.0),
            help="Width of the Gaussian smoothing before the image gradients are taken.",
        ),
        Param(
            "prefilter",
            "Euclidean pre-filter",
            "int",
            100,
            low=1,
            slider=(1, 1000),
            help="Rank only this many Euclidean nearest training images by tangent distance.",
        ),
        Param(
            "n_neighbors",
            "Neighbours k",
            "int",
            1,
            low=1,
            slider=(1, 25),
            help="Number of nearest training images that vote.",
        ),
    ]


def _make_tangent_knn(image_shape=None, **params):
    return TangentDistanceKNN(image_shape=image_shape, **params)


def _make_tangent_lmnn(image_shape=None, **params):
    return TangentMetricKNN(image_shape=image_shape, metric="lmnn", **params)


def _make_tangent_whiten(image_shape=None, **params):
    return TangentMetricKNN(image_shape=image_shape, metric="whiten", **params)


# Checked at fit with the sliders' parameters (`metriclab.methods.checks`); not offered as sliders.
HIDDEN = (Param("regularization", "Ridge on the tangent coefficients", "float", 0.0, low=0.0),)
METRIC_HIDDEN = (
    *HIDDEN,
    Param("metric", "Metric", "choice", "lmnn", choices=METRICS),
    Param("n_components", "Metric rank", "int", None, low=1),
    Param("impostors", "Impostors per image", "int", 10, low=1),
    Param("train_prefilter", "Training pre-filter", "int", 30, low=1),
)

SPECS = [
    MethodSpec(
        key="tangent_knn",
        label="Tangent distance k-NN",
        paper="mody-2009-tangent-distance-mahalanobis-thesis",
        params=_common_params(),
        factory=_make_tangent_knn,
        family="tangent",
        tags={"needs_images", "classifier"},
        explanation=EXPLANATION,
        estimator=TangentDistanceKNN,
        hidden=HIDDEN,
        baseline="euclidean",
        description="k-NN with the tangent distance (Simard et al.): images may shift, scale, "
        "rotate and shear slightly at no cost; Euclidean pre-filter, then batched least squares.",
    ),
    MethodSpec(
        key="tangent_lmnn",
        label="LMNN on tangent residuals (k-NN)",
        paper="mody-2009-tangent-distance-mahalanobis-thesis",
        params=[
            *_common_params(),
            Param(
                "k",
                "Target neighbours",
                "int",
                3,
                low=1,
                slider=(1, 10),
                help="Same-class neighbours (by tangent distance) pulled in by LMNN.",
            ),
            Param(
                "mu",
                "Push weight μ",
                "float",
                0.5,
                low=0.0,
                high=1.0,
                help="Weight of the impostor (push) term against the target (pull) term.",
            ),
            Param(
                "max_iter",
                "L-BFGS iterations",
                "int",
                100,
                low=1,
                slider=(1, 1000),
                help="Iterations of the metric optimisation.",
            ),
        ],
        factory=_make_tangent_lmnn,
        family="tangent",
        tags={"needs_images", "classifier", "mahalanobis"},
        explanation=EXPLANATION,
        estimator=TangentMetricKNN,
        hidden=METRIC_HIDDEN,
        baseline="tangent_knn",
        description="The thesis' method: LMNN trained on shortest tangent vectors between "
        "neighbouring training images; classify by the learned metric on the shortest tangent vector.",
    ),
    MethodSpec(
        key="tangent_whiten",
        label="Whitened tangent residuals (k-NN)",
        paper="mody-2009-tangent-distance-mahalanobis-thesis",
        params=[
            *_common_params(),
            Param(
                "shrinkage",
                "Shrinkage",
                "float",
                0.1,
                low=0.0,
                high=1.0,
                help="Blend of the residual covariance with a multiple of the identity.",
            ),
        ],
        factory=_make_tangent_whiten,
        family="tangent",
        tags={"needs_images", "classifier", "mahalanobis"},
        explanation=EXPLANATION,
        estimator=TangentMetricKNN,
        hidden=METRIC_HIDDEN,
        baseline="tangent_knn",
        description="Mahalanobis metric M = Σ⁻¹ of same-class shortest tangent vectors (shrunk "
        "towards the identity), applied to the shortest tangent vector.",
    ),
]
