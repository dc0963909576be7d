"""Tangent distance and Mahalanobis metrics on tangent residuals (Mody 2009, after Simard et al. 1993/1998).

Each image x spans a tangent plane P_x = x + T_x α (thesis Eq. 2.6): the first-order images of
small translations, scalings, rotations, hyperbolic deformations and line thickening. The tangent
distance is the least-squares distance between the planes of two images (two-sided, Eqs. 2.7–2.13)
or between one image and the plane of the other (one-sided); the residual at the optimum is the
"shortest tangent vector". The thesis learns a Mahalanobis metric on these residuals (LMNN on
residuals of neighbouring training pairs) and classifies by 1-NN with that metric applied to the
shortest tangent vector, after a Euclidean pre-filter of the 100 nearest training images.

Shapes: a batch of images is n × d (d = h·w, row-major); tangent vectors are n × t × d.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_array, check_is_fitted
from threadpoolctl import threadpool_limits

from metriclab.methods.registry import MethodSpec
from metriclab.params import Param
from metriclab.validation import check_choice, check_fraction, check_int, check_nonnegative

# The seven transformations of Simard et al. (1998); the thesis uses the first six.
TRANSFORMS = (
    "x_translation",
    "y_translation",
    "scaling",
    "rotation",
    "axis_deformation",  # hyperbolic: stretch along x, squeeze along y
    "diagonal_deformation",  # hyperbolic: stretch along one diagonal, squeeze along the other
    "thickening",
)
ALL = TRANSFORMS
PRESETS = {
    "all7": TRANSFORMS,
    "affine6": TRANSFORMS[:6],
    "translation": TRANSFORMS[:2],
    "none": (),  # no transformation: the Euclidean distance, residuals x - y
}
DEFAULT_SIGMA = 0.75
METRICS = ("lmnn", "whiten", "identity")  # Mahalanobis metrics of TangentMetricKNN
_BATCH = 8  # queries per block of the batched search: ~11 MB of gathered candidates at USPS size


# ---------------------------------------------------------------------------------------------
# validation helpers


def resolve_transforms(transforms) -> tuple[str, ...]:
    """Transform names from a preset name ('all7', 'affine6', 'translation'), one name or a list."""
    if isinstance(transforms, str):
        if transforms in PRESETS:
            return PRESETS[transforms]
        transforms = (transforms,)
    try:
        names = tuple(transforms)
    except TypeError:
        raise ValueError(
            f"transforms must be a preset {sorted(PRESETS)} or a list of {list(TRANSFORMS)}, "
            f"got {transforms!r}"
        ) from None
    unknown = [t for t in names if t not in TRANSFORMS]
    if unknown:
        raise ValueError(
            f"transforms: unknown transformation(s) {unknown}; choose from {list(TRANSFORMS)} "
            f"or a preset {sorted(PRESETS)}"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"transforms: each transformation may appear once, got {list(names)}")
    return names


def _check_image_shape(image_shape, n_features: int | None = None) -> tuple[int, int]:
    if image_shape is None:
        raise ValueError(
            "image_shape is required: tangent distance needs images (use a data set with "
            "image_shape, e.g. usps or digits)"
        )
    try:
        h, w = (int(s) for s in image_shape)
    except (TypeError, ValueError):
        raise ValueError(f"image_shape must be (height, width), got {image_shape!r}") from None
    if h < 3 or w < 3:
        raise ValueError(f"image_shape must be at least 3×3 pixels, got {image_shape!r}")
    if n_features is not None and h * w != n_features:
        raise ValueError(
            f"image_shape {h}×{w} = {h * w} pixels does not match the {n_features} features of the data"
        )
    return h, w


def _as_image_rows(images, image_shape) -> tuple[np.ndarray, tuple[int, int], bool]:
    """(n, d) float array of images, the checked shape, and whether a single image was given."""
    arr = np.asarray(images, dtype=np.float64)
    single = False
    if arr.ndim == 1:
        single = True
        arr = arr[None, :]
    elif arr.ndim == 3:
        arr = arr.reshape(arr.shape[0], -1)
    elif arr.ndim != 2:
        raise ValueError(
            f"images must be a vector, an n×d array or n×h×w array, got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise ValueError("images contain NaN or infinite values")
    shape = _check_image_shape(image_shape, arr.shape[1])
    return arr, shape, single


# ---------------------------------------------------------------------------------------------
# tangent vectors


def smoothed_gradients(images: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Derivatives along x (columns) and y (rows) of the Gaussian-smoothed images, n×h×w each.

    sigma = 0 gives central differences of the raw images. Borders repeat the edge pixel, so a
    constant background (USPS is -1 off the strokes) makes no spurious edge.
    """
    if sigma > 0:
        gx = ndimage.gaussian_filter(
            images, sigma=(0, sigma, sigma), order=(0, 0, 1), mode="nearest"
        )
        gy = ndimage.gaussian_filter(
            images, sigma=(0, sigma, sigma), order=(0, 1, 0), mode="nearest"
        )
        return gx, gy
    gy, gx = np.gradient(images, axis=(1, 2))
    return gx, gy


