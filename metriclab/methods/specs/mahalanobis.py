"""Registry entries of the linear Mahalanobis learners NCA, LMNN and DNE: labels, slider ranges
and help.
"""

from __future__ import annotations

from metriclab.methods.mahalanobis import DNE, LMNN, NCA
from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.methods.specs.shared import iterations, n_components, neighbours
from metriclab.params import Param

_APP_DIMENSION = 2  # the app starts in the plane (the learners' own default, None, keeps d)


def _n_components(cls: type) -> Param:
    return n_components(
        cls,
        "Output dimension",
        "Rows of L (dimension of the learned space); at most the number of features.",
        app_default=_APP_DIMENSION,
    )


def _k(cls: type) -> Param:
    return neighbours(
        cls,
        "k",
        "Neighbours k",
        "Same-class target neighbours per point (clipped to the class size − 1).",
        (1, 30),
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

_START = Param.of(
    NCA,
    "init",
    "Start",
    app_default="pca",
    help="The L the optimisation starts from: the principal components, the discriminant "
    "directions, the identity, random, or 'auto' (scikit-learn's rule: LDA when the output "
    "dimension is below the number of classes, else PCA). PCA, the app's start: LDA from a few "
    "labelled points overfits (wine, 18 labels, split seed 0: 1-NN 0.725 from LDA, 0.912 from PCA).",
)

SPECS = [
    MethodSpec(
        key="nca",
        label="NCA",
        paper="chatpatanasiri-2009",
        params=[
            _n_components(NCA),
            _START,
            iterations(NCA, "Iterations", "L-BFGS iterations.", (5, 1000), app_default=100),
        ],
        factory=NCA,
        estimator=NCA,
        fixed={"random_state": 0},  # the app's seed (for init="random"; NCA's default is None)
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
            _n_components(LMNN),
            _k(LMNN),
            Param.of(
                LMNN,
                "mu",
                "Push weight μ",
                slider=(0.05, 0.95),
                help="Weight of the impostor (push) term; 1 − μ weights the pull term "
                "(μ = 0 would only pull, shrinking the map to zero).",
            ),
            iterations(LMNN, "Iterations", "Total L-BFGS iterations.", (5, 2000)),
        ],
        factory=LMNN,
        estimator=LMNN,
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
        params=[_n_components(DNE), _k(DNE)],
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
