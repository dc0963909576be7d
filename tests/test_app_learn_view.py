"""AppTest of the Embed page's "watch it learn" view: NCA and LMNN play their iterations as frames
beside the loss curve; a method fitted in one step says so."""

import pytest

from tests.apptest_helpers import figures, run_page, values


def run(query):
    return run_page("embed", {"mode": "learn", **query}, timeout=120)


@pytest.mark.parametrize(
    "method, ds", [("nca", "two_moons"), ("lmnn", "iris"), ("knca", "two_moons")]
)
def test_learners_play_their_iterations(method, ds):
    at = run({"method": method, "ds": ds})
    assert not at.exception and not at.error
    fig = figures(at)[0]
    frames = fig["frames"]
    assert len(frames) >= 3
    steps = fig["layout"]["sliders"][0]["steps"]
    assert [s["label"] for s in steps] == [f["name"] for f in frames]
    assert steps[0]["label"].startswith("iteration 0" if method.endswith("lmnn") else "iteration 1")
    curve = next(t for t in fig["data"] if t.get("mode") == "lines")
    losses = values(curve["y"])
    assert losses[-1] <= losses[0]
    n_points = 200 if ds == "two_moons" else 150
    first = sum(len(values(t["x"])) for t in frames[0]["data"] if "customdata" in t)
    assert first == n_points  # every point in every frame
    assert any("frames" in c.value for c in at.caption)
    assert any("kernel-PCA map" in c.value for c in at.caption) == method.startswith("k")
    assert at.query_params["mode"] == "learn"


@pytest.mark.parametrize("method", ["dne", "kdne", "tdl"])
def test_one_step_methods_say_there_is_nothing_to_watch(method):
    at = run({"method": method, "ds": "iris"})
    assert not at.exception
    (info,) = at.info
    assert "no iterations to watch" in info.value and "NCA" in info.value
    assert "side by side" in info.value
