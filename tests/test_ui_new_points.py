"""AppTest of the Embed page's new points (issue 37, item 2): `test=0.3` in the link draws the
held-out points where the method fitted without them maps them, with their 1-NN accuracy beside
the transductive one; a method without an out-of-sample map says so; a bad share is clamped with
a notice; a new point added by its x/y inputs is drawn as a star where `map_new_points` places it,
with its five nearest neighbours listed."""

from contextlib import contextmanager

import numpy as np
import pytest

from metriclab import TDL
from metriclab.datasets import load
from metriclab.evaluation import SplitRequest
from metriclab.evaluation.held_out import fit_held_out, held_out_mask, map_new_points
from metriclab.methods import REGISTRY, MethodSpec, register, specs_with, unregister
from metriclab.ui.embed.new_points import HELD_OUT_NAME, QUERY_NAME
from metriclab.ui.shared.compute import split_mask
from metriclab.ui.shared.fit_request import SplitRef
from tests.apptest_helpers import figures, run_page, values

TIMEOUT = 180


def assert_clean(at):
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def traces(fig, name):
    """The traces of points named `name...` (not their legend entries)."""
    return [
        t for t in fig["data"] if str(t.get("name", "")).startswith(name) and t.get("customdata")
    ]


def drawn_points(fig) -> dict[int, tuple[float, float]]:
    """index -> (x, y) of every point of the embedding chart (class traces and held-out trace)."""
    out = {}
    for t in fig["data"]:
        data = t.get("customdata")
        if not data or not isinstance(data[0], list) or not isinstance(data[0][0], int):
            continue
        for (index, *_), x, y in zip(data, values(t["x"]), values(t["y"]), strict=True):
            out[int(index)] = (float(x), float(y))
    return out


def metric(at, label):
    (found,) = [m for m in at.metric if m.label == label]
    return found.value


def page_fit(at, ds_name, method):
    """What the page fitted, rebuilt from its widgets: the data, the labelled points and a
    SplitRequest with the method's parameters and scaling."""
    ds = load(ds_name)
    state = at.session_state
    split = SplitRef(state["lab"], state["frac"], state["seed"])
    mask = split_mask(ds.y, split)
    spec = REGISTRY[method]
    prefix = f"p.{method}."
    params = {p.name: state[prefix + p.name] for p in spec.params if prefix + p.name in state}
    request = SplitRequest.of(spec, ds, mask, params, preprocess=state["pp"])
    return ds, mask, request, split.seed


def library_new_point(at, ds_name, method, x, test=0.3):
    """(fit, new, ref): the library's placement of new point `x` for the page's fit of `method`:
    `fit_held_out` without the share `test`, `map_new_points` against the points it saw (`ref`)."""
    ds, _, request, seed = page_fit(at, ds_name, method)
    fit = fit_held_out(request, test=test, seed=seed)
    ref = np.flatnonzero(~fit.held_out)
    new = map_new_points(
        fit.estimator, fit.scale([x]), fit.scale(ds.X[ref]), Z_reference=fit.embedding[ref]
    )
    return fit, new, ref


@pytest.mark.parametrize("method", ["tdl", "nca"])
def test_a_held_out_share_in_the_link_draws_the_mapped_points_and_their_accuracy(method):
    at = run_page("embed", {"ds": "iris", "method": method, "test": "0.3"}, TIMEOUT)
    assert_clean(at)
    assert at.session_state["test"] == pytest.approx(0.3)
    fig = figures(at)[0]
    (held,) = traces(fig, HELD_OUT_NAME)
    assert held["marker"]["symbol"] == "diamond-open"
    ds, mask, request, seed = page_fit(at, "iris", method)
    expected = held_out_mask(ds.y, 0.3, mask, seed)
    assert expected.sum() == 45
    assert sorted(int(c[0]) for c in held["customdata"]) == np.flatnonzero(expected).tolist()
    drawn = drawn_points(fig)
    assert len(drawn) == 150  # every point once: class traces, held-out trace, chart's edge
    # the numbers beside each other are the library's, on the fit without the held-out points
    fit = fit_held_out(request, test=0.3, seed=seed)
    np.testing.assert_array_equal(fit.held_out, expected)
    assert metric(at, "1-NN on held-out (mapped)") == f"{fit.held_out_accuracy:.3f}"
    beside = "1-NN transductive" if REGISTRY[method].transductive else "1-NN other unlabelled"
    assert metric(at, beside) == f"{fit.transductive_accuracy:.3f}"
    assert metric(at, "held out / fitted") == "45 / 105"
    assert any("kept out of" in c.value for c in at.caption)
    if not traces(fig, "drawn at the chart"):  # every point where it lies: the chart's 1-NN
        Z = np.array([drawn[i] for i in range(150)])
        ref, test = Z[mask], Z[expected]
        nearest = np.argmin(((test[:, None] - ref[None]) ** 2).sum(-1), axis=1)
        shown = np.mean(ds.y[mask][nearest] == ds.y[expected])
        assert f"{shown:.3f}" == f"{fit.held_out_accuracy:.3f}"


@contextmanager
def no_map_method():
    """A method `_no_map` registered while the block runs: an embedding without an
    out-of-sample map (Laplacian Eigenmaps' parameters, no `out_of_sample` tag)."""
    (le,) = [s for s in specs_with("transductive", "out_of_sample", "unsupervised")]
    register(
        MethodSpec(
            key="_no_map",
            label="No-map method",
            paper="test",
            params=le.params,
            factory=TDL,
            estimator=TDL,
            tags={"transductive", "graph"},
        )
    )
    try:
        yield "_no_map"
    finally:
        unregister("_no_map")


