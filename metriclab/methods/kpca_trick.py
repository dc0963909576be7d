"""The KPCA trick (Chatpatanasiri et al. 2009, Sect. 3.3, Figure 1): KNCA, KLMNN and KDNE.

Step 1 maps the training points to their kernel-PCA coordinates phi_i = Psi' phi(x_i) (Eq. 9), the
coordinates of the centred feature vectors in an orthonormal basis of their span; step 2 runs an
unchanged linear Mahalanobis learner (NCA, LMNN, DNE of `metriclab.methods.mahalanobis`) on them;
step 3 maps a new point through the same two maps. Theorems 1-2 say that nothing is lost when all
non-null kernel-PCA directions are kept: with a linear kernel the result is the linear learner's.

The kernel is one Gaussian (or linear / polynomial / cosine) kernel ("single"), or a combination of
the paper's 21 scaled RBF kernels exp(-||x-y||^2 / (2 D sigma^2)) (Sect. 5.2): the unweighted sum
(Sect. 4.2) or non-negative weights maximising the alignment with the ideal kernel (Sect. 4.1).
"""

from __future__ import annotations

import inspect

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import eigsh
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.utils.extmath import randomized_svd
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from metriclab._docstrings import fill_doc
from metriclab.kernels import (
    KERNEL_NAMES,
    PAPER_SIGMAS,
    base_kernel,
    median_squared_distance,
    rbf_alignment_weights,
    rbf_kernel_sum,
    scaled_rbf_widths,
)
from metriclab.methods.mahalanobis.base import STARTS, MetricLearnInterface
from metriclab.progress import FitLog
from metriclab.validation import InvalidParameterError, Rule, check_choice, check_params, parameters

LEARNERS = ("nca", "lmnn", "dne")
# max_iter=None: the learner's iterations on kernel-PCA coordinates (NCA's were its own default,
# 100, before NCA took scikit-learn's 50; the KPCA-trick tables ran with 100)
LEARNER_MAX_ITER = {"nca": 100, "lmnn": 200}
WEIGHTINGS = ("single", "unweighted", "aligned")
NEIGHBOR_SPACES = ("auto", "feature", "input")
EIGEN_SOLVERS = ("auto", "dense", "arpack", "randomized")

# Kernel-PCA directions with eigenvalue below this fraction of the largest are numerically null.
RANK_TOLERANCE = 1e-10
# Up to this many training points the exact dense eigensolver is used by "auto".
DENSE_LIMIT = 1000


# --------------------------------------------------------------------------------------------
# Kernel PCA on a precomputed kernel
# --------------------------------------------------------------------------------------------