def _displacement_field(name: str, xc: np.ndarray, yc: np.ndarray):
    """Velocity (vx, vy) of each pixel under the transformation, in pixels per unit of α."""
    one, zero = np.ones_like(xc), np.zeros_like(xc)
    return {
        "x_translation": (one, zero),
        "y_translation": (zero, one),
        "scaling": (xc, yc),
        "rotation": (-yc, xc),
        "axis_deformation": (xc, -yc),
        "diagonal_deformation": (yc, xc),
    }[name]


def tangent_vectors(
    images, image_shape, transforms=ALL, sigma: float = DEFAULT_SIGMA
) -> np.ndarray:
    """Tangent vectors ∂s(x, α)/∂α at α = 0 of each image (thesis Eq. 2.6), n × t × d.

    A geometric transformation moves pixel p to p + α v(p); to first order the image becomes
    x(p) - α v(p)·∇x(p), so its tangent is -v·∇x, with ∇ the gradient of the Gaussian-smoothed
    image (Simard et al. 1998). Coordinates are in pixels from the image centre, x to the right
    (columns), y downwards (rows): translations are per pixel, scaling/deformations per unit
    relative size, rotation per radian. Thickening uses |∇x| (strokes grow where ink is high).
    A single image (a d-vector) gives a t × d array.
    """
    X, (h, w), single = _as_image_rows(images, image_shape)
    names = resolve_transforms(transforms)
    sigma = check_nonnegative("sigma", sigma)
    imgs = X.reshape(-1, h, w)
    gx, gy = smoothed_gradients(imgs, sigma)
    yc, xc = np.mgrid[0:h, 0:w].astype(np.float64)
    xc -= (w - 1) / 2.0
    yc -= (h - 1) / 2.0
    out = np.empty((X.shape[0], len(names), h * w))
    for j, name in enumerate(names):
        if name == "thickening":
            t = np.sqrt(gx * gx + gy * gy)
        else:
            vx, vy = _displacement_field(name, xc, yc)
            t = -(vx * gx + vy * gy)
        out[:, j, :] = t.reshape(X.shape[0], -1)
    return out[0] if single else out


def transformed_images(
    image, image_shape, transform: str, amounts, sigma: float = DEFAULT_SIGMA
) -> np.ndarray:
    """First-order transformed images x + a·t for each amount a (for display), len(amounts) × h × w.

    Amounts are in the tangent's units: pixels for translations, radians for rotation, relative
    size for scaling and the hyperbolic deformations, gradient-magnitude units for thickening.
    """
    x, (h, w), _ = _as_image_rows(image, image_shape)
    if x.shape[0] != 1:
        raise ValueError("transformed_images takes one image")
    (name,) = resolve_transforms([transform])
    t = tangent_vectors(x[0], (h, w), [name], sigma)[0]
    a = np.atleast_1d(np.asarray(amounts, dtype=np.float64))
    return (x[0][None, :] + a[:, None] * t[None, :]).reshape(-1, h, w)


# ---------------------------------------------------------------------------------------------
# least squares between tangent planes


def orthonormal_tangents(T: np.ndarray, regularization: float = 0.0):
    """Orthonormal basis Q (…,t,d) of each tangent plane and the ridge weight of each direction.

    T = U S Vh (SVD); Q = Vh spans the same plane, and α'T = β'Q with β = S U'α, so the ridge
    λ|α|² becomes Σ λ β_i²/s_i². Directions with s_i below 1e-9·max(s) (e.g. a blank image) are
    dropped: their row of Q is zero. The planes' Gram blocks are then identities, which keeps the
    least squares well conditioned (the raw tangents of a smooth image are nearly collinear).
    """
    if T.shape[-2] == 0:  # no transformation
        return T.copy(), np.zeros(T.shape[:-1])
    _, s, Q = np.linalg.svd(T, full_matrices=False)
    keep = s > 1e-9 * s[..., :1]
    Q = Q * keep[..., None]
    with np.errstate(divide="ignore"):
        ridge = np.where(keep, regularization / np.where(keep, s, 1.0) ** 2, 0.0)
    return Q, ridge


