"""Linear Mahalanobis learners: NCA, LMNN and DNE (Chatpatanasiri et al. 2009, Section 2).

Every learner learns only a linear map L (`components_`, shape n_components × d); the distance is
d_M(x, y)² = (x − y)ᵀ M (x − y) with M = LᵀL, and `transform(X) = X Lᵀ` (metric-learn's split of a
base Mahalanobis mixin from the algorithms). The kernel versions (KNCA, KLMNN, KDNE) apply these
learners to kernel-PCA coordinates (`metriclab.methods.kpca_trick`).

- NCA (Goldberger et al. 2005; paper Eq. (3)): softmax neighbour objective, analytic gradient,
  scipy L-BFGS.
- LMNN (Weinberger et al. 2006; paper Section 2.2): pull target neighbours, hinge on impostor
  triplets; optimised over L with L-BFGS; impostor candidates (pairs within a slack of the margin,
  plus each point's nearest other-class point) form an active set found by blockwise distances and
  recomputed every `impostor_refresh` iterations, when the loss has halved, and at convergence (the
  fit ends only when no impostor is missing from the active set). The gradient is accumulated as
  pair weights and applied with sparse products: no loop over points or triplets.
- DNE (Zhang et al. 2007; paper Eq. (4)): smallest eigenvectors of Xᵀ(D − W)X with AAᵀ = I.

Modules: `base` (the mixin and the shared starting map and neighbour search), `nca`, `lmnn`, `dne`.
"""

from __future__ import annotations

from metriclab.methods.mahalanobis.base import (
    MahalanobisMixin,
    class_ranges,
    initial_components,
    nearest_rows,
    single_thread_blas,
    squared_row_distances,
    target_neighbors,
)
from metriclab.methods.mahalanobis.dne import DNE, dne_weights
from metriclab.methods.mahalanobis.lmnn import (
    LMNN,
    PAIR_BLOCK,
    impostor_candidates,
    minimize_lmnn,
    pair_distances,
)
from metriclab.methods.mahalanobis.nca import NCA, nca_loss_and_gradient
from metriclab.methods.registry import MethodSpec, Param

__all__ = [
    "DNE",
    "LMNN",
    "NCA",
    "PAIR_BLOCK",
    "MahalanobisMixin",
    "class_ranges",
    "dne_weights",
    "impostor_candidates",
    "initial_components",
    "minimize_lmnn",
    "nca_loss_and_gradient",
    "nearest_rows",
    "pair_distances",
    "single_thread_blas",
    "squared_row_distances",
    "target_neighbors",
]

_N_COMPONENTS = Param(
    "n_components",
    "Output dimension",
    "int",
    2,
    low=1,
    high=50,
    help="Rows of L (dimension of the learned space); at most the number of features.",
)
_K = Param(
    "k",
    "Neighbours k",
    "int",
    3,
    low=1,
    high=30,
    help="Same-class target neighbours per point (clipped to the class size − 1).",
)

SPECS = [
    MethodSpec(
        key="nca",
        label="NCA",
        paper="chatpatanasiri-2009",
        params=[
            _N_COMPONENTS,
            Param(
                "max_iter",
                "Iterations",
                "int",
                100,
                low=5,
                high=1000,
                log=True,
                help="L-BFGS iterations.",
            ),
        ],
        factory=NCA,
        family="mahalanobis",
        needs_labels=True,
        transductive=False,
        baseline="euclidean",
        description="Neighbourhood Components Analysis: a linear map maximising the expected "
        "leave-one-out accuracy of a soft nearest-neighbour rule (Goldberger et al. 2005).",
    ),
    MethodSpec(
        key="lmnn",
        label="LMNN",
        paper="chatpatanasiri-2009",
        params=[
            _N_COMPONENTS,
            _K,
            Param(
                "mu",
                "Push weight μ",
                "float",
                0.5,
                low=0.05,
                high=0.95,
                help="Weight of the impostor (push) term; 1 − μ weights the pull term "
                "(μ = 0 would only pull, shrinking the map to zero).",
            ),
            Param(
                "max_iter",
                "Iterations",
                "int",
                200,
                low=5,
                high=2000,
                log=True,
                help="Total L-BFGS iterations.",
            ),
        ],
        factory=LMNN,
        family="mahalanobis",
        needs_labels=True,
        transductive=False,
        baseline="euclidean",
        description="Large Margin Nearest Neighbor: pulls k same-class target neighbours close and "
        "pushes other-class impostors out of a unit margin (Weinberger et al. 2006).",
    ),
    MethodSpec(
        key="dne",
        label="DNE",
        paper="chatpatanasiri-2009",
        params=[_N_COMPONENTS, _K],
        factory=DNE,
        family="mahalanobis",
        needs_labels=True,
        transductive=False,
        baseline="euclidean",
        description="Discriminant Neighbourhood Embedding: an orthonormal projection that squeezes "
        "same-class neighbours and spreads other-class neighbours, by one eigenproblem "
        "(Zhang et al. 2007).",
    ),
]
