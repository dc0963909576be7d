"""Watching a learner learn: NCA and LMNN (and KNCA, KLMNN by the KPCA trick) record their iterates
without changing the fit, the frames map every point by each iterate, and the figure plays them in
the browser beside the loss."""

import numpy as np
import pytest

from metriclab import LMNN, NCA, KernelPCATrick, datasets, plots
from metriclab.methods import REGISTRY
from metriclab.plots import panels
from metriclab.ui.embed.learning_frames import frame_indices, learning_frames, records_iterates
from metriclab.ui.shared.compute import split_mask
from tests.apptest_helpers import fit_request, split_ref, values

LINEAR = [
    lambda **k: NCA(n_components=2, max_iter=100, **k),
    lambda **k: LMNN(n_components=2, **k),
]
KERNEL = [  # on wine: from its LDA start on iris, KNCA stops at once (0 iterations)
    lambda **k: KernelPCATrick("nca", n_components=2, **k),
    lambda **k: KernelPCATrick("lmnn", n_components=2, max_iter=30, **k),
    lambda **k: KernelPCATrick(NCA(n_components=2, max_iter=30), **k),
]


@pytest.mark.parametrize(
    "make, name",
    [(m, n) for m in LINEAR for n in ("iris", "wine")] + [(m, "wine") for m in KERNEL],
)
def test_recording_iterates_changes_nothing(make, name):
    ds = datasets.load(name)
    X = (ds.X - ds.X.mean(0)) / ds.X.std(0)
    off = make().fit(X, ds.y)
    on = make(record_iterates=True).fit(X, ds.y)
    np.testing.assert_array_equal(on.components_, off.components_)  # bit for bit
    assert on.loss_curve_ == off.loss_curve_ and on.n_iter_ == off.n_iter_
    assert not hasattr(off, "iterates_")
    assert len(on.iterates_) == len(on.loss_curve_) >= 2  # one L per value of the loss curve
    np.testing.assert_array_equal(on.iterates_[-1], on.components_)
    assert all(L.shape == on.components_.shape for L in on.iterates_)
    assert on.first_iterate_ == (0 if "lmnn" in repr(on).lower() else 1)


def test_kernel_iterates_act_on_the_kpca_coordinates():
    ds = datasets.load("wine")
    X = (ds.X - ds.X.mean(0)) / ds.X.std(0)
    model = KernelPCATrick("nca", n_components=2, record_iterates=True).fit(X, ds.y)
    Z = model.kpca_transform(X)
    np.testing.assert_allclose(Z @ model.iterates_[-1].T, model.transform(X), atol=1e-10)
    start = Z @ model.iterates_[0].T  # after one step: not yet the learned map
    assert not np.allclose(start, model.transform(X), atol=1e-3)


def test_kdne_has_nothing_to_record():
    ds = datasets.load("iris")
    off = KernelPCATrick("dne", n_components=2).fit(ds.X, ds.y)
    on = KernelPCATrick("dne", n_components=2, record_iterates=True).fit(ds.X, ds.y)
    np.testing.assert_array_equal(on.components_, off.components_)
    assert not hasattr(on, "iterates_") and not on.learner_records_iterates()


def test_lmnn_records_its_start_and_the_loss_of_each_iterate():
    from metriclab.methods.mahalanobis import initial_components

    ds = datasets.load("iris")
    model = LMNN(n_components=2, record_iterates=True).fit(ds.X, ds.y)
    order = np.argsort(ds.y, kind="stable")
    start = initial_components("pca", ds.X[order], 2, 0, ds.y[order])
    np.testing.assert_allclose(model.iterates_[0], start)
    assert model.loss_curve_[-1] < model.loss_curve_[0]


def test_frame_indices_keep_the_ends():
    assert list(frame_indices(5, 10)) == [0, 1, 2, 3, 4]
    picked = frame_indices(200, 60)
    assert picked[0] == 0 and picked[-1] == 199 and len(picked) == 60
    assert np.all(np.diff(picked) > 0)