def _solve_coefficients(c_xy, bx, by, ridge_x, ridge_y, two_sided: bool):
    """Plane coordinates (β_x, β_y) minimising |r + Q_x'β_x - Q_y'β_y|² + ridge, batched.

    Inputs in the orthonormal bases: c_xy = Q_x Q_y' (…,t,t), bx = Q_x r, by = Q_y r, r = x - y.
    Normal equations of Eqs. (2.10)–(2.11): [[I+Λ_x, -C], [-C', I+Λ_y]] β = [-b_x, b_y]; a jitter
    of 1e-12 on the unit diagonal keeps identical planes (duplicate images) solvable.
    Returns β_x (…,t) (zeros when one-sided), β_y (…,t) and c'b; the minimum is |r|² + c'b.
    """
    if by.shape[-1] == 0:  # no transformation: the residual is r itself
        shape = np.broadcast_shapes(bx.shape, by.shape)
        return np.zeros(shape), np.zeros(shape), np.zeros(shape[:-1])
    if not two_sided:  # diagonal system: β_y = b_y / (1 + Λ_y)
        beta_y = by / (1.0 + ridge_y)
        return np.zeros_like(beta_y), beta_y, -np.einsum("...i,...i->...", beta_y, by)
    t = by.shape[-1]
    eye = np.eye(t)
    diag_x = (1.0 + 1e-12 + ridge_x)[..., :, None] * eye
    diag_y = (1.0 + 1e-12 + ridge_y)[..., :, None] * eye
    diag_x, diag_y = np.broadcast_arrays(diag_x, diag_y, c_xy)[:2]
    top = np.concatenate([diag_x, -c_xy], axis=-1)
    bottom = np.concatenate([-np.swapaxes(c_xy, -1, -2), diag_y], axis=-1)
    gram = np.concatenate([top, bottom], axis=-2)
    b = np.concatenate(np.broadcast_arrays(bx, -by), axis=-1)
    c = -np.linalg.solve(gram, b[..., None])[..., 0]
    cb = np.einsum("...i,...i->...", c, b)
    return c[..., :t], c[..., t:], cb


def _prepare_pairs(x, y, image_shape, transforms, sigma, two_sided, regularization):
    X, shape, single_x = _as_image_rows(x, image_shape)
    Y, _, single_y = _as_image_rows(y, image_shape)
    if X.shape[0] != Y.shape[0]:
        if X.shape[0] == 1:
            X = np.broadcast_to(X, Y.shape)
        elif Y.shape[0] == 1:
            Y = np.broadcast_to(Y, X.shape)
        else:
            raise ValueError(
                f"x and y must hold the same number of images (pairs), got {X.shape[0]} and {Y.shape[0]}"
            )
    TY = tangent_vectors(Y, shape, transforms, sigma)
    TX = tangent_vectors(X, shape, transforms, sigma) if two_sided else np.zeros_like(TY)
    return X, Y, TX, TY, single_x and single_y


def _pair_solution(X, Y, TX, TY, two_sided, regularization):
    """Residual vectors (shortest tangent vectors) and squared distances of paired rows."""
    QX, rx = orthonormal_tangents(TX, regularization)
    QY, ry = orthonormal_tangents(TY, regularization)
    r = X - Y
    c_xy = np.einsum("nid,njd->nij", QX, QY)
    bx = np.einsum("nid,nd->ni", QX, r)
    by = np.einsum("nid,nd->ni", QY, r)
    beta_x, beta_y, _ = _solve_coefficients(c_xy, bx, by, rx, ry, two_sided)
    e = r + np.einsum("ni,nid->nd", beta_x, QX) - np.einsum("ni,nid->nd", beta_y, QY)
    # |e|² plus the ridge penalty equals |r|² + c'b, without its cancellation for near pairs
    d2 = np.einsum("nd,nd->n", e, e) + np.einsum("ni,ni,ni->n", rx, beta_x, beta_x)
    d2 += np.einsum("ni,ni,ni->n", ry, beta_y, beta_y)
    return e, d2


def tangent_distance(
    x,
    y,
    image_shape,
    two_sided: bool = True,
    transforms=ALL,
    sigma: float = DEFAULT_SIGMA,
    regularization: float = 0.0,
):
    """Tangent distance between images x and y (thesis Eqs. 2.7–2.13).

    Two-sided: min over α_x, α_y of ||x + T_x α_x - y - T_y α_y||; one-sided: only the tangent
    plane of y (the reference image) moves, min over α_y of ||x - y - T_y α_y||. With
    `regularization` λ > 0 the coefficients are tied by a ridge ("spring") λ|α|², and the distance
    is the square root of the minimum of the penalised objective.

    x and y are single images (d-vectors; returns a float) or n × d arrays of n pairs (returns n
    distances; one side may be a single image, broadcast against the other). The batch is solved
    at once with NumPy (one small linear system per pair), without a Python loop per pair.
    """
    regularization = check_nonnegative("regularization", regularization)
    X, Y, TX, TY, single = _prepare_pairs(
        x, y, image_shape, transforms, sigma, two_sided, regularization
    )
    _, d2 = _pair_solution(X, Y, TX, TY, bool(two_sided), regularization)
    d = np.sqrt(d2)
    return float(d[0]) if single else d


def tangent_residuals(
    x,
    y,
    image_shape,
    two_sided: bool = True,
    transforms=ALL,
    sigma: float = DEFAULT_SIGMA,
    regularization: float = 0.0,
) -> np.ndarray:
    """The shortest tangent vector P_x(α_x) - P_y(α_y) of each pair (thesis section 4.1), n × d."""
    regularization = check_nonnegative("regularization", regularization)
    X, Y, TX, TY, single = _prepare_pairs(
        x, y, image_shape, transforms, sigma, two_sided, regularization
    )
    e, _ = _pair_solution(X, Y, TX, TY, bool(two_sided), regularization)
    return e[0] if single else e


