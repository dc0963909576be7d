"""Registry entries of KNCA, KLMNN and KDNE (the KPCA trick): labels, slider ranges and help."""

from __future__ import annotations

from metriclab.kernels import KERNEL_NAMES
from metriclab.methods.kpca_trick import (
    EIGEN_SOLVERS,
    LEARNERS,
    NEIGHBOR_SPACES,
    WEIGHTINGS,
    KernelPCATrick,
)
from metriclab.methods.mahalanobis.base import STARTS
from metriclab.methods.registry import Explanation, MethodSpec
from metriclab.methods.specs.mahalanobis import LMNN_LOSS, LMNN_NOTE, NCA_LOSS
from metriclab.params import Param


def _factory(learner: str):
    def make(**params):
        return KernelPCATrick(learner=learner, **params)

    make.__name__ = f"make_k{learner}"
    return make


_WIDTH = Param(
    "width",
    "Kernel width t",
    "float",
    None,
    low=0.0,
    low_open=True,
    slider=(1e-3, 1e3),
    log=True,
    help="t in exp(-||x-y||²/t), used when weighting = single; empty = median squared distance.",
    active_when=("weighting", ("single",)),
)
_WEIGHTING = Param(
    "weighting",
    "Kernel choice",
    "choice",
    "aligned",
    choices=WEIGHTINGS,
    help="single: one Gaussian of width t; unweighted: sum of the paper's 21 scaled RBF kernels; "
    "aligned: their non-negative weights maximising the kernel-target alignment.",
)
_N_COMPONENTS = Param(
    "n_components",
    "Output dimension",
    "int",
    2,
    low=1,
    slider=(1, 50),
    none_ok=True,
    help="Rows of the learned map L (clipped to the kernel-PCA dimension).",
)
_KPCA_COMPONENTS = Param(
    "kpca_components",
    "Kernel-PCA directions",
    "int",
    100,
    low=1,
    slider=(2, 1000),
    none_ok=True,  # None: every non-null one
    log=True,
    help="Kernel-PCA coordinates given to the linear learner (all non-null ones if fewer).",
)
_K = Param(
    "k",
    "Neighbours k",
    "int",
    3,
    low=1,
    slider=(1, 30),
    help="Same-class (and, for DNE, other-class) neighbours per point.",
)

# Checked at fit with the sliders' parameters (`metriclab.methods.checks`); not offered as sliders.
HIDDEN = (
    Param("kernel", "Kernel", "choice", "gaussian", choices=KERNEL_NAMES),
    Param("mu", "Push weight μ", "float", 0.5, low=0, high=1, high_open=True),
    Param("max_iter", "Iterations", "int", None, low=1),
    Param("degree", "Polynomial degree", "int", 2, low=1),
    Param("coef0", "Polynomial offset", "float", 1.0),
    Param("neighbor_space", "Neighbour space", "choice", "auto", choices=NEIGHBOR_SPACES),
    Param("eigen_solver", "Eigensolver", "choice", "auto", choices=EIGEN_SOLVERS),
    Param("init", "Start", "choice", "auto", choices=("auto", *STARTS)),
    Param("verbose", "Progress lines", "int", 0, low=0),
    Param("record_iterates", "Record iterates", "bool", False),
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
        hidden=HIDDEN,
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
