"""The KPCA trick (Chatpatanasiri et al. 2009): KernelPCATrick, KNCA / KLMNN / KDNE."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, load_wine
from sklearn.metrics import pairwise_distances

from metriclab.datasets import load
from metriclab.evaluation import knn_accuracy, labeled_mask, splits
from metriclab.kernels import gaussian_kernel, scaled_rbf_widths
from metriclab.methods import REGISTRY
from metriclab.methods.kpca_trick import (
    KernelPCAMap,
    KernelPCATrick,
    centered_test_kernel,
    centered_train_kernel,
    make_learner,
    top_eigenpairs,
)
from metriclab.methods.mahalanobis import DNE, LMNN, NCA, target_neighbors


def _standardised(loader):
    X, y = loader(return_X_y=True)
    return (X - X.mean(0)) / X.std(0), y


@pytest.fixture(scope="module")
def iris():
    X, y = _standardised(load_iris)
    mask = labeled_mask(y, fraction=0.5, seed=1)
    return X, y, mask


@pytest.fixture(scope="module")
def wine():
    X, y = _standardised(load_wine)
    mask = labeled_mask(y, fraction=0.5, seed=1)
    return X, y, mask


# ----------------------------------------------------------------------------- Theorems 1-2


@pytest.mark.parametrize(
    "learner, n_components, init",
    [
        ("nca", 2, "pca"),
        ("nca", 2, "lda"),
        ("nca", None, None),
        ("lmnn", 2, None),
        ("lmnn", None, None),
        ("dne", 2, None),
        ("dne", None, None),
    ],
)
@pytest.mark.parametrize("data", ["iris", "wine"])
def test_linear_kernel_reproduces_the_linear_learner(request, data, learner, n_components, init):
    """With a linear kernel the KPCA coordinates are the centred inputs in a rotated basis, so the
    learner finds the same metric: same 1-NN accuracy and the same pairwise distances."""
    X, y, mask = request.getfixturevalue(data)
    d = X.shape[1]
    linear = make_learner(learner, n_components or d, 3, 0.5, None, 0, init).fit(X[mask], y[mask])
    kernel = KernelPCATrick(
        learner=learner, kernel="linear", n_components=n_components, init=init or "auto"
    )
    kernel.fit(X[mask], y[mask])
    assert kernel.kpca_.eigenvalues_.size == d  # rank of the centred linear kernel
    Z_lin, Z_ker = linear.transform(X), kernel.transform(X)
    assert Z_ker.shape == Z_lin.shape
    acc_lin = knn_accuracy(Z_lin[mask], y[mask], Z_lin[~mask], y[~mask])
    acc_ker = knn_accuracy(Z_ker[mask], y[mask], Z_ker[~mask], y[~mask])
    D_lin, D_ker = pairwise_distances(Z_lin), pairwise_distances(Z_ker)
    if getattr(linear, "n_iter_", 0) >= getattr(linear, "max_iter", np.inf):
        # Not converged on a non-convex problem (rank-2 LMNN on wine runs out of iterations):
        # rounding differences of the rotated inputs grow along the path, so only the objective
        # value (Theorem 2) and the accuracy agree, not the iterate.
        loss_lin, loss_ker = linear.loss_curve_[-1], kernel.learner_.loss_curve_[-1]
        assert abs(loss_ker - loss_lin) <= 0.02 * abs(loss_lin)
        assert abs(acc_ker - acc_lin) <= 0.02
        return
    np.testing.assert_allclose(D_ker, D_lin, atol=1e-5 * D_lin.max())
    assert acc_ker == acc_lin


@pytest.mark.parametrize(
    "learner",
    [
        NCA(n_components=2, init="pca", max_iter=100),
        LMNN(n_components=2, k=3),
        DNE(n_components=2),
    ],
)
@pytest.mark.parametrize("data", ["iris", "wine"])
def test_a_learner_estimator_with_a_linear_kernel_reproduces_itself(request, data, learner):
    """The estimator form of the trick (`learner=NCA(...)`) keeps the paper's invariant: with a
    linear kernel the learned metric is the linear learner's (same pairwise distances); the learner
    passed in is cloned, never fitted or changed."""
    X, y, mask = request.getfixturevalue(data)
    params = learner.get_params()
    linear = clone(learner).fit(X[mask], y[mask])
    kernel = KernelPCATrick(learner=learner, kernel="linear").fit(X[mask], y[mask])
    assert kernel.learner_ is not learner and type(kernel.learner_) is type(learner)
    assert learner.get_params() == params and not hasattr(learner, "components_")
    D_lin = pairwise_distances(linear.transform(X))
    np.testing.assert_allclose(
        pairwise_distances(kernel.transform(X)), D_lin, atol=1e-5 * D_lin.max()
    )
    assert kernel.n_components_ == 2 and kernel.n_iter_ == getattr(linear, "n_iter_", 0)


def test_the_estimator_and_the_string_forms_give_one_model(iris):
    """KernelPCATrick("lmnn", k=5, ...) and KernelPCATrick(LMNN(k=5, ...)) fit the same metric; a
    learner asking for more components than kernel PCA gives is clipped like the string form."""
    X, y, mask = iris
    named = KernelPCATrick(learner="lmnn", k=5, mu=0.4, max_iter=30, n_components=3)
    given = KernelPCATrick(learner=LMNN(n_components=3, k=5, mu=0.4, max_iter=30))
    np.testing.assert_array_equal(
        named.fit(X[mask], y[mask]).transform(X), given.fit(X[mask], y[mask]).transform(X)
    )
    wide = KernelPCATrick(learner=NCA(n_components=500, max_iter=5), kernel="linear")
    assert wide.fit(X[mask], y[mask]).n_components_ == X.shape[1]  # rank of the linear kernel
    assert wide.learner.n_components == 500


def test_kpca_coordinates_keep_feature_space_distances(iris):
    """Proposition 3: ||phi_i - phi_j||^2 = k(x_i, x_i) + k(x_j, x_j) - 2 k(x_i, x_j)."""
    X, y, mask = iris
    model = KernelPCATrick(width=2.0, n_components=None).fit(X[mask], y[mask])
    Z = model.kpca_.embedding_
    K = gaussian_kernel(X[mask], width=2.0)
    feature_d2 = np.diag(K)[:, None] + np.diag(K)[None, :] - 2 * K
    np.testing.assert_allclose(pairwise_distances(Z) ** 2, feature_d2, atol=1e-8)


def test_transform_of_training_points_is_their_embedding(iris):
    X, y, mask = iris
    model = KernelPCATrick(weighting="aligned", n_components=2).fit(X[mask], y[mask])
    np.testing.assert_allclose(model.kpca_transform(X[mask]), model.kpca_.embedding_, atol=1e-8)
    np.testing.assert_allclose(model.transform(X[mask]), model.embedding_, atol=1e-8)


def test_dual_coefficients_give_the_kernel_trick_form(iris):
    """Eq. (6)/(8): transform(x) = U k_c(x) with U = dual_coef_ and k_c the centred kernel vector."""
    X, y, mask = iris
    model = KernelPCATrick(learner="dne", width=3.0, n_components=2).fit(X[mask], y[mask])
    K_new = gaussian_kernel(X[~mask], X[mask], width=3.0)
    Kc = centered_test_kernel(K_new, model.kpca_.column_means_, model.kpca_.grand_mean_)
    np.testing.assert_allclose(Kc @ model.dual_coef_.T, model.transform(X[~mask]), atol=1e-8)
    assert model.dual_coef_.shape == (2, int(mask.sum()))


def test_kernel_pca_map_matches_scikit_learn_kernel_pca(iris):
    """Same coordinates as scikit-learn's KernelPCA on the precomputed kernel, up to column signs."""
    from sklearn.decomposition import KernelPCA

    X, y, mask = iris
    K = gaussian_kernel(X[mask], width=2.0)
    K_new = gaussian_kernel(X[~mask], X[mask], width=2.0)
    ours = KernelPCAMap(n_components=6).fit(K)
    theirs = KernelPCA(6, kernel="precomputed", eigen_solver="dense").fit(K)
    np.testing.assert_allclose(ours.eigenvalues_, theirs.eigenvalues_, rtol=1e-8)
    A, B = ours.transform(K_new), theirs.transform(K_new)
    signs = np.sign((A * B).sum(axis=0))
    np.testing.assert_allclose(A * signs, B, atol=1e-8)
    np.testing.assert_allclose(ours.embedding_ * signs, theirs.transform(K), atol=1e-8)


