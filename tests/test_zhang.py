"""Zhang (2003): Euclidean and Fisher-separable dissimilarities, classical MDS, majorization."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import eigvalsh as scipy_eigvalsh
from scipy.linalg import orthogonal_procrustes
from scipy.spatial.distance import pdist, squareform

from metriclab import DiscriminantKernelMDS
from metriclab.datasets import load
from metriclab.evaluation import knn_accuracy, labeled_mask, nearest_mean_accuracy
from metriclab.kernels import delta_dissimilarity
from metriclab.methods import REGISTRY
from metriclab.methods.zhang import (
    classical_mds,
    double_centre,
    fit_expansion,
    is_euclidean,
    is_fisher_separable,
    majorization_stress,
    rbf_basis,
)


def random_labelled(seed, n=60, d=4, c=3, scale=None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, c, n)
    y[:c] = np.arange(c)
    scale = 10.0 ** rng.uniform(-2, 2) if scale is None else scale
    return rng.standard_normal((n, d)) * scale + rng.standard_normal(d) * scale, y


# --- Theorem 2: the four dissimilarities are Euclidean and Fisher separable ----------------------


@pytest.mark.parametrize("which", ["delta1", "delta2", "delta3", "delta4"])
@pytest.mark.parametrize("seed", range(5))
def test_deltas_are_euclidean_and_fisher_separable(which, seed):
    X, y = random_labelled(seed, scale=1.0)
    D = np.sqrt(delta_dissimilarity(X, y, which, degree=2))
    gower = is_euclidean(D)
    assert gower.euclidean
    assert gower.min_eigenvalue >= -1e-10 * gower.scale
    fisher = is_fisher_separable(D, y)
    assert fisher.separable and fisher.margin > 0
    if which in ("delta2", "delta4"):  # within < 1 <= between: the margin is at least 0
        assert fisher.max_within <= 1.0 <= fisher.min_between


@pytest.mark.parametrize("seed", range(5))
def test_delta2_and_delta4_stay_separable_at_any_feature_scale(seed):
    """The beta rule is a distance used against squared distances, so at large scales g_ij
    underflows to 0: delta1 then loses its margin (every pair at 2), delta2/delta4 keep theirs."""
    X, y = random_labelled(seed)
    for which in ("delta2", "delta4"):
        D = np.sqrt(delta_dissimilarity(X, y, which))
        assert is_euclidean(D).euclidean and is_fisher_separable(D, y).margin > 0.0
    big = np.sqrt(delta_dissimilarity(X * 1e3, y, "delta1"))
    assert is_fisher_separable(big, y).margin == pytest.approx(0.0, abs=1e-12)


def test_input_distances_of_overlapping_classes_are_not_fisher_separable():
    X, y = random_labelled(0)
    check = is_fisher_separable(squareform(pdist(X)), y)
    assert not check.separable and check.margin < 0


def test_gower_detects_a_metric_that_is_not_euclidean():
    """Shortest paths on the star K_{1,3}: a metric (triangle inequality holds) but not Euclidean."""
    D = np.array([[0, 1, 1, 1], [1, 0, 2, 2], [1, 2, 0, 2], [1, 2, 2, 0]], dtype=float)
    check = is_euclidean(D)
    assert not check.euclidean and check.relative_min_eigenvalue < -0.01
    assert is_euclidean(
        squareform(pdist(np.random.default_rng(0).standard_normal((30, 3))))
    ).euclidean


def test_double_centring_gives_the_centred_gram_matrix():
    X = np.random.default_rng(1).standard_normal((20, 3))
    Xc = X - X.mean(axis=0)
    assert np.allclose(double_centre(squareform(pdist(X)) ** 2), Xc @ Xc.T)


def test_bad_dissimilarity_matrices_are_refused():
    with pytest.raises(ValueError, match="square"):
        is_euclidean(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="negative"):
        is_euclidean(-np.ones((3, 3)))
    with pytest.raises(ValueError, match="two classes"):
        is_fisher_separable(np.zeros((3, 3)), np.zeros(3))


# --- classical MDS -----------------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_classical_mds_recovers_a_configuration_up_to_rotation(solver):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((200, 3)) * [3.0, 2.0, 1.0]
    Y, eigenvalues = classical_mds(squareform(pdist(X)), 3, eigen_solver=solver)
    Xc, Yc = X - X.mean(0), Y - Y.mean(0)
    R, _ = orthogonal_procrustes(Yc, Xc)
    assert np.abs(Yc @ R - Xc).max() < 1e-8
    assert np.all(eigenvalues[:3] > 1.0)
    if solver == "dense":  # the whole spectrum: rank 3, the rest is rounding
        assert eigenvalues.shape == (200,)
        assert np.abs(eigenvalues[3:]).max() < 1e-9 * eigenvalues[0]


def test_classical_mds_arpack_agrees_with_dense():
    X, y = random_labelled(3, n=150)
    D = np.sqrt(delta_dissimilarity(X, y, "delta2"))
    Y1, e1 = classical_mds(D, 2, eigen_solver="dense")
    Y2, e2 = classical_mds(D, 2, eigen_solver="arpack")
    assert np.allclose(e1[:10], e2, rtol=1e-8, atol=1e-10)
    assert np.allclose(np.abs(Y1), np.abs(Y2), atol=1e-6)


# --- iterative majorization ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("basis", ["rbf", "linear"])
def test_majorization_stress_never_increases(seed, basis):
    X, y = random_labelled(seed, n=50)
    D = np.sqrt(delta_dissimilarity(X, y, "delta2"))
    rng = np.random.default_rng(seed)
    Phi = rbf_basis(X, X[rng.choice(50, 12, replace=False)], width=np.median(pdist(X)) ** 2)
    Phi = Phi if basis == "rbf" else X
    W0 = rng.standard_normal((Phi.shape[1], 2))
    W, stress = fit_expansion(D, Phi, W0, max_iter=60, tol=0.0)
    assert np.all(np.diff(stress) <= 1e-10 * stress[0])
    assert stress[-1] < stress[0]
    assert stress[-1] == pytest.approx(majorization_stress(D, Phi @ W), rel=1e-10)


def test_majorization_with_free_coordinates_is_smacof_and_fits_euclidean_distances():
    """Phi = I makes the expansion plain SMACOF: a 2-D configuration is recovered (stress ~ 0)."""
    X = np.random.default_rng(5).standard_normal((30, 2))
    D = squareform(pdist(X))
    W0 = X + 0.3 * np.random.default_rng(6).standard_normal(X.shape)
    W, stress = fit_expansion(D, np.eye(30), W0, max_iter=2000, tol=1e-14)
    assert stress[-1] < 1e-8 * stress[0]


# --- the estimator -------------------------------------------------------------------------------


def test_estimator_attributes_and_consistency_with_the_kernels_module():
    X, y = random_labelled(7, n=40)
    model = DiscriminantKernelMDS(dissimilarity="delta4", max_iter=20).fit(X, y)
    assert np.allclose(model.dissimilarity_**2, delta_dissimilarity(X, y, "delta4"), atol=1e-12)
    assert model.kernel_.shape == (40, 40) and np.allclose(model.kernel_, model.kernel_.T)
    assert model.embedding_.shape == (40, 2)
    assert model.eigenvalues_.shape == (40,) and np.all(np.diff(model.eigenvalues_) <= 1e-12)
    assert model.stress_.ndim == 1 and model.n_iter_ == len(model.stress_) - 1 <= 20
    assert model.transform(X[:5]).shape == (5, 2)
    # 'kernel' with the Gaussian kernel, direct sum and alpha = 1/2 is delta2 exactly
    a = DiscriminantKernelMDS(max_iter=0).fit(X, y).dissimilarity_
    b = DiscriminantKernelMDS(dissimilarity="delta2", kernel="linear", max_iter=0).fit(X, y)
    assert np.allclose(a, b.dissimilarity_)


def test_procrustes_alignment_is_an_isometry_onto_the_mds_embedding():
    """transform = expansion rotated onto embedding_: the stress is unchanged, the frames agree."""
    ds = load("two_rings")
    mask = labeled_mask(ds.y, per_class=20, seed=0)
    model = DiscriminantKernelMDS(dissimilarity="delta2", n_basis=10).fit(ds.X[mask], ds.y[mask])
    F, E = model.transform(ds.X[mask]), model.embedding_
    assert majorization_stress(model.dissimilarity_, F) == pytest.approx(
        model.stress_[-1], rel=1e-9
    )
    assert np.linalg.norm(F - E) / np.linalg.norm(E - E.mean(0)) < 0.5
    for angle in (0.3, 1.5, 3.0):  # no other rotation of the expansion lies closer to embedding_
        c, s = np.cos(angle), np.sin(angle)
        Fr = (F - F.mean(0)) @ np.array([[c, -s], [s, c]]) + F.mean(0)
        assert np.linalg.norm(Fr - E) > np.linalg.norm(F - E)


def test_two_rings_give_a_class_separated_embedding():
    """Section 5.1: 20 labelled points per ring, 10 RBF centres, delta2; the other 260 mapped."""
    ds = load("two_rings", n_samples=300)
    mask = labeled_mask(ds.y, per_class=20, seed=0)
    model = DiscriminantKernelMDS(dissimilarity="delta2", n_basis=10, init="random").fit(
        ds.X[mask], ds.y[mask]
    )
    assert is_fisher_separable(squareform(pdist(model.embedding_)), ds.y[mask]).separable
    Z = model.transform(ds.X)
    assert knn_accuracy(Z[mask], ds.y[mask], Z[~mask], ds.y[~mask]) >= 0.95
    assert nearest_mean_accuracy(Z[mask], ds.y[mask], Z[~mask], ds.y[~mask]) >= 0.95
    # the input space itself is not: nearest mean fails on concentric rings
    assert nearest_mean_accuracy(ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask]) < 0.8


@pytest.mark.parametrize("which", ["delta2", "delta4"])
def test_iris_classical_mds_is_fisher_separable(which):
    """Section 5.2 / Figure 6: all 150 points, classical MDS gives the idealized feature vectors."""
    ds = load("iris")
    model = DiscriminantKernelMDS(dissimilarity=which, max_iter=0).fit(ds.X, ds.y)
    assert is_fisher_separable(squareform(pdist(model.embedding_)), ds.y).separable


def test_iris_out_of_sample_map_classifies_new_points():
    ds = load("iris")
    mask = labeled_mask(ds.y, per_class=10, seed=1)
    model = DiscriminantKernelMDS(dissimilarity="delta2", n_basis=6).fit(ds.X[mask], ds.y[mask])
    Z = model.transform(ds.X)
    assert nearest_mean_accuracy(Z[mask], ds.y[mask], Z[~mask], ds.y[~mask]) >= 0.85
    assert np.all(np.diff(model.stress_) <= 1e-10 * model.stress_[0])


def test_invalid_input_gives_clear_errors():
    X, y = random_labelled(9, n=20)
    with pytest.raises(ValueError, match="two classes"):
        DiscriminantKernelMDS().fit(X, np.zeros(20, dtype=int))
    with pytest.raises(ValueError, match="n_components"):
        DiscriminantKernelMDS(n_components=0).fit(X, y)
    wide = DiscriminantKernelMDS(n_components=25, basis="linear", max_iter=5).fit(X, y)
    assert wide.embedding_.shape == (20, 25) and np.all(wide.embedding_[:, 19:] == 0.0)
    assert wide.transform(X).shape == (20, 25)
    with pytest.raises(ValueError, match="dissimilarity"):
        DiscriminantKernelMDS(dissimilarity="delta7").fit(X, y)
    with pytest.raises(ValueError, match="width"):
        DiscriminantKernelMDS(width=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="unlabelled"):
        DiscriminantKernelMDS().fit(X, np.where(np.arange(20) < 3, -1, y))
    with pytest.raises(ValueError, match="overflow"):
        DiscriminantKernelMDS(kernel="polynomial", degree=6).fit(X * 1e60, y)
    X_bad = X.copy()
    X_bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DiscriminantKernelMDS().fit(X_bad, y)
    model = DiscriminantKernelMDS(max_iter=5).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.transform(X[:, :2])


def test_string_labels_and_registry_entry():
    X, y = random_labelled(10, n=30)
    names = np.array(["a", "b", "c"])[y]
    Z = DiscriminantKernelMDS(max_iter=5).fit(X, names).transform(X)
    assert Z.shape == (30, 2) and np.isfinite(Z).all()
    spec = REGISTRY["zhang_mds"]
    assert spec.family == "zhang" and spec.gives_dissimilarity and not spec.transductive
    assert spec.needs_labels and spec.out_of_sample
    names = {p.name for p in spec.params}
    assert {"n_components", "kernel", "width", "combine", "dissimilarity", "max_iter"} <= names
    assert {"alpha1", "alpha2"} <= names and spec.param("width").log
    est = spec.make(dissimilarity="delta3", n_components=3)
    assert est.fit(X, y).transform(X).shape == (30, 3)


@pytest.mark.parametrize("kernel", ["linear", "polynomial", "cosine", "gaussian"])
@pytest.mark.parametrize("combine", ["tensor", "sum"])
def test_every_positive_definite_base_kernel_gives_a_euclidean_dissimilarity(kernel, combine):
    """Corollary 2: k1, k2 positive definite => the discriminant dissimilarity is Euclidean."""
    X, y = random_labelled(11, n=50, scale=1.0)
    model = DiscriminantKernelMDS(kernel=kernel, combine=combine, degree=3, max_iter=0).fit(X, y)
    assert is_euclidean(model.dissimilarity_).euclidean


def test_large_matrices_use_the_partial_eigensolver(monkeypatch):
    import metriclab.methods.zhang as zhang

    monkeypatch.setattr(zhang, "DENSE_EIGEN_MAX", 20)
    X, y = random_labelled(12, n=120, scale=1.0)
    D = np.sqrt(delta_dissimilarity(X, y, "delta2"))
    dense = scipy_eigvalsh(double_centre(D**2))
    check = is_euclidean(D)  # eigsh path: n > 2 * DENSE_EIGEN_MAX
    assert check.euclidean
    assert check.scale == pytest.approx(np.abs(dense).max(), rel=1e-8)
    star = np.ones((45, 45)) * 2.0  # a star: hub at distance 1 from 44 leaves, leaves 2 apart
    star[0, :] = star[:, 0] = 1.0
    np.fill_diagonal(star, 0.0)
    bad = is_euclidean(star)
    assert not bad.euclidean
    assert bad.min_eigenvalue == pytest.approx(scipy_eigvalsh(double_centre(star**2))[0], rel=1e-6)
    Y, eigenvalues = classical_mds(D, 2)  # "auto" picks ARPACK: the leading 10 eigenvalues
    assert eigenvalues.shape == (10,)
    assert np.allclose(eigenvalues, dense[::-1][:10], rtol=1e-8, atol=1e-10)
