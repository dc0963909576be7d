"""Shared pieces of numpydoc docstrings, written once and filled in where they are used.

Estimators that share parameters (TDL and Laplacian Eigenmaps, the two NCAs, the tangent k-NN
classifiers) and the learners' `fit` and `transform` describe them in the same words. A docstring
names a piece on a line of its own as ``%(name)s``; `fill_doc` replaces that line with the piece,
indented like it, when the class or function is defined, so ``help()``, ``inspect.getdoc``, the
API pages and numpydoc's validation all read the whole text.
"""

from __future__ import annotations

import re

PIECES: dict[str, str] = {}

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.M)


def fill_doc(obj):
    """`obj` with each line ``%(name)s`` of its docstring replaced by ``PIECES[name]``, indented
    like that line (a decorator; an unknown name is a KeyError at import)."""

    def replace(match: re.Match) -> str:
        indent = match.group("indent")
        piece = _PLACEHOLDER.sub(replace, PIECES[match.group("name")])  # pieces may name pieces
        lines = piece.rstrip("\n").splitlines()
        return "\n".join(indent + line if line else "" for line in lines)

    if obj.__doc__:
        obj.__doc__ = _PLACEHOLDER.sub(replace, obj.__doc__)
    return obj


# -- the graph spectral embeddings (metriclab.methods.spectral: TDL, LaplacianEigenmaps) ---------

PIECES["spectral_graph_params"] = """\
n_neighbors : int or None, default=None
    k of the kNN graph (also the neighbours whose distances set the automatic width); None:
    10, at most n − 1, reported as ``n_neighbors_``.
width : float or None, default=None
    Heat width t of the graph weights exp(-d²/t); None: the mean squared kNN distance,
    reported as ``width_``.
graph : {"knn", "full"}, default="knn"
    A sparse kNN graph, or the dense Gaussian graph of all pairs (small n only).
weights : {"heat", "binary"}, default="heat"
    kNN edge weights: exp(-d²/t), or 1.
laplacian : {"unnormalized", "symmetric", "random_walk"}, default="unnormalized"
    The penalty: L = D - W (Eq. 3 as written; the one reading with TDL above LE on ionosphere
    as in Table 1, though sonar reverses under it), L_sym = I - D^-1/2 W D^-1/2 (Section 5.1's "normalized Laplacian"; TDL above
    LE at Figure 1's λ), or the generalized problem with D (Belkin & Niyogi). See the
    module docstring of :mod:`metriclab.methods.spectral`.
eigen_solver : {"auto", "dense", "arpack", "filtered", "shift-invert", "lobpcg", \
"subspace"}, default="auto"
    The smallest-eigenpair solver (:func:`metriclab.eigen.smallest_eigenpairs`); "auto"
    picks dense ``eigh`` for small n, else by the estimated fill-in of the sparse LU (on a
    GPU, "subspace": the Chebyshev-filtered subspace iteration, beyond 1,500 points).
    The path taken is ``eigen_solver_``.
kernel_penalty : float, default=1e-3
    γ, the weight of the RKHS norm ‖f‖²_H in the out-of-sample problem (Eq. 7): 0
    interpolates ``embedding_`` at the training points, larger smooths the map.
kernel_width : float or None, default=None
    Width of the out-of-sample Gaussian kernel; None: ``width_``.
tol : float, default=0.0
    Convergence tolerance of the iterative eigensolvers (0: machine precision); the dense
    solver ignores it.
random_state : int, RandomState instance or None, default=0
    Seed of the iterative eigensolvers' starting vectors (the embedding is the same up to
    the solver's tolerance; signs are fixed after solving).
"""

PIECES["spectral_device_param"] = """\
device : {"auto", "cpu", "gpu"}, default="auto"
    Where the kNN graph and the eigensolve run: "gpu" needs CuPy and an NVIDIA GPU
    (``pip install "metric-learning-lab[gpu]"``); "auto" is the GPU where one is usable,
    else the CPU. The device used is ``device_``.
"""

PIECES["spectral_graph_attributes"] = """\
embedding_ : ndarray of shape (n_samples, n_components)
    The embedding of the points `fit` was given (labelled and unlabelled).
eigenvalues_ : ndarray of shape (n_components,)
    The eigenvalues of the returned eigenvectors, ascending (the trivial one removed).
affinity_ : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
    The graph's weights W.
degrees_ : ndarray of shape (n_samples,)
    The degrees d_i = Σ_j W_ij.
width_ : float
    The heat width used.
n_neighbors_ : int
    The graph's k used.
eigen_solver_ : str
    The solver that ran (the path "auto" took).
eigen_residual_ : float
    Largest relative residual ‖(P S P) v - μ v‖ / ‖S‖₁ of the returned eigenpairs.
timings_ : dict
    Seconds spent per stage (graph, cost, eigensolve).
device_ : str
    The device that fitted: "cpu" or "gpu".
n_features_in_ : int
    Number of features seen during `fit`.
"""