def test_centred_test_kernel_is_the_kernel_of_centred_feature_vectors():
    """With the linear kernel the centred test kernel is (x - mean)'(x_j - mean) exactly."""
    rng = np.random.default_rng(0)
    X, X_new = rng.standard_normal((30, 4)), rng.standard_normal((7, 4))
    mean = X.mean(0)
    kpca = KernelPCAMap().fit(X @ X.T)
    Kc = centered_test_kernel(X_new @ X.T, kpca.column_means_, kpca.grand_mean_)
    np.testing.assert_allclose(Kc, (X_new - mean) @ (X - mean).T, atol=1e-10)


# ----------------------------------------------------------------------------- kernel choice


def test_kernel_weights_and_widths_per_weighting(iris):
    X, y, mask = iris
    widths = scaled_rbf_widths(X.shape[1])
    aligned = KernelPCATrick(weighting="aligned").fit(X[mask], y[mask])
    np.testing.assert_allclose(aligned.widths_, widths)
    assert np.all(aligned.kernel_weights_ >= 0)
    assert aligned.kernel_weights_.sum() == pytest.approx(1.0)
    unweighted = KernelPCATrick(weighting="unweighted").fit(X[mask], y[mask])
    np.testing.assert_allclose(unweighted.kernel_weights_, np.ones(21))
    single = KernelPCATrick(width=0.7).fit(X[mask], y[mask])
    np.testing.assert_allclose(single.widths_, [0.7])
    median = KernelPCATrick().fit(X[mask], y[mask])  # width None: median squared distance
    assert median.widths_.size == 1 and median.widths_[0] > 0
    poly = KernelPCATrick(kernel="polynomial").fit(X[mask], y[mask])
    assert poly.widths_.size == 0