def tangent_distance_lstsq(
    x,
    y,
    image_shape,
    two_sided: bool = True,
    transforms=ALL,
    sigma: float = DEFAULT_SIGMA,
    regularization: float = 0.0,
) -> float:
    """Reference for one pair: `numpy.linalg.lstsq` on the raw stacked tangents (thesis Eq. 2.7).

    With a ridge, returns the square root of the penalised minimum, like `tangent_distance`.
    """
    regularization = check_nonnegative("regularization", regularization)
    X, Y, TX, TY, _ = _prepare_pairs(
        x, y, image_shape, transforms, sigma, two_sided, regularization
    )
    if X.shape[0] != 1:
        raise ValueError("tangent_distance_lstsq compares one pair")
    r = X[0] - Y[0]
    A = np.concatenate([TX[0], -TY[0]]).T if two_sided else -TY[0].T  # residual r + A c
    if regularization > 0:
        A = np.vstack([A, np.sqrt(regularization) * np.eye(A.shape[1])])
        r = np.concatenate([r, np.zeros(A.shape[1])])
    c = np.linalg.lstsq(A, -r, rcond=None)[0]
    return float(np.linalg.norm(r + A @ c))


# ---------------------------------------------------------------------------------------------
# k-NN search with a Euclidean pre-filter


class _TangentIndex:
    """Training images with orthonormal tangent bases, searched by batched least squares."""

    def __init__(self, X, image_shape, transforms, sigma, two_sided, regularization, prefilter):
        self.X = X
        self.image_shape = image_shape
        self.transforms = transforms
        self.sigma = sigma
        self.two_sided = two_sided
        self.regularization = regularization
        T = tangent_vectors(X, image_shape, transforms, sigma)
        self.Q, self.ridge = orthonormal_tangents(T, regularization)  # n × t × d, n × t
        # augmented rows [y; Q_y]: one batched product gives y·x, Q_y x, y·Q_x and Q_y Q_x'
        self.aug = np.concatenate([X[:, None, :], self.Q], axis=1)  # n × (t+1) × d
        self.qy_y = np.einsum("nid,nd->ni", self.Q, X)
        self.sq = np.einsum("nd,nd->n", X, X)
        self.prefilter = int(min(prefilter, X.shape[0]))
        self.nn = NearestNeighbors(n_neighbors=self.prefilter, algorithm="brute").fit(X)
        self.L = None  # learned Mahalanobis map (k × d), set by TangentMetricKNN
        self.LX = self.LQ = None

    def set_metric(self, L):
        self.L = L
        self.LX = self.X @ L.T  # n × k
        self.LQ = self.Q @ L.T  # n × t × k

    def query_basis(self, Q):
        T = tangent_vectors(Q, self.image_shape, self.transforms, self.sigma)
        return orthonormal_tangents(T, self.regularization)

    def candidates(self, Q, exclude_self: bool = False, prefilter: int | None = None):
        prefilter = self.prefilter if prefilter is None else prefilter
        n_cand = min(prefilter + int(exclude_self), self.X.shape[0])
        _, idx = self.nn.kneighbors(Q, n_neighbors=n_cand)
        if exclude_self:  # drop the query's own index (training points searched against themselves)
            own = np.arange(Q.shape[0])[:, None]
            keep = idx != own
            # rows where the point itself was not found keep the first n_cand-1 candidates
            keep[keep.all(axis=1), -1] = False
            idx = idx[keep].reshape(Q.shape[0], -1)
        return idx

    def solve_block(self, Xq, Qq, ridge_q, idx):
        """Plane coordinates and squared distances of queries Xq (b×d) to candidates idx (b×K)."""
        qa = np.concatenate([Xq[:, None, :], Qq], axis=1)  # b × (t+1) × d
        cand = self.aug[idx]  # b × K × (t+1) × d
        prod = cand @ np.swapaxes(qa, -1, -2)[:, None]  # b × K × (t+1) × (t+1): [y;Q_y][x;Q_x]'
        xy = prod[..., 0, 0]
        qy_x = prod[..., 1:, 0]  # Q_y x
        qx_y = prod[..., 0, 1:]  # Q_x y
        c_xy = np.swapaxes(prod[..., 1:, 1:], -1, -2)  # Q_x Q_y'
        r2 = np.einsum("bd,bd->b", Xq, Xq)[:, None] + self.sq[idx] - 2 * xy  # |x - y|²
        bx = np.einsum("bid,bd->bi", Qq, Xq)[:, None, :] - qx_y  # Q_x (x - y)
        by = qy_x - self.qy_y[idx]  # Q_y (x - y)
        beta_x, beta_y, cb = _solve_coefficients(
            c_xy, bx, by, ridge_q[:, None, :], self.ridge[idx], self.two_sided
        )
        return beta_x, beta_y, np.maximum(r2 + cb, 0.0)

    def metric_distances(self, Xq, Qq, idx, beta_x, beta_y):
        """Squared Mahalanobis norms |L(x + Q_x'β_x - y - Q_y'β_y)|² from projected pieces."""
        e = (Xq @ self.L.T)[:, None, :] - self.LX[idx]
        if self.two_sided:
            e += np.einsum("bki,bic->bkc", beta_x, Qq @ self.L.T)
        e -= np.einsum("bki,bkic->bkc", beta_y, self.LQ[idx])
        return np.einsum("bkc,bkc->bk", e, e)

    def residual_block(self, Xq, Qq, idx, beta_x, beta_y):
        """Shortest tangent vectors (b × K × d) of queries to their candidates."""
        e = Xq[:, None, :] - self.X[idx]
        if self.two_sided:
            e += np.einsum("bki,bid->bkd", beta_x, Qq)
        e -= np.einsum("bki,bkid->bkd", beta_y, self.Q[idx])
        return e

    def search(self, Xq, n_neighbors, exclude_self=False, progress=None):
        """Distances and indices (ascending) of the n_neighbors nearest training images of each query."""
        idx_all = self.candidates(Xq, exclude_self)
        k = min(n_neighbors, idx_all.shape[1])
        out_idx = np.empty((Xq.shape[0], k), dtype=np.intp)
        out_dist = np.empty((Xq.shape[0], k))
        for start in range(0, Xq.shape[0], _BATCH):
            stop = min(start + _BATCH, Xq.shape[0])
            xq = Xq[start:stop]
            qq, ridge_q = self.query_basis(xq)
            idx = idx_all[start:stop]
            beta_x, beta_y, d2 = self.solve_block(xq, qq, ridge_q, idx)
            if self.L is not None:
                d2 = self.metric_distances(xq, qq, idx, beta_x, beta_y)
            order = np.argsort(d2, axis=1, kind="stable")[:, :k]
            out_idx[start:stop] = np.take_along_axis(idx, order, axis=1)
            out_dist[start:stop] = np.sqrt(np.take_along_axis(d2, order, axis=1))
            if progress is not None:
                progress(stop, Xq.shape[0], "tangent distances")
        return out_dist, out_idx


