"""Kernels shared by the methods: base kernels, the label kernel, and (added by the method issues)
discriminant kernels (Zhang 2003) and kernel-target alignment weights (Chatpatanasiri et al. 2009).

Convention: `gaussian_kernel(X, Y, width)` is exp(-||x - y||^2 / width), the heat-kernel form of
Li, Yang & Wang (2007) and Zhang (2003). The KPCA-trick paper's scaled RBF exp(-||x-y||^2/(2 D s^2))
is `width = 2 * D * s**2` (see `scaled_rbf_width`).
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import euclidean_distances

KERNEL_NAMES = ("gaussian", "linear", "polynomial", "cosine")


def squared_distances(X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
    """Pairwise squared Euclidean distances, clipped at 0 (rounding can make them slightly negative)."""
    D2 = euclidean_distances(X, X if Y is None else Y, squared=True)
    np.maximum(D2, 0.0, out=D2)
    if Y is None:
        np.fill_diagonal(D2, 0.0)
    return D2


def gaussian_kernel(X: np.ndarray, Y: np.ndarray | None = None, width: float = 1.0) -> np.ndarray:
    """exp(-||x - y||^2 / width)."""
    if not width > 0:
        raise ValueError(f"width must be > 0, got {width!r}")
    return np.exp(-squared_distances(X, Y) / width)


def linear_kernel(X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
    return X @ (X if Y is None else Y).T


def polynomial_kernel(
    X: np.ndarray, Y: np.ndarray | None = None, degree: int = 2, coef0: float = 1.0
) -> np.ndarray:
    """(x'y + coef0)^degree."""
    return (linear_kernel(X, Y) + coef0) ** degree


def cosine_kernel(X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:
    """x'y / (||x|| ||y||), the correlation kernel on uncentred vectors; zero vectors give 0."""
    Y = X if Y is None else Y
    nx = np.linalg.norm(X, axis=1)
    ny = np.linalg.norm(Y, axis=1)
    nx[nx == 0] = 1.0
    ny[ny == 0] = 1.0
    return (X @ Y.T) / np.outer(nx, ny)


def base_kernel(name: str, X: np.ndarray, Y: np.ndarray | None = None, **params) -> np.ndarray:
    """Dispatch by name: 'gaussian' (width), 'linear', 'polynomial' (degree, coef0), 'cosine'."""
    if name == "gaussian":
        return gaussian_kernel(X, Y, width=params.get("width", 1.0))
    if name == "linear":
        return linear_kernel(X, Y)
    if name == "polynomial":
        return polynomial_kernel(
            X, Y, degree=params.get("degree", 2), coef0=params.get("coef0", 1.0)
        )
    if name == "cosine":
        return cosine_kernel(X, Y)
    raise ValueError(f"kernel must be one of {KERNEL_NAMES}, got {name!r}")


def label_kernel(y: np.ndarray, y_other: np.ndarray | None = None) -> np.ndarray:
    """1 where the two labels agree, 0 otherwise (the class-indicator kernel)."""
    y = np.asarray(y)
    y_other = y if y_other is None else np.asarray(y_other)
    return (y[:, None] == y_other[None, :]).astype(np.float64)


def median_squared_distance(X: np.ndarray, max_points: int = 1000, seed: int = 0) -> float:
    """Median of the non-zero pairwise squared distances (on a subsample): a default width."""
    rng = np.random.default_rng(seed)
    if X.shape[0] > max_points:
        X = X[rng.choice(X.shape[0], max_points, replace=False)]
    D2 = squared_distances(X)
    values = D2[np.triu_indices_from(D2, k=1)]
    values = values[values > 0]
    return float(np.median(values)) if values.size else 1.0


def scaled_rbf_width(sigma: float, n_features: int) -> float:
    """Width t of exp(-d^2/t) for the KPCA-trick paper's scaled RBF exp(-d^2 / (2 D sigma^2))."""
    return 2.0 * n_features * sigma**2


# --- Discriminant kernels and their dissimilarities (Zhang 2003, Sections 2.2-3.4) ---------------

COMBINATIONS = ("tensor", "sum")
# The paper's four dissimilarities: (base kernel, combination) with alpha1 = alpha2 = 1/2 for the sum.
DELTA_DISSIMILARITIES = {
    "delta1": ("gaussian", "tensor"),  # Eq. (13)
    "delta2": ("gaussian", "sum"),  # Eq. (14)
    "delta3": ("cosine", "tensor"),  # Eq. (15)
    "delta4": ("cosine", "sum"),  # Eq. (16)
}


def correlation_kernel(X: np.ndarray, Y: np.ndarray | None = None, degree: int = 2) -> np.ndarray:
    """rho_ij^q = (x'y)^q / (||x|| ||y||)^q, Zhang's correlation kernel, Eq. (8).

    Positive definite for every positive integer q (a homogeneous polynomial kernel on the
    normalised vectors); q even makes it non-negative, which Fisher separability needs (Theorem 2).
    """
    if not (float(degree) == int(degree) and int(degree) >= 1):
        raise ValueError(f"degree (q) must be a positive whole number, got {degree!r}")
    return cosine_kernel(X, Y) ** int(degree)


def discriminant_kernel(
    K_base: np.ndarray,
    y: np.ndarray,
    y_other: np.ndarray | None = None,
    combine: str = "sum",
    alpha1: float = 0.5,
    alpha2: float = 0.5,
) -> np.ndarray:
    """Kernel on (input, label) pairs from a base kernel matrix and the label kernel delta(t_i, t_j).

    combine="tensor": k1(x_i, x_j) * delta(t_i, t_j), Eq. (3) / (9), (11) (the weights are unused);
    combine="sum":    alpha1 k1(x_i, x_j) + alpha2 delta(t_i, t_j), Eq. (4) / (10), (12).
    """
    if combine not in COMBINATIONS:
        raise ValueError(f"combine must be one of {COMBINATIONS}, got {combine!r}")
    L = label_kernel(y, y_other)
    if L.shape != K_base.shape:
        raise ValueError(f"base kernel is {K_base.shape} but the labels give {L.shape}")
    if combine == "tensor":
        return K_base * L  # Eq. (3)
    if not (alpha1 >= 0 and alpha2 >= 0) or alpha1 + alpha2 <= 0:
        raise ValueError(
            f"the weights alpha1, alpha2 must be >= 0 and not both 0, got {alpha1!r}, {alpha2!r}"
        )
    return alpha1 * K_base + alpha2 * L  # Eq. (4)


def kernel_squared_distances(K: np.ndarray) -> np.ndarray:
    """Delta = k 1' + 1 k' - 2K: squared feature-space distances of a kernel matrix, Eqs. (1)-(2)."""
    k = np.diag(K)
    Delta = k[:, None] + k[None, :] - 2.0 * K
    np.maximum(Delta, 0.0, out=Delta)
    np.fill_diagonal(Delta, 0.0)
    return Delta


def class_mean_width(X: np.ndarray, y: np.ndarray) -> float:
    """The paper's width beta: average distance of the labelled points to their class means (Sec. 5).

    Falls back to the median squared pairwise distance, then to 1, when every point sits on its
    class mean (beta must be > 0).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    total = 0.0
    for c in np.unique(y):
        Xc = X[y == c]
        total += np.linalg.norm(Xc - Xc.mean(axis=0), axis=1).sum()
    beta = total / max(len(y), 1)
    if not (np.isfinite(beta) and beta > 0):
        beta = median_squared_distance(X)
    return float(beta) if np.isfinite(beta) and beta > 0 else 1.0


def delta_dissimilarity(
    X: np.ndarray,
    y: np.ndarray,
    which: str = "delta2",
    width: float | None = None,
    degree: int = 2,
) -> np.ndarray:
    """The paper's dissimilarity delta^(k)_ij, Eqs. (13)-(16): a squared feature-space distance.

    delta1 = 2 - 2 g_ij (same class), 2 (different);   delta2 = 1 - g_ij, 2 - g_ij;
    delta3 = 2 - 2 rho_ij^q, 2;                         delta4 = 1 - rho_ij^q, 2 - rho_ij^q;
    with g_ij = exp(-||x_i - x_j||^2 / beta) and rho_ij^q the correlation kernel. The distances
    are the square roots. width=None uses `class_mean_width` (the paper's beta rule).
    """
    if which not in DELTA_DISSIMILARITIES:
        raise ValueError(
            f"dissimilarity must be one of {list(DELTA_DISSIMILARITIES)}, got {which!r}"
        )
    kernel, combine = DELTA_DISSIMILARITIES[which]
    if kernel == "gaussian":
        K1 = gaussian_kernel(X, width=class_mean_width(X, y) if width is None else width)
    else:
        K1 = correlation_kernel(X, degree=degree)
    return kernel_squared_distances(discriminant_kernel(K1, y, combine=combine))


# --- Kernel-target alignment and sums of scaled RBF kernels (Chatpatanasiri et al. 2009, Sect. 4) ---

# The 21 values of sigma of the paper's scaled RBF family exp(-||x-y||^2 / (2 D sigma^2)) (Sect. 5.2).
PAPER_SIGMAS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 25.0)
PAPER_SIGMAS += (50.0, 75.0, 100.0, 250.0, 500.0, 750.0, 1000.0)


def scaled_rbf_widths(n_features: int, sigmas=PAPER_SIGMAS) -> np.ndarray:
    """Widths t = 2 D sigma^2 of the paper's scaled RBF family, for `gaussian_kernel(..., width=t)`."""
    return np.array([scaled_rbf_width(s, n_features) for s in sigmas], dtype=np.float64)


def ideal_kernel(y: np.ndarray) -> np.ndarray:
    """The ideal kernel of Guermeur et al.: Y_ij = 1 if y_i = y_j, else -1/(p-1), p classes (Sect. 4.1)."""
    y = np.asarray(y)
    p = np.unique(y).size
    if p < 2:
        raise ValueError("the ideal kernel needs labels of at least 2 classes")
    same = y[:, None] == y[None, :]
    return np.where(same, 1.0, -1.0 / (p - 1))


def center_kernel(K: np.ndarray) -> np.ndarray:
    """H K H with H = I - 11'/n: the kernel of the feature vectors centred at their mean."""
    row = K.mean(axis=1, keepdims=True)
    col = K.mean(axis=0, keepdims=True)
    return K - row - col + K.mean()


def kernel_alignment(K1: np.ndarray, K2: np.ndarray, centered: bool = False) -> float:
    """<K1, K2>_F / (||K1||_F ||K2||_F), Eq. (10); `centered` aligns H K1 H with H K2 H instead."""
    K1 = np.asarray(K1, dtype=np.float64)
    K2 = np.asarray(K2, dtype=np.float64)
    if K1.shape != K2.shape or K1.ndim != 2:
        raise ValueError(
            f"kernel matrices must have the same 2-D shape, got {K1.shape} and {K2.shape}"
        )
    if centered:
        K1, K2 = center_kernel(K1), center_kernel(K2)
    norm = np.linalg.norm(K1) * np.linalg.norm(K2)
    if norm == 0:
        raise ValueError("alignment is undefined for a zero kernel matrix")
    return float(np.vdot(K1, K2) / norm)


def _alignment_statistics(blocks, Y: np.ndarray, m: int, centered: bool):
    """S_ij = <K_i, K_j>_F and b_i = <K_i, Y>_F (Eq. 12), accumulated over row blocks of the m kernels.

    `blocks` yields (row slice, array m × rows × n). With `centered`, the statistics are those of the
    centred kernels H K_i H (using <H K_i H, H K_j H> = <K_i, K_j> - 2/n r_i'r_j + s_i s_j / n^2).
    """
    n = Y.shape[0]
    target = center_kernel(Y) if centered else Y
    S = np.zeros((m, m))
    b = np.zeros(m)
    row_sums = np.zeros((m, n))
    for rows, K_block in blocks:
        flat = K_block.reshape(m, -1)
        S += flat @ flat.T
        b += flat @ target[rows].ravel()
        row_sums += K_block.sum(axis=1)  # column sums, = row sums by symmetry
    if centered:
        totals = row_sums.sum(axis=1)
        S += -(2.0 / n) * (row_sums @ row_sums.T) + np.outer(totals, totals) / n**2
    return S, b


def _nonnegative_alignment(S: np.ndarray, b: np.ndarray) -> np.ndarray:
    """gamma >= 0 maximising the alignment of sum_i gamma_i K'_i with Y, for unit-norm K'_i (Eq. 13).

    Eq. (13), min gamma'S'gamma s.t. gamma >= 0, gamma'b' = 1, has the same minimiser direction as the
    projection of Y onto the cone of the kernels, min_{gamma >= 0} ||sum_i gamma_i K'_i - Y||_F^2 =
    gamma'S'gamma - 2 b'gamma + const, which is a non-negative least-squares problem in R^m once S'
    is factored as R'R (R from the eigen-decomposition, so that nearly equal kernels are harmless).
    """
    from scipy.optimize import nnls

    eigenvalues, eigenvectors = np.linalg.eigh(S)
    keep = eigenvalues > 1e-12 * max(eigenvalues.max(), 1e-300)
    root = np.sqrt(eigenvalues[keep])
    R = root[:, None] * eigenvectors[:, keep].T
    r = (eigenvectors[:, keep].T @ b) / root  # R' r = b, since b lies in the range of S
    gamma, _ = nnls(R, r, maxiter=50 * S.shape[0])
    scale = gamma @ b
    if not scale > 0:
        raise ValueError(
            "no kernel of the family is positively aligned with the labels; "
            "check the labels (at least 2 classes) and the kernel widths"
        )
    return gamma / scale  # the scaling of Eq. (13): gamma'b' = 1


def _weights_from_statistics(S: np.ndarray, b: np.ndarray) -> np.ndarray:
    norms = np.sqrt(np.clip(np.diag(S), 0.0, None))
    if np.any(norms == 0):
        raise ValueError("a kernel matrix of the family is zero; alignment is undefined for it")
    S_unit = S / np.outer(norms, norms)  # statistics of K'_i = K_i / ||K_i||_F
    b_unit = b / norms
    gamma = _nonnegative_alignment(S_unit, b_unit)
    alpha = gamma / norms  # weights of the raw kernels: sum gamma_i K'_i = sum alpha_i K_i
    return alpha / alpha.sum()


def alignment_weights(kernels, y: np.ndarray, centered: bool = False) -> np.ndarray:
    """Non-negative weights alpha (summing to 1) of the kernels K_1..K_m whose sum best aligns with the
    ideal kernel of the labels y: the QP of Eqs. (11)-(13), solved as NNLS.

    Alignment is scale-invariant, so the weights are reported on the raw kernels and normalised to sum
    1; the combined kernel is sum_i alpha_i K_i. `centered=True` aligns the centred kernels instead
    (Cortes et al. 2012; the paper uses the uncentred alignment).
    """
    stack = np.asarray(kernels, dtype=np.float64)
    y = np.asarray(y)
    if stack.ndim != 3 or stack.shape[1:] != (y.shape[0], y.shape[0]):
        raise ValueError(
            f"kernels must be m square matrices of size n = len(y) = {y.shape[0]}, got shape {stack.shape}"
        )
    S, b = _alignment_statistics([(slice(None), stack)], ideal_kernel(y), stack.shape[0], centered)
    return _weights_from_statistics(S, b)


def _rbf_blocks(D2: np.ndarray, widths: np.ndarray, max_floats: int = 8_000_000):
    n = D2.shape[0]
    rows_per_block = max(1, max_floats // (len(widths) * n))
    for start in range(0, n, rows_per_block):
        rows = slice(start, min(n, start + rows_per_block))
        yield rows, np.exp(-D2[None, rows, :] / widths[:, None, None])


def rbf_alignment_weights(
    X: np.ndarray, y: np.ndarray, widths, centered: bool = False
) -> np.ndarray:
    """`alignment_weights` for the Gaussian kernels exp(-||x-y||^2 / t) with t in `widths`, computed in
    row blocks so that the m kernel matrices never have to be held at once."""
    widths = np.asarray(widths, dtype=np.float64)
    if widths.ndim != 1 or widths.size == 0 or not np.all(widths > 0):
        raise ValueError(f"widths must be a non-empty list of positive numbers, got {widths!r}")
    X = np.asarray(X, dtype=np.float64)
    D2 = squared_distances(X)
    S, b = _alignment_statistics(_rbf_blocks(D2, widths), ideal_kernel(y), widths.size, centered)
    return _weights_from_statistics(S, b)


def rbf_kernel_sum(
    X: np.ndarray, Y: np.ndarray | None = None, widths=(1.0,), weights=None
) -> np.ndarray:
    """sum_i w_i exp(-||x-y||^2 / t_i): a weighted (aligned) or unweighted (w_i = 1) sum of Gaussian
    kernels (Sect. 4.2), from one matrix of squared distances."""
    widths = np.asarray(widths, dtype=np.float64)
    weights = np.ones_like(widths) if weights is None else np.asarray(weights, dtype=np.float64)
    if weights.shape != widths.shape:
        raise ValueError(f"{weights.size} weights given for {widths.size} kernel widths")
    D2 = squared_distances(X, Y)
    K = np.zeros_like(D2)
    for t, w in zip(widths, weights, strict=True):
        if w != 0:
            K += w * np.exp(-D2 / t)
    return K
