"""Registry entries of TDL and Laplacian Eigenmaps (Li, Yang & Wang 2007): labels, slider ranges
and help."""

from __future__ import annotations

from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.methods.specs.shared import n_components, neighbours, width
from metriclab.methods.spectral import PAPER, TDL, LaplacianEigenmaps
from metriclab.params import Param


def _graph_params(cls: type) -> list[Param]:
    return [
        n_components(
            cls,
            "Dimensions",
            "Eigenvectors kept (after the trivial one): the output dimension.",
            10,
        ),
        neighbours(
            cls,
            "n_neighbors",
            "Graph neighbours",
            "k of the kNN graph whose Laplacian is the penalty.",
            (2, 50),
            app_default=10,  # the estimators' None is 10 too, at most n − 1 on tiny data
        ),
        width(
            cls,
            "Heat width t",
            "t in exp(-d²/t) on the graph edges; empty = mean squared kNN distance.",
        ),
        Param.of(
            cls,
            "graph",
            "Graph",
            help="knn: sparse k-nearest-neighbour graph; full: dense Gaussian graph (small data).",
        ),
        Param.of(
            cls,
            "laplacian",
            "Laplacian",
            help="The penalty: unnormalized D−W (TDL above LE on ionosphere as in Table 1, sonar "
            "reversed; λ is weighed against the heat weights), symmetric I−D^-½WD^-½ (scale-free; with it TDL rises "
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

SPECS = [
    MethodSpec(
        key="tdl",
        label="TDL (transductive distance learning)",
        paper=PAPER,
        params=[
            Param.of(
                TDL,
                "lam",
                "λ (graph penalty)",
                slider=(1e-3, 1e4),
                log=True,
                help="Weight of the graph-Laplacian penalty against the label cost; "
                "large λ gives Laplacian Eigenmaps.",
            ),
            neighbours(
                TDL,
                "k",
                "Label neighbours k",
                "Same-class (+1/k) and other-class (−1/k) labeled neighbours per labeled point.",
                (1, 50),
            ),
            *_graph_params(TDL),
            Param.of(
                TDL,
                "cost_scale",
                "Label cost",
                help="sum: Σ C′ᵢ as in Eq. 3; mean: (1/n) Σ C′ᵢ over the n labeled points as in "
                "Eqs. 1-2 (the same as λ·n).",
            ),
        ],
        factory=TDL,
        estimator=TDL,
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
        params=_graph_params(LaplacianEigenmaps),
        factory=LaplacianEigenmaps,
        estimator=LaplacianEigenmaps,
        family="spectral",
        tags={"transductive", "out_of_sample", "unsupervised", "graph"},
        explanation=EXPLANATION,
        baseline="euclidean",
        description="Smallest non-trivial eigenvectors of the graph Laplacian (Belkin & Niyogi "
        "2003): TDL with no label cost.",
    ),
]