def _vote(labels: np.ndarray, n_classes: int) -> np.ndarray:
    """Majority class of each row of neighbour labels (nearest first); ties go to the nearer class."""
    n, k = labels.shape
    votes = np.zeros((n, n_classes))
    rank_bonus = (k - np.arange(k)) / (k * (k + 1.0))  # < 1 in total: breaks ties only
    np.add.at(votes, (np.repeat(np.arange(n), k), labels.ravel()), np.tile(1.0 + rank_bonus, n))
    return votes.argmax(axis=1)


class TangentDistanceKNN(ClassifierMixin, BaseEstimator):
    """k-NN classifier with tangent distance, after a Euclidean pre-filter (thesis section 4.1).

    For each query the `prefilter` Euclidean nearest training images (sklearn NearestNeighbors)
    are ranked by one- or two-sided tangent distance; the `n_neighbors` nearest vote. Training
    tangents and their Gram matrices are computed once at fit.
    """

    def __init__(
        self,
        image_shape=None,
        transforms="affine6",
        two_sided=True,
        n_neighbors=1,
        prefilter=100,
        sigma=DEFAULT_SIGMA,
        regularization=0.0,
    ):
        self.image_shape = image_shape
        self.transforms = transforms
        self.two_sided = two_sided
        self.n_neighbors = n_neighbors
        self.prefilter = prefilter
        self.sigma = sigma
        self.regularization = regularization

    def _validate(self, X, y):
        X = check_array(X, dtype=np.float64)
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(
                f"y must hold one label per image: {X.shape[0]} images, y of shape {y.shape}"
            )
        shape = _check_image_shape(self.image_shape, X.shape[1])
        check_int("n_neighbors", self.n_neighbors, 1)
        check_int("prefilter", self.prefilter, 1)
        if self.prefilter < self.n_neighbors:
            raise ValueError(
                f"prefilter ({self.prefilter}) must be >= n_neighbors ({self.n_neighbors})"
            )
        if np.unique(y).size < 2:
            raise ValueError("need training images of at least two classes")
        return X, y, shape

    def _build_index(self, X, shape):
        return _TangentIndex(
            X,
            shape,
            resolve_transforms(self.transforms),
            check_nonnegative("sigma", self.sigma),
            bool(self.two_sided),
            check_nonnegative("regularization", self.regularization),
            self.prefilter,
        )

    def fit(self, X, y):
        X, y, shape = self._validate(X, y)
        self.classes_, self.y_ = np.unique(y, return_inverse=True)
        self.image_shape_ = shape
        self.index_ = self._build_index(X, shape)
        self.n_features_in_ = X.shape[1]
        return self

    def _check_query(self, X):
        check_is_fitted(self, "index_")
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"expected images of {self.n_features_in_} pixels, got {X.shape[1]}")
        return X

    def kneighbors(self, X, n_neighbors=None, progress=None):
        """(distances, indices) of the nearest training images under the (learned) tangent metric."""
        X = self._check_query(X)
        k = self.n_neighbors if n_neighbors is None else int(n_neighbors)
        return self.index_.search(X, k, progress=progress)

    def predict(self, X, progress=None):
        _, idx = self.kneighbors(X, progress=progress)
        return self.classes_[_vote(self.y_[idx], len(self.classes_))]