def test_a_method_without_an_out_of_sample_map_says_so_and_draws_none():
    with no_map_method():
        at = run_page("embed", {"ds": "iris", "method": "_no_map", "test": "0.3"}, TIMEOUT)
    assert_clean(at)
    assert any("has no out-of-sample map" in i.value for i in at.info)
    assert not traces(figures(at)[0], HELD_OUT_NAME)
    assert not [m for m in at.metric if "held-out" in m.label]


@pytest.mark.parametrize(
    "text, used, says",
    [("0.9", 0.5, "above the maximum"), ("-1", 0.0, "below the minimum"), ("abc", 0.0, "not a")],
)
def test_a_bad_share_in_the_link_is_clamped_with_a_notice(text, used, says):
    at = run_page("embed", {"ds": "two_moons", "method": "tdl", "test": text}, TIMEOUT)
    assert_clean(at)
    assert any("Held out" in w.value and says in w.value for w in at.warning)
    assert at.session_state["test"] == used
    held = traces(figures(at)[0], HELD_OUT_NAME)
    assert len(held) == (1 if used else 0)


def test_a_share_the_split_cannot_give_is_one_error_with_the_reason():
    query = {"ds": "iris", "method": "nca", "lab": "per_class", "per": "45", "test": "0.5"}
    at = run_page("embed", query, TIMEOUT)
    assert not at.exception, [e.message for e in at.exception]
    (error,) = at.error
    assert "label fewer points" in error.value
    assert not traces(figures(at)[0], HELD_OUT_NAME)


def test_a_new_point_is_drawn_where_the_method_maps_it_with_five_neighbours():
    at = run_page("embed", {"ds": "two_moons", "method": "tdl", "test": "0.3"}, TIMEOUT)
    assert_clean(at)
    # the input panel is built only when asked for (a slider move does not pay for it)
    assert not [f for f in figures(at) if "Input space" in str(f["layout"].get("title"))]
    assert "new_points_input_x" not in [w.key for w in at.number_input]
    at.toggle(key="new_points_open").set_value(True).run()
    at.number_input(key="new_points_input_x").set_value(0.5)
    at.number_input(key="new_points_input_y").set_value(0.25)
    at.button(key="new_points_input_add").click().run()
    assert_clean(at)
    fig = figures(at)[0]
    (star,) = traces(fig, QUERY_NAME)
    assert star["marker"]["symbol"] == "star"
    # the library's placement: fitted without the held-out points, the new point mapped
    fit, new, ref = library_new_point(at, "two_moons", "tdl", [0.5, 0.25])
    # the chart draws the embedding shifted, scaled and turned: carry the same map over
    drawn = drawn_points(fig)
    index = np.array(sorted(drawn))
    A = np.column_stack([fit.embedding[index, :2], np.ones(index.size)])
    W, *_ = np.linalg.lstsq(A, np.array([drawn[i] for i in index]), rcond=None)
    np.testing.assert_allclose(A @ W, [drawn[i] for i in index], atol=1e-9)
    expected = np.r_[new.coordinates[0, :2], 1.0] @ W
    np.testing.assert_allclose([values(star["x"])[0], values(star["y"])[0]], expected, atol=1e-9)
    # its five nearest neighbours under the method's metric, listed
    table = at.dataframe[0].value
    assert len(table) == 5 and list(table["rank"]) == [1, 2, 3, 4, 5]
    assert list(table["index"]) == ref[new.embedding_neighbours[0]].tolist()
    np.testing.assert_allclose(table["distance"], new.embedding_distances[0])
    # the input panel shows it too, and "Clear new points" removes it
    (panel,) = [f for f in figures(at) if "Input space" in str(f["layout"].get("title"))]
    (mark,) = traces(panel, QUERY_NAME)
    np.testing.assert_allclose([values(mark["x"])[0], values(mark["y"])[0]], [0.5, 0.25])
    at.button(key="new_points_clear").click().run()
    assert_clean(at)
    assert not traces(figures(at)[0], QUERY_NAME)


def test_an_image_set_adds_a_digit_moved_along_a_tangent_or_drawn_and_shows_its_neighbours():
    at = run_page("embed", {"ds": "digits", "method": "pca", "test": "0.3"}, TIMEOUT)
    assert_clean(at)
    at.toggle(key="new_points_open").set_value(True).run()
    at.selectbox(key="new_digit_move").set_value("rotation").run()
    at.slider(key="new_digit_amount.rotation").set_value(0.15)
    at.button(key="new_digit_add").click().run()
    assert_clean(at)
    (star,) = traces(figures(at)[0], QUERY_NAME)
    assert len(values(star["x"])) == 1
    assert len(at.dataframe[0].value) == 5
    grids = [f for f in figures(at) if "nearest under" in str(f["layout"].get("title", ""))]
    assert len(grids) == 2  # under the method's embedding and under the Euclidean input
    # drawn on the pixel grid (it starts from the digit chosen): a second new point
    at.toggle(key="new_digit_draw").set_value(True).run()
    assert_clean(at)
    at.button(key="new_digit_add").click().run()
    assert_clean(at)
    (star,) = traces(figures(at)[0], QUERY_NAME)
    assert len(values(star["x"])) == 2
