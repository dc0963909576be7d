"""New points (issue 37, item 2): held-out points mapped by each method's out-of-sample map, the
"no out-of-sample map" reason from the tags, and new points with their nearest neighbours."""

import numpy as np
import pytest

from metriclab import TDL
from metriclab.datasets import load
from metriclab.evaluation import SplitRequest, labeled_mask
from metriclab.evaluation.held_out import (
    NoOutOfSampleMap,
    fit_held_out,
    held_out_mask,
    map_new_points,
    out_of_sample_reason,
)
from metriclab.evaluation.scoring import classifier_accuracy
from metriclab.methods import REGISTRY, MethodSpec, register, specs_with, unregister


@pytest.fixture(scope="module")
def iris():
    ds = load("iris")
    return ds, labeled_mask(ds.y, fraction=0.2, seed=0)


def test_held_out_mask_is_seeded_stratified_and_never_labelled(iris):
    ds, mask = iris
    held = held_out_mask(ds.y, test=0.3, labeled=mask, seed=1)
    assert held.sum() == 45 and not np.any(held & mask)
    np.testing.assert_array_equal(np.bincount(ds.y[held]), [15, 15, 15])
    np.testing.assert_array_equal(held, held_out_mask(ds.y, 0.3, mask, seed=1))
    assert not np.array_equal(held, held_out_mask(ds.y, 0.3, mask, seed=2))
    with pytest.raises(ValueError, match="held-out share"):
        held_out_mask(ds.y, test=1.2)
    with pytest.raises(ValueError, match="label fewer points"):
        held_out_mask(ds.y, test=0.9, labeled=mask)


def test_every_method_with_coordinates_maps_held_out_points(iris):
    ds, mask = iris
    for spec in REGISTRY.values():
        if out_of_sample_reason(spec) is not None:
            continue
        fit = fit_held_out(
            SplitRequest(spec, ds.X, ds.y, mask, {}, preprocess="standard"), test=0.3, seed=0
        )
        held = fit.held_out
        assert held.sum() == 45 and not np.any(held & fit.labeled), spec.key
        assert np.all(np.isfinite(fit.embedding)), spec.key
        # the held-out coordinates are the estimator's out-of-sample map of the scaled points
        np.testing.assert_allclose(
            fit.held_out_coordinates,
            fit.estimator.transform(fit.scale(ds.X[held])),
            rtol=1e-9,
            atol=1e-9,
            err_msg=spec.key,
        )
        Z = fit.embedding
        expected = classifier_accuracy(Z[mask], ds.y[mask], Z[held], ds.y[held], "1nn")
        assert fit.held_out_accuracy == expected, spec.key
        seen = ~held & ~mask
        assert fit.transductive_accuracy == classifier_accuracy(
            Z[mask], ds.y[mask], Z[seen], ds.y[seen], "1nn"
        ), spec.key


def test_a_transductive_fit_never_sees_the_held_out_points(iris):
    ds, mask = iris
    (spec,) = [s for s in specs_with("transductive", "out_of_sample") if s.needs_labels][:1]
    fit = fit_held_out(SplitRequest(spec, ds.X, ds.y, mask, {}), test=0.3, seed=0)
    assert fit.estimator.embedding_.shape[0] == 150 - 45
    kept = fit.embedding[~fit.held_out]
    np.testing.assert_array_equal(kept, fit.estimator.embedding_)


def test_held_out_tdl_with_no_label_cost_equals_laplacian_eigenmaps(iris):
    """TDL with C = 0 (no labelled point) and λ = 1 is Laplacian Eigenmaps (Section 2.2): fitted
    on the same points, its Lemma 6 map places the held-out points where LE's Nyström map does."""
    ds, _ = iris
    (le,) = [s for s in specs_with("transductive", "out_of_sample", "unsupervised")]
    spec = register(
        MethodSpec(
            key="_tdl_no_cost",
            label="TDL with C = 0",
            paper="test",
            params=le.params,
            factory=lambda **p: TDL(lam=1.0, **p),
            tags=set(le.tags),
        )
    )
    try:
        none = np.zeros(150, dtype=bool)
        tdl = fit_held_out(
            SplitRequest(spec, ds.X, ds.y, none, {}, preprocess="standard"), test=0.3, seed=3
        )
        ref = fit_held_out(
            SplitRequest(le, ds.X, ds.y, none, {}, preprocess="standard"), test=0.3, seed=3
        )
    finally:
        unregister("_tdl_no_cost")
    np.testing.assert_array_equal(tdl.held_out, ref.held_out)
    assert float(np.abs(tdl.estimator.cost_).sum()) == 0.0
    np.testing.assert_allclose(tdl.embedding, ref.embedding, atol=1e-8)
    assert np.ptp(ref.held_out_coordinates) > 0
    assert tdl.held_out_accuracy is None and tdl.transductive_accuracy is None  # no labels


