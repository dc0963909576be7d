"""Registry entry of discriminant-kernel MDS (Zhang 2003): labels, slider ranges and help."""

from __future__ import annotations

from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.methods.specs.shared import iterations, n_components, width
from metriclab.methods.zhang import DiscriminantKernelMDS as MDS
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

SPECS = [
    MethodSpec(
        key="zhang_mds",
        label="Discriminant-kernel MDS (Zhang 2003)",
        paper="zhang-2003-discriminant-kernels-MDS",
        family="zhang",
        params=[
            n_components(MDS, "Dimensions l", "Dimension of the Euclidean embedding.", 10),
            Param.of(
                MDS,
                "dissimilarity",
                "Dissimilarity",
                help="'kernel': built from the kernel and combination below. delta1..delta4: the "
                "paper's Eqs. (13)-(16) (Gaussian/correlation kernel, tensor product/direct sum).",
            ),
            Param.of(
                MDS,
                "kernel",
                "Base kernel k1",
                help="Gaussian exp(-d²/β), correlation ρ^q (cosine), linear or polynomial.",
            ),
            Param.of(
                MDS,
                "combine",
                "Combination with the label kernel",
                help="Tensor product k1·δ(t,t') (Eq. 3) or direct sum α1 k1 + α2 δ(t,t') (Eq. 4).",
            ),
            width(
                MDS,
                "Width β",
                "Gaussian kernel width; empty = average distance of the labelled points to "
                "their class means (the paper's rule). The out-of-sample RBF basis takes its own "
                "width from the data (median squared distance to the centres).",
            ),
            Param.of(
                MDS,
                "degree",
                "Degree q",
                slider=(1, 6),
                help="Power of the correlation kernel (even q keeps Fisher separability).",
            ),
            Param.of(
                MDS,
                "alpha1",
                "Weight α1 (input kernel)",
                slider=(0.0, 1.0),
                help="Weight of the base kernel in the direct sum (paper: 1/2).",
            ),
            Param.of(
                MDS,
                "alpha2",
                "Weight α2 (label kernel)",
                slider=(0.0, 1.0),
                help="Weight of the label kernel in the direct sum (paper: 1/2).",
            ),
            Param.of(
                MDS,
                "basis",
                "Out-of-sample basis",
                help="Gaussian RBFs on sampled centres (Sec. 5.1-5.2) or φ(x) = x (Sec. 5.3).",
            ),
            Param.of(
                MDS,
                "n_basis",
                "RBF centres p",
                slider=(1, 500),
                help="Number of RBF centres; empty = a quarter of the labelled points (10 to 200).",
            ),
            iterations(
                MDS,
                "Majorization iterations",
                "Maximum iterations of the majorization for the out-of-sample map.",
                (0, 1000),
                log=False,
            ),
        ],
        factory=MDS,
        estimator=MDS,
        tags={"dissimilarity"},
        explanation=EXPLANATION,
        description="Discriminant kernels on (input, label) pairs give Euclidean, Fisher-separable "
        "dissimilarities; classical MDS embeds the labelled points and an RBF expansion fitted by "
        "iterative majorization maps new points.",
    ),
]