@pytest.mark.parametrize("method", ["nca", "lmnn", "knca", "klmnn"])
def test_frames_end_on_the_fitted_embedding(method):
    ds = datasets.load("two_moons")
    mask = split_mask(ds.y, split_ref("fraction", 0.1, 0))
    out = learning_frames(ds, mask, fit_request("two_moons", method))
    n = len(out.frames)
    assert n == len(out.losses) == len(out.iterations) == len(out.accuracies) >= 3
    assert out.iterations == sorted(out.iterations)
    assert out.first_iteration == (0 if method.endswith("lmnn") else 1)
    assert out.iterations[0] == out.first_iteration
    assert out.losses[-1] <= out.losses[0]
    assert len(out.curve[0]) == len(out.curve[1]) >= n
    from metriclab.ui.shared.compute import fit_view

    final = fit_view((ds, mask), fit_request("two_moons", method), extras=False)
    expected = plots.normalize_embedding(final.Z[:, :2])
    last = out.frames[-1]
    d_exp = np.linalg.norm(expected[:, None] - expected[None], axis=2)
    d_last = np.linalg.norm(last[:, None] - last[None], axis=2)
    np.testing.assert_allclose(d_last, d_exp, atol=1e-8)  # the same picture up to a rotation
    assert out.accuracies[-1] == pytest.approx(final.accuracy)


def test_only_iterative_learners_record():
    for key in ("nca", "lmnn", "knca", "klmnn"):
        assert records_iterates(REGISTRY[key])
    for key in ("dne", "kdne", "tdl", "pca", "zhang_mds"):
        assert not records_iterates(REGISTRY[key])
    ds = datasets.load("iris")
    for key in ("dne", "kdne"):
        with pytest.raises(ValueError, match="does not record"):
            learning_frames(ds, np.ones(150, bool), fit_request("iris", key))


def test_learning_figure_plays_frames_beside_the_loss():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    frames = [rng.normal(size=(20, 2)) for _ in range(4)]
    fig = panels.learning_figure(
        frames, [4.0, 3.0, 2.5, 2.0], y, y == 0, ["a", "b"], iterations=[1, 2, 5, 9],
        curve=(list(range(1, 10)), list(np.linspace(4, 2, 9))),
    )  # fmt: skip
    spec = fig.to_plotly_json()
    assert len(spec["frames"]) == 4
    slider = spec["layout"]["sliders"][0]
    assert len(slider["steps"]) == 4 and slider["active"] == 3
    assert spec["layout"]["updatemenus"][0]["buttons"][0]["method"] == "animate"
    curve = next(t for t in spec["data"] if t.get("mode") == "lines")
    assert len(values(curve["x"])) == 9 and curve["xaxis"] == "x2"
    markers = [f["data"][-1] for f in spec["frames"]]
    assert [int(values(m["x"])[0]) for m in markers] == [1, 2, 5, 9]  # the dot follows the frames
    for k, frame in enumerate(spec["frames"]):  # class "a" labeled (y == 0 are all labeled)
        (first,) = [t for t in frame["data"] if t.get("name") == "a (labeled)"]
        np.testing.assert_allclose(values(first["x"]), frames[k][y == 0, 0])
    with pytest.raises(ValueError):
        panels.learning_figure(frames, [1.0], y)
    with pytest.raises(ValueError):
        panels.learning_figure([], [], y)
    strip = panels.learning_figure([f[:, :1] for f in frames], [4, 3, 2, 1], y)
    assert len(strip.frames) == 4  # one-column frames are drawn as strips


def test_panel_figure_domains_stay_inside_the_figure():
    y = np.repeat([0, 1], 5)
    for scale in (1e-6, 1.0, 1e6):
        shown = [
            panels.Panel(np.random.default_rng(s).normal(size=(10, 2)) * [scale, 1], str(s))
            for s in range(3)
        ]
        spec = panels.panel_figure(shown, y).to_plotly_json()["layout"]
        domains = [spec[k]["domain"] for k in ("xaxis", "xaxis2", "xaxis3")]
        assert all(0 <= a < b <= 1 for a, b in domains)
        assert all(domains[i][1] <= domains[i + 1][0] for i in range(2))  # side by side


