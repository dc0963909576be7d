"""The baselines every comparison shows: the Euclidean input space and PCA."""

from __future__ import annotations

from metriclab.methods.baselines import PCA, EuclideanIdentity
from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.methods.specs.shared import n_components

EXPLANATION = Explanation(
    "**Baselines.** The Euclidean input space (no learning) and PCA (unsupervised). The score is "
    "1-NN on the unlabeled points with the labeled points as reference.",
    (r"d(x,x') = \|x - x'\|_2",),
)

SPECS = [
    MethodSpec(
        key="euclidean",
        label="Euclidean (input space)",
        paper="baseline",
        params=[],
        factory=EuclideanIdentity,
        estimator=EuclideanIdentity,
        tags={"unsupervised", "input_space"},
        explanation=EXPLANATION,
        baseline=None,
        description="No learning: distances in the input space. The 1-NN baseline of every paper.",
    ),
    MethodSpec(
        key="pca",
        label="PCA",
        paper="baseline",
        params=[n_components(PCA, "Components", "Number of principal components kept.")],
        factory=PCA,
        estimator=PCA,
        tags={"unsupervised", "projection", "linear_map"},
        explanation=EXPLANATION,
        description="Principal component analysis: the unsupervised linear baseline.",
    ),
]
