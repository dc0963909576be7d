"""Shipped data sets: every file loads with the shape, dtype and class counts documented in
sample_data/PROVENANCE.md and catalog.json, without a network."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

from metriclab.datasets import load, names
from metriclab.datasets.core import CATALOG, SAMPLE_DATA

# name: (n_samples, n_features, class counts in class-index order, image_shape, n_test)
EXPECTED = {
    "iris": (150, 4, [50, 50, 50], None, None),
    "wine": (178, 13, [59, 71, 48], None, None),
    "wdbc": (569, 30, [212, 357], None, None),
    "digits": (1797, 64, [178, 182, 177, 183, 181, 182, 181, 179, 174, 180], (8, 8), None),
    "breast_cancer_wisconsin": (683, 9, [444, 239], None, None),
    "breast_cancer_wisconsin_699": (699, 9, [458, 241], None, None),
    "ionosphere": (351, 33, [126, 225], None, None),
    "sonar": (208, 60, [111, 97], None, None),
    "pima": (768, 8, [500, 268], None, None),
    "glass": (214, 9, [70, 76, 17, 13, 9, 29], None, None),
    "satellite": (6435, 36, [1533, 703, 1358, 626, 707, 1508], None, 2000),
    "soybean": (562, 35, [91, 44, 20, 20, 92, 44, 20, 20, 20, 91, 20, 20, 20, 20, 20], None, None),
    "balance": (625, 4, [288, 49, 288], None, None),
    "yeast": (1484, 8, [463, 429, 244, 163, 51, 44, 35, 30, 20, 5], None, None),
    "musk2": (6598, 166, [5581, 1017], None, None),
    "mnist_5000": (5000, 784, [500] * 10, (28, 28), None),
    "mnist": (
        70000,
        784,
        [6903, 7877, 6990, 7141, 6824, 6313, 6876, 7293, 6825, 6958],
        (28, 28),
        10000,
    ),
    "usps": (9298, 256, [1553, 1269, 929, 824, 852, 716, 834, 792, 708, 821], (16, 16), 2007),
}
# Constant columns that PROVENANCE.md documents (image border pixels that are always 0).
CONSTANT_COLUMNS = {"digits": 3, "mnist_5000": 121, "mnist": 65}
# Smallest exact dtype on disk.
FILE_DTYPES = {
    "digits": "uint8",
    "breast_cancer_wisconsin": "uint8",
    "breast_cancer_wisconsin_699": "uint8",
    "satellite": "uint8",
    "soybean": "uint8",
    "balance": "uint8",
    "musk2": "int16",
    "mnist_5000": "uint8",
    "mnist": "uint8",
    "usps": "uint8",
}
USPS_ORIGINAL_TEST_COUNTS = [359, 264, 198, 166, 200, 160, 170, 147, 166, 177]


@pytest.fixture(scope="module")
def catalog() -> dict:
    return json.loads(CATALOG.read_text())


@pytest.fixture(scope="module")
def loaded():
    """Every shipped set, loaded once with sockets disabled: loading never touches a network."""
    real_socket = socket.socket

    def no_network(*args, **kwargs):
        raise AssertionError("a shipped data set tried to open a network socket")

    socket.socket = no_network
    try:
        return {name: load(name) for name in EXPECTED}
    finally:
        socket.socket = real_socket


def test_catalog_lists_exactly_the_documented_sets(catalog):
    assert set(catalog) == set(EXPECTED)
    assert set(EXPECTED) <= set(names("file", include_unlisted=True))
    assert "mnist" not in names()  # the full MNIST is for the reproductions, not the app's lists
    files = {p.name for p in SAMPLE_DATA.glob("*.npz")}
    assert files == {meta["file"] for meta in catalog.values()}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_shape_dtype_and_class_counts(name, loaded, catalog):
    n, d, counts, image_shape, n_test = EXPECTED[name]
    ds = loaded[name]
    assert ds.X.shape == (n, d)
    assert ds.X.dtype == np.float64 and ds.y.dtype == np.int64
    assert np.all(np.isfinite(ds.X))
    assert np.bincount(ds.y).tolist() == counts
    assert ds.n_classes == len(counts) == len(set(ds.target_names))
    assert len(ds.feature_names) == d
    assert ds.image_shape == image_shape
    meta = catalog[name]
    assert (meta["n_samples"], meta["n_features"], meta["n_classes"]) == (n, d, len(counts))
    assert list(meta["class_counts"].values()) == counts
    assert list(meta["class_counts"]) == ds.target_names
    assert len(meta["summary"]) <= 60
    assert meta["description"] and meta["source"] and meta["licence"]
    if n_test is None:
        assert ds.test_mask is None
    else:
        assert ds.test_mask.dtype == bool and ds.test_mask.shape == (n,)
        assert int(ds.test_mask.sum()) == n_test == meta["n_test"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_no_constant_columns_unless_documented(name, loaded):
    X = loaded[name].X
    n_constant = int(np.sum(X.min(axis=0) == X.max(axis=0)))
    assert n_constant == CONSTANT_COLUMNS.get(name, 0)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_files_hold_no_objects_and_the_smallest_exact_dtype(name, catalog):
    with np.load(SAMPLE_DATA / catalog[name]["file"], allow_pickle=False) as npz:
        arrays = {key: npz[key] for key in npz.files}
    assert {"X", "y", "feature_names", "target_names"} <= set(arrays)
    assert all(a.dtype != object for a in arrays.values())
    assert arrays["feature_names"].dtype.kind == "U"
    assert arrays["target_names"].dtype.kind == "U"
    assert str(arrays["X"].dtype) == FILE_DTYPES.get(name, "float64")


def test_image_sets_are_grey_levels_with_consistent_shape(loaded):
    for name in ("digits", "mnist_5000", "usps"):
        ds = loaded[name]
        assert ds.image_shape[0] * ds.image_shape[1] == ds.n_features
        assert ds.X.min() == 0 and ds.X.max() == (16 if name == "digits" else 255)
        assert np.all(ds.X == np.round(ds.X))


@pytest.mark.parametrize(
    ("name", "n_train", "n_test", "min_accuracy"),
    [
        ("usps", 3000, 600, 0.9),
        ("mnist_5000", 4000, 1000, 0.85),
    ],
)
def test_image_labels_match_the_images(name, n_train, n_test, min_accuracy, loaded):
    # 1-NN on raw pixels is ~95 % on these digits; misaligned labels would give ~10 %.
    ds = loaded[name]
    order = np.random.default_rng(0).permutation(ds.n_samples)
    train, test = order[:n_train], order[n_train : n_train + n_test]
    knn = KNeighborsClassifier(n_neighbors=1).fit(ds.X[train], ds.y[train])
    assert knn.score(ds.X[test], ds.y[test]) > min_accuracy


def test_usps_seeded_split_has_the_original_per_digit_sizes(loaded):
    ds = loaded["usps"]
    assert int((~ds.test_mask).sum()) == 7291
    assert np.bincount(ds.y[ds.test_mask]).tolist() == USPS_ORIGINAL_TEST_COUNTS
    assert "NOT the original split" in ds.description


def test_satellite_test_mask_is_the_original_last_2000_rows(loaded):
    mask = loaded["satellite"].test_mask
    assert not mask[:4435].any() and mask[4435:].all()


def test_scikit_learn_sets_are_unchanged(loaded):
    from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

    for name, loader in [
        ("iris", load_iris),
        ("wine", load_wine),
        ("wdbc", load_breast_cancer),
        ("digits", load_digits),
    ]:
        bunch = loader()
        np.testing.assert_array_equal(loaded[name].X, bunch.data)
        np.testing.assert_array_equal(loaded[name].y, bunch.target)


def test_balance_follows_its_rule(loaded):
    ds = loaded["balance"]
    lw, ld, rw, rd = ds.X.T
    expected = np.where(lw * ld > rw * rd, 0, np.where(lw * ld == rw * rd, 1, 2))
    np.testing.assert_array_equal(ds.y, expected)
    assert ds.target_names == ["L", "B", "R"]
    assert len({tuple(row) for row in ds.X}) == 625  # every combination once


def test_documented_feature_facts(loaded):
    bc = loaded["breast_cancer_wisconsin"]
    assert bc.target_names == ["benign", "malignant"]
    assert bc.X.min() == 1 and bc.X.max() == 10 and "Id" not in bc.feature_names
    iono = loaded["ionosphere"]
    assert "V2" not in iono.feature_names and set(np.unique(iono.X[:, 0])) == {0.0, 1.0}
    assert np.all(np.abs(iono.X[:, 1:]) <= 1)
    assert np.all(loaded["musk2"].X == np.round(loaded["musk2"].X))
    sat = loaded["satellite"].X
    assert sat.min() >= 0 and sat.max() <= 255
    assert loaded["yeast"].target_names[:3] == ["CYT", "NUC", "MIT"]
    assert len(loaded["glass"].target_names) == 6


def test_provenance_documents_every_set(catalog):
    text = (SAMPLE_DATA / "PROVENANCE.md").read_text()
    for name, meta in catalog.items():
        assert f"| {name} | {meta['n_samples']} × {meta['n_features']}" in text
    assert "NOT the original 7291/2007 split" in text


def test_total_size_stays_small():
    """About 4 MB of small sets plus the full MNIST (11.3 MB), shipped for the TDL paper's Table 2."""
    total = sum(p.stat().st_size for p in SAMPLE_DATA.iterdir())
    assert total < 20 * 1024 * 1024


