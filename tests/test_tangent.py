"""Tangent distance and metrics on tangent residuals (Mody 2009 thesis)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage
from scipy.optimize import check_grad
from sklearn.neighbors import KNeighborsClassifier

from metriclab.datasets import load
from metriclab.methods import REGISTRY
from metriclab.methods.tangent import (
    PRESETS,
    TRANSFORMS,
    TangentDistanceKNN,
    TangentMetricKNN,
    nearest_neighbours,
    resolve_transforms,
    tangent_distance,
    tangent_distance_lstsq,
    tangent_residuals,
    tangent_vectors,
    transformed_images,
    whitening_metric,
)
from metriclab.methods.tangent.residual import _lmnn_residual_loss

SHAPE = (16, 16)


def smooth_image(seed=0, shape=SHAPE):
    """A smooth 'glyph': a few Gaussian blobs away from the border."""
    rng = np.random.default_rng(seed)
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w]
    img = np.zeros(shape)
    for _ in range(4):
        cy, cx = rng.uniform(4, h - 5), rng.uniform(4, w - 5)
        s = rng.uniform(1.5, 2.5)
        img += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s))
    return img


def rotate(img, angle):
    """img rotated by `angle` radians about its centre, in the tangent's frame (x right, y down)."""
    centre = (np.array(img.shape) - 1) / 2.0
    c, s = np.cos(angle), np.sin(angle)
    inverse = np.array([[c, -s], [s, c]])  # (row, col) of the output -> (row, col) of the input
    return ndimage.affine_transform(
        img, inverse, offset=centre - inverse @ centre, order=3, mode="nearest"
    )


def random_images(n, seed=0):
    return np.stack([smooth_image(seed * 1000 + i).ravel() for i in range(n)])


@pytest.fixture(scope="module")
def digits():
    ds = load("digits")
    rng = np.random.default_rng(0)
    order = rng.permutation(ds.X.shape[0])
    return ds.X[order], ds.y[order], ds.image_shape


# --------------------------------------------------------------------------- tangent vectors


@pytest.mark.parametrize("sigma", [0.75, 1.0])
def test_translation_tangents_match_finite_difference_shift(sigma):
    img = smooth_image(3)
    T = tangent_vectors(img.ravel(), SHAPE, ["x_translation", "y_translation"], sigma=sigma)
    smoothed = ndimage.gaussian_filter(img, sigma, mode="nearest")
    h = 0.05
    inner = (slice(2, -2), slice(2, -2))
    for t, step in ((T[0], (0, h)), (T[1], (h, 0))):
        # derivative of the image shifted by +a pixels (content moves right / down) at a = 0
        plus = ndimage.shift(smoothed, step, order=3, mode="nearest")
        minus = ndimage.shift(smoothed, tuple(-s for s in step), order=3, mode="nearest")
        fd = (plus - minus) / (2 * h)
        err = np.linalg.norm((t.reshape(SHAPE) - fd)[inner]) / np.linalg.norm(fd[inner])
        assert err < 0.02


def test_tangent_vectors_shapes_and_batching():
    X = random_images(5)
    T = tangent_vectors(X, SHAPE)
    assert T.shape == (5, 7, 256)
    # batched equals one at a time, and 3-D input equals flattened input
    np.testing.assert_allclose(T[2], tangent_vectors(X[2], SHAPE))
    np.testing.assert_allclose(tangent_vectors(X.reshape(5, 16, 16), SHAPE, "affine6"), T[:, :6])
    assert tangent_vectors(X, SHAPE, "translation").shape == (5, 2, 256)


def test_rotation_tangent_is_the_derivative_of_rotation():
    img = smooth_image(5)
    t = tangent_vectors(img.ravel(), SHAPE, ["rotation"], sigma=0.75)[0]
    smoothed = ndimage.gaussian_filter(img, 0.75, mode="nearest")
    angle = 0.01  # radians
    fd = ((rotate(smoothed, angle) - rotate(smoothed, -angle)) / (2 * angle)).ravel()
    inner = (slice(2, -2), slice(2, -2))  # spline boundary effects at the border
    np.testing.assert_allclose(
        t.reshape(SHAPE)[inner], fd.reshape(SHAPE)[inner], rtol=0, atol=0.02 * np.abs(fd).max()
    )
    assert t @ fd / (np.linalg.norm(t) * np.linalg.norm(fd)) > 0.999


