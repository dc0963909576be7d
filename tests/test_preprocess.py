"""Feature scaling (metriclab.preprocess): the scalers, which points they are fitted on, each data
set's default, and the choice carried through compare, its cache and the command line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.preprocessing import MinMaxScaler, StandardScaler

import metriclab.preprocess as preprocess_module
from metriclab.__main__ import main
from metriclab.datasets import Dataset, default_preprocess, default_scaling, load, names
from metriclab.evaluation import (
    CompareRequest,
    SplitRequest,
    compare,
    evaluate_split,
    fit_split,
    knn_accuracy,
    splits,
    summarize,
)
from metriclab.methods import REGISTRY
from metriclab.preprocess import (
    PREPROCESS,
    make_scaler,
    resolve_preprocess,
    scale_features,
    scale_train_test,
    scaler_fit_rows,
)


def _with_constant_column(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 3)) * [1.0, 100.0, 0.01]
    return np.column_stack([X, np.full(40, 7.5)])


# ----------------------------------------------------------------------------- the scalers


def test_standardise_gives_z_scores_of_the_fit_rows_and_constant_columns_become_zero():
    X = _with_constant_column()
    fit = np.arange(40) < 25
    Z = scale_features("standardise", X, fit)
    assert np.all(np.isfinite(Z))
    np.testing.assert_allclose(Z[fit, :3].mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z[fit, :3].std(axis=0), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(Z[:, 3], 0.0)
    np.testing.assert_allclose(Z, StandardScaler().fit(X[fit]).transform(X))


def test_minmax_maps_the_fit_rows_into_the_unit_range_and_constant_columns_to_zero():
    X = _with_constant_column()
    Z = scale_features("minmax", X)
    assert np.all(np.isfinite(Z))
    np.testing.assert_allclose(Z[:, :3].min(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z[:, :3].max(axis=0), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(Z[:, 3], 0.0)
    fit = np.arange(40) % 2 == 0
    np.testing.assert_allclose(
        scale_features("minmax", X, fit), MinMaxScaler().fit(X[fit]).transform(X)
    )


def test_constant_column_on_the_training_part_only_stays_finite_on_test_points():
    X_train = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    X_test = np.array([[2.0, 9.0]])
    for key in ("standardise", "minmax"):
        _, Z_test = scale_train_test(key, X_train, X_test)
        assert np.all(np.isfinite(Z_test))
        assert Z_test[0, 1] == pytest.approx(4.0)  # scale 1 on the constant column: shifted only


def test_none_leaves_the_features_unchanged():
    X = _with_constant_column()
    np.testing.assert_array_equal(scale_features("none", X), X)
    assert make_scaler("none") is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("none", "none"),
        ("raw", "none"),
        ("standardise", "standardise"),
        ("standardize", "standardise"),
        ("Z-Score", "standardise"),
        ("minmax", "minmax"),
        ("[0, 1]", "minmax"),
        (" range ", "minmax"),
    ],
)
def test_spellings_resolve_to_one_key(text, key):
    assert resolve_preprocess(text) == key


@pytest.mark.parametrize("bad", ["bogus", "", "l2", 3])
def test_unknown_choice_is_a_clear_value_error(bad):
    with pytest.raises(ValueError, match="unknown preprocess"):
        resolve_preprocess(bad)


def test_auto_needs_a_data_set_and_then_is_its_default():
    with pytest.raises(ValueError, match="needs the data set"):
        resolve_preprocess("auto")
    assert resolve_preprocess("auto", "wine") == "minmax"
    assert resolve_preprocess(None, load("pima")) == "standardise"


# ----------------------------------------------------------------------------- data set defaults


def test_every_data_set_has_a_default_with_a_reason():
    for name in names():
        key, why = default_scaling(name)
        assert key in PREPROCESS and why, name


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("wine", "minmax"),  # TDL Table 1
        ("sonar", "minmax"),
        ("pima", "standardise"),  # KPCA trick
        ("glass", "standardise"),
        ("wdbc", "standardise"),  # other tabular
        ("digits", "none"),  # images
        ("usps", "none"),
        ("two_moons", "none"),  # synthetic: the papers' widths are in the generator's units
        ("harder_moons:shift=0.5", "none"),
    ],
)
def test_defaults_follow_the_papers(name, key):
    assert default_preprocess(name) == key


def test_an_upload_is_standardised_unless_it_is_images():
    rng = np.random.default_rng(0)
    table = Dataset(rng.normal(size=(10, 4)), np.arange(10) % 2, "my.csv", list("abcd"), ["0", "1"])
    assert default_preprocess(table) == "standardise"
    images = Dataset(
        rng.random((10, 4)), np.arange(10) % 2, "imgs", list("abcd"), ["0", "1"], image_shape=(2, 2)
    )
    assert default_preprocess(images) == "none"


# ----------------------------------------------------------------------------- which points


class SpyScaler(StandardScaler):
    """A StandardScaler that records the rows it was fitted on."""

    seen: list[np.ndarray] = []

    def fit(self, X, y=None, sample_weight=None):
        SpyScaler.seen.append(np.array(X, copy=True))
        return super().fit(X, y, sample_weight)


@pytest.fixture
def spy(monkeypatch):
    SpyScaler.seen = []
    monkeypatch.setattr(
        preprocess_module,
        "make_scaler",
        lambda key: SpyScaler() if preprocess_module.resolve_preprocess(key) != "none" else None,
    )
    return SpyScaler.seen


def _wine_split(seed=0):
    ds = load("wine")
    (_, mask), *_ = splits(ds.y, 1, fraction=0.1, seed=seed)
    return ds, mask


@pytest.mark.parametrize("method", ["euclidean", "nca", "pca", "zhang_mds"])
def test_inductive_protocol_fits_the_scaler_on_training_points_only(spy, method):
    ds, mask = _wine_split()
    spec = REGISTRY[method]
    out = evaluate_split(
        SplitRequest(spec, ds.X, ds.y, mask, {}, "inductive", "standardise"), "1nn"
    )
    assert out["status"] == "ok"
    assert len(spy) == 1
    np.testing.assert_array_equal(spy[0], ds.X[mask])  # no test point reaches fit


def test_changing_test_points_does_not_change_the_training_embedding():
    ds, mask = _wine_split()
    X_moved = ds.X.copy()
    X_moved[~mask] = X_moved[~mask] * 50.0 + 1000.0  # the test points move far away
    for method in ("euclidean", "nca"):
        spec = REGISTRY[method]
        a = fit_split(SplitRequest(spec, ds.X, ds.y, mask, {}, "inductive", "minmax"))
        b = fit_split(SplitRequest(spec, X_moved, ds.y, mask, {}, "inductive", "minmax"))
        Z_train, Z_test, Z_train2, Z_test2 = a.Z_train, a.Z_test, b.Z_train, b.Z_test
        np.testing.assert_allclose(Z_train2, Z_train, rtol=1e-10, atol=1e-10)
        assert not np.allclose(Z_test2, Z_test)


def test_transductive_methods_scale_with_all_points_features(spy):
    """TDL and LE build their graph on every point's features; their scaler sees the same points
    (no labels involved), as the TDL paper renormalised all points to [0, 1]."""
    ds, mask = _wine_split()
    for method in ("tdl", "le"):
        spy.clear()
        spec = REGISTRY[method]
        out = evaluate_split(
            SplitRequest(spec, ds.X, ds.y, mask, {}, "transductive", "minmax"), "1nn"
        )
        assert out["status"] == "ok"
        assert [rows.shape[0] for rows in spy] == [ds.n_samples]


def test_a_classifier_method_fits_its_scaler_on_the_labelled_points(spy):
    ds = load("digits")
    (_, mask), *_ = splits(ds.y, 1, n_train=100, seed=0)
    spec = REGISTRY["tangent_knn"]
    request = SplitRequest(
        spec, ds.X[:400], ds.y[:400], mask[:400], {}, "inductive", "standardise", (8, 8)
    )
    out = evaluate_split(request, "1nn")
    assert out["status"] == "ok"
    np.testing.assert_array_equal(spy[0], ds.X[:400][mask[:400]])


def test_scaler_fit_rows_are_the_labelled_rows_except_for_transductive_methods():
    mask = np.array([True, False, True, False])
    spec = REGISTRY
    for method in ("euclidean", "pca", "nca", "zhang_mds"):
        for protocol in ("transductive", "inductive"):
            np.testing.assert_array_equal(scaler_fit_rows(spec[method], protocol, mask), mask)
    assert scaler_fit_rows(spec["tdl"], "transductive", mask).all()
    assert scaler_fit_rows(spec["le"], "transductive", mask).all()
    np.testing.assert_array_equal(scaler_fit_rows(spec["tdl"], "inductive", mask), mask)


def test_euclidean_baseline_does_not_depend_on_the_protocol():
    """One scaler on the labelled points for the baseline under either protocol."""
    kwargs = {"n_splits": 3, "fraction": 0.1, "seed": 0, "preprocess": "standardise"}
    a = compare(CompareRequest("wine", [], protocol="transductive", **kwargs))
    b = compare(CompareRequest("wine", [], protocol="inductive", **kwargs))
    np.testing.assert_array_equal(a["accuracy"], b["accuracy"])


def test_fit_split_scales_like_the_page_expects():
    """fit_split under the pages' (transductive) protocol with standardise equals the method
    fitted on scaled features."""
    ds, mask = _wine_split()
    spec = REGISTRY["nca"]
    Z = fit_split(
        SplitRequest(spec, ds.X, ds.y, mask, {}, "transductive", "standardise")
    ).embedding()
    X_scaled = StandardScaler().fit(ds.X[mask]).transform(ds.X)
    expected = spec.make().fit(X_scaled[mask], ds.y[mask]).transform(X_scaled)
    np.testing.assert_allclose(Z, expected, rtol=1e-8, atol=1e-8)


def test_auto_width_is_computed_after_scaling():
    """TDL's heat width left at 'auto' comes from the scaled features: the same as TDL fitted on
    the [0, 1] features directly, and thousands of times smaller than on raw wine."""
    ds, mask = _wine_split()
    spec = REGISTRY["tdl"]
    scaled = fit_split(SplitRequest(spec, ds.X, ds.y, mask, preprocess="minmax")).estimator
    raw = fit_split(SplitRequest(spec, ds.X, ds.y, mask, preprocess="none")).estimator
    direct = spec.make()
    direct.fit(MinMaxScaler().fit_transform(ds.X), np.where(mask, ds.y, -1))
    assert scaled.width_ == pytest.approx(direct.width_, rel=1e-12)
    assert raw.width_ > 1000 * scaled.width_


# ----------------------------------------------------------------------------- compare


def test_wine_with_and_without_scaling_through_compare():
    """Wine at 10 % labels is about 0.65 raw and about 0.9 scaled, for the
    Euclidean baseline and NCA alike (proline, in the hundreds, decides raw distances)."""
    kwargs = {"n_splits": 5, "fraction": 0.1, "seed": 0}
    raw = summarize(
        compare(CompareRequest("wine", ["nca"], preprocess="none", **kwargs))
    ).set_index("method")
    auto = compare(CompareRequest("wine", ["nca"], **kwargs))
    assert set(auto["preprocess"]) == {"minmax"}  # the TDL paper's scaling is wine's default
    scaled = summarize(auto).set_index("method")
    assert raw.loc["euclidean", "accuracy_mean"] < 0.72
    assert raw.loc["nca", "accuracy_mean"] < 0.72
    assert scaled.loc["euclidean", "accuracy_mean"] > 0.85
    assert scaled.loc["nca", "accuracy_mean"] > 0.88
    z = summarize(compare(CompareRequest("wine", ["nca"], preprocess="standardise", **kwargs)))
    assert (z["accuracy_mean"] > 0.85).all()


def test_pima_with_and_without_scaling_through_compare():
    kwargs = {"n_splits": 5, "fraction": 0.1, "seed": 0}
    raw = summarize(compare(CompareRequest("pima", [], preprocess="none", **kwargs)))
    scaled = summarize(compare(CompareRequest("pima", [], **kwargs)))
    assert scaled["preprocess"].tolist() == ["standardise"]
    assert scaled["accuracy_mean"].iloc[0] > raw["accuracy_mean"].iloc[0] + 0.01


def test_euclidean_known_answer_with_standardised_features():
    ds = load("wine")
    results = compare(
        CompareRequest(ds, [], n_splits=3, n_train=40, seed=1, preprocess="standardise")
    )
    for (_, mask), acc in zip(
        splits(ds.y, 3, n_train=40, seed=1), results["accuracy"], strict=True
    ):
        scaler = StandardScaler().fit(ds.X[mask])
        Xs = scaler.transform(ds.X)
        assert acc == knn_accuracy(Xs[mask], ds.y[mask], Xs[~mask], ds.y[~mask])


def test_the_cache_key_includes_the_scaling(tmp_path):
    kwargs = {"n_splits": 2, "fraction": 0.1, "seed": 0}
    raw = compare(CompareRequest("wine", [], preprocess="none", **kwargs), cache=tmp_path)
    scaled = compare(CompareRequest("wine", [], preprocess="minmax", **kwargs), cache=tmp_path)
    assert not scaled["cached"].any()  # a different scaling is not served from the cache
    assert not np.allclose(raw["accuracy"], scaled["accuracy"])
    again = compare(CompareRequest("wine", [], preprocess="[0, 1]", **kwargs), cache=tmp_path)
    assert again["cached"].all()
    np.testing.assert_array_equal(again["accuracy"], scaled["accuracy"])


def test_a_bad_choice_fails_before_any_work():
    with pytest.raises(ValueError, match="unknown preprocess"):
        compare(CompareRequest("wine", ["nca"], preprocess="log"))


def test_summarize_pairs_each_scaling_with_its_own_baseline():
    kwargs = {"n_splits": 3, "fraction": 0.1, "seed": 0}
    both = pd.concat(
        [
            compare(CompareRequest("wine", ["nca"], preprocess="none", **kwargs)),
            compare(CompareRequest("wine", ["nca"], preprocess="standardise", **kwargs)),
        ]
    )
    summary = summarize(both).set_index(["method", "preprocess"])
    assert len(summary) == 4
    for key in ("none", "standardise"):
        assert summary.loc[("euclidean", key), "diff_vs_baseline"] == 0.0


# ----------------------------------------------------------------------------- command line


def test_cli_preprocess(capsys):
    base = ["compare", "--dataset", "wine", "--splits", "2", "--fraction", "0.1", "--quiet"]
    assert main([*base, "--no-cache", "--preprocess", "none"]) == 0
    raw = capsys.readouterr().out
    assert main([*base, "--no-cache", "--preprocess", "standardise"]) == 0
    scaled = capsys.readouterr().out
    assert "scaling" in raw.splitlines()[0]
    assert " none " in raw and " standardise " in scaled
    assert main([*base, "--no-cache"]) == 0
    assert " minmax " in capsys.readouterr().out  # auto: wine's default
    assert main([*base, "--no-cache", "--preprocess", "bogus"]) == 2
    assert "unknown preprocess 'bogus'" in capsys.readouterr().err