# ---------------------------------------------------------------------------------------------
# Mahalanobis metrics learned on tangent residuals


def _residual_neighbourhoods(index: _TangentIndex, y, k: int, n_impostors: int, prefilter: int):
    """Shortest tangent vectors of each training image to its k same-class target neighbours and
    its n_impostors nearest other-class images, both by tangent distance among the pre-filter set.

    Returns V_t (n×k×d), mask_t (n×k), V_i (n×m×d), mask_i (n×m); missing slots are masked out.
    """
    X = index.X
    n, d = X.shape
    idx_all = index.candidates(X, exclude_self=True, prefilter=prefilter)
    V_t = np.zeros((n, k, d), dtype=np.float32)  # float32 halves memory and the LMNN products
    V_i = np.zeros((n, n_impostors, d), dtype=np.float32)
    mask_t = np.zeros((n, k), dtype=bool)
    mask_i = np.zeros((n, n_impostors), dtype=bool)
    for start in range(0, n, _BATCH):
        stop = min(start + _BATCH, n)
        q = X[start:stop]
        qq, ridge_q = index.Q[start:stop], index.ridge[start:stop]
        idx = idx_all[start:stop]
        beta_x, beta_y, d2 = index.solve_block(q, qq, ridge_q, idx)
        e = index.residual_block(q, qq, idx, beta_x, beta_y)
        same = y[idx] == y[start:stop, None]
        for kind, want, V, mask in ((same, k, V_t, mask_t), (~same, n_impostors, V_i, mask_i)):
            key = np.where(kind, d2, np.inf)
            order = np.argsort(key, axis=1, kind="stable")[:, :want]
            ok = np.isfinite(np.take_along_axis(key, order, axis=1))
            rows = np.arange(stop - start)[:, None]
            V[start:stop, : order.shape[1]] = e[rows, order] * ok[..., None]
            mask[start:stop, : order.shape[1]] = ok
    return V_t, mask_t, V_i, mask_i


def whitening_metric(V_t, mask_t, shrinkage: float = 0.1) -> np.ndarray:
    """L with L'L = (S + s·tr(S)/d·I)^-1, S the second moment of same-class tangent residuals.

    The Mahalanobis matrix M = Σ⁻¹ of thesis section 2.2.2, estimated on residuals, shrunk
    towards the identity for stability.
    """
    V = V_t[mask_t]
    S = V.T @ V / max(len(V), 1)
    d = S.shape[0]
    S = (1 - shrinkage) * S + shrinkage * np.trace(S) / d * np.eye(d)
    evals, evecs = np.linalg.eigh(S)
    return (evecs / np.sqrt(np.maximum(evals, 1e-12))).T


def _lmnn_residual_loss(flat_L, shape, V_t, w_t, V_i, w_i, mu, C_t):
    """LMNN objective (thesis Eq. 2.19) on shortest tangent vectors, and its gradient in L.

    (1-μ) Σ_ij |L v_ij|² + μ Σ_ijl [1 + |L v_ij|² - |L v_il|²]_+ over targets j and impostor
    candidates l of each i. Gradient 2 L Σ c_v v v' with c_v the weight of each residual; the pull
    part 2(1-μ) L C_t uses the precomputed C_t = Σ_targets v v', the hinge part only active rows.
    """
    L = flat_L.reshape(shape)
    Lf = L.astype(V_t.dtype)
    Pt = V_t @ Lf.T  # n·k × c
    Pi = V_i @ Lf.T  # n·m × c
    dt = np.einsum("ac,ac->a", Pt, Pt, dtype=np.float64).reshape(w_t.shape)
    di = np.einsum("ac,ac->a", Pi, Pi, dtype=np.float64).reshape(w_i.shape)
    hinge = 1.0 + dt[:, :, None] - di[:, None, :]
    active = (hinge > 0) & w_t[:, :, None] & w_i[:, None, :]
    loss = (1 - mu) * dt[w_t].sum() + mu * hinge[active].sum()
    grad = 2 * (1 - mu) * (L @ C_t)
    count_t = active.sum(axis=2).ravel()
    count_i = active.sum(axis=1).ravel()
    rows_t, rows_i = np.flatnonzero(count_t), np.flatnonzero(count_i)
    if rows_t.size:
        push = (Pt[rows_t] * count_t[rows_t, None].astype(Pt.dtype)).T @ V_t[rows_t]
        push -= (Pi[rows_i] * count_i[rows_i, None].astype(Pi.dtype)).T @ V_i[rows_i]
        grad += 2 * mu * push.astype(np.float64)
    return float(loss), grad.ravel()