def test_unweighted_lmnn_and_dne_choose_neighbours_in_the_input_space(iris):
    """Sect. 5.2: with the unweighted kernel the target neighbours come from the input space."""
    X, y, mask = iris
    Xl, yl = X[mask], y[mask]
    model = KernelPCATrick(learner="lmnn", weighting="unweighted", max_iter=5).fit(Xl, yl)
    expected, _ = target_neighbors(Xl, yl, 3)
    np.testing.assert_array_equal(model.learner_.target_neighbors_, expected)
    feature = KernelPCATrick(
        learner="lmnn", weighting="unweighted", neighbor_space="feature", max_iter=5
    ).fit(Xl, yl)
    in_feature, _ = target_neighbors(feature.kpca_.embedding_, yl, 3)
    np.testing.assert_array_equal(feature.learner_.target_neighbors_, in_feature)


# ----------------------------------------------------------------------------- Figure 2


def _curve_split(shape, seed=0):
    ds = load(f"curves_{shape}", seed=seed)
    _, mask = splits(ds.y, 1, fraction=0.5, seed=seed)[0]
    return ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask]


def _one_d_accuracy(model, Xtr, ytr, Xte, yte):
    model.fit(Xtr, ytr)
    return knn_accuracy(model.transform(Xtr), ytr, model.transform(Xte), yte)


@pytest.mark.parametrize("shape", ["circles", "parabolas", "ellipses"])
def test_on_the_curves_knca_finds_the_curve_where_nca_cannot(shape):
    data = _curve_split(shape)
    linear = _one_d_accuracy(make_learner("nca", 1, 3, 0.5, None, 0), *data)
    kernel = _one_d_accuracy(KernelPCATrick(kernel="polynomial", n_components=1), *data)
    assert linear <= 0.7  # measured 0.57-0.63
    assert kernel >= 0.97  # measured 1.00


@pytest.mark.parametrize("shape", ["circles", "parabolas", "ellipses"])
def test_on_the_curves_klmnn_beats_lmnn(shape):
    data = _curve_split(shape)
    linear = _one_d_accuracy(make_learner("lmnn", 1, 10, 0.5, None, 0), *data)
    kernel = _one_d_accuracy(
        KernelPCATrick(learner="lmnn", kernel="polynomial", n_components=1, k=10), *data
    )
    assert linear <= 0.7  # measured 0.61-0.63
    assert kernel >= 0.97  # measured 1.00


