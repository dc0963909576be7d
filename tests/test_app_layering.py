"""Pages only draw: what they show is computed in metriclab.ui.shared.compute (cached in ui.shared.memo), and a
computation that fails is reported with its reason, never swallowed."""

import ast
from pathlib import Path

import numpy as np
import pytest

from metriclab import datasets
from metriclab.methods import REGISTRY
from metriclab.ui.shared import compute, memo
from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef
from tests.apptest_helpers import figures, run_page, values

PAGES = sorted((Path(__file__).resolve().parents[1] / "pages").glob("*.py"))
# Library layers a page must reach only through metriclab.ui (names in capitals are constants).
COMPUTING = ("metriclab.preprocess", "metriclab.evaluation", "metriclab.kernels",
             "metriclab.graphs", "metriclab.eigen", "scipy", "sklearn")  # fmt: skip


# What a page may ask the registry (lookups by key or tag; no algorithm).
REGISTRY_QUERIES = ("REGISTRY", "input_space", "projection", "specs_with")


def request(name, method):
    """A FitRequest of `method` at its defaults on all of data set `name` (20 % labelled)."""
    return FitRequest(DataRef(name), SplitRef("fraction", 0.2), method)


def _imports(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_a_page_has_no_cache_of_its_own_and_calls_no_algorithm(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("cache_data", "cache_resource"):
            pytest.fail(f"{path.name}:{node.lineno} caches a computation of its own")
    for module, names in _imports(tree):
        assert not module.startswith(COMPUTING), f"{path.name} imports {module}"
        if module.startswith("metriclab.methods"):
            called = [n for n in names if n not in REGISTRY_QUERIES and not n.isupper()]
            assert not called and module.count(".") <= 2, f"{path.name} imports {module}"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_a_page_swallows_no_error(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ExceptHandler):
            assert not all(isinstance(s, ast.Pass) for s in node.body), (
                f"{path.name}:{node.lineno} swallows an error"
            )


def test_window_map_reports_each_failing_cell_with_its_reason():
    ds = datasets.load("two_moons", n_samples=60)
    mask = compute.split_mask(ds.y, SplitRef("fraction", 0.2))
    grid = (("lam", [0.1, 1.0]), ("width", [-1.0, 1.0]))
    out = compute.window_map(ds, mask, request("two_moons", "tdl"), grid)
    assert np.isnan(out.grid[:, 0]).all() and np.isfinite(out.grid[:, 1]).all()
    assert np.isnan(out.baseline[:, 0]).all() and np.isfinite(out.baseline[:, 1]).all()
    assert out.baseline_label == REGISTRY["le"].label
    assert len(out.failures) == 3  # TDL twice; LE once (its width is shared by both λ rows)
    assert all("Heat width t must be" in f for f in out.failures)  # named as the slider
    assert sum(f.startswith(REGISTRY["le"].label) for f in out.failures) == 1


def test_window_map_without_a_baseline_compares_with_the_grids_median():
    ds = datasets.load("iris")
    mask = compute.split_mask(ds.y, SplitRef("fraction", 0.2))
    grid = (("n_components", [1, 2]), ("max_iter", [5, 10]))
    out = compute.window_map(ds, mask, request("iris", "nca"), grid, base_spec=None)
    assert out.baseline_label == "the grid's median" and not out.failures
    assert np.allclose(out.baseline, np.median(out.grid))


def test_embed_window_map_shows_a_failing_baseline_as_an_error_with_the_reason(monkeypatch):
    real = compute.fit_view

    def baseline_fails(view, fit_request, *args, **kwargs):
        if fit_request.method == "le":
            raise ValueError("the graph is disconnected (test)")
        return real(view, fit_request, *args, **kwargs)

    monkeypatch.setattr(compute, "fit_view", baseline_fails)
    memo._window.clear()
    memo.clear_fits()
    query = {"ds": "two_moons", "method": "tdl", "mode": "window", "grid": "3"}
    at = run_page("embed", {**query, "lab": "per_class", "per": "4"}, timeout=180)
    at.button(key="run_window").click().run()
    memo._window.clear()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "the graph is disconnected (test)" in errors[0], errors
    assert REGISTRY["le"].label in errors[0]
    assert figures(at)  # the method's own cells are still drawn, against the grid's median


def test_dissimilarity_checks_fall_back_to_the_labeled_inputs_distances():
    ds = datasets.load("iris")
    mask = compute.split_mask(ds.y, SplitRef("fraction", 0.3))
    result = compute.fit_view((ds, mask), request("iris", "pca"))
    checks = compute.dissimilarity_checks(ds, result, "none")
    X = ds.X[mask]
    assert checks.D.shape == (mask.sum(), mask.sum())
    assert checks.D[0, 1] == pytest.approx(np.linalg.norm(X[0] - X[1]))
    assert checks.D[2, 5] == pytest.approx(np.linalg.norm(X[2] - X[5]))
    assert np.array_equal(checks.labels, ds.y[mask])
    assert checks.which.startswith("Euclidean distances") and checks.gower.euclidean


def test_dissimilarity_checks_use_the_learned_dissimilarity():
    ds = datasets.load("iris")
    mask = compute.split_mask(ds.y, SplitRef("fraction", 0.3))
    result = compute.fit_view((ds, mask), request("iris", "zhang_mds"))
    checks = compute.dissimilarity_checks(ds, result, "none")
    assert checks.which == "the learned dissimilarity"
    assert checks.D is result.extras["dissimilarity_"]


def test_tangent_neighbours_are_training_images_nearest_first():
    ds = datasets.load("digits")
    keep = compute.subsample_indices(ds.y, 300)
    ds = datasets.Dataset(
        ds.X[keep], ds.y[keep], "digits", [], ds.target_names, image_shape=ds.image_shape
    )
    mask = compute.split_mask(ds.y, SplitRef("fraction", 0.5))
    found = compute.tangent_neighbours(ds, mask, 3, "translation", True, k=4)
    query = ds.X[np.flatnonzero(~mask)[3]]
    for key in (compute.NEAREST_EUCLIDEAN, compute.NEAREST_TANGENT):
        idx, dist = found[key]
        assert len(idx) == 4 and mask[idx].all() and np.all(np.diff(dist) >= 0)
    idx, dist = found[compute.NEAREST_EUCLIDEAN]
    assert dist == pytest.approx(np.linalg.norm(ds.X[idx] - query, axis=1))
    # the tangent distance of a pair is at most its Euclidean distance (α = β = 0 is allowed)
    assert found[compute.NEAREST_TANGENT][1][0] <= found[compute.NEAREST_EUCLIDEAN][1][0] + 1e-9
    with pytest.raises(ValueError, match="held-out"):
        compute.tangent_neighbours(ds, mask, 10_000, "translation", True)


@pytest.mark.parametrize("method", ["tdl", "le"])
def test_a_fits_spectrum_is_the_second_fits_eigenvalues(method):
    # the Embed page drew its 10-eigenvalue spectrum from a second fit on every slider move; the
    # fit now brings them (its estimator's `spectrum`): the same numbers, one fit
    ds = datasets.load("two_moons")
    mask = compute.split_mask(ds.y, SplitRef("fraction", 0.2))
    result = compute.fit_view((ds, mask), request("two_moons", method), spectrum=True)
    assert compute.fit_view((ds, mask), request("two_moons", method)).spectrum is None  # not asked
    more = compute.fit_view(
        (ds, mask), request("two_moons", method).with_params(n_components=10), spectrum=True
    )
    assert result.eigenvalues.size == 2 and result.spectrum.size == compute.SPECTRUM_SHOWN
    np.testing.assert_allclose(result.spectrum, more.eigenvalues, rtol=1e-9, atol=1e-12)
    assert more.spectrum is None  # it uses as many as the spectrum shows: nothing more to say
    assert compute.fit_view((ds, mask), request("two_moons", "pca"), spectrum=True).spectrum is None


def test_the_embed_page_draws_ten_eigenvalues_from_one_fit(monkeypatch):
    # a slider move on two moons fitted TDL twice (the second for the spectrum); now once, and the
    # spectrum still shows 10 eigenvalues, the 2 used first
    asked = []
    real = compute.fit_view

    def counted(view, req, *args, **kwargs):
        asked.append(dict(req.values).get("n_components"))
        return real(view, req, *args, **kwargs)

    monkeypatch.setattr(compute, "fit_view", counted)
    at = run_page("embed", {"ds": "two_moons", "method": "tdl", "p.tdl.lam": "13", "seed": "41"})
    assert not at.exception and not at.error
    spectrum = next(f for f in figures(at) if "spectrum" in f["layout"]["title"]["text"])
    bars = sum(len(values(t["y"])) for t in spectrum["data"])
    assert bars == compute.SPECTRUM_SHOWN, spectrum["layout"]["title"]["text"]
    assert 10 not in asked and asked, asked  # the page's own fit ran here, the spectrum's did not


def test_the_embed_page_draws_the_chart_before_it_fits_the_baselines(monkeypatch):
    # on all of MNIST the baselines (LE's eigensolve, the Euclidean 1-NN) were 10 s of a 30 s first
    # view drawn only after them: the chart now goes to the browser first, then the baselines are
    # fitted and the scores shown beside them
    from metriclab.ui.embed import live

    events = []
    real_fit, real_draw = compute.fit_view, live.draw_chart

    def fit(view, req, *args, **kwargs):
        events.append(("fit", req.method))
        return real_fit(view, req, *args, **kwargs)

    def draw(container, fig, **kwargs):
        events.append(("chart", kwargs.get("key")))
        return real_draw(container, fig, **kwargs)

    monkeypatch.setattr(compute, "fit_view", fit)
    monkeypatch.setattr(live, "draw_chart", draw)
    at = run_page("embed", {"ds": "two_moons", "method": "tdl", "p.tdl.lam": "17", "seed": "43"})
    assert not at.exception and not at.error
    order = [e for e in events if e in {("fit", "tdl"), ("fit", "le"), ("chart", "embedding")}]
    assert order == [("fit", "tdl"), ("chart", "embedding"), ("fit", "le")], events
    tiles = [m.label for m in at.metric]
    assert any("Laplacian" in t or "LE" in t for t in tiles), tiles  # the baseline's score is shown
