"""Tangent vectors of images (Mody 2009, thesis Eq. 2.6, after Simard et al. 1998): the
first-order images of small translations, scalings, rotations, hyperbolic deformations and line
thickening; the checks of image arrays and transformation names.

Shapes: a batch of images is n × d (d = h·w, row-major); tangent vectors are n × t × d.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy import ndimage

from metriclab.validation import check_nonnegative

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
TRANSFORM_CHOICES = ("affine6", "all7", "translation")  # the presets offered by name (the app)
DEFAULT_SIGMA = 0.75


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
        h, w = image_shape
    except (TypeError, ValueError):
        raise ValueError(f"image_shape must be (height, width), got {image_shape!r}") from None
    if not all(isinstance(s, Integral) and not isinstance(s, bool) for s in (h, w)):
        raise ValueError(
            f"image_shape must be two positive whole numbers (height, width), got {image_shape!r}"
        )  # (8.5, 8) was read as 8 × 8 before
    h, w = int(h), int(w)
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
