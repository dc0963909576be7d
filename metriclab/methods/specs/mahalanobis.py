"""Registry entries of the linear Mahalanobis learners NCA, LMNN and DNE: labels, slider ranges
and help.
"""

from __future__ import annotations

import numpy as np

from metriclab.methods.mahalanobis import DNE, LMNN, NCA
from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.params import Param

_N_COMPONENTS = Param(
    "n_components",
    "Output dimension",
    "int",
    2,
    low=1,
    slider=(1, 50),
    none_ok=True,  # None: as many as the features
    help="Rows of L (dimension of the learned space); at most the number of features.",
)
_K = Param(
    "k",
    "Neighbours k",
    "int",
    3,
    low=1,
    slider=(1, 30),
    help="Same-class target neighbours per point (clipped to the class size − 1).",
)

EXPLANATION = Explanation(
    "**Mahalanobis metric learning.** A linear map L is learned from the labeled points so that "
    "the distance d_M below puts same-class neighbours close (NCA: expected leave-one-out "
    "accuracy; LMNN: large margin against impostors; DNE: one eigenproblem). The picture shows "
    "L x for all points. Beside it: PCA to the same output dimension (the unsupervised map of "
    "the same size) and 1-NN in the Euclidean input space with all features.",
    (r"d_M(x,x')^2 = (x-x')^\top L^\top L\,(x-x')",),
)
NCA_LOSS = "NCA loss −Σᵢ pᵢ (Eq. 3)"
LMNN_LOSS = "LMNN loss (1 − μ)·pull + μ·push"
LMNN_NOTE = "LMNN's loss can step up where its impostor set is recomputed (new impostors enter)."

_START = Param(
    "init",
    "Start",
    "choice",
    "pca",
    choices=("pca", "lda", "identity", "random", "auto"),
    accepts=(np.ndarray, list, tuple),  # a start matrix (n_components × d), checked at fit
    help="The L the optimisation starts from: the principal components, the discriminant "
    "directions, the identity, random, or 'auto' (scikit-learn's rule: LDA when the output "
    "dimension is below the number of classes, else PCA). PCA, the default here: LDA from a few "
    "labelled points overfits (wine, 18 labels, split seed 0: 1-NN 0.725 from LDA, 0.912 from PCA).",
)

_VERBOSE = Param("verbose", "Progress lines", "int", 0, low=0)
_RECORD = Param("record_iterates", "Record iterates", "bool", False)
NCA_HIDDEN = (
    Param("tol", "Tolerance", "float", 1e-5, low=0.0),
    Param("warm_start", "Warm start", "bool", False),
    _VERBOSE,
    _RECORD,
)
LMNN_HIDDEN = (
    Param("tol", "Tolerance", "float", 1e-5, low=0.0, low_open=True),
    Param("init", "Start", "choice", "pca", choices=("pca", "lda", "identity", "random", "auto"),
          accepts=(np.ndarray, list, tuple)),
    Param("impostor_refresh", "Impostor refresh", "int", 25, low=1),
    Param("impostor_slack", "Impostor slack", "float", 0.1, low=0.0),
    _VERBOSE,
    _RECORD,
)  # fmt: skip

SPECS = [
    MethodSpec(
        key="nca",
        label="NCA",
        paper="chatpatanasiri-2009",
        params=[
            _N_COMPONENTS,
            _START,
            Param(
                "max_iter",
                "Iterations",
                "int",
                100,
                low=1,
                slider=(5, 1000),
                log=True,
                help="L-BFGS iterations.",
            ),
        ],
        factory=NCA,
        estimator=NCA,
        hidden=NCA_HIDDEN,
        family="mahalanobis",
        tags={"linear_map", "mahalanobis", "learning_frames"},
        explanation=EXPLANATION,
        loss_name=NCA_LOSS,
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
                low=0,
                high=1,
                high_open=True,
                slider=(0.05, 0.95),
                help="Weight of the impostor (push) term; 1 − μ weights the pull term "
                "(μ = 0 would only pull, shrinking the map to zero).",
            ),
            Param(
                "max_iter",
                "Iterations",
                "int",
                200,
                low=1,
                slider=(5, 2000),
                log=True,
                help="Total L-BFGS iterations.",
            ),
        ],
        factory=LMNN,
        estimator=LMNN,
        hidden=LMNN_HIDDEN,
        family="mahalanobis",
        tags={"linear_map", "mahalanobis", "learning_frames", "impostors"},
        explanation=EXPLANATION,
        loss_name=LMNN_LOSS,
        learning_note=LMNN_NOTE,
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
        estimator=DNE,
        family="mahalanobis",
        tags={"linear_map", "mahalanobis"},
        explanation=EXPLANATION,
        baseline="euclidean",
        description="Discriminant Neighbourhood Embedding: an orthonormal projection that squeezes "
        "same-class neighbours and spreads other-class neighbours, by one eigenproblem "
        "(Zhang et al. 2007).",
    ),
]
