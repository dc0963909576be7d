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
from metriclab.methods.mahalanobis.nca import (
    NCA,
    NeighborhoodComponentsAnalysis,
    nca_loss_and_gradient,
)

__all__ = [
    "DNE",
    "LMNN",
    "NCA",
    "NeighborhoodComponentsAnalysis",
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
