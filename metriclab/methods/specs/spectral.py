"""Registry entries of TDL and Laplacian Eigenmaps (Li, Yang & Wang 2007): labels, slider ranges
and help."""

from __future__ import annotations

from metriclab.eigen import EIGEN_SOLVERS
from metriclab.graphs import GRAPH_KINDS, LAPLACIAN_KINDS, WEIGHT_KINDS
from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.methods.spectral import COST_SCALES, PAPER, TDL, LaplacianEigenmaps
from metriclab.params import Param


def _graph_params() -> list[Param]:
    return [
        Param(
            "n_components",
            "Dimensions",
            "int",
            2,
            low=1,
            slider=(1, 10),
            help="Eigenvectors kept (after the trivial one): the output dimension.",
        ),
        Param(
            "n_neighbors",
            "Graph neighbours",
            "int",
            10,
            low=1,
            slider=(2, 50),
            help="k of the kNN graph whose Laplacian is the penalty.",
        ),
        Param(
            "width",
            "Heat width t",
            "float",
            None,
            low=0.0,
            low_open=True,
            slider=(1e-3, 1e3),
            log=True,
            help="t in exp(-d²/t) on the graph edges; empty = mean squared kNN distance.",
        ),
        Param(
            "graph",
            "Graph",
            "choice",
            "knn",
            choices=GRAPH_KINDS,
            help="knn: sparse k-nearest-neighbour graph; full: dense Gaussian graph (small data).",
        ),
        Param(
            "laplacian",
            "Laplacian",
            "choice",
            "unnormalized",
            choices=LAPLACIAN_KINDS,
            help="The penalty: unnormalized D−W (reproduces the paper's Table 1; λ is weighed "
            "against the heat weights), symmetric I−D^-½WD^-½ (scale-free; with it TDL rises "
            "above LE at the two-moons figure's λ = 16), random_walk (generalized problem with D).",
        ),
    ]


EXPLANATION = Explanation(
    "**Transductive distance learning (Li, Yang & Wang 2007).** Every point, labeled or not, gets "
    "coordinates X. Labeled pairs enter a cost C (same class close, other classes far, among k "
    "labeled neighbours); a graph Laplacian P penalises coordinates that vary along the data's "
    "neighbourhood graph. The embedding is the eigenvectors of the smallest eigenvalues of "
    "C′ + λL, with L the graph Laplacian (the paper's P′; the trivial constant vector removed); "
    "λ trades labels against smoothness. "
    "What λ is weighed against depends on the Laplacian: the default D − W scales with the "
    "graph's heat weights exp(−d²/t), so the same λ is a weak penalty where neighbours are "
    "far apart against t (UCI features in [0, 1], t = 0.25: the paper's λ = 1024) and a strong "
    "one on dense 2-D data (weights near 1); the symmetric I − D^-½WD^-½ is scale-free "
    "(eigenvalues in [0, 2]), which is the setting of the paper's two-moons figure (λ = 16). "
    "Laplacian Eigenmaps is the case C = 0. Diamonds are labeled points; the score is 1-NN "
    "on the unlabeled points with the labeled ones as reference.",
    (
        r"\min_X \operatorname{Tr}\!\Big(X^\top \big(\textstyle\sum_i C'_i + \lambda L\big) X\Big)"
        r"\quad \text{s.t. } X^\top E X = 0,\ \operatorname{Tr}(X^\top X)=1 \qquad (3)",
    ),
)

# Checked at fit with the sliders' parameters (`metriclab.methods.checks`); not offered as sliders.
HIDDEN = (
    Param("weights", "Graph weights", "choice", "heat", choices=WEIGHT_KINDS),
    Param("eigen_solver", "Eigensolver", "choice", "auto", choices=EIGEN_SOLVERS),
    Param("kernel_penalty", "Kernel penalty γ", "float", 1e-3, low=0.0),
    Param("kernel_width", "Out-of-sample width", "float", None, low=0.0, low_open=True),
    Param("tol", "Eigensolver tolerance", "float", 0.0, low=0.0),
    Param("verbose", "Progress lines", "int", 0, low=0),
)

SPECS = [
    MethodSpec(
        key="tdl",
        label="TDL (transductive distance learning)",
        paper=PAPER,
        params=[
            Param(
                "lam",
                "λ (graph penalty)",
                "float",
                16.0,
                low=0.0,
                slider=(1e-3, 1e4),
                log=True,
                help="Weight of the graph-Laplacian penalty against the label cost; "
                "large λ gives Laplacian Eigenmaps.",
            ),
            Param(
                "k",
                "Label neighbours k",
                "int",
                5,
                low=1,
                slider=(1, 50),
                help="Same-class (+1/k) and other-class (−1/k) labeled neighbours per labeled point.",
            ),
            *_graph_params(),
            Param(
                "cost_scale",
                "Label cost",
                "choice",
                "sum",
                choices=COST_SCALES,
                help="sum: Σ C′ᵢ as in Eq. 3; mean: (1/n) Σ C′ᵢ over the n labeled points as in "
                "Eqs. 1-2 (the same as λ·n).",
            ),
        ],
        factory=TDL,
        estimator=TDL,
        hidden=HIDDEN,
        family="spectral",
        tags={"transductive", "out_of_sample", "graph"},
        explanation=EXPLANATION,
        baseline="le",
        description="Smallest eigenvectors of C' + λL: a label cost pulling same-class neighbours "
        "together and pushing other-class ones apart, regularised by a graph Laplacian on all "
        "points (Li, Yang & Wang 2007).",
    ),
    MethodSpec(
        key="le",
        label="Laplacian Eigenmaps",
        paper=PAPER,
        params=_graph_params(),
        factory=LaplacianEigenmaps,
        estimator=LaplacianEigenmaps,
        hidden=HIDDEN,
        family="spectral",
        tags={"transductive", "out_of_sample", "unsupervised", "graph"},
        explanation=EXPLANATION,
        baseline="euclidean",
        description="Smallest non-trivial eigenvectors of the graph Laplacian (Belkin & Niyogi "
        "2003): TDL with no label cost.",
    ),
]
