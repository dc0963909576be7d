"""Neighbourhood graphs and graph Laplacians (Li, Yang & Wang 2007, Section 3.2; Belkin & Niyogi 2003).

- `knn_graph`: sparse k-nearest-neighbour graph, binary or heat weights exp(-d^2 / t), symmetrised
  by union (an edge when either point is among the other's k nearest), scipy.sparse CSR.
- `knn_distances` chooses the search by measurement: a kd-tree where it prunes (a probe of
  TREE_PROBE_QUERIES queries visits under TREE_VISITS_MAX of the points: low intrinsic dimension,
  e.g. a Swiss roll in 10-D), else blocked brute force (scikit-learn's BLAS-backed `brute`): on
  10-D Gaussian clusters the tree visits 13-20 % of the points per query and is 2x slower than
  brute force. Past APPROXIMATE_MIN_WORK (n² · d, e.g. 70,000 × 784) exact search costs minutes
  (3 CPU minutes on MNIST-sized data), so "auto" switches to `pca_candidate_neighbors`: candidates
  from an exact search in the leading principal components, re-ranked by exact distances
  (recall against exact neighbours measured in bench/spectral.py). algorithm="exact" forces the
  exact search.
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

import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.decomposition import PCA
from sklearn.neighbors import KDTree, NearestNeighbors

from metriclab.array_module import backend, resolve_device
from metriclab.kernels import squared_distances

GRAPH_KINDS = ("knn", "full")
WEIGHT_KINDS = ("heat", "binary")
LAPLACIAN_KINDS = ("unnormalized", "symmetric", "random_walk")
FULL_GRAPH_MAX_POINTS = 5000


KNN_ALGORITHMS = ("auto", "exact", "approximate")
TREE_PROBE_QUERIES = 200  # queries counted on the kd-tree before choosing it
TREE_VISITS_MAX = 0.05  # kd-tree when a probe query visits fewer than this fraction of points
APPROXIMATE_MIN_WORK = 1e12  # "auto": n² · d above which the PCA-candidate search is used
CANDIDATE_COMPONENTS = 50  # principal components of the candidate search
CANDIDATE_FACTOR = 2  # candidates per point: CANDIDATE_FACTOR × n_neighbors
PCA_FIT_POINTS = 10_000  # the principal components are fitted on a sample of this many points
BRUTE_BLOCK_ENTRIES = 1 << 24  # distances per block of `brute_force_neighbors` (128 MB in float64)
GPU_TREE_MAX_FEATURES = 15  # a GPU kd-tree (CuPy's) in at most this many dimensions, as on the CPU
GPU_TREE_MIN_POINTS = 100_000  # ... from this many points (10^6 10-D points, H200: 17 s, brute
# force 97 s, both exact)
BRUTE_BLOCK_ENTRIES_GPU = 1 << 27  # ... on a GPU (1 GB: fewer, larger products; 10^6 points in
# blocks of 134 rows)


def knn_distances(
    X: np.ndarray, n_neighbors: int, algorithm: str = "auto", device: str = "cpu"
) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices of the `n_neighbors` nearest other points of every point (n × k each,
    ascending distances).

    A point is never its own neighbour, even when it has exact duplicates (scikit-learn's
    `kneighbors()` without a query excludes the query point itself). algorithm: "exact", or
    "approximate" (`pca_candidate_neighbors`), or "auto" (approximate past APPROXIMATE_MIN_WORK).
    device="gpu" (or "auto" where a GPU is usable, `metriclab.array_module`): exact on the GPU,
    by CuPy's kd-tree in few dimensions and many points (`gpu_tree_neighbors`), else by
    `brute_force_neighbors` (blocked matrix products are what a GPU does fastest).
    """
    n = X.shape[0]
    if not 1 <= n_neighbors < n:
        raise ValueError(f"n_neighbors must be in [1, {n - 1}] for {n} points, got {n_neighbors}")
    if algorithm not in KNN_ALGORITHMS:
        raise ValueError(f"algorithm must be one of {KNN_ALGORITHMS}, got {algorithm!r}")
    if resolve_device(device) == "gpu":
        if X.shape[1] <= GPU_TREE_MAX_FEATURES and n >= GPU_TREE_MIN_POINTS:
            return gpu_tree_neighbors(X, n_neighbors)
        return brute_force_neighbors(X, n_neighbors, device="gpu")
    if algorithm == "auto":
        big = float(n) ** 2 * X.shape[1] > APPROXIMATE_MIN_WORK
        algorithm = "approximate" if big and X.shape[1] > CANDIDATE_COMPONENTS else "exact"
    if algorithm == "approximate" and X.shape[1] > CANDIDATE_COMPONENTS:
        return pca_candidate_neighbors(X, n_neighbors)
    search = "kd_tree" if tree_prunes(X, n_neighbors) else "brute"
    model = NearestNeighbors(n_neighbors=n_neighbors, algorithm=search).fit(X)
    distances, indices = model.kneighbors()
    return distances, indices