def lmnn_residual_metric(V_t, mask_t, V_i, mask_i, n_components=None, mu=0.5, max_iter=100):
    """L minimising the LMNN loss on tangent residuals by L-BFGS, started at a scaled identity.

    Target and impostor residuals are fixed (computed once with the Euclidean tangent distance),
    as in the thesis, where LMNN is trained on the shortest tangent vectors instead of x_i - x_j.
    Residuals may be float32 (the products run in their precision; sums in float64).
    """
    n, k, d = V_t.shape
    c = d if n_components is None else int(min(n_components, d))
    Vt = V_t.reshape(-1, d)
    sq = np.einsum("ad,ad->a", Vt, Vt, dtype=np.float64)[mask_t.ravel()]
    scale = np.sqrt(sq.mean()) if sq.size and sq.mean() > 0 else 1.0
    L0 = np.eye(c, d) / scale  # identity start (thesis 4.2), unit mean target distance
    Vm = Vt[mask_t.ravel()].astype(np.float64)
    C_t = Vm.T @ Vm
    args = ((c, d), Vt, mask_t, V_i.reshape(-1, d), mask_i, float(mu), C_t)
    # One BLAS thread: these tall-skinny products gain little from threads, and on a shared
    # machine threaded OpenBLAS was 20x slower here (24 s vs 1.2 s, digits, load ~9 on 2 cores).
    with threadpool_limits(limits=1, user_api="blas"):
        result = minimize(
            _lmnn_residual_loss,
            L0.ravel(),
            args=args,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": int(max_iter)},
        )
    return result.x.reshape(c, d), result


class TangentMetricKNN(TangentDistanceKNN):
    """1-NN (k-NN) with a Mahalanobis metric applied to the shortest tangent vector (thesis 4.1).

    metric: "lmnn" learns L by LMNN on tangent residuals of neighbouring training pairs (k target
    neighbours of the same class, `impostors` nearest other-class images, both by tangent distance
    in the pre-filter set); "whiten" uses the inverse second moment of same-class residuals;
    "identity" is plain tangent distance. At prediction the shortest tangent vector is found in
    the Euclidean metric (Eqs. 2.12–2.13) and measured with |L e|.
    """

    def __init__(
        self,
        image_shape=None,
        transforms="affine6",
        two_sided=True,
        n_neighbors=1,
        prefilter=100,
        sigma=DEFAULT_SIGMA,
        regularization=0.0,
        metric="lmnn",
        n_components=None,
        k=3,
        impostors=10,
        mu=0.5,
        max_iter=100,
        train_prefilter=30,
        shrinkage=0.1,
    ):
        super().__init__(
            image_shape=image_shape,
            transforms=transforms,
            two_sided=two_sided,
            n_neighbors=n_neighbors,
            prefilter=prefilter,
            sigma=sigma,
            regularization=regularization,
        )
        self.metric = metric
        self.n_components = n_components
        self.k = k
        self.impostors = impostors
        self.mu = mu
        self.max_iter = max_iter
        self.train_prefilter = train_prefilter
        self.shrinkage = shrinkage

    def fit(self, X, y):
        X, y, shape = self._validate(X, y)
        check_choice("metric", self.metric, METRICS)
        for name in ("k", "impostors", "train_prefilter", "max_iter"):
            check_int(name, getattr(self, name), 1)
        check_fraction("mu", self.mu)
        check_fraction("shrinkage", self.shrinkage)
        check_int("n_components", self.n_components, 1, allow_none=True)
        if X.shape[0] < 2:
            raise ValueError("need at least two training images to learn a metric")
        self.classes_, self.y_ = np.unique(y, return_inverse=True)
        self.image_shape_ = shape
        self.n_features_in_ = X.shape[1]
        index = self._build_index(X, shape)
        if self.metric == "identity":
            L = np.eye(X.shape[1])
        else:
            V_t, mask_t, V_i, mask_i = _residual_neighbourhoods(
                index, self.y_, int(self.k), int(self.impostors), int(self.train_prefilter)
            )
            if self.metric == "whiten":
                L = whitening_metric(V_t, mask_t, float(self.shrinkage))
                if self.n_components is not None:
                    L = L[-int(self.n_components) :]
            else:
                L, self.optimizer_result_ = lmnn_residual_metric(
                    V_t, mask_t, V_i, mask_i, self.n_components, float(self.mu), int(self.max_iter)
                )
        index.set_metric(L)
        self.components_ = L
        self.index_ = index
        return self


# ---------------------------------------------------------------------------------------------
# helpers for the app's Tangent page


