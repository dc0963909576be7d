"""The papers' full-size data in the app (issue 26): the full-size path on a mid-size set (fast),
the heavy-fit queue, the float32 shared copy; the browser test of all 70,000 MNIST digits is in
tests/test_browser_full_size.py."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import numpy as np
import pytest

from metriclab import graphs
from metriclab.ui.shared import heavy
from metriclab.ui.shared.full_size import FIT_CAP, FULL_SIZE, is_full_size
from tests.apptest_helpers import figures, run_page, values


def test_usps_all_points_take_the_full_size_path_with_a_cached_graph():
    """/embed?ds=usps&method=le draws all 9,298 digits with WebGL; TDL beside it reuses the
    graph (one build) and Laplacian Eigenmaps' fit."""
    from metriclab.ui.shared import full_size

    full_size.graph_of.clear()
    at = run_page("embed", {"ds": "usps", "method": "le"}, timeout=600)
    assert not at.exception and not at.error, [e.value for e in at.error]
    fig = figures(at)[0]
    points = [t for t in fig["data"] if t.get("customdata") is not None]
    assert {t["type"] for t in points} == {"scattergl"}
    drawn = sum(len(values(t["customdata"])) for t in points)
    assert drawn == 9298 and is_full_size(drawn)
    assert at.select_slider(key="cap").value == "all"
    calls = []
    real = full_size.build_graph
    full_size.build_graph = lambda *a, **k: calls.append(1) or real(*a, **k)
    try:
        at.query_params.update({"method": "tdl"})
        at.session_state["method"] = "tdl"
        at.run()
    finally:
        full_size.build_graph = real
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert calls == [], "the kNN graph was built again for TDL"
    labels = [m.label for m in at.metric]
    assert "Laplacian Eigenmaps" in labels


def test_a_learner_at_full_size_is_fitted_on_a_sample_and_says_so():
    at = run_page("embed", {"ds": "usps", "method": "nca", "frac": "0.2"}, timeout=600)
    assert not at.exception and not at.error, [e.value for e in at.error]
    text = " ".join(c.value for c in at.caption)
    assert f"fitted on {FIT_CAP:,} of the" in text


def test_the_views_that_refit_run_on_a_sample_they_name():
    at = run_page("embed", {"ds": "usps", "method": "tdl", "mode": "scrub"}, timeout=600)
    assert not at.exception
    assert any("stratified sample of 2,000 of the 9,298" in i.value for i in at.info)


def test_one_full_size_fit_at_a_time_and_the_others_say_their_place():
    reports: list[str] = []
    order: list[str] = []
    release = threading.Event()

    def first():
        with heavy.slot():
            order.append("first in")
            release.wait(5)
            order.append("first out")

    def second():
        time.sleep(0.05)
        with heavy.slot(reports.append, sleep=lambda s: time.sleep(0.01)):
            order.append("second in")

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    time.sleep(0.3)
    assert order == ["first in"] and heavy.waiting() == 2
    assert reports and reports[-1] == "queued behind 1 fit of another session"
    release.set()
    for t in threads:
        t.join(5)
    assert order == ["first in", "first out", "second in"] and heavy.waiting() == 0


def test_a_session_that_leaves_gives_its_place_up():
    class Stopped(BaseException):  # Streamlit's stop is a BaseException raised in the run
        pass

    with heavy.slot():

        def report(_):
            raise Stopped

        with pytest.raises(Stopped), heavy.slot(report):
            pass
        assert heavy.waiting() == 1  # only the running fit
    assert heavy.waiting() == 0


def test_a_large_set_is_held_once_read_only_and_a_fit_takes_it_without_a_copy():
    from metriclab.preprocess import scale_features
    from metriclab.ui.shared.session_data import named_dataset

    ds = named_dataset("usps")
    assert ds.X.dtype == np.float64 and not ds.X.flags.writeable
    assert named_dataset("usps") is ds
    assert ds.n_samples > FULL_SIZE
    # unscaled (the image sets' default), the fit gets the shared array itself: no per-fit copy
    assert scale_features("none", ds.X) is ds.X


def test_the_full_size_graph_fit_goes_through_fit_split_with_the_kept_graph(monkeypatch):
    """One fit path (issue 40): TDL on more than FULL_SIZE points is `fit_split` with a graph hook
    that hands it the view's kept kNN graph, built with the estimator's own graph parameters."""
    from sklearn.datasets import make_moons

    from metriclab.datasets import Dataset
    from metriclab.evaluation import labeled_mask
    from metriclab.ui.shared import compute, full_size
    from tests.apptest_helpers import fit_request

    X, y = make_moons(FULL_SIZE + 200, noise=0.1, random_state=0)
    ds = Dataset(X, y, "two_moons", ["x", "y"], ["upper", "lower"])
    mask = labeled_mask(ds.y, fraction=0.02, seed=0)
    request = fit_request("two_moons", "tdl", {"lam": 4.0})
    hooks, graphs = [], []
    real_fit, real_graph = compute.fit_split, full_size.graph_of
    monkeypatch.setattr(compute, "fit_split", lambda r, **k: hooks.append(k) or real_fit(r, **k))
    monkeypatch.setattr(
        full_size, "graph_of", lambda key, d: graphs.append(key) or real_graph(key, d)
    )
    result = full_size.full_fit((ds, mask), request)
    assert len(hooks) == 1 and hooks[0]["graph"] is not None
    assert [g.n_neighbors for g in graphs] == [request.spec.make().n_neighbors]
    assert result.Z.shape == (ds.n_samples, 2) and 0.5 < result.accuracy <= 1.0