# -- NCA and NeighborhoodComponentsAnalysis (metriclab.methods.mahalanobis.nca) ----------------------

PIECES["nca_params_attributes"] = """\
Parameters
----------
n_components : int or None
    Output dimension (None: the number of features).
init : {"auto", "pca", "lda", "identity", "random"} or ndarray of shape (n_components, d)
    The start. "auto" is scikit-learn's rule: LDA when n_components <= min(d, classes − 1),
    else PCA when n_components < min(d, n), else the identity.
warm_start : bool
    Start from the `components_` of the previous fit (same number of features).
max_iter : int
    L-BFGS iterations.
tol : float
    L-BFGS tolerance (relative change of the loss).
callback : callable or None
    Called after every iteration as `callback(transformation, n_iter)`, with the flattened L.
verbose : int
    0: silent; 1: scikit-learn's progress lines (the start, the objective at every evaluation,
    the training time) on stdout, and a ConvergenceWarning when L-BFGS stops short.
random_state : int, RandomState or None
    For init="random".
record_iterates : bool
    Keep L after every iteration in `iterates_` (for watching the fit learn); off by default,
    and the fit is the same either way.
preprocessor : None
    metric-learn's argument: None only (this NCA takes the points themselves).

%(lbfgs_attributes)s
loss_curve_ : list of float
    The (negated) objective after each iteration.
iterates_ : list of ndarray
    L after each iteration (with record_iterates).
first_iterate_ : int
    1: `iterates_[0]` is the L after the first step.
"""


# -- the tangent-distance classifiers (metriclab.methods.tangent: TangentDistanceKNN, TangentMetricKNN) ---

PIECES["tangent_params"] = """\
Parameters
----------
image_shape : tuple of int or None, default=None
    (height, width) of the images, whose pixels are the rows of X (row-major); None: square
    images.
transforms : str or sequence of str, default="affine6"
    The transformations whose tangent vectors span each image's tangent plane: a preset
    ("affine6": the thesis' x/y translation, scaling, rotation and the two hyperbolic
    deformations; "all7": those and thickening; "translation"; "none") or a list of names.
two_sided : bool, default=True
    Both images move along their tangent planes (two-sided distance), or only the training
    image (one-sided).
n_neighbors : int, default=1
    Neighbours that vote (1: the thesis' 1-NN).
prefilter : int, default=100
    Euclidean nearest training images of a query that are ranked by tangent distance.
sigma : float, default=0.75
    Width of the Gaussian smoothing of the images before their gradients are taken.
regularization : float, default=0.0
    Ridge λ|α|² on the tangent coefficients ("spring" tangent distance); 0: the plain
    distance.
"""


PIECES["lbfgs_attributes"] = """\
Attributes
----------
components_ : ndarray of shape (n_components, d)
    L, with M = LᵀL.
n_iter_ : int
    L-BFGS iterations made.
"""


# -- the learners' fit and transform ---------------------------------------------------------------

PIECES["fit_params"] = """\
Parameters
----------
X : array-like of shape (n_samples, n_features)
    The labelled points.
y : array-like of shape (n_samples,)
    Their classes.
"""

PIECES["returns_self"] = """\
Returns
-------
self : object
    The fitted estimator.
"""

PIECES["transform_params"] = """\
Parameters
----------
X : array-like of shape (n_queries, n_features)
    The points to map.

Returns
-------
ndarray of shape (n_queries, n_components)
"""

PIECES["x_neighbors_param"] = """\
X_neighbors : array-like of shape (n_samples, n_features_neighbors), optional
    The same points in the space where the neighbours are chosen (the KPCA trick with
    an unweighted kernel sum uses the input space); None: X.
"""


# -- the classifiers scored in an embedding (metriclab.evaluation.scoring) ------------------------

PIECES["classified_points"] = """\
y_train : array-like of shape (n_train,)
    Their classes.
Z_test : array-like of shape (n_test, n_components)
    The points to classify.
y_test : array-like of shape (n_test,)
    Their true classes.
"""
