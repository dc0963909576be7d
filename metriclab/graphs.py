"""Neighbourhood graphs and graph Laplacians (Li, Yang & Wang 2007, Section 3.2; Belkin & Niyogi 2003).

- `knn_graph`: sparse k-nearest-neighbour graph (scikit-learn `NearestNeighbors`), binary or heat
  weights exp(-d^2 / t), symmetrised by union (an edge when either point is among the other's
  k nearest), scipy.sparse CSR.
- `full_graph`: dense Gaussian graph exp(-d^2 / t) on all pairs (small n only).
- `width=None` picks t from the data: the mean squared distance of every point to its
  `n_neighbors` nearest neighbours (`auto_width`); the functions return the value used.
- `laplacian`: unnormalised D - W, symmetric normalised I - D^-1/2 W D^-1/2 and random-walk
  I - D^-1 W.

Degenerate data is handled without NaN: duplicate points (zero distances) get weight 1 and are
never their own neighbour; an isolated vertex (degree 0, e.g. when all its heat weights underflow)
gets a zero row in every Laplacian (Chung's convention for the normalised ones).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from metriclab.kernels import squared_distances

GRAPH_KINDS = ("knn", "full")
WEIGHT_KINDS = ("heat", "binary")
LAPLACIAN_KINDS = ("unnormalized", "symmetric", "random_walk")
FULL_GRAPH_MAX_POINTS = 5000


def knn_distances(X: np.ndarray, n_neighbors: int) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices of the `n_neighbors` nearest other points of every point (n × k each).

    A point is never its own neighbour, even when it has exact duplicates (scikit-learn's
    `kneighbors()` without a query excludes the query point itself).
    """
    n = X.shape[0]
    if not 1 <= n_neighbors < n:
        raise ValueError(f"n_neighbors must be in [1, {n - 1}] for {n} points, got {n_neighbors}")
    model = NearestNeighbors(n_neighbors=n_neighbors).fit(X)
    distances, indices = model.kneighbors()
    return distances, indices


def auto_width(squared_knn_distances: np.ndarray) -> float:
    """Heat-kernel width t: the mean squared distance to the k nearest neighbours (1.0 if all are 0)."""
    values = np.asarray(squared_knn_distances, dtype=np.float64).ravel()
    width = float(values.mean()) if values.size else 0.0
    return width if width > 0 and np.isfinite(width) else 1.0


def _check_width(width: float | None) -> float | None:
    if width is None:
        return None
    width = float(width)
    if not (np.isfinite(width) and width > 0):
        raise ValueError(f"width must be a positive number (or None for automatic), got {width!r}")
    return width


def knn_graph(
    X: np.ndarray, n_neighbors: int = 10, weights: str = "heat", width: float | None = None
) -> tuple[sp.csr_matrix, float]:
    """Union-symmetrised kNN graph W (CSR, zero diagonal) and the heat width t used.

    weights="heat": w_ij = exp(-||x_i - x_j||^2 / t); weights="binary": w_ij = 1. With
    `width=None` t is `auto_width` of the kNN distances (reported also for binary weights).
    """
    if weights not in WEIGHT_KINDS:
        raise ValueError(f"weights must be one of {WEIGHT_KINDS}, got {weights!r}")
    width = _check_width(width)
    n = X.shape[0]
    distances, indices = knn_distances(X, n_neighbors)
    squared = distances**2
    if width is None:
        width = auto_width(squared)
    values = np.exp(-squared / width) if weights == "heat" else np.ones_like(squared)
    indptr = np.arange(0, n * n_neighbors + 1, n_neighbors)
    W = sp.csr_matrix((values.ravel(), indices.ravel(), indptr), shape=(n, n))
    W = W.maximum(W.T).tocsr()  # union: w_ij = max(w_ij, w_ji)
    W.eliminate_zeros()
    W.sort_indices()
    return W, width


def full_graph(
    X: np.ndarray, width: float | None = None, n_neighbors: int = 10
) -> tuple[np.ndarray, float]:
    """Dense Gaussian graph w_ij = exp(-||x_i - x_j||^2 / t), zero diagonal, and the width t.

    `width=None` uses `auto_width` of the `n_neighbors` nearest-neighbour distances. Only for
    n <= FULL_GRAPH_MAX_POINTS (an n × n dense matrix).
    """
    n = X.shape[0]
    if n > FULL_GRAPH_MAX_POINTS:
        raise ValueError(
            f"the full Gaussian graph is dense (n × n); {n} points is more than "
            f"{FULL_GRAPH_MAX_POINTS}: use graph='knn'"
        )
    width = _check_width(width)
    D2 = squared_distances(X)
    if width is None:
        k = min(n_neighbors, n - 1)
        width = auto_width(np.partition(D2 + np.diag(np.full(n, np.inf)), k - 1, axis=1)[:, :k])
    W = np.exp(-D2 / width)
    np.fill_diagonal(W, 0.0)
    return W, width


def build_graph(
    X: np.ndarray,
    graph: str = "knn",
    n_neighbors: int = 10,
    weights: str = "heat",
    width: float | None = None,
) -> tuple[sp.csr_matrix | np.ndarray, float]:
    """Dispatch on `graph` ('knn' sparse or 'full' dense); returns (W, width used)."""
    if graph == "knn":
        return knn_graph(X, n_neighbors=n_neighbors, weights=weights, width=width)
    if graph == "full":
        return full_graph(X, width=width, n_neighbors=n_neighbors)
    raise ValueError(f"graph must be one of {GRAPH_KINDS}, got {graph!r}")


def degrees(W) -> np.ndarray:
    """Row sums d_i = sum_j w_ij."""
    return np.asarray(W.sum(axis=1)).ravel()


def inverse_sqrt_degrees(d: np.ndarray, isolated: float = 0.0) -> np.ndarray:
    """d^-1/2 with `isolated` in place of the infinite value of a degree-0 vertex."""
    d = np.asarray(d, dtype=np.float64)
    out = np.full_like(d, isolated)
    positive = d > 0
    out[positive] = 1.0 / np.sqrt(d[positive])
    return out


def laplacian(W, kind: str = "unnormalized"):
    """Graph Laplacian of W (sparse in -> CSR out, dense in -> dense out).

    unnormalized: L = D - W; symmetric: I - D^-1/2 W D^-1/2; random_walk: I - D^-1 W.
    Isolated vertices get a zero row and column (no NaN).
    """
    if kind not in LAPLACIAN_KINDS:
        raise ValueError(f"laplacian must be one of {LAPLACIAN_KINDS}, got {kind!r}")
    d = degrees(W)
    if sp.issparse(W):
        W = sp.csr_matrix(W, dtype=np.float64)
        L = (sp.diags(d) - W).tocsr()
    else:
        W = np.asarray(W, dtype=np.float64)
        L = np.diag(d) - W
    if kind == "unnormalized":
        return L
    if kind == "symmetric":
        s = inverse_sqrt_degrees(d)
        return (sp.diags(s) @ L @ sp.diags(s)).tocsr() if sp.issparse(L) else s[:, None] * L * s
    inv = inverse_sqrt_degrees(d) ** 2
    return (sp.diags(inv) @ L).tocsr() if sp.issparse(L) else inv[:, None] * L
