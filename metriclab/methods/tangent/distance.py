"""Tangent distance (thesis Eqs. 2.7–2.13): the least-squares distance between the tangent planes
of two images (two-sided) or between one image and the plane of the other (one-sided); the
residual at the optimum is the "shortest tangent vector". Batched over pairs, no loop per pair.
"""

from __future__ import annotations

import numpy as np

from metriclab.methods.tangent.vectors import ALL, DEFAULT_SIGMA, _as_image_rows, tangent_vectors
from metriclab.validation import check_nonnegative


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


def _solved_pairs(x, y, image_shape, transforms, sigma, two_sided, regularization):
    """(residual vectors, squared distances, whether x and y were single images) of the pairs:
    `tangent_distance` and `tangent_residuals` solve the same problem."""
    regularization = check_nonnegative("regularization", regularization)
    X, Y, TX, TY, single = _prepare_pairs(
        x, y, image_shape, transforms, sigma, two_sided, regularization
    )
    e, d2 = _pair_solution(X, Y, TX, TY, bool(two_sided), regularization)
    return e, d2, single


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

    The batch is solved at once with NumPy (one small linear system per pair), without a Python
    loop per pair.

    Parameters
    ----------
    x : array-like of shape (n_pixels,) or (n_pairs, n_pixels)
        One image or the first images of n pairs.
    y : array-like of shape (n_pixels,) or (n_pairs, n_pixels)
        One image or the second images (the references); one side may be a single image,
        broadcast against the other.
    image_shape : tuple of int or None
        (height, width) of the images (row-major pixels); None: square.
    two_sided : bool, default=True
        Both tangent planes move, or only y's.
    transforms : str or sequence of str, default=all seven
        The tangent transformations: a preset ("all7", "affine6", "translation", "none") or a
        list of names ("x_translation", "y_translation", "scaling", "rotation",
        "axis_deformation", "diagonal_deformation", "thickening").
    sigma : float, default=0.75
        Width of the Gaussian smoothing before the image gradients are taken.
    regularization : float, default=0.0
        λ of the ridge on the tangent coefficients.

    Returns
    -------
    float or ndarray of shape (n_pairs,)
        The distance of the two images, or of each pair.

    See Also
    --------
    TangentDistanceKNN : Nearest-neighbour classification with this distance.
    tangent_neighbours : Each image's nearest images under it.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab import tangent_distance
    >>> from metriclab.datasets import load
    >>> ds = load("usps")
    >>> x = ds.X[0]
    >>> shifted = np.roll(x.reshape(ds.image_shape), 1, axis=1).ravel()
    >>> euclidean = np.linalg.norm(x - shifted)
    >>> bool(tangent_distance(x, shifted, ds.image_shape) < euclidean)
    True
    >>> tangent_distance(ds.X[:4], ds.X[4:8], ds.image_shape).shape
    (4,)
    """
    _, d2, single = _solved_pairs(x, y, image_shape, transforms, sigma, two_sided, regularization)
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
    e, _, single = _solved_pairs(x, y, image_shape, transforms, sigma, two_sided, regularization)
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
