"""metriclab.plotting, the public plotting API (issue 38.3): each figure from a fitted estimator
equals the figure from its arrays, and a wrong input is one clear ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from metriclab import NCA, TDL, DiscriminantKernelMDS, LaplacianEigenmaps
from metriclab.datasets import load
from metriclab.evaluation import (
    CompareRequest,
    compare,
    embedding_accuracy,
    labeled_mask,
    partial_labels,
)
from metriclab.plotting import comparison, dissimilarity, embedding, window_map


@pytest.fixture(scope="module")
def iris():
    return load("iris")


def _xy(fig):
    return np.concatenate([t.x for t in fig.data if t.x is not None and t.customdata is not None])


def test_embedding_from_an_estimator_is_the_embedding_of_its_transform(iris):
    nca = NCA(n_components=2, max_iter=10).fit(iris.X, iris.y)
    from_estimator = embedding(nca, iris.y, X=iris.X, target_names=iris.target_names)
    from_arrays = embedding(nca.transform(iris.X), iris.y, target_names=iris.target_names)
    np.testing.assert_allclose(_xy(from_estimator), _xy(from_arrays))
    assert [t.name for t in from_arrays.data] == list(iris.target_names)


def test_embedding_of_a_transductive_fit_marks_the_labelled_points():
    ds = load("two_moons")
    mask = labeled_mask(ds.y, per_class=5, seed=0)
    tdl = TDL(n_components=2).fit(ds.X, partial_labels(ds.y, mask))
    fig = embedding(tdl, ds.y, labeled=mask)
    diamonds = [t for t in fig.data if t.marker.symbol == "diamond" and t.customdata is not None]
    labelled_points = sum(len(t.x) for t in diamonds)
    assert labelled_points == mask.sum() == 10


def test_embedding_names_classes_of_any_labels():
    fig = embedding(np.arange(8.0).reshape(4, 2), np.array(["b", "a", "b", "a"]))
    assert [t.name for t in fig.data] == ["a", "b"]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: embedding(np.zeros((4, 2)), [0, 1, 0]), "3 labels"),
        (lambda: embedding(NCA(), [0, 1]), "has no embedding_"),
        (lambda: embedding(np.zeros((2, 2)), [0, 1], labeled=[True]), "labeled has shape"),
    ],
)
def test_wrong_inputs_are_one_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_dissimilarity_from_an_estimator_equals_its_matrix(iris):
    X, y = iris.X[::3], iris.y[::3]
    mds = DiscriminantKernelMDS(max_iter=5).fit(X, y)
    order = np.argsort(y, kind="stable")
    expected = mds.dissimilarity_[np.ix_(order, order)]
    np.testing.assert_allclose(dissimilarity(mds, y).data[0].z, expected)
    nca = NCA(max_iter=5).fit(X, y)
    Z = nca.transform(X)
    np.testing.assert_allclose(
        dissimilarity(nca, y, X=X).data[0].z, cdist(Z, Z)[np.ix_(order, order)]
    )


def test_window_map_cells_are_the_fits_of_the_cells():
    ds = load("two_moons")
    mask = labeled_mask(ds.y, per_class=5, seed=0)
    grid = {"lam": [1.0, 16.0], "width": [0.1, 1.0]}
    fig = window_map(
        TDL(n_components=1), ds.X, ds.y, mask, grid, baseline=LaplacianEigenmaps(n_components=1)
    )
    z = np.asarray(fig.data[0].z, dtype=float)
    custom = np.asarray(fig.data[0].customdata, dtype=float)
    for i, lam in enumerate(grid["lam"]):
        for j, width in enumerate(grid["width"]):
            Z = TDL(n_components=1, lam=lam, width=width).fit(ds.X, partial_labels(ds.y, mask))
            accuracy = embedding_accuracy(Z.embedding_, ds.y, mask)
            base = LaplacianEigenmaps(n_components=1, width=width).fit(ds.X).embedding_
            assert custom[i, j, 0] == pytest.approx(accuracy)
            assert custom[i, j, 1] == pytest.approx(embedding_accuracy(base, ds.y, mask))
            assert z[i, j] == pytest.approx(custom[i, j, 0] - custom[i, j, 1])
    with pytest.raises(ValueError, match="no parameter 'gamma'"):
        window_map(TDL(), ds.X, ds.y, mask, {"lam": [1], "gamma": [1]})


def test_comparison_from_estimators_and_from_compare(iris):
    fig = comparison({"NCA": NCA(max_iter=5)}, iris.X, iris.y, n_splits=2, dataset_name="iris")
    assert [t.name for t in fig.data] == ["NCA"] and len(fig.data[0].y) == 2
    mask = labeled_mask(iris.y, per_class=5, seed=1)
    Z = NCA(max_iter=5).fit(iris.X[mask], iris.y[mask]).transform(iris.X)
    assert fig.data[0].y[1] == pytest.approx(embedding_accuracy(Z, iris.y, mask))
    results = compare(CompareRequest("iris", {"nca": {"max_iter": 5}}, n_splits=2, per_class=5))
    boxes = comparison(results)
    assert [t.name for t in boxes.data] == ["Euclidean (input space)", "NCA (max_iter=5)"]
    from metriclab.evaluation import summarize

    bars = comparison(summarize(results))
    assert [t.type for t in bars.data] == ["bar", "bar"]
    with pytest.raises(ValueError, match="dict of estimators"):
        comparison([NCA()], iris.X, iris.y)


@pytest.mark.browser
def test_static_export_with_kaleido(tmp_path):
    pytest.importorskip("kaleido")
    from metriclab.ui.dev.server import find_chromium

    if find_chromium() is None:
        pytest.skip("no chromium for Kaleido")
    fig = embedding(np.eye(3)[:, :2], [0, 1, 2])
    fig.write_image(tmp_path / "embedding.png", width=400, height=300)
    fig.write_image(tmp_path / "embedding.svg")
    assert (tmp_path / "embedding.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (tmp_path / "embedding.svg").read_bytes()[:400]