def centered_train_kernel(K: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """H K H (H = I - 11'/n), with the column means and grand mean needed to centre test kernels."""
    column_means = K.mean(axis=0)
    grand_mean = float(column_means.mean())
    Kc = K - column_means[None, :] - column_means[:, None] + grand_mean
    return 0.5 * (Kc + Kc.T), column_means, grand_mean


def centered_test_kernel(K_new: np.ndarray, column_means: np.ndarray, grand_mean: float):
    """Kernel between new points and the training points, both centred at the training mean in
    feature space: <phi(x) - m, phi(x_j) - m> with m the mean of the training feature vectors."""
    return K_new - K_new.mean(axis=1, keepdims=True) - column_means[None, :] + grand_mean


def top_eigenpairs(Kc: np.ndarray, n_components: int | None, solver: str, random_state=0):
    """Largest eigenpairs of the centred kernel, in descending order.

    n_components=None asks for all of them (dense solver). "auto" is dense up to DENSE_LIMIT
    points and randomized SVD beyond, the fastest at n = 5000 (bench/README.md, "Notes measured
    once").
    """
    n = Kc.shape[0]
    m = n if n_components is None else min(int(n_components), n)
    if solver == "auto":
        solver = (
            "dense" if (n <= DENSE_LIMIT or n_components is None or m >= n // 2) else "randomized"
        )
    if solver == "arpack" and m >= n - 1:
        solver = "dense"  # ARPACK needs k < n - 1
    if solver == "dense":
        eigenvalues, eigenvectors = scipy.linalg.eigh(Kc, subset_by_index=(n - m, n - 1))
    elif solver == "arpack":
        v0 = np.random.default_rng(random_state).uniform(-1, 1, n)
        eigenvalues, eigenvectors = eigsh(Kc, k=m, which="LA", v0=v0)
    elif solver == "randomized":
        eigenvectors, eigenvalues, _ = randomized_svd(
            Kc, m, n_oversamples=10, n_iter=4, random_state=random_state
        )
    else:
        raise ValueError(f"eigen_solver must be one of {list(EIGEN_SOLVERS)}, got {solver!r}")
    order = np.argsort(eigenvalues)[::-1]
    return eigenvalues[order], eigenvectors[:, order]


class KernelPCAMap:
    """Kernel PCA of a precomputed training kernel: the coordinates of Eq. (9).

    After `fit(K)`: `eigenvalues_` (descending, the non-null ones kept), `eigenvectors_` (n × m),
    `embedding_` (training coordinates V sqrt(Lambda)); `transform(K_new)` maps new points from their
    kernel against the training points (centred with the training statistics).
    """

    def __init__(self, n_components=None, eigen_solver="auto", random_state=0):
        self.n_components = n_components
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    def fit(self, K: np.ndarray) -> KernelPCAMap:
        Kc, self.column_means_, self.grand_mean_ = centered_train_kernel(K)
        eigenvalues, eigenvectors = top_eigenpairs(
            Kc, self.n_components, self.eigen_solver, self.random_state
        )
        largest = eigenvalues[0] if eigenvalues.size else 0.0
        keep = eigenvalues > RANK_TOLERANCE * largest if largest > 0 else np.zeros(0, bool)
        if not np.any(keep):
            raise ValueError(
                "the centred kernel matrix is zero: all training points coincide in feature space "
                "(constant features, or a kernel width far too large)"
            )
        self.eigenvalues_ = eigenvalues[keep]
        self.eigenvectors_ = eigenvectors[:, keep]
        self.embedding_ = self.eigenvectors_ * np.sqrt(self.eigenvalues_)
        return self

    def transform(self, K_new: np.ndarray) -> np.ndarray:
        Kc_new = centered_test_kernel(K_new, self.column_means_, self.grand_mean_)
        return Kc_new @ (self.eigenvectors_ / np.sqrt(self.eigenvalues_))


# --------------------------------------------------------------------------------------------
# The KPCA-trick estimator
# --------------------------------------------------------------------------------------------


def make_learner(
    name: str, n_components: int, k: int, mu: float, max_iter, random_state, init=None
):
    """An unfitted metriclab linear learner by name (imported here: mahalanobis is another module).
    `init` (NCA, LMNN) left as None keeps the learner's default; `max_iter` None is
    `LEARNER_MAX_ITER`."""
    from metriclab.methods.mahalanobis import DNE, LMNN, NCA

    extra = {"max_iter": LEARNER_MAX_ITER.get(name) if max_iter is None else max_iter}
    if init is not None:
        extra["init"] = init
    if name == "nca":
        return NCA(n_components=n_components, random_state=random_state, **extra)
    if name == "lmnn":
        return LMNN(n_components=n_components, k=k, mu=mu, random_state=random_state, **extra)
    if name == "dne":
        return DNE(n_components=n_components, k=k)
    raise ValueError(f"learner must be one of {list(LEARNERS)}, got {name!r}")


@parameters
class KernelPCATrick(MetricLearnInterface, TransformerMixin, BaseEstimator):
    """Kernel PCA followed by a linear Mahalanobis learner: KNCA, KLMNN, KDNE (paper Figure 1).

    Parameters
    ----------
    learner : {"nca", "lmnn", "dne"} or estimator
        The linear learner, by name or as an unfitted estimator (e.g. ``NCA(n_components=2)``):
        any estimator with fit(Z, y) that sets ``components_`` and has ``transform``. It is cloned
        at fit; its own parameters are used (n_components clipped to the kernel-PCA dimension),
        and k, mu, max_iter, init and n_components below are for the string form only. If its
        fit takes ``X_neighbors`` (LMNN, DNE), `neighbor_space` applies to it.
    kernel : {"gaussian", "linear", "polynomial", "cosine"}
        The kernel when weighting="single".
    width : float or None
        t of the Gaussian exp(-||x-y||^2 / t) for weighting="single"; None: the median squared
        distance of the training points.
    weighting : {"single", "unweighted", "aligned"}
        One kernel; the sum of the scaled RBF kernels with sigma in `sigmas` (Sect. 4.2); or
        their non-negative combination maximising the kernel-target alignment (Sect. 4.1,
        Eq. 13).
    n_components : int or None
        Output dimension (rows of the learner's L); clipped to the kernel-PCA dimension, which
        depends on the data (None: all of it).
    kpca_components : int or None
        Kernel-PCA directions kept; None keeps every non-null one, which makes the trick
        lossless (Theorems 1-2).
    k : int
        Neighbours of LMNN and DNE.
    mu : float
        LMNN's push weight.
    max_iter : int or None
        NCA and LMNN iterations (None: 100 for NCA, 200 for LMNN).
    degree, coef0 : float
        The polynomial kernel (x'y + coef0)^degree.
    sigmas : sequence of float
        The scaled RBF family (default: the paper's 21 values).
    neighbor_space : {"auto", "feature", "input"}
        Where LMNN and DNE pick their neighbours: the kernel's feature space (Proposition 3) or
        the input space; "auto" uses the input space for the unweighted sum, as the paper does
        (Sect. 5.2), and the feature space otherwise.
    eigen_solver : {"auto", "dense", "arpack", "randomized"}
        See `top_eigenpairs`.
    init : "auto" or an init of the learner ("pca", "lda", "identity", "random")
        "auto" starts NCA from the LDA directions when n_components < the number of classes
        (scikit-learn's rule; a PCA start leaves 1-D KNCA in poor local optima on the paper's
        curves) and keeps the learner's own default otherwise.
    random_state : int
        The learners' and the randomized solver's seed.
    record_iterates : bool
        Ask an iterative learner (NCA, LMNN) to keep its L after each iteration (``iterates_``
        and ``first_iterate_``, beside its ``loss_curve_``), to watch the fit learn; the fit is
        the same either way. DNE is one eigenproblem: nothing to record.
    verbose : int
        0 prints nothing; 1 prints the stages (kernel, kernel PCA) with their times, and the
        learner's own progress when it has a ``verbose`` (NCA, LMNN).

    Attributes
    ----------
    kpca_ : KernelPCAMap
        The kernel-PCA map of the training points.
    learner_ : estimator
        The fitted linear learner (a clone when an estimator was given; `learner` itself is never
        fitted).
    n_iter_ : int
        The learner's iterations (0 for DNE's one eigenproblem).
    components_ : ndarray
        The learner's L, acting on the kernel-PCA coordinates.
    dual_coef_ : ndarray of shape (n_components, n_train)
        U of the kernel-trick form A = U Phi' (Eq. 6): transform(x) = U k_c(x), with k_c the
        centred kernel vector.
    kernel_weights_, widths_ : ndarray
        The combination sum_i w_i exp(-||x-y||^2 / t_i) (empty ``widths_`` for a non-Gaussian
        single kernel).
    eigenvalues_ : ndarray
        The kernel-PCA spectrum.
    n_components_ : int
        The output dimension.

    See Also
    --------
    NCA, LMNN, DNE : The linear learners.
    sklearn.decomposition.KernelPCA : Kernel PCA in scikit-learn.

    References
    ----------
    R. Chatpatanasiri, T. Korsrilabutr, P. Tangchanachaianan and B. Kijsirikul, "A new kernelization
    framework for Mahalanobis distance learning algorithms", Neurocomputing 73, 2010 (arXiv 2009).

    Examples
    --------
    >>> from metriclab import KernelPCATrick
    >>> from metriclab.datasets import load
    >>> from metriclab.evaluation import knn_accuracy
    >>> ds = load("curves_circles", n_samples=150, seed=0)
    >>> knca = KernelPCATrick(learner="nca", kernel="polynomial", degree=2, n_components=1)
    >>> knca = knca.fit(ds.X[::2], ds.y[::2])
    >>> Z_train, Z_test = knca.transform(ds.X[::2]), knca.transform(ds.X[1::2])
    >>> Z_test.shape
    (75, 1)
    >>> knn_accuracy(Z_train, ds.y[::2], Z_test, ds.y[1::2]) > 0.9
    True
    """

    # the values each parameter accepts, checked at fit (`metriclab.validation.check_params`);
    # learner and sigmas are checked by `_check_params`
    _parameter_rules = {
        "kernel": Rule("choice", choices=KERNEL_NAMES),
        "width": Rule("float", low=0.0, low_open=True, none_ok=True),
        "weighting": Rule("choice", choices=WEIGHTINGS),
        "n_components": Rule("int", low=1, none_ok=True),
        "kpca_components": Rule("int", low=1, none_ok=True),  # None: every non-null direction
        "k": Rule("int", low=1),
        "mu": Rule("float", low=0, high=1, high_open=True),
        "max_iter": Rule("int", low=1, none_ok=True),
        "degree": Rule("int", low=1),
        "coef0": Rule("float"),
        "neighbor_space": Rule("choice", choices=NEIGHBOR_SPACES),
        "eigen_solver": Rule("choice", choices=EIGEN_SOLVERS),
        "init": Rule("choice", choices=("auto", *STARTS)),
        "verbose": Rule("int", low=0),
        "record_iterates": Rule("bool"),
    }

    learner: str | BaseEstimator = "nca"
    kernel: str = "gaussian"
    width: float | None = None
    weighting: str = "single"
    n_components: int | None = 2
    kpca_components: int | None = None
    k: int = 3
    mu: float = 0.5
    max_iter: int | None = None
    degree: int = 2
    coef0: float = 1.0
    sigmas: tuple[float, ...] = PAPER_SIGMAS
    neighbor_space: str = "auto"
    eigen_solver: str = "auto"
    init: str = "auto"
    random_state: int | np.random.RandomState | None = 0
    record_iterates: bool = False
    verbose: int = 0

    # -- validation ----------------------------------------------------------------------------

    def _check_params(self):
        if not _is_learner_estimator(self.learner):
            check_choice("learner", self.learner, LEARNERS)
        check_params(self)  # the class's _parameter_rules
        self._refuse_ignored()
        if self.weighting != "single" and self.kernel != "gaussian":
            raise InvalidParameterError(
                f"weighting={self.weighting!r} combines Gaussian kernels; use kernel='gaussian' "
                f"or weighting='single' with kernel={self.kernel!r}"
            )
        sigmas = np.asarray(self.sigmas, dtype=np.float64)
        if self.weighting != "single" and (
            sigmas.ndim != 1 or sigmas.size == 0 or not np.all(sigmas > 0)
        ):
            raise InvalidParameterError(
                f"sigmas must be a non-empty list of positive numbers, got {sigmas!r}"
            )

    def _refuse_ignored(self):
        """A parameter this configuration would ignore is refused, not silently dropped."""
        defaults = {"k": 3, "mu": 0.5, "max_iter": None, "init": "auto"}  # as in __init__
        changed = [n for n, v in defaults.items() if getattr(self, n) != v]
        if _is_learner_estimator(self.learner) and changed:
            raise InvalidParameterError(
                f"{', '.join(changed)} configure a learner given by name; with learner="
                f"{type(self.learner).__name__}(...) set them on that estimator instead"
            )
        unused = {"nca": ("k", "mu"), "dne": ("mu", "max_iter", "init")}.get(self.learner, ())
        ignored = [n for n in unused if n in changed]
        if ignored:
            raise InvalidParameterError(
                f"{', '.join(ignored)} {'is' if len(ignored) == 1 else 'are'} not used by "
                f"learner={self.learner!r}; leave {'it' if len(ignored) == 1 else 'them'} at "
                "the default"
            )
        if self.width is not None and self.weighting != "single":
            raise InvalidParameterError(
                f"width is used only with weighting='single' (weighting={self.weighting!r} "
                "combines the widths in `sigmas`); leave width at None"
            )

    # -- kernels -------------------------------------------------------------------------------

    def _choose_kernel(self, X, y):
        """Set widths_ and kernel_weights_ (the kernel is sum_i w_i exp(-d^2 / t_i) if Gaussian)."""
        if self.weighting == "single":
            if self.kernel != "gaussian":
                self.widths_ = np.zeros(0)
                self.kernel_weights_ = np.ones(1)
                return
            width = median_squared_distance(X) if self.width is None else float(self.width)
            self.widths_ = np.array([width])
            self.kernel_weights_ = np.ones(1)
            return
        self.widths_ = scaled_rbf_widths(X.shape[1], self.sigmas)
        if self.weighting == "unweighted":
            self.kernel_weights_ = np.ones_like(self.widths_)  # Sect. 4.2: k' = sum_i k_i
        else:
            self.kernel_weights_ = rbf_alignment_weights(X, y, self.widths_)  # Eq. (13)

    def _kernel(self, X, Y=None):
        if self.widths_.size:
            return rbf_kernel_sum(X, Y, self.widths_, self.kernel_weights_)
        return base_kernel(self.kernel, X, Y, degree=self.degree, coef0=self.coef0)

    # -- fit / transform -----------------------------------------------------------------------

    @fill_doc
    def fit(self, X, y):
        """Fit kernel PCA on X, then the linear learner on the kernel-PCA coordinates.

        %(fit_params)s

        %(returns_self)s
        """
        self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(f"{self._label()} needs labels of at least two classes")
        log = FitLog(self._label(), self.verbose)
        with log.stage(f"kernel ({self.weighting})"):
            self._choose_kernel(X, y_index)
        self.X_fit_ = X
        with log.stage(f"kernel PCA of {X.shape[0]} points"):
            self.kpca_ = KernelPCAMap(self.kpca_components, self.eigen_solver, self.random_state)
            self.kpca_.fit(self._kernel(X))
        self.eigenvalues_ = self.kpca_.eigenvalues_
        Z = self.kpca_.embedding_
        self.learner_ = self._make_learner(Z.shape[1])
        if self.verbose and "verbose" in self.learner_.get_params():
            self.learner_.set_params(verbose=self.verbose)
        space = self.neighbor_space
        if space == "auto":
            space = "input" if self.weighting == "unweighted" else "feature"
        log.say(f"the linear learner on {Z.shape[1]} kernel-PCA coordinates")
        if "X_neighbors" in inspect.signature(self.learner_.fit).parameters:
            self.learner_.fit(Z, y_index, X_neighbors=X if space == "input" else None)
        else:
            self.learner_.fit(Z, y_index)
        log.done()
        self.components_ = self.learner_.components_
        self.n_components_ = self.components_.shape[0]
        self.n_iter_ = getattr(self.learner_, "n_iter_", 0)
        if hasattr(self.learner_, "loss_curve_"):
            self.loss_curve_ = self.learner_.loss_curve_
        if self.record_iterates and hasattr(self.learner_, "iterates_"):
            # each iterate is an L on the kernel-PCA coordinates, like components_
            self.iterates_ = self.learner_.iterates_
            self.first_iterate_ = self.learner_.first_iterate_
        # Eq. (6)/(8): A = U Phi' with U = L Lambda^{-1/2} V' acting on centred kernel vectors.
        self.dual_coef_ = (
            self.components_ @ (self.kpca_.eigenvectors_ / np.sqrt(self.eigenvalues_)).T
        )
        self.embedding_ = self.learner_.transform(Z)
        return self

    def learner_records_iterates(self) -> bool:
        """Tell whether the linear learner can record its iterations.

        Returns
        -------
        bool
            True for NCA and LMNN (``record_iterates``), False for DNE.
        """
        if _is_learner_estimator(self.learner):
            return "record_iterates" in self.learner.get_params()
        learner = make_learner(self.learner, None, self.k, self.mu, self.max_iter, 0)
        return "record_iterates" in learner.get_params()

    def _make_learner(self, dim: int):
        """The unfitted linear learner for `dim` kernel-PCA coordinates: a clone of the given
        estimator (n_components clipped to dim), or the named one built from our parameters."""
        learner = self._configured_learner(dim)
        if self.record_iterates and "record_iterates" in learner.get_params():
            learner.set_params(record_iterates=True)
        return learner

    def _configured_learner(self, dim: int):
        if _is_learner_estimator(self.learner):
            learner = clone(self.learner)
            n_components = learner.get_params().get("n_components")
            if n_components is not None and n_components > dim:
                learner.set_params(n_components=dim)
            return learner
        n_components = dim if self.n_components is None else min(self.n_components, dim)
        init = self.init
        if init == "auto":
            use_lda = self.learner == "nca" and n_components < self.classes_.size
            init = "lda" if use_lda else None
        return make_learner(
            self.learner, n_components, self.k, self.mu, self.max_iter, self.random_state, init
        )

    def kpca_transform(self, X) -> np.ndarray:
        """Map points to their kernel-PCA coordinates (Eq. 9), the linear learner's input.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            The points.

        Returns
        -------
        ndarray of shape (n_queries, n_kpca_components)
            Their coordinates on the kept kernel-PCA directions.
        """
        check_is_fitted(self, "kpca_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.kpca_.transform(self._kernel(X, self.X_fit_))

    @fill_doc
    def transform(self, X) -> np.ndarray:
        """Map points: kernel PCA, then the learned linear map (paper Figure 1, step 3).

        %(transform_params)s
            Their coordinates in the learned space.
        """
        check_is_fitted(self, "learner_")
        return self.learner_.transform(self.kpca_transform(X))

    # metric-learn's interface (`MetricLearnInterface`): the learned M lives on the kernel-PCA
    # coordinates; distances between inputs go through the kernel-PCA map first.
    def _metric_matrix(self):
        check_is_fitted(self, "learner_")
        return self.learner_.get_mahalanobis_matrix()

    def _metric_map(self, X):
        return self.transform(np.atleast_2d(np.asarray(X, dtype=np.float64)))

    def _label(self) -> str:
        if _is_learner_estimator(self.learner):
            return f"K{type(self.learner).__name__}"
        return {"nca": "KNCA", "lmnn": "KLMNN", "dne": "KDNE"}.get(self.learner, "KernelPCATrick")


def _is_learner_estimator(learner) -> bool:
    """A learner given as an estimator (not by name)."""
    return (
        not isinstance(learner, str) and hasattr(learner, "fit") and hasattr(learner, "get_params")
    )
