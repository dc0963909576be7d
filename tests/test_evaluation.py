"""The repeated-split engine: splits, protocols, classifiers, compare/summarize, errors, cache."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator

from metriclab.cache import ResultCache
from metriclab.datasets import Dataset, load
from metriclab.evaluation import (
    CompareRequest,
    SplitRequest,
    classifier_accuracy,
    compare,
    fit_split,
    knn_accuracy,
    nearest_mean_accuracy,
    parse_classifier,
    parse_method,
    splits,
    stratified_counts,
    summarize,
)
from metriclab.methods import REGISTRY
from metriclab.methods.registry import MethodSpec, Param


def iris() -> Dataset:
    return load("iris")


# ----------------------------------------------------------------------------- fakes

CALLS: dict[str, list] = {"fit": []}


class CountingIdentity(BaseEstimator):
    """Identity embedding that records every fit (its X shape and its labels)."""

    def __init__(self, shift=0.0, fail_on=None):
        self.shift = shift
        self.fail_on = fail_on

    def fit(self, X, y=None):
        CALLS["fit"].append((X.shape, None if y is None else np.asarray(y).copy()))
        if self.fail_on == "value":
            raise ValueError("shift is incompatible with this data (test failure)")
        if self.fail_on == "runtime":
            raise RuntimeError("did not converge (test failure)")
        if self.fail_on == "type":
            raise TypeError("a programming error")
        self.embedding_ = X + self.shift
        return self

    def transform(self, X):
        return X + self.shift


class MajorityClassifier(BaseEstimator):
    def fit(self, X, y):
        self.label_ = np.bincount(y).argmax()
        return self

    def predict(self, X):
        return np.full(len(X), self.label_)


def fake_spec(key, tags=(), **kw) -> MethodSpec:
    params = [Param("shift", "Shift", "float", 0.0, low=-10, high=10)]
    options = {"tags": set(tags)}
    options.update(kw)
    factory = options.pop("factory", CountingIdentity)
    if factory is CountingIdentity and "fail_on" in options:
        fail_on = options.pop("fail_on")

        def factory(shift=0.0, image_shape=None):  # noqa: ARG001
            return CountingIdentity(shift=shift, fail_on=fail_on)

    if factory is MajorityClassifier:
        params = []
    return MethodSpec(
        key=key, label=key.title(), paper="test", params=params, factory=factory, **options
    )


@pytest.fixture
def fakes(monkeypatch):
    CALLS["fit"].clear()
    specs = {
        "fake_inductive": fake_spec("fake_inductive"),
        "fake_transductive": fake_spec("fake_transductive", tags={"transductive", "out_of_sample"}),
        "fake_no_oos": fake_spec("fake_no_oos", tags={"transductive"}),
        "fake_value_error": fake_spec("fake_value_error", fail_on="value"),
        "fake_runtime_error": fake_spec("fake_runtime_error", fail_on="runtime"),
        "fake_type_error": fake_spec("fake_type_error", fail_on="type"),
        "fake_image": fake_spec("fake_image", tags={"needs_images"}),
        "fake_classifier": fake_spec(
            "fake_classifier", factory=MajorityClassifier, tags={"classifier"}
        ),
    }
    for key, spec in specs.items():
        monkeypatch.setitem(REGISTRY, key, spec)
    return specs


# ----------------------------------------------------------------------------- splits


def test_stratified_counts_are_proportional_and_sum_to_n_train():
    y = np.repeat([0, 1, 2], [60, 30, 10])
    counts = stratified_counts(y, 20)
    assert counts == {0: 12, 1: 6, 2: 2}
    counts = stratified_counts(y, 7)
    assert sum(counts.values()) == 7 and min(counts.values()) >= 1
    assert stratified_counts(y, 3) == {0: 1, 1: 1, 2: 1}
    with pytest.raises(ValueError, match="training points"):
        stratified_counts(y, 2)


@given(
    counts=st.lists(st.integers(1, 40), min_size=1, max_size=6),
    where=st.floats(0, 1),
)
@settings(max_examples=200, deadline=None)
def test_stratified_counts_properties(counts, where):
    counts = np.array(counts)
    n, c = int(counts.sum()), counts.size
    if n <= c:
        return
    n_train = c + int(where * (n - 1 - c))
    take = np.array(list(stratified_counts(np.repeat(np.arange(c), counts), n_train).values()))
    assert take.sum() == n_train and (take >= 1).all() and (take <= counts).all()
    if n_train <= np.maximum(counts - 1, 1).sum():  # then every class keeps a point to score
        assert (take <= np.maximum(counts - 1, 1)).all()
    larger = counts[:, None] > counts[None, :]
    assert (take[:, None] >= take[None, :])[larger].all()  # a larger class never gets fewer


def test_splits_are_stratified_seeded_and_independent_of_n_splits():
    y = np.repeat([0, 1, 2], [50, 30, 20])
    first = splits(y, 5, fraction=0.2, seed=1)
    again = splits(y, 3, fraction=0.2, seed=1)
    for (s1, m1), (s2, m2) in zip(first, again, strict=False):
        assert s1 == s2
        np.testing.assert_array_equal(m1, m2)
    for _, mask in first:
        assert [int(mask[y == c].sum()) for c in range(3)] == [10, 6, 4]
    masks = [m for _, m in first]
    assert all(not np.array_equal(masks[0], m) for m in masks[1:])  # splits differ
    other = splits(y, 1, fraction=0.2, seed=2)[0][1]
    assert not np.array_equal(other, masks[0])
    for _, mask in splits(y, 4, n_train=17, seed=0):
        assert mask.sum() == 17
        assert [int(mask[y == c].sum()) for c in range(3)] == [
            9,
            5,
            3,
        ]  # 8.5, 5.1, 3.4 by largest remainder
    for _, mask in splits(y, 2, per_class=3, seed=0):
        assert [int(mask[y == c].sum()) for c in range(3)] == [3, 3, 3]


def test_unstratified_splits_are_redrawn_until_every_class_is_labeled():
    y = np.repeat([0, 1, 2], [90, 5, 5])
    # a simple random sample of 6 out of 100 holds both rare classes only about 7% of the time
    draws = splits(y, 10, n_train=6, stratify=False, seed=0)
    for _, mask in draws:
        assert mask.sum() == 6
        assert set(np.unique(y[mask])) == {0, 1, 2}
    assert len({tuple(np.flatnonzero(m)) for _, m in draws}) == 10


def test_splits_reject_bad_requests():
    y = np.repeat([0, 1], 10)
    with pytest.raises(ValueError, match="exactly one"):
        splits(y, 2, fraction=0.1, n_train=4)
    with pytest.raises(ValueError, match="n_splits"):
        splits(y, 0, fraction=0.1)
    with pytest.raises(ValueError, match="training points"):
        splits(y, 2, n_train=20)


# ----------------------------------------------------------------------------- classifiers


def test_parse_classifier_and_method():
    assert parse_classifier("1nn") == ("knn", 1)
    assert parse_classifier("knn:7") == ("knn", 7)
    assert parse_classifier("nearest_mean") == ("nearest_mean", 0)
    for bad in ("knn:0", "knn:x", "svm"):
        with pytest.raises(ValueError, match="classifier"):
            parse_classifier(bad)
    assert parse_method("lmnn:k=5,n_components=2") == ("lmnn", {"k": 5, "n_components": 2})
    assert parse_method("tdl:laplacian=sym,lam=0.5") == ("tdl", {"laplacian": "sym", "lam": 0.5})
    assert parse_method("pca") == ("pca", {})
    with pytest.raises(ValueError, match="name=value"):
        parse_method("pca:5")


def test_knn_with_k_greater_than_one_outvotes_a_mislabeled_neighbour():
    Z_train = np.array([[0.0], [0.1], [-0.1], [5.0], [5.1]])
    y_train = np.array([1, 0, 0, 1, 1])  # the point at 0.0 is a lone class-1 point in class 0
    Z_test, y_test = np.array([[0.01]]), np.array([0])
    assert classifier_accuracy(Z_train, y_train, Z_test, y_test, "1nn") == 0.0
    assert classifier_accuracy(Z_train, y_train, Z_test, y_test, "knn:3") == 1.0
    assert classifier_accuracy(Z_train, y_train, Z_test, y_test, "nearest_mean") == 1.0
    with pytest.raises(ValueError, match="NaN"):
        classifier_accuracy(Z_train * np.nan, y_train, Z_test, y_test)


# ----------------------------------------------------------------------------- compare


def test_compare_on_iris_euclidean_and_pca():
    ds = iris()
    results = compare(
        CompareRequest(
            ds, [("pca", {"n_components": 2})], n_splits=4, n_train=30, seed=0, preprocess="none"
        )
    )
    assert len(results) == 2 * 4
    assert list(results["method"].unique()) == ["euclidean", "pca"]  # baseline added first
    assert (results["status"] == "ok").all()
    assert results["accuracy"].between(0, 1).all()
    assert (results["n_labeled"] == 30).all() and (results["n_scored"] == 120).all()
    np.testing.assert_allclose(results["error_pct"], 100 * (1 - results["accuracy"]))
    # known answer: each Euclidean row equals 1-NN in the input space on the same split
    for (_, mask), acc in zip(
        splits(ds.y, 4, n_train=30, seed=0),
        results.loc[results.method == "euclidean", "accuracy"],
        strict=True,
    ):
        assert acc == knn_accuracy(ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask])
    assert list(results.loc[results.method == "euclidean", "seed"]) == [
        s for s, _ in splits(ds.y, 4, n_train=30, seed=0)
    ]
    summary = summarize(results)
    base = summary[summary.method == "euclidean"].iloc[0]
    assert base["diff_vs_baseline"] == 0 and base["ties"] == 4
    assert base["wins"] == base["losses"] == 0 and math.isnan(base["p_value"])
    pca = summary[summary.method == "pca"].iloc[0]
    accs = results.loc[results.method == "pca", "accuracy"]
    assert pca["accuracy_mean"] == pytest.approx(accs.mean())
    assert pca["accuracy_std"] == pytest.approx(accs.std(ddof=1))
    assert pca["wins"] + pca["ties"] + pca["losses"] == 4
    diff = accs.to_numpy() - results.loc[results.method == "euclidean", "accuracy"].to_numpy()
    assert pca["diff_vs_baseline"] == pytest.approx(diff.mean())


def test_compare_is_reproducible_and_accepts_names_dicts_and_lists():
    a = compare(
        CompareRequest("two_moons", {"pca": {"n_components": 1}}, n_splits=3, fraction=0.2, seed=5)
    )
    b = compare(
        CompareRequest("two_moons", ["pca:n_components=1"], n_splits=3, fraction=0.2, seed=5)
    )
    pd.testing.assert_frame_equal(a.drop(columns="fit_time_s"), b.drop(columns="fit_time_s"))
    shifted = compare(CompareRequest("harder_moons:shift=0.5", [], n_splits=1, fraction=0.2))
    assert shifted["dataset"].iloc[0] == "harder_moons"
    with pytest.raises(ValueError, match="no parameter"):
        compare(CompareRequest("harder_moons:nope=1", [], n_splits=1, fraction=0.2))
    both = compare(
        CompareRequest(["two_moons", "two_rings"], [("pca", {})], n_splits=2, fraction=0.2)
    )
    assert list(both["dataset"].unique()) == ["two_moons", "two_rings"]
    assert len(both) == 2 * 2 * 2
    with pytest.raises(ValueError, match="unknown method"):
        compare(CompareRequest("two_moons", ["no_such_method"]))
    with pytest.raises(ValueError, match="protocol"):
        compare(CompareRequest("two_moons", ["pca"], protocol="semi"))
    with pytest.raises(ValueError, match="classifier"):
        compare(CompareRequest("two_moons", ["pca"], classifier="svm"))


def test_protocols_show_each_method_the_right_points(fakes):
    ds = load("two_moons")
    n = ds.n_samples
    results = compare(
        CompareRequest(ds, ["fake_transductive"], n_splits=1, fraction=0.1, protocol="auto")
    )
    assert results["protocol"].tolist() == ["inductive", "transductive"]
    shape_t, y_t = CALLS["fit"][-1]
    assert shape_t == (n, 2)  # transductive: fitted on every point ...
    assert int((y_t == -1).sum()) == results["n_scored"].iloc[1]  # ... with held-out labels hidden
    CALLS["fit"].clear()
    results = compare(
        CompareRequest(ds, ["fake_transductive"], n_splits=1, fraction=0.1, protocol="inductive")
    )
    assert results["protocol"].tolist() == ["inductive", "inductive"]
    shape, y_seen = CALLS["fit"][-1]
    assert shape == (results["n_labeled"].iloc[1], 2) and (y_seen >= 0).all()
    results = compare(
        CompareRequest(ds, ["fake_no_oos"], n_splits=2, fraction=0.1, protocol="inductive")
    )
    assert (
        results["status"].iloc[-1]
        == "Fake_No_Oos has no out-of-sample map; use the transductive protocol"
    )


def test_default_split_size_follows_the_methods(fakes):
    ds = load("two_moons")
    transductive = compare(CompareRequest(ds, ["fake_transductive"], n_splits=1))
    assert transductive["n_labeled"].iloc[0] == round(0.1 * ds.n_samples)
    inductive = compare(CompareRequest(ds, ["fake_inductive"], n_splits=1))
    assert inductive["n_labeled"].iloc[0] == min(100, ds.n_samples // 2)


def test_errors_are_recorded_not_raised(fakes):
    ds = load("two_moons")
    results = compare(
        CompareRequest(
            ds,
            [
                ("fake_value_error", {}),
                ("fake_runtime_error", {}),
                ("pca", {"n_components": 0}),
                ("fake_image", {}),
                ("fake_inductive", {}),
            ],
            n_splits=2,
            fraction=0.2,
        )
    )
    status = results.groupby("method", sort=False)["status"].first()
    assert status["fake_value_error"] == "shift is incompatible with this data (test failure)"
    assert status["fake_runtime_error"] == "RuntimeError: did not converge (test failure)"
    assert "n_components must be >= 1, got 0" in status["pca"]
    assert "needs image data" in status["fake_image"]
    assert status["fake_inductive"] == status["euclidean"] == "ok"
    failed = results[results.status != "ok"]
    assert failed["accuracy"].isna().all() and len(failed) == 4 * 2
    summary = summarize(results).set_index("method")
    assert summary.loc["fake_value_error", "n_failed"] == 2
    assert summary.loc["fake_value_error", "n_splits"] == 0
    assert summary.loc["fake_inductive", "n_splits"] == 2
    with pytest.raises(TypeError, match="programming error"):  # bugs are not hidden
        compare(CompareRequest(ds, ["fake_type_error"], n_splits=1, fraction=0.2))


def test_classifier_methods_use_their_own_predict(fakes):
    ds = load("two_moons")
    results = compare(
        CompareRequest(ds, ["fake_classifier"], n_splits=2, fraction=0.5, classifier="knn:3")
    )
    row = results[results.method == "fake_classifier"].iloc[0]
    assert row["classifier"] == "own predict"
    assert row["accuracy"] == pytest.approx(0.5)  # majority vote on balanced moons


def test_progress_is_called_after_every_job():
    calls = []
    compare(
        CompareRequest("two_moons", ["pca"], n_splits=3, fraction=0.2),
        progress=lambda done, total, msg: calls.append((done, total, msg)),
    )
    assert [c[0] for c in calls] == list(range(1, 7))
    assert all(c[1] == 6 for c in calls)
    assert "split 3/3" in calls[-1][2]


def test_parallel_loky_run_equals_serial_run():
    serial = compare(CompareRequest(iris(), ["pca"], n_splits=4, n_train=30), n_jobs=1)
    parallel = compare(CompareRequest(iris(), ["pca"], n_splits=4, n_train=30), n_jobs=2)
    pd.testing.assert_frame_equal(
        serial.drop(columns="fit_time_s"), parallel.drop(columns="fit_time_s")
    )


# ----------------------------------------------------------------------------- cache


def test_cache_hit_returns_identical_numbers_without_refitting(fakes, tmp_path):
    ds = load("two_moons")
    cache = ResultCache(tmp_path)
    first = compare(
        CompareRequest(ds, [("fake_inductive", {"shift": 1.0})], n_splits=3, fraction=0.2),
        cache=cache,
    )
    fits = len(CALLS["fit"])
    assert fits == 3 and not first["cached"].any()
    assert len(cache) == 6  # euclidean and the fake, 3 splits each
    second = compare(
        CompareRequest(ds, [("fake_inductive", {"shift": 1.0})], n_splits=3, fraction=0.2),
        cache=cache,
    )
    assert len(CALLS["fit"]) == fits  # nothing refitted
    assert second["cached"].all()
    pd.testing.assert_frame_equal(first.drop(columns="cached"), second.drop(columns="cached"))
    # other parameters, classifier or split seed are other keys
    compare(
        CompareRequest(ds, [("fake_inductive", {"shift": 2.0})], n_splits=1, fraction=0.2),
        cache=cache,
    )
    assert len(CALLS["fit"]) == fits + 1
    compare(
        CompareRequest(ds, [("fake_inductive", {"shift": 1.0})], n_splits=1, fraction=0.2, seed=9),
        cache=cache,
    )
    assert len(CALLS["fit"]) == fits + 2
    # a different data set content with the same name is a different key
    moved = Dataset(ds.X + 1.0, ds.y, ds.name, ds.feature_names, ds.target_names)
    compare(
        CompareRequest(moved, [("fake_inductive", {"shift": 1.0})], n_splits=1, fraction=0.2),
        cache=cache,
    )
    assert len(CALLS["fit"]) == fits + 3


def test_corrupt_cache_entries_are_recomputed(fakes, tmp_path):
    ds = load("two_moons")
    cache = ResultCache(tmp_path)
    first = compare(CompareRequest(ds, ["fake_inductive"], n_splits=3, fraction=0.2), cache=cache)
    files = sorted(tmp_path.glob("*/*.json"))
    assert len(files) == 6
    files[0].write_text("{ not json", encoding="utf-8")
    record = json.loads(files[1].read_text())
    record["value"]["accuracy"] = 7.5  # not an accuracy
    files[1].write_text(json.dumps(record), encoding="utf-8")
    record = json.loads(files[2].read_text())
    record["key"]["method"] = "something else"  # stored under the wrong key
    files[2].write_text(json.dumps(record), encoding="utf-8")
    before = len(CALLS["fit"])
    again = compare(CompareRequest(ds, ["fake_inductive"], n_splits=3, fraction=0.2), cache=cache)
    assert int((~again["cached"]).sum()) == 3  # the three bad entries, nothing else
    assert len(CALLS["fit"]) - before <= 3
    pd.testing.assert_frame_equal(
        first.drop(columns=["cached", "fit_time_s"]), again.drop(columns=["cached", "fit_time_s"])
    )
    third = compare(CompareRequest(ds, ["fake_inductive"], n_splits=3, fraction=0.2), cache=cache)
    assert third["cached"].all()  # the bad files were rewritten
    assert not any(p.read_text().startswith("{ not") for p in tmp_path.glob("*/*.json"))


def test_cache_directory_from_environment(monkeypatch, tmp_path):
    from metriclab.cache import as_cache, default_directory

    monkeypatch.setenv("METRICLAB_CACHE", str(tmp_path / "c"))
    assert default_directory() == tmp_path / "c"
    assert as_cache(True).directory == tmp_path / "c"
    assert as_cache(None) is None
    compare(CompareRequest("two_moons", ["pca"], n_splits=1, fraction=0.2), cache=True)
    assert len(list((tmp_path / "c").glob("*/*.json"))) == 2
    with pytest.raises(ValueError, match="cache"):
        as_cache(3)


def test_nearest_mean_matches_direct_computation():
    ds = iris()
    results = compare(
        CompareRequest(ds, [], n_splits=2, n_train=30, classifier="nearest_mean", preprocess="none")
    )
    for (_, mask), acc in zip(splits(ds.y, 2, n_train=30), results["accuracy"], strict=True):
        assert acc == nearest_mean_accuracy(ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask])


def test_run_defaults_reach_compare_calls_that_leave_the_defaults(tmp_path):
    from metriclab.evaluation import run_defaults

    with run_defaults(n_jobs=1, cache=tmp_path):
        first = compare(CompareRequest("two_moons", ["pca"], n_splits=2, fraction=0.2))
        again = compare(CompareRequest("two_moons", ["pca"], n_splits=2, fraction=0.2))
        off = compare(CompareRequest("two_moons", ["pca"], n_splits=2, fraction=0.2), cache=False)
    assert not first["cached"].any() and again["cached"].all() and not off["cached"].any()
    outside = compare(CompareRequest("two_moons", ["pca"], n_splits=2, fraction=0.2))
    assert not outside["cached"].any()


def test_code_version_follows_the_method_module_and_its_metriclab_imports(monkeypatch):
    from metriclab import cache as cache_module

    # a registry entry (the factory module of the image and KPCA-trick methods is their specs module)
    module = "metriclab.methods.specs.baselines"
    deps = cache_module.metriclab_dependencies(module)
    assert {module, "metriclab.methods.baselines", "metriclab.methods.registry"} <= set(deps)
    assert "metriclab.params" in deps
    before = cache_module.code_version(module)
    real = cache_module.module_source

    def edited(name):  # as if params.py (imported through registry.py) had been edited
        return real(name) + ("\n# edited" if name == "metriclab.params" else "")

    monkeypatch.setattr(cache_module, "module_source", edited)
    cache_module.module_digest.cache_clear()
    try:
        assert cache_module.code_version(module) != before
    finally:
        monkeypatch.undo()
        cache_module.module_digest.cache_clear()
    assert cache_module.code_version(module) == before


# ----------------------------------------------------------------------------- fit_split


def test_fit_split_puts_the_embedding_back_in_the_data_order():
    ds = iris()
    (_, mask), *_ = splits(ds.y, 1, n_train=30, seed=0)
    for protocol in ("transductive", "inductive"):
        fitted = fit_split(SplitRequest(REGISTRY["euclidean"], ds.X, ds.y, mask, {}, protocol))
        np.testing.assert_array_equal(fitted.Z_train, ds.X[mask])
        np.testing.assert_array_equal(fitted.Z_test, ds.X[~mask])
        np.testing.assert_array_equal(fitted.embedding(), ds.X)
        expected = knn_accuracy(ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask])
        assert fitted.accuracy() == expected


def test_fit_split_resolves_the_protocol_and_refuses_a_map_the_method_lacks():
    ds = load("two_moons", n_samples=80)
    (_, mask), *_ = splits(ds.y, 1, fraction=0.2, seed=0)
    assert fit_split(SplitRequest(REGISTRY["le"], ds.X, ds.y, mask)).protocol == "transductive"
    assert fit_split(SplitRequest(REGISTRY["nca"], ds.X, ds.y, mask)).protocol == "inductive"
    no_map = [s for s in REGISTRY.values() if s.transductive and not s.out_of_sample]
    for spec in no_map:
        with pytest.raises(ValueError, match="no out-of-sample map"):
            fit_split(SplitRequest(spec, ds.X, ds.y, mask, {}, "inductive"))
    with pytest.raises(ValueError, match="protocol must be"):
        fit_split(SplitRequest(REGISTRY["nca"], ds.X, ds.y, mask, {}, "both"))


def test_fit_split_of_a_classifier_predicts_the_held_out_points():
    ds = load("digits")
    X, y = ds.X[:300], ds.y[:300]
    (_, mask), *_ = splits(y, 1, n_train=100, seed=0)
    heard = []
    fitted = fit_split(
        SplitRequest(REGISTRY["tangent_knn"], X, y, mask, image_shape=ds.image_shape),
        progress=lambda *a: heard.append(a),
    )
    assert fitted.Z_train is None and fitted.embedding() is None
    assert fitted.predictions.shape == (int((~mask).sum()),)
    assert fitted.accuracy() == np.mean(fitted.predictions == y[~mask])
    assert fitted.accuracy() > 0.8
    assert heard[0] == (0, int((~mask).sum()), "fitting on 100 labeled points")
    with pytest.raises(ValueError, match="needs image data; moons is not an image data set"):
        fit_split(SplitRequest(REGISTRY["tangent_knn"], X, y, mask, data_name="moons"))


def test_fit_split_takes_a_graph_through_its_hook_and_only_where_a_method_is_fitted_on_one():
    from metriclab.graphs import build_graph

    ds = load("two_moons", n_samples=120)
    (_, mask), *_ = splits(ds.y, 1, fraction=0.2, seed=0)
    request = SplitRequest(REGISTRY["tdl"], ds.X, ds.y, mask, {"lam": 4.0})
    seen = []

    def graph(estimator, X):  # the estimator's own graph parameters, on the scaled features
        seen.append((estimator.n_neighbors, X.shape))
        return build_graph(X, "knn", n_neighbors=estimator.n_neighbors, width=estimator.width)

    hooked = fit_split(request, graph=graph)
    assert seen == [(REGISTRY["tdl"].make().n_neighbors, ds.X.shape)]
    np.testing.assert_allclose(np.abs(hooked.embedding()), np.abs(fit_split(request).embedding()))
    with pytest.raises(ValueError, match="not fitted on a neighbourhood graph"):
        fit_split(SplitRequest(REGISTRY["nca"], ds.X, ds.y, mask), graph=graph)
    with pytest.raises(ValueError, match="transductive fit"):
        fit_split(SplitRequest(REGISTRY["tdl"], ds.X, ds.y, mask, {}, "inductive"), graph=graph)


def test_a_compare_request_is_one_value_checked_before_any_data_loads():
    """Issue 40 item 4: compare takes one value; what the results depend on is in it, normalised
    (a name or a Dataset -> a tuple; method strings -> (key, params) pairs) and checked before
    a data set is loaded ('no_such_set' is never looked up)."""
    from dataclasses import FrozenInstanceError

    request = CompareRequest("iris", ["nca:max_iter=5", ("dne", None)], per_class=5)
    assert request.datasets == ("iris",)
    assert request.methods == (("nca", {"max_iter": 5}), ("dne", {}))
    with pytest.raises(FrozenInstanceError):
        request.seed = 1
    for options, message in (
        ({"fraction": 0.1, "per_class": 3}, "at most one"),
        ({"preprocess": "log"}, "unknown preprocess"),
        ({"protocol": "semi"}, "protocol"),
        ({"classifier": "svm"}, "classifier"),
    ):
        with pytest.raises(ValueError, match=message):
            CompareRequest("no_such_set", ["pca"], **options)
    with pytest.raises(ValueError, match="unknown method"):
        CompareRequest("no_such_set", ["no_such_method"])
    with pytest.raises(TypeError, match="CompareRequest"):
        compare("iris")  # the old call's first argument alone