def test_panel_figure_draws_the_points_on_a_panels_edge_as_their_own_trace():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    true = rng.normal(size=(20, 2))
    true[3] = [0.0, 40.0]  # far above the frame of the others
    shown = true.copy()
    shown[3, 1] = 3.0  # clipped to the frame's top
    edge = np.zeros(20, bool)
    edge[3] = True
    drawn = [
        panels.Panel(true, "input"),
        panels.Panel(shown, "a", x_range=(-3, 3), y_range=(-3, 3), at_edge=edge, true_coords=true),
        panels.Panel(shown, "b", x_range=(-3, 3), y_range=(-3, 3), at_edge=edge, true_coords=true),
    ]
    spec = panels.panel_figure(drawn, y).to_plotly_json()
    for axis in ("x2", "x3"):
        traces = [t for t in spec["data"] if t.get("xaxis") == axis]
        (marked,) = [t for t in traces if t["name"] == panels.PANEL_EDGE_TRACE]
        assert [c[0] for c in marked["customdata"]] == [3]  # clicks name the point
        assert marked["customdata"][0][2] == "(0, 40)"  # the hover says where it lies
        assert values(marked["y"]).tolist() == [3.0]
        others = [c[0] for t in traces if t is not marked for c in t["customdata"]]
        assert sorted(others) == [i for i in range(20) if i != 3]  # drawn once, not twice
    first = [t for t in spec["data"] if t.get("xaxis") == "x"]
    assert sum(len(t["customdata"]) for t in first) == 20  # the input panel draws every point
    keys = [t["showlegend"] for t in spec["data"] if t["name"] == panels.PANEL_EDGE_TRACE]
    assert keys == [True, False]  # one legend entry
    layout = spec["layout"]
    assert layout["xaxis2"]["constrain"] == layout["yaxis3"]["constrain"] == "domain"
    assert "constrain" not in layout["xaxis"]  # the frame kept only where points are on it


def test_a_long_loss_title_is_wrapped_to_its_panel_and_the_margin_holds_it():
    """KLMNN's loss title ("LMNN loss (1 − μ)·pull + μ·push on kernel-PCA coordinates") ran past
    the figure's right edge in a lesson on a projector; the main title's instruction too."""
    y = np.repeat([0, 1], 5)
    frames = [np.random.default_rng(i).normal(size=(10, 2)) for i in range(3)]
    long = "LMNN loss (1 − μ)·pull + μ·push on kernel-PCA coordinates"
    kw = dict(title="KLMNN on circles:<br>press play, or drag the slider")
    short = panels.learning_figure(frames, [3, 2, 1], y, loss_title="loss", **kw).layout
    wrapped = panels.learning_figure(frames, [3, 2, 1], y, loss_title=long, **kw).layout
    text = wrapped.annotations[-1].text.removeprefix("<b>").removesuffix("</b>")
    lines = text.split("<br>")
    assert " ".join(lines) == long and len(lines) == 3
    assert all(len(line) <= panels.LOSS_TITLE_CHARS for line in lines)
    assert wrapped.margin.t == short.margin.t + 2 * panels.PANEL_TITLE_LINE_PX
    one_line = panels.learning_figure(frames, [3, 2, 1], y, title="KLMNN on circles").layout
    assert short.margin.t > one_line.margin.t  # the title's second line has its room


def test_a_panel_title_wraps_to_its_panel_and_the_margin_makes_room():
    """Yeast's input view: "Laplacian Eigenmaps (collapsed)" over a panel a seventh of the chart
    wide ran past the figure's right edge at 1280×800. A title longer than its panel (and the
    gaps beside it) holds takes more lines, and the top margin grows by a line each."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 10)
    wide = panels.Panel(
        rng.normal(size=(20, 2)) * [8, 1], "input", x_range=(-20, 20), y_range=(-3, 3)
    )
    narrow = panels.Panel(rng.normal(size=(20, 2)), "Laplacian Eigenmaps (collapsed)")
    narrow.x_range, narrow.y_range = (-1, 1), (-4, 4)
    spec = panels.panel_figure([wide, narrow], y).to_plotly_json()["layout"]
    titles = [a["text"] for a in spec["annotations"]]
    left, right = spec["xaxis2"]["domain"]
    room = int(panels.FIGURE_TITLE_CHARS * (right - left + panels.GAP))
    assert titles[0] == "<b>input</b>" and titles[1].count("<br>") >= 1
    lines = titles[1].removeprefix("<b>").removesuffix("</b>").split("<br>")
    assert " ".join(lines) == "Laplacian Eigenmaps (collapsed)" and max(map(len, lines)) <= room
    one_line = panels.panel_figure([wide, panels.Panel(narrow.coords, "LE")], y).to_plotly_json()
    assert spec["margin"]["t"] == one_line["layout"]["margin"]["t"] + panels.PANEL_TITLE_LINE_PX * (
        len(lines) - 1
    )