@pytest.mark.parametrize("shape, threshold", [("circles", 0.97), ("parabolas", 0.9)])
def test_on_the_curves_kdne_with_a_gaussian_kernel_beats_dne(shape, threshold):
    data = _curve_split(shape)
    linear = _one_d_accuracy(make_learner("dne", 1, 3, 0.5, None, 0), *data)
    kernel = _one_d_accuracy(KernelPCATrick(learner="dne", n_components=1), *data)
    assert linear <= 0.75  # measured 0.61 / 0.69
    assert kernel >= threshold  # measured 1.00 / 0.95


# ----------------------------------------------------------------------------- solvers, errors


def test_eigen_solvers_agree_on_the_leading_spectrum():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 5)) * [3, 2, 1, 1, 1]
    Kc, _, _ = centered_train_kernel(gaussian_kernel(X, width=20.0))
    dense, V = top_eigenpairs(Kc, 6, "dense")
    arpack, _ = top_eigenpairs(Kc, 6, "arpack")
    randomized, W = top_eigenpairs(Kc, 6, "randomized")
    assert np.all(np.diff(dense) <= 0)
    np.testing.assert_allclose(arpack, dense, rtol=1e-8)
    np.testing.assert_allclose(randomized, dense, rtol=1e-2)
    # the same leading direction up to sign
    assert abs(V[:, 0] @ W[:, 0]) > 0.99


def test_kpca_components_limits_the_learner_input(iris):
    X, y, mask = iris
    model = KernelPCATrick(kpca_components=5, n_components=10).fit(X[mask], y[mask])
    assert model.kpca_.embedding_.shape == (int(mask.sum()), 5)
    assert model.n_components_ == 5  # clipped to the kernel-PCA dimension
    assert model.transform(X).shape == (X.shape[0], 5)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"learner": "svm"}, "learner"),
        ({"weighting": "best"}, "weighting"),
        ({"kernel": "laplace"}, "kernel"),
        ({"kernel": "linear", "weighting": "aligned"}, "combines Gaussian"),
        ({"width": -1.0}, "width"),
        ({"n_components": 0}, "n_components"),
        ({"kpca_components": 2.5}, "kpca_components"),
        ({"weighting": "unweighted", "sigmas": ()}, "sigmas"),
        ({"eigen_solver": "lapack"}, "eigen_solver"),
    ],
)
def test_invalid_parameters_raise_value_errors_naming_them(iris, params, message):
    X, y, mask = iris
    with pytest.raises(ValueError, match=message):
        KernelPCATrick(**params).fit(X[mask], y[mask])


def test_invalid_data_raise_value_errors(iris):
    X, y, mask = iris
    with pytest.raises(ValueError, match="two classes"):
        KernelPCATrick().fit(X[:20], np.zeros(20))
    model = KernelPCATrick(n_components=2).fit(X[mask], y[mask])
    with pytest.raises(ValueError, match="features"):
        model.transform(X[:, :3])
    with pytest.raises(ValueError, match="zero"):
        KernelPCATrick().fit(np.ones((10, 3)), np.arange(10) % 2)


# ----------------------------------------------------------------------------- registry


@pytest.mark.parametrize("key, baseline", [("knca", "nca"), ("klmnn", "lmnn"), ("kdne", "dne")])
def test_registered_methods_fit_with_their_defaults(iris, key, baseline):
    X, y, mask = iris
    spec = REGISTRY[key]
    assert spec.family == "kpca_trick" and spec.baseline == baseline
    assert not spec.transductive and spec.out_of_sample and spec.needs_labels
    names = {p.name for p in spec.params}
    assert {"width", "weighting", "n_components"} <= names
    assert ("k" in names) == (key != "knca")
    assert spec.param("width").log and spec.param("weighting").choices == (
        "single",
        "unweighted",
        "aligned",
    )
    model = spec.make(weighting="single", width=3.0)
    Z = model.fit(X[mask], y[mask]).transform(X)
    assert Z.shape == (X.shape[0], 2) and np.isfinite(Z).all()
    assert knn_accuracy(Z[mask], y[mask], Z[~mask], y[~mask]) > 0.8