def test_the_full_size_graph_is_built_on_the_device_that_fits_the_view(monkeypatch, tmp_path):
    """Issue 42: where TDL fits on the GPU (device "auto" with CuPy and a CUDA device), its kNN
    graph is found there too: the graph key carries the estimator's resolved device and the
    build gets it (on this CPU machine "auto" is the CPU; the GPU is simulated by the resolver)."""
    from sklearn.datasets import make_moons

    from metriclab import graph_store
    from metriclab.datasets import Dataset
    from metriclab.ui.shared import full_size
    from tests.apptest_helpers import fit_request

    X, y = make_moons(300, noise=0.1, random_state=0)
    ds = Dataset(X, y, "two_moons", ["x", "y"], ["upper", "lower"])
    request = fit_request("two_moons", "tdl", {"lam": 4.0})
    monkeypatch.setattr(graph_store, "default_store", lambda: graph_store.ArrayStore(tmp_path))
    builds, keys = [], []
    real_build = full_size.build_graph

    def build(*args, device="cpu", **kwargs):
        builds.append(device)
        return real_build(*args, device="cpu", **kwargs)  # no GPU here: built on the CPU

    monkeypatch.setattr(full_size, "build_graph", build)
    for resolved, scaling in (("cpu", "none"), ("gpu", "minmax")):  # two graphs, two builds
        monkeypatch.setattr(full_size, "resolve_device", lambda device, r=resolved: r)
        source = lambda key, d: keys.append(key) or full_size._shared_graph(key, d)  # noqa: E731
        hook = full_size.graph_hook(replace(request, scaling=scaling), ds, source=source)
        W, width = hook(request.spec.make(), ds.X)
        assert W.shape == (300, 300) and width > 0
    assert [k.device for k in keys] == ["cpu", "gpu"] and builds == ["cpu", "gpu"]


def test_a_fit_resolves_its_data_once(monkeypatch):
    """memo.fit checks the session's right to the data set, reads the view and draws the split
    once per fit (issue 40: `require_visible` and `view_data` ran three times each)."""
    from metriclab.ui.shared import memo
    from tests.apptest_helpers import fit_request

    calls = []
    for name in ("require_visible", "view_data"):
        real = getattr(memo, name)
        monkeypatch.setattr(memo, name, lambda *a, _n=name, _r=real: calls.append(_n) or _r(*a))
    memo.clear_fits()
    result = memo.fit(fit_request("two_moons", "pca", cap=180))
    assert result.Z is not None
    assert sorted(calls) == ["require_visible", "view_data"]


def test_a_configured_dask_cluster_runs_the_full_size_graph_fit(monkeypatch, tmp_path):
    """Issue 41: with a class's scheduler configured, the full-size TDL fit (graph and eigensolve)
    is one task on the cluster, the view loaded there by its name, with a graph store of its own;
    its result equals the fit in the server's process exactly."""
    distributed = pytest.importorskip("distributed")
    from metriclab import cluster
    from metriclab.ui.shared import full_size, memo
    from tests.apptest_helpers import fit_request

    monkeypatch.setattr(full_size, "FULL_SIZE", 1000)  # 2,000 USPS digits take the full-size path
    request = fit_request("usps", "tdl", {"lam": 4.0}, cap=2000)
    monkeypatch.setenv("METRICLAB_GRAPH_CACHE", str(tmp_path / "server"))
    full_size.graph_of.clear()
    here = memo.fit_uncached(request)
    submitted = []
    real_submit = distributed.Client.submit
    monkeypatch.setattr(
        distributed.Client,
        "submit",
        lambda self, f, *a, **k: submitted.append((f, *a)) or real_submit(self, f, *a, **k),
    )
    full_size._worker_views.clear()
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as local:
        monkeypatch.setenv(cluster.SCHEDULER_ENV, local.scheduler_address)
        monkeypatch.setenv("METRICLAB_GRAPH_CACHE", str(tmp_path / "worker"))
        try:
            there = memo.fit_uncached(request)
            # a session's upload has no name a worker could load: its view goes by value
            upload = replace(request, data=replace(request.data, name="upload:0123"))
            view = memo.view_data(request.data)[0]
            sent = full_size.cluster_fit(upload, view, here.mask, local.scheduler_address)
        finally:
            cluster._clients.pop(local.scheduler_address).close()
    task, by_value = submitted
    assert task[:3] == (full_size.fit_on_worker, request, None)  # the data by name, not by value
    assert by_value[2] is view
    np.testing.assert_array_equal(sent.Z, here.Z)
    assert list(full_size._worker_views) == [request.data]  # loaded by the worker
    assert any((tmp_path / "worker").iterdir())  # whose graph went to its own store
    assert here.Z.shape[0] > full_size.FULL_SIZE and here.Z.shape[1] == 2
    np.testing.assert_array_equal(there.mask, here.mask)
    np.testing.assert_array_equal(there.Z, here.Z)
    np.testing.assert_array_equal(there.eigenvalues, here.eigenvalues)
    assert there.accuracy == here.accuracy


