"""Registry entries of KNCA, KLMNN and KDNE (the KPCA trick): labels, slider ranges and help."""

from __future__ import annotations

from metriclab.methods.kpca_trick import LEARNERS, KernelPCATrick
from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.methods.specs.mahalanobis import LMNN_LOSS, LMNN_NOTE, NCA_LOSS
from metriclab.methods.specs.shared import n_components, neighbours, width
from metriclab.params import Param


def _factory(learner: str):
    def make(**params):
        return KernelPCATrick(learner=learner, **params)

    make.__name__ = f"make_k{learner}"
    return make


_WIDTH = width(
    KernelPCATrick,
    "Kernel width t",
    "t in exp(-||x-y||²/t), used when weighting = single; empty = median squared distance.",
    active_when=("weighting", ("single",)),
)
_WEIGHTING = Param.of(
    KernelPCATrick,
    "weighting",
    "Kernel choice",
    app_default="aligned",  # the paper's best reading; the estimator's default is one Gaussian
    help="single: one Gaussian of width t; unweighted: sum of the paper's 21 scaled RBF kernels; "
    "aligned: their non-negative weights maximising the kernel-target alignment.",
)
_N_COMPONENTS = n_components(
    KernelPCATrick,
    "Output dimension",
    "Rows of the learned map L (clipped to the kernel-PCA dimension).",
)
_KPCA_COMPONENTS = Param.of(
    KernelPCATrick,
    "kpca_components",
    "Kernel-PCA directions",
    slider=(2, 1000),
    log=True,
    app_default=100,  # the estimator's default, None, keeps every non-null direction
    help="Kernel-PCA coordinates given to the linear learner (all non-null ones if fewer).",
)
_K = neighbours(
    KernelPCATrick,
    "k",
    "Neighbours k",
    "Same-class (and, for DNE, other-class) neighbours per point.",
    (1, 30),
)

_LINEAR_LABELS = {"nca": "NCA", "lmnn": "LMNN", "dne": "DNE"}
_DESCRIPTIONS = {
    "nca": "Kernel NCA by the KPCA trick: kernel PCA, then NCA's soft nearest-neighbour objective.",
    "lmnn": "Kernel LMNN by the KPCA trick: kernel PCA, then LMNN's large-margin target "
    "neighbours and impostors.",
    "dne": "Kernel DNE by the KPCA trick: kernel PCA, then DNE's eigenproblem (no singularity, "
    "unlike the kernel-trick form of Eq. 17).",
}

EXPLANATION = Explanation(
    "**The KPCA trick (Chatpatanasiri et al. 2009).** Kernel PCA maps the data to coordinates "
    "in feature space; any linear Mahalanobis learner (NCA, LMNN, DNE) then runs there, giving "
    "its kernel version without rewriting the learner. The kernel may be chosen by alignment.",
    (
        r"\varphi(x) \mapsto \big(\langle v_1, \varphi(x)\rangle, \dots, \langle v_m, "
        r"\varphi(x)\rangle\big),\quad d(x,x') = \|L(\psi(x)-\psi(x'))\|",
    ),
)
# What each learner adds on kernel-PCA coordinates: its tags, and its loss for the learning view.
_LEARNER_TAGS = {"nca": {"learning_frames"}, "lmnn": {"learning_frames"}, "dne": set()}
_LOSSES = {
    "nca": NCA_LOSS + " on kernel-PCA coordinates",
    "lmnn": LMNN_LOSS + " on kernel-PCA coordinates",
    "dne": "loss",
}

SPECS = [
    MethodSpec(
        key=f"k{learner}",
        label=f"K{_LINEAR_LABELS[learner]} (KPCA trick)",
        paper="chatpatanasiri-2009",
        params=[_WEIGHTING, _WIDTH, _N_COMPONENTS, _KPCA_COMPONENTS]
        + ([_K] if learner != "nca" else []),
        factory=_factory(learner),
        estimator=KernelPCATrick,
        family="kpca_trick",
        tags={"kernelised", *_LEARNER_TAGS[learner]},
        explanation=EXPLANATION,
        loss_name=_LOSSES[learner],
        learning_note=LMNN_NOTE.replace("LMNN's", "KLMNN's") if learner == "lmnn" else "",
        baseline=learner,
        description=_DESCRIPTIONS[learner]
        + " Kernel: one Gaussian, or the paper's 21 scaled RBF kernels summed or weighted by "
        "alignment with the ideal kernel (Chatpatanasiri et al. 2009).",
    )
    for learner in LEARNERS
]
