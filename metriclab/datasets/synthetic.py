"""Synthetic data sets of the papers: two moons (and the harder moons), two rings, Swiss roll, and the
curves of the KPCA-trick paper (concentric circles, nested parabolas, concentric ellipses)."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import make_moons, make_swiss_roll

from metriclab.datasets.core import Dataset, DatasetEntry, register
from metriclab.params import Param


def _points(default: int) -> Param:
    """The number of points, with the generator's default."""
    return Param("n_samples", "Points", "int", default, low=20, high=5000)


def _noise(default: float, high: float) -> Param:
    """The noise level, with the generator's default and range."""
    return Param("noise", "Noise", "float", default, low=0.0, high=high)


N_PARAM = _points(200)
NOISE_PARAM = _noise(0.08, 0.5)
SEED_PARAM = Param("seed", "Seed", "int", 0, low=0, high=10_000)


def _planar(X, y, name, target_names, description, source) -> Dataset:
    """A synthetic data set in the plane (features x1, x2)."""
    return Dataset(X, y, name, ["x1", "x2"], target_names, description=description, source=source)


def _register(name, loader, label, params) -> None:
    """Lists a synthetic generator among the data sets."""
    register(DatasetEntry(name, "synthetic", loader, label, params))


def two_moons(n_samples=200, noise=0.08, seed=0) -> Dataset:
    X, y = make_moons(n_samples=n_samples, noise=noise, random_state=seed)
    return _planar(
        X,
        y,
        "two_moons",
        ["upper moon", "lower moon"],
        "Two interleaving half circles (scikit-learn make_moons).",
        "synthetic: sklearn.datasets.make_moons",
    )


def harder_moons(n_samples=200, noise=0.08, shift=0.5, seed=0) -> Dataset:
    """Two moons with the lower moon shifted up by `shift`, so that the moons overlap more
    (the 'harder' two-moons problem of Li, Yang & Wang 2007, Section 6.1)."""
    X, y = make_moons(n_samples=n_samples, noise=noise, random_state=seed)
    X = X.copy()
    X[y == 1, 1] += shift
    return _planar(
        X,
        y,
        "harder_moons",
        ["upper moon", "lower moon"],
        f"Two moons with the lower moon shifted up by {shift}.",
        "synthetic: sklearn.datasets.make_moons, lower moon shifted",
    )


def two_rings(n_samples=300, noise=0.05, ratio=0.5, seed=0) -> Dataset:
    """Two concentric rings of radius 1 and `ratio` (Zhang 2003, Section 5)."""
    rng = np.random.default_rng(seed)
    y = np.arange(n_samples) % 2
    angle = rng.uniform(0, 2 * np.pi, n_samples)
    radius = np.where(y == 0, 1.0, ratio) + noise * rng.standard_normal(n_samples)
    X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    return _planar(
        X,
        y,
        "two_rings",
        ["outer ring", "inner ring"],
        f"Two concentric rings (radii 1 and {ratio}) with radial noise {noise}.",
        "synthetic",
    )


def swiss_roll(n_samples=600, noise=0.05, n_classes=4, seed=0) -> Dataset:
    """Swiss roll in 3-D, classes are consecutive segments along the roll."""
    X, t = make_swiss_roll(n_samples=n_samples, noise=noise, random_state=seed)
    edges = np.quantile(t, np.linspace(0, 1, n_classes + 1)[1:-1])
    y = np.digitize(t, edges)
    return Dataset(
        X,
        y,
        "swiss_roll",
        ["x", "y", "z"],
        [f"segment {i + 1}" for i in range(n_classes)],
        description="Swiss roll; classes are segments along the roll's length.",
        source="synthetic: sklearn.datasets.make_swiss_roll",
    )


