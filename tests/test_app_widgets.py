"""Widget grids built from Param specs, URL encoding, and the pure computations behind the pages."""

import numpy as np
import pytest

from metriclab import datasets
from metriclab.methods import REGISTRY
from metriclab.params import Param
from metriclab.ui.shared import compute
from metriclab.ui.shared.state import decode_like, encode, nearest_option
from metriclab.ui.shared.widgets import linear_grid, log_grid, param_options, param_values
from tests.apptest_helpers import fit_request, split_ref

ALL_PARAMS = [(key, p) for key, spec in REGISTRY.items() for p in spec.params] + [
    (name, p) for name in datasets.names() for p in datasets.entry(name).params
]


def test_log_grid_contains_the_papers_powers_of_two():
    grid = log_grid(1e-3, 1e4)
    assert {16.0, 128.0, 1024.0} <= set(grid)
    assert 15 <= len(grid) <= 60
    ratios = np.diff(np.log(grid))
    assert np.allclose(ratios, ratios[0])  # geometric


def test_log_grid_is_fine_enough_on_narrow_ranges_and_includes_extra_values():
    grid = log_grid(0.1, 2.0, include=[0.25])
    assert len(grid) >= 15 and 0.25 in grid and min(grid) >= 0.1 and max(grid) <= 2.0
    with pytest.raises(ValueError):
        log_grid(0, 1)


def test_linear_grid_spans_the_range():
    grid = linear_grid(0.0, 1.0, 11)
    assert grid[0] == 0.0 and grid[-1] == 1.0 and len(grid) == 11


@pytest.mark.parametrize("owner, p", ALL_PARAMS, ids=[f"{o}.{p.name}" for o, p in ALL_PARAMS])
def test_every_parameter_widget_offers_its_default_and_only_valid_values(owner, p):
    options = param_options(p)
    if options is None:
        return  # plain slider / number box / checkbox over the declared range
    assert p.default in options
    for value in options:
        assert p.validate(value) == value or value is None


def test_param_values_cover_grid_and_integer_sliders():
    assert param_values(Param("k", "k", "int", 5, low=1, high=6)) == [1, 2, 3, 4, 5, 6]
    width = Param("width", "w", "float", None, low=0.01, high=100.0, log=True)
    values = param_values(width)
    assert None not in values and min(values) >= 0.01 and max(values) <= 100.0
    assert param_values(Param("g", "g", "choice", "a", choices=("a", "b"))) == []
    assert param_values(Param("x", "x", "float", 1.0)) == []  # free number box: no grid


def test_url_encoding_round_trips():
    for value in (16.0, 0.25, 3, True, False, "sym", None):
        example = value if value is not None else 1.0
        assert decode_like(encode(value), example) == value
    assert encode(["iris", "wine"]) == "iris,wine"
    assert nearest_option(15.99999, [1.0, 16.0, 32.0]) == 16.0
    assert nearest_option(16.0, [1, 16, 32]) == 16 and isinstance(
        nearest_option(16.0, [1, 16]), int
    )
    with pytest.raises(ValueError):
        nearest_option("x", ["a", "b"])


def test_subsample_is_stratified_and_seeded():
    y = np.repeat([0, 1, 2], [500, 300, 200])
    idx = compute.subsample_indices(y, 100, seed=1)
    counts = np.bincount(y[idx])
    assert abs(counts[0] - 50) <= 1 and abs(counts[1] - 30) <= 1 and abs(counts[2] - 20) <= 1
    assert np.array_equal(idx, compute.subsample_indices(y, 100, seed=1))
    assert np.array_equal(compute.subsample_indices(y, None), np.arange(1000))


def test_fit_view_scores_the_euclidean_baseline_like_a_plain_1nn():
    ds = datasets.load("two_moons")
    mask = compute.split_mask(ds.y, split_ref("per_class", 5, 0))
    result = compute.fit_view((ds, mask), fit_request("two_moons", "euclidean"))
    from sklearn.neighbors import KNeighborsClassifier

    expected = KNeighborsClassifier(1).fit(ds.X[mask], ds.y[mask]).score(ds.X[~mask], ds.y[~mask])
    assert result.accuracy == pytest.approx(expected)
    np.testing.assert_array_equal(result.Z, ds.X)
    assert int(result.mask.sum()) == 10