def test_constant_image_has_zero_geometric_tangents():
    T = tangent_vectors(np.full(256, 0.3), SHAPE)
    np.testing.assert_allclose(T, 0, atol=1e-12)


def test_transform_presets_and_validation():
    assert resolve_transforms("all7") == TRANSFORMS
    assert resolve_transforms("affine6") == TRANSFORMS[:6]
    assert set(PRESETS) == {"all7", "affine6", "translation", "none"}
    X, Y = random_images(3, 20), random_images(3, 21)
    # no transformation: the Euclidean distance, and the residual is x - y
    np.testing.assert_allclose(
        tangent_distance(X, Y, SHAPE, transforms="none"), np.linalg.norm(X - Y, axis=1)
    )
    np.testing.assert_allclose(tangent_residuals(X, Y, SHAPE, transforms="none"), X - Y)
    with pytest.raises(ValueError, match="transforms"):
        resolve_transforms(["shear"])
    with pytest.raises(ValueError, match="image_shape"):
        tangent_vectors(np.zeros((2, 64)), (16, 16))
    with pytest.raises(ValueError, match="sigma"):
        tangent_vectors(np.zeros(256), SHAPE, sigma=-1)


# --------------------------------------------------------------------------- tangent distance


@pytest.mark.parametrize("transforms", ["all7", "affine6", "translation"])
def test_tangent_distance_never_exceeds_euclidean(transforms):
    X, Y = random_images(20, 1), random_images(20, 2)
    eu = np.linalg.norm(X - Y, axis=1)
    two = tangent_distance(X, Y, SHAPE, two_sided=True, transforms=transforms)
    one = tangent_distance(X, Y, SHAPE, two_sided=False, transforms=transforms)
    ridge = tangent_distance(X, Y, SHAPE, transforms=transforms, regularization=0.5)
    assert np.all(two <= one + 1e-9) and np.all(one <= eu + 1e-9)
    assert np.all(two <= ridge + 1e-9) and np.all(ridge <= eu + 1e-9)
    assert np.all(two < eu - 1e-6)  # the planes do move closer
    assert np.median(two / eu) < 0.9


def test_two_sided_is_symmetric_and_one_sided_is_not():
    X, Y = random_images(10, 3), random_images(10, 4)
    np.testing.assert_allclose(
        tangent_distance(X, Y, SHAPE), tangent_distance(Y, X, SHAPE), rtol=1e-8
    )
    one_xy = tangent_distance(X, Y, SHAPE, two_sided=False)
    one_yx = tangent_distance(Y, X, SHAPE, two_sided=False)
    assert np.max(np.abs(one_xy - one_yx)) > 1e-3


def test_points_on_the_tangent_plane_are_at_distance_zero():
    x = smooth_image(7).ravel()
    T = tangent_vectors(x, SHAPE)
    alpha = np.array([0.3, -0.2, 0.05, 0.04, -0.03, 0.02, 0.1])
    on_plane = x + alpha @ T
    assert np.linalg.norm(on_plane - x) > 0.5
    # one-sided with y = x: x + Tα lies on the plane of y
    assert tangent_distance(on_plane, x, SHAPE, two_sided=False) < 1e-6
    assert tangent_distance(on_plane, x, SHAPE) < 1e-6
    assert tangent_distance(x, on_plane, SHAPE) < 1e-6


@pytest.mark.parametrize(
    "kind, transforms",
    [("shift", "translation"), ("rotation", "affine6"), ("scaling", "affine6")],
)
def test_small_transformed_copy_is_much_closer_in_tangent_distance(kind, transforms):
    img = smooth_image(11)
    if kind == "shift":
        moved = ndimage.shift(img, (0.3, 0.8), order=3, mode="nearest")
    elif kind == "rotation":
        moved = rotate(img, np.radians(4.0))
    else:
        centre, z = np.array([7.5, 7.5]), 1.06
        moved = ndimage.affine_transform(img, np.eye(2) / z, offset=centre - centre / z, order=3)
    eu = np.linalg.norm(img - moved)
    td = tangent_distance(img.ravel(), moved.ravel(), SHAPE, transforms=transforms)
    assert eu > 0.3
    assert td < 0.2 * eu


