"""Kernel-target alignment and the aligned / unweighted RBF combinations (KPCA-trick paper, Sect. 4)."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import load_iris

from metriclab import kernels
from metriclab.kernels import (
    PAPER_SIGMAS,
    alignment_weights,
    center_kernel,
    gaussian_kernel,
    ideal_kernel,
    kernel_alignment,
    rbf_alignment_weights,
    rbf_kernel_sum,
    scaled_rbf_widths,
)


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    keep = np.arange(0, 150, 2)  # 75 points keep the 21 explicit kernels small
    X = (X - X.mean(0)) / X.std(0)
    return X[keep], y[keep]


def test_ideal_kernel_is_one_within_and_minus_one_over_p_minus_one_across():
    Y = ideal_kernel(np.array([0, 0, 1, 2]))
    np.testing.assert_allclose(np.diag(Y), 1.0)
    assert Y[0, 1] == 1.0
    assert Y[0, 2] == Y[2, 3] == -0.5
    np.testing.assert_allclose(Y, Y.T)
    # balanced classes: every row of the ideal kernel sums to zero (it is already centred)
    Y = ideal_kernel(np.repeat([0, 1, 2], 4))
    np.testing.assert_allclose(Y.sum(axis=1), 0.0, atol=1e-12)
    with pytest.raises(ValueError, match="at least 2 classes"):
        ideal_kernel(np.zeros(5))


def test_paper_family_has_21_widths_2_d_sigma_squared():
    assert len(PAPER_SIGMAS) == 21 and PAPER_SIGMAS[0] == 0.01 and PAPER_SIGMAS[-1] == 1000
    widths = scaled_rbf_widths(4)
    np.testing.assert_allclose(widths, 2 * 4 * np.asarray(PAPER_SIGMAS) ** 2)
    X = np.random.default_rng(0).standard_normal((6, 4))
    D2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.testing.assert_allclose(gaussian_kernel(X, width=widths[8]), np.exp(-D2 / (2 * 4 * 1.0)))


def test_alignment_is_a_cosine(iris):
    X, y = iris
    K = gaussian_kernel(X, width=4.0)
    Y = ideal_kernel(y)
    assert kernel_alignment(K, K) == pytest.approx(1.0)
    assert kernel_alignment(K, 7.5 * K) == pytest.approx(1.0)  # scale-invariant
    a = kernel_alignment(K, Y)
    assert a == pytest.approx(kernel_alignment(Y, K))
    assert 0 < a < 1
    # Eq. (10) by hand
    assert a == pytest.approx((K * Y).sum() / (np.linalg.norm(K) * np.linalg.norm(Y)))
    with pytest.raises(ValueError, match="same 2-D shape"):
        kernel_alignment(K, Y[:-1, :-1])
    with pytest.raises(ValueError, match="zero kernel"):
        kernel_alignment(np.zeros_like(K), Y)


def test_alignment_weights_are_non_negative_and_beat_every_single_kernel(iris):
    X, y = iris
    widths = scaled_rbf_widths(X.shape[1])
    Ks = np.stack([gaussian_kernel(X, width=t) for t in widths])
    w = alignment_weights(Ks, y)
    assert w.shape == (21,) and np.all(w >= 0) and w.sum() == pytest.approx(1.0)
    assert np.count_nonzero(w) < 21  # the paper: alignment leaves some kernels out
    Y = ideal_kernel(y)
    combined = kernel_alignment(np.tensordot(w, Ks, axes=1), Y)
    best_single = max(kernel_alignment(K, Y) for K in Ks)
    assert combined >= best_single - 1e-12
    # the combination is a maximiser: random non-negative weights never do better
    rng = np.random.default_rng(0)
    for _ in range(50):
        other = rng.exponential(size=21) * (rng.random(21) < 0.3)
        if other.sum() > 0:
            assert kernel_alignment(np.tensordot(other, Ks, axes=1), Y) <= combined + 1e-9


def test_nnls_solution_equals_the_papers_quadratic_program(iris):
    """Eq. (13): min g'S'g s.t. g >= 0, g'b' = 1 on unit-norm kernels, solved here by SLSQP."""
    X, y = iris
    widths = scaled_rbf_widths(X.shape[1])
    Ks = np.stack([gaussian_kernel(X, width=t) for t in widths])
    norms = np.linalg.norm(Ks, axis=(1, 2))
    unit = Ks / norms[:, None, None]
    Y = ideal_kernel(y)
    S = np.einsum("iab,jab->ij", unit, unit)
    b = np.einsum("iab,ab->i", unit, Y)
    result = minimize(
        lambda g: g @ S @ g,
        np.full(21, 1.0 / b.sum()),
        jac=lambda g: 2 * S @ g,
        bounds=[(0, None)] * 21,
        constraints=[{"type": "eq", "fun": lambda g: g @ b - 1, "jac": lambda g: b}],
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    qp = result.x / norms
    qp /= qp.sum()
    ours = alignment_weights(Ks, y)
    np.testing.assert_allclose(ours, qp, atol=2e-4)
    a_ours = kernel_alignment(np.tensordot(ours, Ks, axes=1), Y)
    a_qp = kernel_alignment(np.tensordot(qp, Ks, axes=1), Y)
    assert a_ours >= a_qp - 1e-9


@pytest.mark.parametrize("centered", [False, True])
def test_blockwise_rbf_weights_equal_the_explicit_ones(iris, centered):
    X, y = iris
    widths = scaled_rbf_widths(X.shape[1])
    Ks = np.stack([gaussian_kernel(X, width=t) for t in widths])
    np.testing.assert_allclose(
        rbf_alignment_weights(X, y, widths, centered=centered),
        alignment_weights(Ks, y, centered=centered),
        atol=1e-10,
    )
    # many small row blocks give the same statistics as one block
    D2 = kernels.squared_distances(X)
    Y = ideal_kernel(y)
    blocks = kernels._rbf_blocks(D2, widths, max_floats=21 * 75 * 4)
    S1, b1 = kernels._alignment_statistics(blocks, Y, 21, centered)
    S2, b2 = kernels._alignment_statistics([(slice(None), Ks)], Y, 21, centered)
    np.testing.assert_allclose(S1, S2, rtol=1e-10, atol=1e-10 * np.abs(S2).max())
    np.testing.assert_allclose(b1, b2, rtol=1e-10, atol=1e-9)


def test_centred_statistics_equal_explicit_centring(iris):
    X, y = iris
    widths = scaled_rbf_widths(X.shape[1])[5:12]
    Ks = np.stack([gaussian_kernel(X, width=t) for t in widths])
    centred = np.stack([center_kernel(K) for K in Ks])
    # <HKH, Y> = <HKH, HYH>, so aligning centred kernels uncentred = centred alignment
    np.testing.assert_allclose(
        alignment_weights(Ks, y, centered=True), alignment_weights(centred, y), atol=1e-8
    )
    Y = ideal_kernel(y)
    assert kernel_alignment(Ks[0], Y, centered=True) == pytest.approx(
        kernel_alignment(centred[0], center_kernel(Y))
    )


def test_alignment_picks_the_width_that_separates_tight_far_clusters():
    """Three tight blobs (within-class squared distances ~0.01) 10 apart (squared 100): only widths
    between those scales give a kernel close to the ideal one (1 within, ~0 across)."""
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [5.0, 8.66]])
    y = np.repeat([0, 1, 2], 20)
    X = centres[y] + 0.05 * rng.standard_normal((60, 2))
    widths = 10.0 ** np.arange(-4, 5)  # 1e-4 ... 1e4
    w = rbf_alignment_weights(X, y, widths)
    assert np.all(w >= 0)
    good = (widths >= 0.1) & (widths <= 10)
    assert w[good].sum() > 0.99
    assert w[0] == 0 and w[-1] == 0
    single = [kernel_alignment(gaussian_kernel(X, width=t), ideal_kernel(y)) for t in widths]
    assert 0.1 <= widths[int(np.argmax(single))] <= 10


def test_kernel_sum_matches_the_weighted_sum_of_gaussians(iris):
    X, y = iris
    widths = np.array([0.5, 2.0, 8.0])
    weights = np.array([0.2, 0.0, 0.8])
    expected = sum(
        w * gaussian_kernel(X, X[:10], width=t) for t, w in zip(widths, weights, strict=True)
    )
    np.testing.assert_allclose(rbf_kernel_sum(X, X[:10], widths, weights), expected)
    np.testing.assert_allclose(
        rbf_kernel_sum(X, None, widths), sum(gaussian_kernel(X, width=t) for t in widths)
    )
    with pytest.raises(ValueError, match="weights"):
        rbf_kernel_sum(X, None, widths, weights[:2])


def test_invalid_inputs_raise_clear_errors(iris):
    X, y = iris
    with pytest.raises(ValueError, match="widths"):
        rbf_alignment_weights(X, y, [1.0, -2.0])
    with pytest.raises(ValueError, match="square matrices"):
        alignment_weights(np.ones((3, 4, 4)), y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        rbf_alignment_weights(X, np.zeros(len(y)), [1.0])