def test_methods_without_a_map_say_why():
    for spec in specs_with("classifier"):
        reason = out_of_sample_reason(spec)
        assert "classifier" in reason and spec.label in reason
        with pytest.raises(NoOutOfSampleMap, match="no coordinates"):
            fit_held_out(
                SplitRequest(
                    spec, np.zeros((10, 4)), np.arange(10) % 2, np.ones(10, dtype=bool), {}
                )
            )
    spec = MethodSpec(
        key="_no_map",
        label="No-map method",
        paper="test",
        params=[],
        factory=TDL,
        tags={"transductive"},
    )
    assert out_of_sample_reason(spec) == (
        "No-map method has no out-of-sample map: it embeds only the points it is fitted on"
    )
    with pytest.raises(NoOutOfSampleMap, match="no out-of-sample map"):
        fit_held_out(
            SplitRequest(spec, np.zeros((10, 2)), np.arange(10) % 2, np.ones(10, dtype=bool), {})
        )


def test_all_points_labelled_by_default_then_no_transductive_score(iris):
    ds, _ = iris
    (spec,) = [s for s in specs_with("mahalanobis", without=("classifier",))][:1]
    fit = fit_held_out(
        SplitRequest(spec, ds.X, ds.y, np.ones(len(ds.y), dtype=bool), {}),
        test=0.2,
        seed=0,
        classifier="nearest_mean",
    )
    assert fit.labeled.sum() == 120 and fit.transductive_accuracy is None
    assert 0.8 < fit.held_out_accuracy <= 1.0


def test_map_new_points_lists_neighbours_in_the_embedding_and_the_input(iris):
    ds, mask = iris
    (spec,) = [s for s in specs_with("transductive", "out_of_sample") if s.needs_labels][:1]
    fit = fit_held_out(
        SplitRequest(spec, ds.X, ds.y, mask, {}, preprocess="standard"), test=0.3, seed=0
    )
    X_fit = fit.scale(ds.X)[~fit.held_out]
    new = fit.scale(ds.X[fit.held_out][:4])
    placed = map_new_points(fit.estimator, new, X_fit, Z_reference=fit.estimator.embedding_)
    np.testing.assert_allclose(placed.coordinates, fit.held_out_coordinates[:4], atol=1e-9)
    assert placed.embedding_neighbours.shape == placed.input_neighbours.shape == (4, 5)
    d_emb = np.linalg.norm(fit.estimator.embedding_[None] - placed.coordinates[:, None], axis=2)
    d_in = np.linalg.norm(X_fit[None] - new[:, None], axis=2)
    np.testing.assert_allclose(np.sort(d_emb, axis=1)[:, :5], placed.embedding_distances)
    np.testing.assert_allclose(np.sort(d_in, axis=1)[:, :5], placed.input_distances)
    np.testing.assert_allclose(
        np.take_along_axis(d_in, placed.input_neighbours, axis=1), placed.input_distances
    )
    with pytest.raises(ValueError, match="features"):
        map_new_points(fit.estimator, np.zeros((1, 3)), X_fit)


def test_an_unsupervised_map_without_labels_learns_from_every_point_not_held_out(iris):
    ds, _ = iris
    (spec,) = specs_with("projection")[:1]
    none = np.zeros(150, dtype=bool)
    fit = fit_held_out(
        SplitRequest(spec, ds.X, ds.y, none, {}, preprocess="standard"), test=0.3, seed=0
    )
    seen = ~fit.held_out
    np.testing.assert_allclose(fit.scale(ds.X)[seen].mean(axis=0), 0, atol=1e-12)
    assert fit.estimator.pca_.n_samples_ == seen.sum() == 105
    assert fit.held_out_accuracy is None