def test_laplacian_eigenmaps_refuses_a_graph_with_cut_off_points():
    """Issue 41: standardised MNIST puts digits with rare pixels so far from every neighbour that
    their heat weights underflow; LE's smallest eigenvectors are then those points' indicators,
    found after minutes. The full-size path says so (and why) instead; a clean graph passes."""
    from sklearn.datasets import make_moons

    from metriclab.datasets import Dataset
    from metriclab.evaluation import labeled_mask
    from metriclab.ui.shared import full_size
    from tests.apptest_helpers import fit_request

    X, y = make_moons(600, noise=0.1, random_state=0)
    far = np.array([[60.0, 0.0], [0.0, 70.0], [-80.0, 0.0]])  # three lone points, far apart
    X_out, y_out = np.vstack([X, far]), np.concatenate([y, [0, 1, 0]])
    request = fit_request("two_moons", "le", {"n_neighbors": 10})
    for points, labels, cut in ((X, y, 0), (X_out, y_out, 3)):
        ds = Dataset(points, labels, "two_moons", ["x", "y"], ["upper", "lower"])
        W, _ = full_size.build_graph(points, "knn", n_neighbors=10)
        assert graphs.cut_off_points(W) == cut
        mask = labeled_mask(ds.y, fraction=0.05, seed=0)
        full_size.graph_of.clear()  # one DataRef for two point sets here
        if cut:
            with pytest.raises(ValueError, match="3 of the 603 points are cut off"):
                full_size.full_fit((ds, mask), request)
        else:
            assert full_size.full_fit((ds, mask), request).Z.shape == (600, 2)
    # a graph in pieces (no edge at all between them): more neighbours, not another scaling or
    # width, is what links it (musk2's 10-NN graph: 36 pieces; the message named the wrong remedy)
    apart = np.vstack([X, X[:40] + [0.0, 100.0]])  # a copy of 40 points, far away: its own piece
    ds = Dataset(apart, np.r_[y, y[:40]], "two_moons", ["x", "y"], ["upper", "lower"])
    W, _ = full_size.build_graph(apart, "knn", n_neighbors=10)
    assert graphs.unlinked_points(W) == (40, 2)
    full_size.graph_of.clear()
    with pytest.raises(ValueError, match="40 of the 640 points have no path") as refused:
        full_size.full_fit((ds, labeled_mask(ds.y, fraction=0.05, seed=0)), request)
    assert "choose more graph neighbours" in str(refused.value)
    assert "scaling" not in str(refused.value)


def test_the_full_size_progress_bar_stays_full_so_the_chart_does_not_move(monkeypatch, tmp_path):
    """A full-size λ move showed its progress bar above the chart and removed it at the end: the
    chart moved down 51 px and back on every move. The bar stays, full, saying what was drawn and
    how long it took, before the chart on every rerun."""
    from metriclab.ui.shared import full_size

    monkeypatch.setattr(
        full_size, "FULL_SIZE", 150
    )  # two moons' 200 points take the full-size path
    monkeypatch.setenv("METRICLAB_GRAPH_CACHE", str(tmp_path))
    full_size.graph_of.clear()
    at = run_page("embed", {"ds": "two_moons", "method": "tdl", "seed": "47"}, timeout=120)
    seen = []
    for _ in range(2):  # the first view, then a λ move
        seen.append(at.main.select_slider(key="p.tdl.lam").value)
        assert not at.exception and not at.error
        bars = at.get("progress")
        assert len(bars) == 1 and bars[0].proto.value == 100, [b.proto for b in bars]
        assert (
            bars[0].proto.text.startswith("done: TDL") and "on all 200 points" in bars[0].proto.text
        )
        kinds = [el.type for el in at.main if el.type in ("progress", "plotly_chart")]
        assert kinds[:2] == ["progress", "plotly_chart"], kinds  # the bar above the chart
        lam = at.main.select_slider(key="p.tdl.lam")
        lam.set_value(next(v for v in lam.options if float(v) > lam.value)).run()
    assert seen[1] > seen[0], seen