_register(
    "two_moons", two_moons, "Two interleaving moons (2-D)", (N_PARAM, NOISE_PARAM, SEED_PARAM)
)
_register(
    "harder_moons",
    harder_moons,
    "Two moons, lower moon shifted up (TDL paper)",
    (
        N_PARAM,
        NOISE_PARAM,
        Param("shift", "Upward shift", "float", 0.5, low=0.0, high=1.5),
        SEED_PARAM,
    ),
)
_register(
    "two_rings",
    two_rings,
    "Two concentric rings (Zhang 2003)",
    (
        _points(300),
        _noise(0.05, 0.5),
        Param("ratio", "Inner radius", "float", 0.5, low=0.05, high=0.95),
        SEED_PARAM,
    ),
)
_register(
    "swiss_roll",
    swiss_roll,
    "Swiss roll in 3-D, 4 segments",
    (
        _points(600),
        _noise(0.05, 2.0),
        Param("n_classes", "Segments", "int", 4, low=2, high=10),
        SEED_PARAM,
    ),
)


CURVE_SHAPES = ("circles", "parabolas", "ellipses")


def kpca_curves(shape="circles", n_samples=300, n_classes=3, noise=0.02, seed=0) -> Dataset:
    """Classes on nested 1-D curves, the situation of Chatpatanasiri et al. (2009), Figure 2: each class
    lies on a simple non-linear curve, so no linear map (NCA, LMNN, DNE) separates the classes in 1-D,
    while a 2nd-order polynomial kernel makes each curve a level set of one linear function.

    circles: radii c/p (c = 1..p) around the origin; ellipses: the same, with semi-axes r and r/2,
    rotated by 30 degrees; parabolas: y = 0.4 x^2 + 0.6 (c-1)/p over x in [-1, 1] (the paper's left panel
    spans [-1, 1] x [0, 1]). Noise is Gaussian, across the curve (radial, or vertical for parabolas).
    """
    if shape not in CURVE_SHAPES:
        raise ValueError(f"shape must be one of {CURVE_SHAPES}, got {shape!r}")
    rng = np.random.default_rng(seed)
    y = np.arange(n_samples) % n_classes
    level = (y + 1) / n_classes
    if shape == "parabolas":
        x = rng.uniform(-1.0, 1.0, n_samples)
        height = x**2 * 0.4 + 0.6 * y / n_classes + noise * rng.standard_normal(n_samples)
        X = np.column_stack([x, height])
        names = [f"parabola {c + 1}" for c in range(n_classes)]
    else:
        angle = rng.uniform(0.0, 2.0 * np.pi, n_samples)
        radius = level + noise * rng.standard_normal(n_samples)
        X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
        names = [f"circle {c + 1}" for c in range(n_classes)]
        if shape == "ellipses":
            rotation = np.deg2rad(30.0)
            c, s = np.cos(rotation), np.sin(rotation)
            X = (X * [1.0, 0.5]) @ np.array([[c, s], [-s, c]])
            names = [f"ellipse {c + 1}" for c in range(n_classes)]
    return _planar(
        X,
        y,
        f"curves_{shape}",
        names,
        (
            f"{n_classes} classes on nested {shape} with noise {noise} across the curve "
            "(KPCA-trick paper, Figure 2): linear metric learners fail in 1-D, kernel ones succeed."
        ),
        "synthetic: after Chatpatanasiri et al. (2009), Figure 2",
    )


def _curves_loader(shape):
    def load_curves(n_samples=300, n_classes=3, noise=0.02, seed=0) -> Dataset:
        return kpca_curves(shape, n_samples=n_samples, n_classes=n_classes, noise=noise, seed=seed)

    return load_curves


for _shape in CURVE_SHAPES:
    _register(
        f"curves_{_shape}",
        _curves_loader(_shape),
        f"Nested {_shape}, one class per curve (KPCA-trick paper)",
        (
            _points(300),
            Param("n_classes", "Curves", "int", 3, low=2, high=6),
            _noise(0.02, 0.2),
            SEED_PARAM,
        ),
    )