@pytest.mark.parametrize("two_sided", [True, False])
@pytest.mark.parametrize("regularization", [0.0, 2.0])
def test_batched_path_equals_pair_by_pair_lstsq(two_sided, regularization):
    X, Y = random_images(12, 5), random_images(12, 6)
    X[3] = 0.7  # a blank image: zero tangents must not break the batch
    batched = tangent_distance(X, Y, SHAPE, two_sided, "all7", 0.75, regularization)
    loop = [
        tangent_distance_lstsq(x, y, SHAPE, two_sided, "all7", 0.75, regularization)
        for x, y in zip(X, Y, strict=True)
    ]
    single = [
        tangent_distance(x, y, SHAPE, two_sided, "all7", 0.75, 0.0)
        for x, y in zip(X, Y, strict=True)
    ]
    if regularization == 0:
        np.testing.assert_allclose(batched, single, rtol=1e-10)
    # the lstsq reference returns the residual norm; with a ridge the distance adds the penalty
    if regularization == 0:
        np.testing.assert_allclose(batched, loop, rtol=1e-6, atol=1e-8)
    else:
        assert np.all(batched >= np.array(loop) - 1e-8)


def test_residual_norm_is_the_tangent_distance():
    X, Y = random_images(6, 8), random_images(6, 9)
    e = tangent_residuals(X, Y, SHAPE)
    np.testing.assert_allclose(np.linalg.norm(e, axis=1), tangent_distance(X, Y, SHAPE), rtol=1e-6)
    # the shortest tangent vector is orthogonal to both tangent planes (Eqs. 2.8-2.9)
    T = np.concatenate([tangent_vectors(X, SHAPE), tangent_vectors(Y, SHAPE)], axis=1)
    proj = (
        np.einsum("ntd,nd->nt", T, e)
        / np.linalg.norm(T, axis=2)
        / np.linalg.norm(e, axis=1)[:, None]
    )
    assert np.max(np.abs(proj)) < 1e-6


# --------------------------------------------------------------------------- classifiers


def test_knn_with_full_prefilter_equals_brute_force_tangent_search():
    X = random_images(40, 12)
    y = np.arange(40) % 3
    Q = random_images(5, 13)
    model = TangentDistanceKNN(SHAPE, transforms="all7", prefilter=40, n_neighbors=3).fit(X, y)
    dist, idx = model.kneighbors(Q)
    for i, q in enumerate(Q):
        brute = tangent_distance(np.broadcast_to(q, X.shape), X, SHAPE, transforms="all7")
        np.testing.assert_array_equal(idx[i], np.argsort(brute)[:3])
        np.testing.assert_allclose(dist[i], np.sort(brute)[:3], rtol=1e-7)


def test_tangent_knn_beats_euclidean_on_digits(digits):
    X, y, shape = digits
    Xtr, ytr, Xte, yte = X[:1000], y[:1000], X[1000:], y[1000:]
    euclid = KNeighborsClassifier(1).fit(Xtr, ytr).score(Xte, yte)
    tangent = TangentDistanceKNN(shape, transforms="translation", sigma=0.5).fit(Xtr, ytr)
    acc = tangent.score(Xte, yte)
    assert acc > euclid + 0.005, (acc, euclid)


def test_affine_tangent_knn_beats_euclidean_on_usps():
    ds = load("usps")
    rng = np.random.default_rng(1)
    train, test = np.flatnonzero(~ds.test_mask), np.flatnonzero(ds.test_mask)
    train, test = rng.choice(train, 2000, replace=False), rng.choice(test, 600, replace=False)
    euclid = KNeighborsClassifier(1).fit(ds.X[train], ds.y[train]).score(ds.X[test], ds.y[test])
    model = TangentDistanceKNN(ds.image_shape).fit(ds.X[train], ds.y[train])
    assert model.score(ds.X[test], ds.y[test]) > euclid + 0.01