def test_fit_view_rejects_image_methods_on_vector_data():
    image_methods = [s for s in REGISTRY.values() if s.input == "image"]
    if not image_methods:
        pytest.skip("no image method registered")
    ds = datasets.load("two_moons")
    with pytest.raises(ValueError, match="image data set"):
        compute.method_kwargs(image_methods[0], ds, {})


def test_window_accuracy_fills_the_grid_and_marks_failures_as_gaps():
    ds = datasets.load("two_moons", n_samples=60)
    mask = compute.split_mask(ds.y, split_ref("fraction", 0.2))
    request = fit_request("two_moons", "nca")
    calls = []
    axes = (("n_components", [0, 1, 2]), ("max_iter", [5, 10]))
    grid = compute.window_accuracy((ds, mask), request, axes, progress=lambda *a: calls.append(a))
    assert grid.shape == (3, 2)
    assert np.all(np.isnan(grid[0]))  # n_components = 0 is invalid: a gap, not an error
    assert np.all((grid[1:] >= 0) & (grid[1:] <= 1))
    assert [c[0] for c in calls] == list(range(1, 7)) and calls[-1][1] == 6


def _other_value(p: Param):
    """An allowed value of `p` other than its default (the widget's grid), else the default."""
    values = [v for v in param_values(p) if v != p.default]
    return values[len(values) // 2] if values else p.default


@pytest.mark.parametrize("method", sorted(REGISTRY))
def test_a_fit_request_is_read_back_from_its_link(method):
    """Issue 40 item 3: `FitRequest.from_link` is the inverse of `link`, from the link's values
    and from their text as the URL holds them, for every method (every parameter away from its
    default) on a generated data set with its generator's parameters."""
    from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef

    generator = {p.name: _other_value(p) for p in datasets.entry("harder_moons").params}
    params = {p.name: _other_value(p) for p in REGISTRY[method].params}
    for split in (SplitRef("per_class", 4, 2), SplitRef("fraction", 0.2, 0)):
        request = FitRequest(
            DataRef("harder_moons", generator, 120), split, method, params, scaling="minmax"
        )
        for key in ("method", "dmethod"):
            link = request.link(key)
            assert FitRequest.from_link(link, key) == request
            as_text = {k: encode(v) for k, v in link.items()} | {"mode": "live", "p.other.k": "3"}
            assert FitRequest.from_link(as_text, key) == request


def test_a_wrong_link_value_is_named():
    from metriclab.ui.shared.fit_request import FitRequest

    link = {"ds": "two_moons", "method": "tdl", "p.tdl.lam": "-1"}
    with pytest.raises(ValueError, match="lam"):
        FitRequest.from_link(link)
    with pytest.raises(ValueError, match="'method'"):
        FitRequest.from_link({"ds": "two_moons"})
    with pytest.raises(ValueError, match="unknown method"):
        FitRequest.from_link({"ds": "iris", "method": "nope"})
    bare = FitRequest.from_link({"ds": "iris", "method": "nca"})
    assert (bare.split.mode, bare.split.value, bare.split.seed, bare.params) == (
        "fraction",
        0.1,
        0,
        (),
    )


def test_a_value_not_among_options_that_include_auto_goes_to_the_nearest_not_to_auto():
    """An option may be None ("auto"): a value a page no longer offers goes to the nearest option
    (or a `near` stand-in that is one), never to None because no stand-in was named."""
    from metriclab.ui.shared.state import Rule, _still_allowed, validate_rule

    plain = Rule(None, [None, 1.0, 2.0], label="Width")
    assert _still_allowed(1.9, plain, "w")[0] == 2.0
    named = Rule("a", ["a", "b"], label="Set", near={"big": "b", "odd": "zzz"}.get)
    assert _still_allowed("big", named, "s")[0] == "b"
    assert _still_allowed("odd", named, "s")[0] == "a"  # a stand-in that is no option: default
    assert _still_allowed("other", named, "s")[0] == "a"
    assert validate_rule("big", named)[0] == "b"