def test_data_list_prints_every_set():
    out = subprocess.run(
        [sys.executable, "-m", "metriclab", "data", "list"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    for name in names():
        assert name in out


def test_every_name_load_takes_is_listed_on_request():
    """Issue 38: `names(include_unlisted=True)` is every name `load` takes (the full MNIST and the
    699-row breast cancer set included), documented, and an unknown name's error lists them all;
    `names()` stays the app's lists."""
    from metriclab.datasets import core, entry

    every = names(include_unlisted=True)
    assert set(every) == set(core._ENTRIES) and len(every) == len(set(every))
    for name in ("mnist", "breast_cancer_wisconsin_699"):
        assert name in every and name not in names() and not entry(name).listed
        assert name in names("file", include_unlisted=True)
        assert f"``{name}``" in names.__doc__
    assert "include_unlisted" in names.__doc__ and "every name" in names.__doc__
    assert set(names()) == {n for n in every if entry(n).listed}
    with pytest.raises(ValueError, match="unknown data set 'nope'; load\\(\\) takes: ") as info:
        load("nope")
    assert "mnist" in str(info.value) and "breast_cancer_wisconsin_699" in str(info.value)
    assert all(n in str(info.value) for n in every)
    with pytest.raises(ValueError, match="kind must be"):
        names("files")