def nearest_neighbours(
    query,
    X_train,
    image_shape,
    n_neighbors: int = 5,
    transforms="affine6",
    two_sided: bool = True,
    sigma: float = DEFAULT_SIGMA,
    prefilter: int = 100,
) -> dict:
    """Nearest training images of one query under the Euclidean and the tangent distance.

    Returns {"euclidean": (indices, distances), "tangent": (indices, distances)}, nearest first.
    """
    X_train = check_array(X_train, dtype=np.float64)
    q, shape, _ = _as_image_rows(query, image_shape)
    if q.shape[0] != 1:
        raise ValueError("nearest_neighbours takes one query image")
    if q.shape[1] != X_train.shape[1]:
        raise ValueError(f"query has {q.shape[1]} pixels, training images {X_train.shape[1]}")
    k = int(min(n_neighbors, X_train.shape[0]))
    d2 = np.sum((X_train - q) ** 2, axis=1)
    e_idx = np.argsort(d2, kind="stable")[:k]
    index = _TangentIndex(
        X_train,
        shape,
        resolve_transforms(transforms),
        check_nonnegative("sigma", sigma),
        bool(two_sided),
        0.0,
        max(prefilter, k),
    )
    t_dist, t_idx = index.search(q, k)
    return {
        "euclidean": (e_idx, np.sqrt(d2[e_idx])),
        "tangent": (t_idx[0], t_dist[0]),
    }


# ---------------------------------------------------------------------------------------------
# registry

_TRANSFORM_CHOICES = ("affine6", "all7", "translation")


def _common_params():
    return [
        Param(
            "transforms",
            "Transformations",
            "choice",
            "affine6",
            choices=_TRANSFORM_CHOICES,
            help="affine6: x/y translation, scaling, rotation, two hyperbolic deformations (the "
            "thesis); all7 adds line thickening; translation: x and y shifts only.",
        ),
        Param(
            "two_sided",
            "Two-sided",
            "bool",
            True,
            help="Move both images along their tangent planes (two-sided) or only the training image.",
        ),
        Param(
            "sigma",
            "Smoothing σ (pixels)",
            "float",
            DEFAULT_SIGMA,
            low=0.0,
            high=3.0,
            help="Width of the Gaussian smoothing before the image gradients are taken.",
        ),
        Param(
            "prefilter",
            "Euclidean pre-filter",
            "int",
            100,
            low=1,
            high=1000,
            help="Rank only this many Euclidean nearest training images by tangent distance.",
        ),
        Param(
            "n_neighbors",
            "Neighbours k",
            "int",
            1,
            low=1,
            high=25,
            help="Number of nearest training images that vote.",
        ),
    ]


def _make_tangent_knn(image_shape=None, **params):
    return TangentDistanceKNN(image_shape=image_shape, **params)


def _make_tangent_lmnn(image_shape=None, **params):
    return TangentMetricKNN(image_shape=image_shape, metric="lmnn", **params)


def _make_tangent_whiten(image_shape=None, **params):
    return TangentMetricKNN(image_shape=image_shape, metric="whiten", **params)


SPECS = [
    MethodSpec(
        key="tangent_knn",
        label="Tangent distance k-NN",
        paper="mody-2009-tangent-distance-mahalanobis-thesis",
        params=_common_params(),
        factory=_make_tangent_knn,
        family="tangent",
        transductive=False,
        input="image",
        output="classifier",
        baseline="euclidean",
        description="k-NN with the tangent distance (Simard et al.): images may shift, scale, "
        "rotate and shear slightly at no cost; Euclidean pre-filter, then batched least squares.",
    ),
    MethodSpec(
        key="tangent_lmnn",
        label="LMNN on tangent residuals (k-NN)",
        paper="mody-2009-tangent-distance-mahalanobis-thesis",
        params=[
            *_common_params(),
            Param(
                "k",
                "Target neighbours",
                "int",
                3,
                low=1,
                high=10,
                help="Same-class neighbours (by tangent distance) pulled in by LMNN.",
            ),
            Param(
                "mu",
                "Push weight μ",
                "float",
                0.5,
                low=0.0,
                high=1.0,
                help="Weight of the impostor (push) term against the target (pull) term.",
            ),
            Param(
                "max_iter",
                "L-BFGS iterations",
                "int",
                100,
                low=1,
                high=1000,
                help="Iterations of the metric optimisation.",
            ),
        ],
        factory=_make_tangent_lmnn,
        family="tangent",
        transductive=False,
        input="image",
        output="classifier",
        baseline="tangent_knn",
        description="The thesis' method: LMNN trained on shortest tangent vectors between "
        "neighbouring training images; classify by the learned metric on the shortest tangent vector.",
    ),
    MethodSpec(
        key="tangent_whiten",
        label="Whitened tangent residuals (k-NN)",
        paper="mody-2009-tangent-distance-mahalanobis-thesis",
        params=[
            *_common_params(),
            Param(
                "shrinkage",
                "Shrinkage",
                "float",
                0.1,
                low=0.0,
                high=1.0,
                help="Blend of the residual covariance with a multiple of the identity.",
            ),
        ],
        factory=_make_tangent_whiten,
        family="tangent",
        transductive=False,
        input="image",
        output="classifier",
        baseline="tangent_knn",
        description="Mahalanobis metric M = Σ⁻¹ of same-class shortest tangent vectors (shrunk "
        "towards the identity), applied to the shortest tangent vector.",
    ),
]