def brute_force_neighbors(
    X: np.ndarray, n_neighbors: int, query: np.ndarray | None = None, device: str = "cpu"
) -> tuple[np.ndarray, np.ndarray]:
    """Find the exact nearest neighbours by blocked matrix products, on the CPU or the GPU.

    Squared distances ‖q‖² - 2 q·x + ‖x‖² for a block of queries at a time (BRUTE_BLOCK_ENTRIES
    distances), the `n_neighbors` smallest chosen by partition, then their distances recomputed
    exactly from the differences and sorted. Written once for NumPy and CuPy
    (`metriclab.array_module`): the GPU's kNN graph and 1-NN baseline.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The reference points.
    n_neighbors : int
        Neighbours per query point.
    query : ndarray of shape (n_queries, n_features), optional
        The points whose neighbours are sought; None: X itself, each point excluding itself (a
        duplicate of it is still a neighbour, as in scikit-learn's ``kneighbors()``).
    device : {"cpu", "gpu", "auto"}, default="cpu"
        Where the products run.

    Returns
    -------
    distances : ndarray of shape (n_queries, n_neighbors)
        Euclidean distances, ascending per row (NumPy, on the host).
    indices : ndarray of shape (n_queries, n_neighbors)
        The neighbours' rows of X.

    See Also
    --------
    knn_distances : The CPU's choice of search (kd-tree, brute force, PCA candidates).

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.graphs import brute_force_neighbors
    >>> X = np.array([[0.0], [1.0], [3.0], [7.0]])
    >>> distances, indices = brute_force_neighbors(X, 2)
    >>> indices.tolist(), distances[0].tolist()
    ([[1, 2], [0, 2], [1, 0], [2, 1]], [1.0, 3.0])
    """
    on = backend(device)
    xp = on.xp
    reference = on.to_device(np.asarray(X, dtype=np.float64))
    itself = query is None
    queries = reference if itself else on.to_device(np.asarray(query, dtype=np.float64))
    n, m, k = reference.shape[0], queries.shape[0], int(n_neighbors)
    if not 1 <= k <= n - int(itself):
        raise ValueError(f"n_neighbors must be in [1, {n - int(itself)}], got {n_neighbors}")
    reference_norms = (reference * reference).sum(axis=1)
    entries = BRUTE_BLOCK_ENTRIES if on.device == "cpu" else BRUTE_BLOCK_ENTRIES_GPU
    rows = max(1, min(m, entries // max(n, 1)))
    distances, indices = xp.empty((m, k)), xp.empty((m, k), dtype=xp.int64)  # on the device
    for start in range(0, m, rows):
        block = queries[start : start + rows]
        size = block.shape[0]
        squared = (block * block).sum(axis=1)[:, None] - 2.0 * (block @ reference.T)
        squared += reference_norms[None, :]
        if itself:
            squared[xp.arange(size), xp.arange(start, start + size)] = xp.inf
        nearest = smallest_columns(squared, k, on)
        difference = reference[nearest] - block[:, None, :]  # exact: no cancellation
        exact = xp.sqrt((difference * difference).sum(axis=2))
        order = xp.argsort(exact, axis=1, kind="stable")
        distances[start : start + size] = xp.take_along_axis(exact, order, axis=1)
        indices[start : start + size] = xp.take_along_axis(nearest, order, axis=1)
    return on.to_host(distances), on.to_host(indices)


def smallest_columns(squared, k: int, on=None):
    """The columns of each row's `k` smallest entries, in no order: `argpartition` (NumPy, CuPy),
    or on the GPU PyTorch's `topk` where PyTorch sees a CUDA device (`torch_topk`)."""
    xp = np if on is None else on.xp
    if k >= squared.shape[1]:
        return xp.argsort(squared, axis=1)[:, :k]
    topk = torch_topk() if on is not None and on.device == "gpu" else None
    if topk is not None:
        return topk(squared, k)
    return xp.argpartition(squared, k - 1, axis=1)[:, :k]


@functools.lru_cache(maxsize=1)
def torch_topk():
    """`topk(squared, k)`: PyTorch's `topk` (smallest, unsorted) on a CuPy array, through DLPack
    (no copy), returning CuPy indices; None where PyTorch is absent or sees no CUDA device. The
    GPU's selection of the kNN graph (issue 42: "torch only where it measurably wins": all of
    MNIST's 11-NN on an H200 in 0.38 s against 0.78 s by CuPy's argpartition, the same neighbours;
    bench/gpu_probe.py --graph)."""
    try:
        import cupy
        import torch

        if not torch.cuda.is_available():
            return None
    except Exception:  # absent, or built for a CUDA set-up this machine does not have (OSError)
        return None

    def topk(squared, k: int):
        found = torch.topk(torch.from_dlpack(squared), k, dim=1, largest=False, sorted=False)
        return cupy.from_dlpack(found.indices)

    return topk


def without_self(distances, indices, xp=np):
    """Each row's `k + 1` nearest points (ascending, the point itself among them) less the point
    itself: where an exact duplicate comes first, the row's own index is dropped wherever it is,
    and where the row does not hold it, its last entry."""
    m, width = indices.shape
    own = indices == xp.arange(m)[:, None]
    own[:, -1] |= ~own.any(axis=1)  # not found (duplicates took every place): drop the last
    keep = ~own  # one drop per row: a row holds its own index at most once
    return distances[keep].reshape(m, width - 1), indices[keep].reshape(m, width - 1)


def gpu_tree_neighbors(X: np.ndarray, n_neighbors: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact nearest other points of every point by CuPy's kd-tree (`cupyx.scipy.spatial`):
    in a few dimensions far fewer distances than brute force."""
    on = backend("gpu")
    from cupyx.scipy.spatial import KDTree as GpuKDTree

    points = on.to_device(np.asarray(X, dtype=np.float64))
    distances, indices = GpuKDTree(points).query(points, k=int(n_neighbors) + 1)
    distances, indices = without_self(distances, indices.astype(on.xp.int64), on.xp)
    return on.to_host(distances), on.to_host(indices)


def tree_prunes(X: np.ndarray, n_neighbors: int, seed: int = 0) -> bool:
    """Whether a kd-tree search beats brute force: it does when a query visits few points (low
    intrinsic dimension). Counted on TREE_PROBE_QUERIES random queries; never in more than 15
    dimensions (scikit-learn's own limit for trees)."""
    n, dim = X.shape
    if dim > 15 or n <= 2 * TREE_PROBE_QUERIES:
        return dim <= 15
    tree = KDTree(X)
    probe = np.random.default_rng(seed).choice(n, TREE_PROBE_QUERIES, replace=False)
    tree.reset_n_calls()
    tree.query(X[probe], k=n_neighbors + 1)
    return tree.get_n_calls() / TREE_PROBE_QUERIES < TREE_VISITS_MAX * n


def pca_candidate_neighbors(
    X: np.ndarray, n_neighbors: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Approximate kNN for large high-dimensional data: the CANDIDATE_FACTOR · k exact nearest
    neighbours in the leading CANDIDATE_COMPONENTS principal components (fitted on a sample of
    PCA_FIT_POINTS points) are re-ranked by their exact distances in the full space. The returned
    distances are exact; a true neighbour is missed only when it is not among the candidates."""
    n = X.shape[0]
    rng = np.random.default_rng(seed)
    sample = X[rng.choice(n, min(n, PCA_FIT_POINTS), replace=False)]
    pca = PCA(n_components=CANDIDATE_COMPONENTS, svd_solver="randomized", random_state=seed)
    Z = pca.fit(sample).transform(X)
    m = min(n - 1, CANDIDATE_FACTOR * n_neighbors)
    candidates = NearestNeighbors(n_neighbors=m, algorithm="brute").fit(Z).kneighbors()[1]
    squared = np.empty(candidates.shape)

    def exact_block(start: int) -> None:  # exact squared distances to the candidates
        block = slice(start, start + 256)
        diff = X[candidates[block]] - X[block, None, :]
        squared[block] = np.einsum("ikj,ikj->ik", diff, diff)

    # blocks on threads (numpy releases the GIL): the same arithmetic, about twice as fast on 2 cores
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(exact_block, range(0, n, 256)))
    order = np.argsort(squared, axis=1, kind="stable")[:, :n_neighbors]
    distances = np.sqrt(np.take_along_axis(squared, order, axis=1))
    return distances, np.take_along_axis(candidates, order, axis=1)


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
    X: np.ndarray,
    n_neighbors: int = 10,
    weights: str = "heat",
    width: float | None = None,
    algorithm: str = "auto",
    device: str = "cpu",
) -> tuple[sp.csr_matrix, float]:
    """Union-symmetrised kNN graph W (CSR, zero diagonal) and the heat width t used.

    weights="heat": w_ij = exp(-||x_i - x_j||^2 / t); weights="binary": w_ij = 1. With
    `width=None` t is `auto_width` of the kNN distances (reported also for binary weights).
    device: where the neighbour search runs (`knn_distances`).
    """
    if weights not in WEIGHT_KINDS:
        raise ValueError(f"weights must be one of {WEIGHT_KINDS}, got {weights!r}")
    width = _check_width(width)
    distances, indices = knn_distances(X, n_neighbors, algorithm, device)
    return neighbour_graph(distances, indices, weights, width)


def neighbour_graph(
    distances: np.ndarray, indices: np.ndarray, weights: str = "heat", width: float | None = None
) -> tuple[sp.csr_matrix, float]:
    """Build a graph from given neighbour lists, in any metric (Euclidean, tangent distance, ...).

    The graph is union-symmetrised: w_ij = max(w_ij, w_ji).

    Parameters
    ----------
    distances : ndarray of shape (n_samples, n_neighbors)
        Each point's distances to its neighbours.
    indices : ndarray of shape (n_samples, n_neighbors)
        The neighbours' rows.
    weights : {"heat", "binary"}, default="heat"
        exp(-d²/t), or 1.
    width : float, optional
        The heat width t; None: the mean squared neighbour distance.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        The symmetric weights, zero diagonal.
    width : float
        The heat width used.

    See Also
    --------
    build_graph : The graph of the Euclidean neighbours.
    metriclab.tangent_neighbours : Neighbour lists under the tangent distance.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.graphs import neighbour_graph
    >>> indices = np.array([[1], [0], [1]])
    >>> distances = np.array([[1.0], [1.0], [2.0]])
    >>> W, width = neighbour_graph(distances, indices)
    >>> W.toarray().round(3).tolist(), width
    ([[0.0, 0.607, 0.0], [0.607, 0.0, 0.135], [0.0, 0.135, 0.0]], 2.0)
    """
    n, n_neighbors = indices.shape
    squared = np.asarray(distances, dtype=np.float64) ** 2
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
    algorithm: str = "auto",
    device: str = "cpu",
) -> tuple[sp.csr_matrix | np.ndarray, float]:
    """Build the neighbourhood graph of points: sparse kNN or dense Gaussian.

    The graph TDL and Laplacian Eigenmaps are built on (Section 3.2 of the TDL paper); a fit can
    take it as ``fit(X, y, graph=(W, width))`` to share one graph between fits.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The points.
    graph : {"knn", "full"}, default="knn"
        A union-symmetrised kNN graph (sparse), or all pairs (dense; small n only).
    n_neighbors : int, default=10
        k of the kNN graph, and the neighbours whose distances set the automatic width.
    weights : {"heat", "binary"}, default="heat"
        kNN weights exp(-‖x_i - x_j‖²/t), or 1.
    width : float, optional
        The heat width t; None: the mean squared distance to the k nearest neighbours.
    algorithm : str, default="auto"
        scikit-learn's neighbour search (:class:`sklearn.neighbors.NearestNeighbors`).
    device : {"cpu", "gpu", "auto"}, default="cpu"
        Where the kNN search runs: "gpu" is the exact brute force on the GPU (needs
        ``pip install "metric-learning-lab[gpu]"``); "auto" the GPU where one is usable.

    Returns
    -------
    W : scipy.sparse.csr_matrix or ndarray of shape (n_samples, n_samples)
        The symmetric weights, zero diagonal.
    width : float
        The heat width used.

    See Also
    --------
    laplacian : Its graph Laplacian.
    neighbour_graph : A graph from neighbour lists of any metric.

    Examples
    --------
    >>> from metriclab import LaplacianEigenmaps
    >>> from metriclab.datasets import load
    >>> from metriclab.graphs import build_graph
    >>> ds = load("two_moons")
    >>> W, width = build_graph(ds.X, n_neighbors=10)
    >>> W.shape, bool((W != W.T).nnz == 0)
    ((200, 200), True)
    >>> le = LaplacianEigenmaps(n_components=1).fit(ds.X, graph=(W, width))
    """
    if graph == "knn":
        return knn_graph(X, n_neighbors, weights, width, algorithm, device)
    if graph == "full":
        return full_graph(X, width=width, n_neighbors=n_neighbors)
    raise ValueError(f"graph must be one of {GRAPH_KINDS}, got {graph!r}")


CUT_OFF = 1e-4  # an edge weighing less than this share of the median edge weight is no link


def cut_off_points(W) -> int:
    """Points of the graph outside its largest component once every edge lighter than CUT_OFF ×
    the median edge weight is dropped: points (and small groups of them) whose edges have all but
    underflowed against the heat width (standardised MNIST: a pixel lit in a handful of digits
    becomes a z-score near √n, and those digits sit far from every neighbour). Each such group
    adds a Laplacian eigenvalue near 0, under a connected graph's λ₂, so Laplacian Eigenmaps would
    draw those points. Unscaled or min-max scaled MNIST (10,000 digits): no edge under 0.15 × the
    median weight, none cut off; standardised: 49 points cut off, the lightest edge 1e-41."""
    W = sp.csr_matrix(W)
    if W.nnz == 0:
        return 0
    return unlinked_points(W.multiply(W >= CUT_OFF * np.median(W.data)))[0]


def unlinked_points(W) -> tuple[int, int]:
    """(points with no path to the largest component of the graph, its number of components):
    cut off whatever the weights, e.g. musk2's 10-NN graph, 36 pieces of conformations of the same
    molecules that are one another's nearest neighbours."""
    pieces, labels = connected_components(W, directed=False)
    return int(W.shape[0] - np.bincount(labels).max()), int(pieces)


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
    """Compute the graph Laplacian of weights W.

    Isolated vertices get a zero row and column (no NaN).

    Parameters
    ----------
    W : sparse matrix or ndarray of shape (n_samples, n_samples)
        Symmetric weights.
    kind : {"unnormalized", "symmetric", "random_walk"}, default="unnormalized"
        L = D - W, L_sym = I - D^-1/2 W D^-1/2, or L_rw = I - D^-1 W.

    Returns
    -------
    scipy.sparse.csr_matrix or ndarray of shape (n_samples, n_samples)
        The Laplacian, sparse for a sparse W.

    See Also
    --------
    build_graph : The weights.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.graphs import laplacian
    >>> W = np.array([[0.0, 1.0], [1.0, 0.0]])
    >>> laplacian(W).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    >>> bool(np.allclose(laplacian(W, "symmetric") @ np.ones(2), 0))
    True
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
