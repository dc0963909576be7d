"""Registry entry of discriminant-kernel MDS (Zhang 2003): labels, slider ranges and help."""

from __future__ import annotations

from metriclab.kernels import COMBINATIONS
from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.methods.zhang import (
    BASES,
    DISSIMILARITY_CHOICES,
    INITS,
    KERNELS,
    DiscriminantKernelMDS,
)
from metriclab.params import Param

EXPLANATION = Explanation(
    "**Discriminant kernels and MDS (Zhang 2003).** A base kernel on the inputs is combined with "
    "the label kernel δ(t, t′) (tensor product or direct sum), giving a dissimilarity between "
    "labeled points; classical MDS turns it into Euclidean coordinates, and an RBF expansion "
    "fitted by iterative majorization maps the unlabeled points.",
    (
        r"k((x,t),(x',t')) = k_1(x,x')\,\delta(t,t') \quad\text{or}\quad \alpha_1 k_1(x,x') "
        r"+ \alpha_2 \delta(t,t')",
        r"\delta^2(i,j) = k_{ii} + k_{jj} - 2k_{ij}",
    ),
)

# Checked at fit with the sliders' parameters (`metriclab.methods.checks`); not offered as sliders.
HIDDEN = (
    Param("basis_width", "RBF basis width", "float", None, low=0.0, low_open=True),
    Param("init", "Majorization start", "choice", "mds", choices=INITS),
    Param("tol", "Majorization tolerance", "float", 1e-6, low=0.0),
)

SPECS = [
    MethodSpec(
        key="zhang_mds",
        label="Discriminant-kernel MDS (Zhang 2003)",
        paper="zhang-2003-discriminant-kernels-MDS",
        family="zhang",
        params=[
            Param(
                "n_components",
                "Dimensions l",
                "int",
                2,
                low=1,
                slider=(1, 10),
                help="Dimension of the Euclidean embedding.",
            ),
            Param(
                "dissimilarity",
                "Dissimilarity",
                "choice",
                "kernel",
                choices=DISSIMILARITY_CHOICES,
                none_ok=True,  # None: "kernel"
                help="'kernel': built from the kernel and combination below. delta1..delta4: the "
                "paper's Eqs. (13)-(16) (Gaussian/correlation kernel, tensor product/direct sum).",
            ),
            Param(
                "kernel",
                "Base kernel k1",
                "choice",
                "gaussian",
                choices=KERNELS,
                help="Gaussian exp(-d²/β), correlation ρ^q (cosine), linear or polynomial.",
            ),
            Param(
                "combine",
                "Combination with the label kernel",
                "choice",
                "sum",
                choices=COMBINATIONS,
                help="Tensor product k1·δ(t,t') (Eq. 3) or direct sum α1 k1 + α2 δ(t,t') (Eq. 4).",
            ),
            Param(
                "width",
                "Width β",
                "float",
                None,
                low=0.0,
                low_open=True,
                slider=(1e-3, 1e3),
                log=True,
                help="Gaussian kernel width; empty = average distance of the labelled points to "
                "their class means (the paper's rule). The out-of-sample RBF basis takes its own "
                "width from the data (median squared distance to the centres).",
            ),
            Param(
                "degree",
                "Degree q",
                "int",
                2,
                low=1,
                slider=(1, 6),
                help="Power of the correlation kernel (even q keeps Fisher separability).",
            ),
            Param(
                "alpha1",
                "Weight α1 (input kernel)",
                "float",
                0.5,
                low=0.0,
                slider=(0.0, 1.0),
                help="Weight of the base kernel in the direct sum (paper: 1/2).",
            ),
            Param(
                "alpha2",
                "Weight α2 (label kernel)",
                "float",
                0.5,
                low=0.0,
                slider=(0.0, 1.0),
                help="Weight of the label kernel in the direct sum (paper: 1/2).",
            ),
            Param(
                "basis",
                "Out-of-sample basis",
                "choice",
                "rbf",
                choices=BASES,
                help="Gaussian RBFs on sampled centres (Sec. 5.1-5.2) or φ(x) = x (Sec. 5.3).",
            ),
            Param(
                "n_basis",
                "RBF centres p",
                "int",
                None,
                low=1,
                slider=(1, 500),
                help="Number of RBF centres; empty = a quarter of the labelled points (10 to 200).",
            ),
            Param(
                "max_iter",
                "Majorization iterations",
                "int",
                100,
                low=0,
                slider=(0, 1000),
                help="Maximum iterations of the majorization for the out-of-sample map.",
            ),
        ],
        factory=DiscriminantKernelMDS,
        estimator=DiscriminantKernelMDS,
        hidden=HIDDEN,
        tags={"dissimilarity"},
        explanation=EXPLANATION,
        description="Discriminant kernels on (input, label) pairs give Euclidean, Fisher-separable "
        "dissimilarities; classical MDS embeds the labelled points and an RBF expansion fitted by "
        "iterative majorization maps new points.",
    ),
]