def test_identity_metric_reproduces_tangent_knn(digits):
    X, y, shape = digits
    a = TangentDistanceKNN(shape, "translation", sigma=0.5, n_neighbors=3).fit(X[:300], y[:300])
    b = TangentMetricKNN(shape, "translation", sigma=0.5, n_neighbors=3, metric="identity")
    b.fit(X[:300], y[:300])
    np.testing.assert_array_equal(a.predict(X[300:500]), b.predict(X[300:500]))
    np.testing.assert_allclose(a.kneighbors(X[300:320])[0], b.kneighbors(X[300:320])[0], rtol=1e-6)


def test_lmnn_residual_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    n, k, m, d = 15, 2, 3, 5
    V_t = rng.standard_normal((n * k, d))
    V_i = rng.standard_normal((n * m, d)) * 1.2
    w_t, w_i = np.ones((n, k), bool), np.ones((n, m), bool)
    w_i[0, 1] = False
    C_t = V_t.T @ V_t
    args = ((d, d), V_t, w_t, V_i, w_i, 0.5, C_t)
    L0 = np.eye(d) + 0.1 * rng.standard_normal((d, d))
    err = check_grad(
        lambda f: _lmnn_residual_loss(f, *args)[0],
        lambda f: _lmnn_residual_loss(f, *args)[1],
        L0.ravel(),
    )
    assert err < 1e-4 * np.linalg.norm(_lmnn_residual_loss(L0.ravel(), *args)[1])


def test_lmnn_on_residuals_lowers_its_loss_and_keeps_accuracy(digits):
    X, y, shape = digits
    model = TangentMetricKNN(shape, "translation", sigma=0.5, metric="lmnn", max_iter=50)
    model.fit(X[:600], y[:600])
    res = model.optimizer_result_
    assert model.components_.shape == (64, 64)
    assert res.fun < 0.8 * _initial_lmnn_loss(model, X[:600], y[:600])
    ident = TangentDistanceKNN(shape, "translation", sigma=0.5).fit(X[:600], y[:600])
    assert model.score(X[600:1200], y[600:1200]) >= ident.score(X[600:1200], y[600:1200]) - 0.01


def _initial_lmnn_loss(model, X, y):
    from metriclab.methods.tangent.residual import _residual_neighbourhoods

    V_t, mask_t, V_i, mask_i = _residual_neighbourhoods(
        model.index_,
        np.unique(y, return_inverse=True)[1],
        model.k,
        model.impostors,
        model.train_prefilter,
    )
    d = X.shape[1]
    Vt = V_t.reshape(-1, d).astype(np.float64)
    scale = np.sqrt(np.mean(np.sum(Vt**2, axis=1)[mask_t.ravel()]))
    C_t = Vt[mask_t.ravel()].T @ Vt[mask_t.ravel()]
    args = ((d, d), Vt, mask_t, V_i.reshape(-1, d).astype(np.float64), mask_i, model.mu, C_t)
    return _lmnn_residual_loss((np.eye(d) / scale).ravel(), *args)[0]


def test_whitening_metric_inverts_the_shrunk_residual_moment():
    rng = np.random.default_rng(1)
    V = rng.standard_normal((50, 4, 6)) * np.array([1, 2, 3, 0.5, 1, 4])
    mask = np.ones((50, 4), bool)
    L = whitening_metric(V, mask, shrinkage=0.2)
    S = V.reshape(-1, 6).T @ V.reshape(-1, 6) / 200
    S = 0.8 * S + 0.2 * np.trace(S) / 6 * np.eye(6)
    np.testing.assert_allclose(L.T @ L, np.linalg.inv(S), rtol=1e-8)


def test_whitened_metric_classifies_digits(digits):
    X, y, shape = digits
    model = TangentMetricKNN(shape, "translation", sigma=0.5, metric="whiten").fit(X[:600], y[:600])
    euclid = KNeighborsClassifier(1).fit(X[:600], y[:600]).score(X[600:1200], y[600:1200])
    assert model.score(X[600:1200], y[600:1200]) >= euclid - 0.01


