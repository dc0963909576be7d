"""Base kernels, the label kernel and Zhang's (2003) discriminant kernels and dissimilarities."""

from __future__ import annotations

import numpy as np
import pytest

from metriclab.kernels import (
    DELTA_DISSIMILARITIES,
    class_mean_width,
    correlation_kernel,
    cosine_kernel,
    delta_dissimilarity,
    discriminant_kernel,
    gaussian_kernel,
    kernel_squared_distances,
    label_kernel,
    squared_distances,
)


def random_labelled(seed, n=40, d=5, c=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, c, n)
    y[:c] = np.arange(c)
    return rng.standard_normal((n, d)) * rng.uniform(0.1, 10.0), y


def test_gaussian_kernel_is_the_heat_kernel_form():
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    K = gaussian_kernel(X, width=5.0)
    assert K[0, 1] == pytest.approx(np.exp(-25.0 / 5.0))
    assert np.allclose(np.diag(K), 1.0)


def test_label_kernel_is_the_class_indicator():
    y = np.array([0, 1, 0])
    assert label_kernel(y).tolist() == [[1, 0, 1], [0, 1, 0], [1, 0, 1]]
    assert label_kernel(y, np.array([1])).ravel().tolist() == [0, 1, 0]


def test_correlation_kernel_is_a_power_of_the_cosine():
    X, _ = random_labelled(0)
    assert np.allclose(correlation_kernel(X, degree=3), cosine_kernel(X) ** 3)
    assert np.allclose(np.diag(correlation_kernel(X, degree=2)), 1.0)
    with pytest.raises(ValueError, match="degree"):
        correlation_kernel(X, degree=0)


def test_kernel_squared_distances_of_the_linear_kernel_are_squared_distances():
    X, _ = random_labelled(1)
    assert np.allclose(kernel_squared_distances(X @ X.T), squared_distances(X), atol=1e-8)


@pytest.mark.parametrize("seed", range(3))
def test_delta_formulas_match_the_paper(seed):
    """Eqs. (13)-(16) written out, against the kernel route (Eqs. (5)-(6) with alpha = 1/2)."""
    X, y = random_labelled(seed)
    beta = class_mean_width(X, y)
    g = gaussian_kernel(X, width=beta)
    rho2 = cosine_kernel(X) ** 2
    same = y[:, None] == y[None, :]
    expected = {
        "delta1": np.where(same, 2 - 2 * g, 2.0),
        "delta2": np.where(same, 1 - g, 2 - g),
        "delta3": np.where(same, 2 - 2 * rho2, 2.0),
        "delta4": np.where(same, 1 - rho2, 2 - rho2),
    }
    for name, want in expected.items():
        np.fill_diagonal(want, 0.0)
        assert np.allclose(delta_dissimilarity(X, y, name, degree=2), want, atol=1e-12), name


def test_direct_sum_and_tensor_product_definitions():
    X, y = random_labelled(3, n=12)
    K1 = gaussian_kernel(X, width=2.0)
    L = label_kernel(y)
    assert np.allclose(discriminant_kernel(K1, y, combine="tensor"), K1 * L)  # Eq. (3)
    assert np.allclose(
        discriminant_kernel(K1, y, combine="sum", alpha1=0.3, alpha2=0.9), 0.3 * K1 + 0.9 * L
    )  # Eq. (4)
    with pytest.raises(ValueError, match="alpha"):
        discriminant_kernel(K1, y, combine="sum", alpha1=-1.0)
    with pytest.raises(ValueError, match="combine"):
        discriminant_kernel(K1, y, combine="product")


@pytest.mark.parametrize("combine", ["tensor", "sum"])
def test_label_kernel_makes_same_class_pairs_relatively_closer(combine):
    """Relative to the between-class pairs, every same-class pair gets closer with the label kernel."""
    X, y = random_labelled(4)
    K1 = gaussian_kernel(X, width=class_mean_width(X, y))
    base = kernel_squared_distances(K1)
    disc = kernel_squared_distances(discriminant_kernel(K1, y, combine=combine))
    same = (y[:, None] == y[None, :]) & ~np.eye(len(y), dtype=bool)
    between = y[:, None] != y[None, :]
    ratio_base = base[same].mean() / base[between].mean()
    ratio_disc = disc[same].mean() / disc[between].mean()
    assert ratio_disc < ratio_base
    # and pair by pair: same-class dissimilarity never grows, between-class never shrinks
    scale = 1.0 if combine == "tensor" else 0.5  # delta2 = (base)/2 within; paper's alpha = 1/2
    assert np.all(disc[same] <= scale * base[same] + 1e-12)
    assert np.all(disc[between] >= scale * base[between] - 1e-12)
    if combine == "sum":  # delta2 (Eq. 14) against the Gaussian kernel alone, 2 - 2g
        assert np.all(disc[same] < base[same] + 1e-12)
        assert np.all(disc[same][base[same] > 1e-9] < base[same][base[same] > 1e-9])


def test_class_mean_width_is_the_average_distance_to_class_means():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [10.0, 0.0], [10.0, 4.0]])
    y = np.array([0, 0, 1, 1])
    assert class_mean_width(X, y) == pytest.approx((1 + 1 + 2 + 2) / 4)
    assert class_mean_width(np.ones((4, 2)), y) > 0  # degenerate data still gives a valid width


def test_unknown_delta_is_refused():
    X, y = random_labelled(5, n=6)
    with pytest.raises(ValueError, match="dissimilarity"):
        delta_dissimilarity(X, y, "delta5")
    assert set(DELTA_DISSIMILARITIES) == {"delta1", "delta2", "delta3", "delta4"}
