"""The baselines every comparison shows: the Euclidean input space and PCA."""

from __future__ import annotations

from metriclab.methods.baselines import PCA, EuclideanIdentity
from metriclab.methods.registry import MethodSpec
from metriclab.params import Param

SPECS = [
    MethodSpec(
        key="euclidean",
        label="Euclidean (input space)",
        paper="baseline",
        params=[],
        factory=EuclideanIdentity,
        needs_labels=False,
        baseline=None,
        description="No learning: distances in the input space. The 1-NN baseline of every paper.",
    ),
    MethodSpec(
        key="pca",
        label="PCA",
        paper="baseline",
        params=[
            Param(
                "n_components",
                "Components",
                "int",
                2,
                low=1,
                high=50,
                help="Number of principal components kept.",
            ),
        ],
        factory=PCA,
        needs_labels=False,
        description="Principal component analysis: the unsupervised linear baseline.",
    ),
]