def test_classifier_validation_messages():
    X = random_images(10)
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match="image_shape"):
        TangentDistanceKNN((8, 8)).fit(X, y)
    with pytest.raises(ValueError, match="prefilter"):
        TangentDistanceKNN(SHAPE, n_neighbors=5, prefilter=3).fit(X, y)
    with pytest.raises(ValueError, match="class"):
        TangentDistanceKNN(SHAPE).fit(X, np.zeros(10))
    with pytest.raises(ValueError, match="metric"):
        TangentMetricKNN(SHAPE, metric="cosine").fit(X, y)


# --------------------------------------------------------------------------- app helpers, registry


def test_transformed_images_are_first_order_moves():
    img = smooth_image(2)
    frames = transformed_images(img.ravel(), SHAPE, "rotation", [-0.1, 0.0, 0.1])
    assert frames.shape == (3, 16, 16)
    np.testing.assert_allclose(frames[1], img)
    np.testing.assert_allclose(frames[2] - frames[1], frames[1] - frames[0])
    rotated = rotate(img, 0.1)
    assert np.linalg.norm(frames[2] - rotated) < 0.5 * np.linalg.norm(img - rotated)


def test_nearest_neighbours_under_both_metrics(digits):
    X, y, shape = digits
    out = nearest_neighbours(X[500], X[:400], shape, n_neighbors=5, transforms="translation")
    e_idx, e_dist = out["euclidean"]
    t_idx, t_dist = out["tangent"]
    assert len(e_idx) == len(t_idx) == 5
    assert np.all(np.diff(e_dist) >= 0) and np.all(np.diff(t_dist) >= 0)
    np.testing.assert_allclose(e_dist, np.linalg.norm(X[:400][e_idx] - X[500], axis=1))
    assert t_dist[0] <= e_dist[0] + 1e-9


@pytest.mark.parametrize("key", ["tangent_knn", "tangent_lmnn", "tangent_whiten"])
def test_registry_entries(key, digits):
    spec = REGISTRY[key]
    assert spec.family == "tangent" and spec.input == "image" and spec.output == "classifier"
    assert not spec.transductive
    assert {"transforms", "two_sided", "sigma", "prefilter", "n_neighbors"} <= {
        p.name for p in spec.params
    }
    X, y, shape = digits
    params = {"max_iter": 10} if key == "tangent_lmnn" else {}
    model = spec.make(image_shape=shape, transforms="translation", **params).fit(X[:300], y[:300])
    assert model.score(X[300:500], y[300:500]) > 0.9


# --------------------------------------------------------------------------- reproduction


def test_usps_reproduction_fast_smoke():
    from metriclab.reproduce import RESULT_COLUMNS, SPLITS_COLUMN
    from metriclab.reproduce.tangent import EXPERIMENTS, TABLE_TEST

    calls = []
    (exp,) = EXPERIMENTS
    table = exp.run(fast=True, n_splits=None, seed=0, progress=lambda *a: calls.append(a))
    assert list(table.columns) == [*RESULT_COLUMNS, SPLITS_COLUMN]
    test_rows = table[table.setting == "USPS test"].set_index("method")
    # one split: the per-image errors (0 or 100) are the McNemar test's input, their mean the row's
    for _method, row in test_rows.iterrows():
        per_image = row[SPLITS_COLUMN]
        assert set(per_image) <= {0.0, 100.0}
        assert abs(sum(per_image) / len(per_image) - row.ours_mean) < 1e-9
    for method, paper in TABLE_TEST.items():
        assert test_rows.loc[method, "paper"] == paper
        assert 0 <= test_rows.loc[method, "ours_mean"] < 20
    # the thesis' first finding holds even on the small sample: tangent distance beats Euclidean
    assert test_rows.loc["tangent distance", "ours_mean"] < test_rows.loc["Euclidean", "ours_mean"]
    assert table.note.str.contains("not the original split").all()
    assert calls and calls[-1][0] == calls[-1][1]


