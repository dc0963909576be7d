"""DNE (Zhang et al. 2007; Chatpatanasiri et al. 2009, Eq. (4)): the smallest eigenvectors of
Xᵀ(D − W)X with AAᵀ = I.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from metriclab._docstrings import fill_doc
from metriclab.methods.mahalanobis.base import (
    MahalanobisMixin,
    nearest_rows,
    neighbor_space,
    single_thread_blas,
    target_neighbors,
)
from metriclab.validation import Rule, check_params, fix_signs, parameters


def dne_weights(X, y, k):
    """Symmetric W of DNE (paper Section 2.3): +1 for within-class k-NN pairs, −1 for
    between-class k-NN pairs (either direction), 0 otherwise. Sparse n × n."""
    n = X.shape[0]
    within, _ = target_neighbors(X, y, k)
    rows, cols, vals = [], [], []
    valid = within >= 0
    rows.append(np.broadcast_to(np.arange(n)[:, None], within.shape)[valid])
    cols.append(within[valid])
    vals.append(np.ones(valid.sum()))
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        others = np.flatnonzero(y != c)
        kc = min(k, others.size)
        ind = nearest_rows(X[members], X[others], kc)
        rows.append(np.repeat(members, kc))
        cols.append(others[ind].ravel())
        vals.append(-np.ones(members.size * kc))
    rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    W = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    W = W + W.T  # symmetrise: j ∈ Neig(i) or i ∈ Neig(j)
    W.data = np.sign(W.data)  # a pair found from both sides still has weight ±1
    return W


@parameters
class DNE(MahalanobisMixin):
    """Discriminant Neighbourhood Embedding (Zhang et al. 2007), paper Eq. (4).

    A* = argmin_{AAᵀ = I} trace(A Xᵀ(D − W)X Aᵀ): the rows of A are the eigenvectors of
    Xᵀ(D − W)X with the smallest eigenvalues (they may be negative; D − W is not PSD).

    Parameters
    ----------
    n_components : int or None
        Output dimension (None: d).
    k : int
        Within-class and between-class neighbours per point (within-class k is clipped to the
        class size − 1, between-class k to the number of other-class points).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, d)
        Orthonormal rows: the map A.
    eigenvalues_ : ndarray
        The eigenvalues of the kept directions, ascending.

    See Also
    --------
    KernelPCATrick : DNE after kernel PCA (KDNE).

    References
    ----------
    W. Zhang, X. Xue, H. Lu and Y.-F. Guo, "Discriminant neighborhood embedding for
    classification", Pattern Recognition 39, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab import DNE
    >>> from metriclab.datasets import load
    >>> ds = load("iris")
    >>> dne = DNE(n_components=2, k=3).fit(ds.X, ds.y)
    >>> dne.transform(ds.X).shape
    (150, 2)
    >>> bool(np.allclose(dne.components_ @ dne.components_.T, np.eye(2)))
    True
    """

    _parameter_rules = {"k": Rule("int", low=1)}  # n_components: MahalanobisMixin's

    n_components: int | None = 2
    k: int = 3

    @fill_doc
    def fit(self, X, y, X_neighbors=None):
        """Learn the map A from labelled points (one eigenproblem).

        %(fit_params)s
        %(x_neighbors_param)s

        %(returns_self)s
        """
        check_params(self)  # the class's _parameter_rules
        k = int(self.k)
        X, y = self._validate_labeled(X, y)
        d = X.shape[1]
        n_components = self._resolve_n_components(d)
        X_neighbors = neighbor_space(X_neighbors, X)
        with single_thread_blas():
            W = dne_weights(X_neighbors, y, k)
            laplacian = sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W
            S = X.T @ (laplacian @ X)  # Eq. (4): X(D − W)Xᵀ in the paper's column convention
            S = 0.5 * (S + S.T)
            eigenvalues, eigenvectors = np.linalg.eigh(S)  # ascending
        self.eigenvalues_ = eigenvalues[:n_components]
        self.components_ = fix_signs(eigenvectors[:, :n_components].T, axis=1)
        self.all_eigenvalues_ = eigenvalues
        return self