def test_choose_sigma_uses_only_the_data_it_is_given(digits):
    from metriclab.reproduce.tangent import choose_sigma

    X, y, shape = digits
    sigma, errors = choose_sigma(X[:300], y[:300], shape, "translation", sigmas=(0.5, 1.0))
    assert sigma in (0.5, 1.0) and errors[sigma] == min(errors.values())


# ---- the hierarchical neighbour search (TDL's tangent prior, issue 29.2) --------------------------


def _digits(n=60):
    ds = load("usps")
    return ds.X[:n].astype(np.float64), ds.image_shape


def test_tangent_neighbours_with_every_image_a_candidate_is_the_exhaustive_search():
    from metriclab.methods.tangent import tangent_neighbours

    X, shape = _digits()
    n = X.shape[0]
    dist, idx = tangent_neighbours(X, shape, n_neighbors=5, prefilter=n - 1)
    for i in (0, 17, n - 1):
        others = np.delete(np.arange(n), i)
        exhaustive = tangent_distance(X[i], X[others], shape, transforms="all7")
        order = np.argsort(exhaustive, kind="stable")[:5]
        np.testing.assert_array_equal(idx[i], others[order])
        np.testing.assert_allclose(dist[i], exhaustive[order], rtol=1e-6, atol=1e-6)
    assert (idx != np.arange(n)[:, None]).all()  # never its own neighbour
    assert (np.diff(dist, axis=1) >= 0).all()


def test_tangent_neighbours_are_never_farther_than_the_euclidean_ones():
    """Tangent distance ≤ Euclidean distance pair by pair, so each k-th tangent neighbour is at
    most as far as the k-th Euclidean one."""
    from sklearn.neighbors import NearestNeighbors

    from metriclab.methods.tangent import tangent_neighbours

    X, shape = _digits()
    dist, _ = tangent_neighbours(X, shape, n_neighbors=4, prefilter=10)
    euclid, _ = NearestNeighbors(n_neighbors=4).fit(X).kneighbors()
    assert (dist <= euclid + 1e-9).all()


def test_tangent_neighbours_refuse_a_prefilter_below_k():
    from metriclab.methods.tangent import tangent_neighbours

    X, shape = _digits(20)
    with pytest.raises(ValueError, match="prefilter"):
        tangent_neighbours(X, shape, n_neighbors=5, prefilter=3)


def test_prefilter_recall_is_one_when_every_image_is_a_candidate_and_grows_with_it():
    from metriclab.methods.tangent.knn import _TangentIndex
    from metriclab.reproduce.tdl_tangent import prefilter_recall

    X, shape = _digits(80)
    index = _TangentIndex(X, shape, resolve_transforms("all7"), 0.75, True, 0.0, 10)
    recall = prefilter_recall(index, [0, 5, 40], 5, (5, 20, 79))
    assert recall[79] == 1.0
    assert recall[5] <= recall[20] <= recall[79]


def test_tangent_label_cost_neighbours_match_the_exhaustive_search():
    """cost_matrix with tangent_nearest (Euclidean pre-filter wide enough) equals the cost built
    from exhaustive tangent distances."""
    from metriclab.methods.spectral import cost_matrix
    from metriclab.methods.tangent.knn import _TangentIndex
    from metriclab.reproduce.tdl_tangent import tangent_nearest

    X, shape = _digits(50)
    y = np.full(50, -1)
    y[:30] = load("usps").y[:30]
    index = _TangentIndex(X, shape, resolve_transforms("all7"), 0.75, True, 0.0, 49)
    D = np.array([tangent_distance(X[i], X, shape, transforms="all7") for i in range(50)])

    def exhaustive(reference, query, k):
        block = D[np.ix_(reference if query is None else query, reference)].copy()
        if query is None:
            np.fill_diagonal(block, np.inf)
        return np.argsort(block, axis=1, kind="stable")[:, :k]

    tangent = cost_matrix(X, y, 3, nearest=tangent_nearest(index, 49)).toarray()
    np.testing.assert_allclose(tangent, cost_matrix(X, y, 3, nearest=exhaustive).toarray())
    assert not np.allclose(tangent, cost_matrix(X, y, 3).toarray())  # not the Euclidean cost
