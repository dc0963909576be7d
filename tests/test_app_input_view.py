"""AppTest of the Embed page's input view: panels beside the embedding, hand labels from buttons
and from the link (hostile links give a notice and the split's labels), the overlays, the image
panel. Clicks and lassos on the chart are driven in a real browser (test_browser_instruments)."""

import numpy as np
import pytest

from metriclab.ui.embed.label_codes import decode_labels, encode_labels
from tests.apptest_helpers import figures, run_page, values

TIMEOUT = 120


def run(query):
    return run_page("embed", {"mode": "input", **query}, timeout=TIMEOUT)


def assert_clean(at):
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def labeled_points(fig, axis="x"):
    """{index: class name} of the labeled (diamond) points of one panel."""
    out = {}
    for trace in fig["data"]:
        if trace.get("xaxis", "x") == axis and trace.get("name", "").endswith("(labeled)"):
            for index, name in trace["customdata"]:
                out[int(index)] = name
    return out


def panel_points(fig, axis):
    rows = []
    for trace in fig["data"]:
        if trace.get("xaxis") == axis and "customdata" in trace:
            xs, ys = values(trace["x"]), values(trace["y"])
            rows += [(int(c[0]), x, y) for c, x, y in zip(trace["customdata"], xs, ys, strict=True)]
    return np.array(sorted(rows))


def metric(at, label_start):
    return next(m.value for m in at.metric if m.label.startswith(label_start))


def test_tdl_and_le_side_by_side_beside_the_input():
    at = run({"method": "tdl", "ds": "two_moons"})
    assert_clean(at)
    fig = figures(at)[0]
    for axis in ("x", "x2", "x3"):  # input, TDL, LE
        assert panel_points(fig, axis).shape[0] == 200
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    assert titles == ["<b>input</b>", "<b>TDL</b>", "<b>Laplacian Eigenmaps</b>"]
    raw = panel_points(fig, "x")[:, 1:]  # 2-D data: the input view is the data themselves
    from metriclab import datasets

    np.testing.assert_allclose(raw, datasets.load("two_moons").X, atol=1e-12)
    assert metric(at, "labeled / unlabeled") == "20 / 180"
    assert "lbl" not in at.query_params  # the split's labels need no link parameter


def test_buttons_clear_randomise_and_restore_the_labels():
    at = run({"method": "tdl", "ds": "two_moons"})
    split = labeled_points(figures(at)[0])
    at.button(key="lbl_clear").click().run()
    assert not at.exception
    assert metric(at, "labeled / unlabeled") == "0 / 200"
    assert at.query_params["lbl"] == "none"
    assert metric(at, "TDL 1-NN") == "—"  # nothing to score against
    assert labeled_points(figures(at)[0]) == {}
    at.button(key="lbl_random").click().run()
    first = labeled_points(figures(at)[0])
    assert len(first) == 20 and first != split
    at.button(key="lbl_random").click().run()  # pressed again: another draw
    second = labeled_points(figures(at)[0])
    assert len(second) == 20 and second != first
    assert sorted(second.values()).count("upper moon") == 10  # as many per class as the split
    text = at.query_params["lbl"]
    assert set(np.flatnonzero(decode_labels(text, 200, 2) >= 0)) == set(second)
    at.button(key="lbl_split").click().run()
    assert labeled_points(figures(at)[0]) == split
    assert "lbl" not in at.query_params


def test_one_class_of_labels_leaves_tdl_out_and_says_why():
    at = run({"method": "tdl", "ds": "two_moons", "lbl": "0~1.2.3"})
    assert not at.exception
    assert any(w.value.startswith("TDL") and "class" in w.value for w in at.warning)
    fig = figures(at)[0]
    assert panel_points(fig, "x2").shape[0] == 200  # LE is still drawn, in the second panel
    assert [a["text"] for a in fig["layout"]["annotations"]][-1] == "<b>Laplacian Eigenmaps</b>"


def test_labels_from_a_link_with_a_wrong_class():
    labels = np.full(200, -1)
    labels[[0, 1, 2]] = 0
    labels[[150, 151]] = 1
    at = run({"method": "tdl", "ds": "two_moons", "lbl": encode_labels(labels)})
    assert_clean(at)
    assert not at.warning
    fig = figures(at)[0]
    given = labeled_points(fig)
    names = ["upper moon", "lower moon"]
    assert given == {i: names[labels[i]] for i in (0, 1, 2, 150, 151)}
    assert metric(at, "labeled / unlabeled") == "5 / 195"
    # the TDL panel moved with the labels: compare with the split's picture
    other = figures(run({"method": "tdl", "ds": "two_moons"}))[0]
    assert not np.allclose(panel_points(fig, "x2")[:, 1:], panel_points(other, "x2")[:, 1:])


@pytest.mark.parametrize(
    "text, says",
    [
        ("0~" + ".".join(["1"] * 3000), "characters long"),
        ("0~zz", "outside the data"),
        ("7~1", "does not exist"),
        ("0~1_1~1", "two classes"),
        ("'); alert(1); //", "not a class~points group"),
        ("", "empty"),
    ],
)
def test_hostile_label_links_give_a_notice_and_the_splits_labels(text, says):
    at = run({"method": "tdl", "ds": "two_moons", "lbl": text})
    assert_clean(at)
    notices = [w.value for w in at.warning]
    assert any("**Labels by hand**" in n and says in n for n in notices), notices
    assert metric(at, "labeled / unlabeled") == "20 / 180"
    assert "lbl" not in at.query_params  # the link is rewritten to what is shown


def test_knn_graph_overlay_draws_the_graph_tdl_uses():
    at = run({"method": "tdl", "ds": "iris", "ov": "graph"})
    assert_clean(at)
    fig = figures(at)[0]
    edges = [t for t in fig["data"] if t.get("name") == "kNN graph edge"]
    assert edges and all(t["xaxis"] == "x" and t["mode"] == "lines" for t in edges)
    n_segments = sum(int(np.isnan(values(t["x"])).sum()) for t in edges)
    assert 150 * 10 / 2 <= n_segments <= 150 * 10  # a symmetrised 10-NN graph
    assert any("principal components" in c.value for c in at.caption)  # iris is 4-D


@pytest.mark.parametrize("method", ["nca", "lmnn", "dne", "knca"])
def test_balls_of_the_learned_metric(method):
    at = run({"method": method, "ds": "iris", "ov": "balls"})
    assert_clean(at)
    fig = figures(at)[0]
    balls = [t for t in fig["data"] if t.get("name", "").startswith("ball")]
    assert balls and all(t["xaxis"] == "x" for t in balls)
    assert any("section by the plane" in c.value for c in at.caption)


def test_lmnn_neighbourhood_before_and_after_learning():
    at = run({"method": "lmnn", "ds": "iris", "ov": "impostors"})
    assert_clean(at)
    fig = figures(at)[0]
    rings = [t for t in fig["data"] if t.get("name", "").startswith("point ")]
    assert {t["xaxis"] for t in rings} == {"x", "x2"}  # before and after
    focus = int(rings[0]["name"].split()[1])
    assert focus in labeled_points(fig)  # a labeled point: LMNN has its targets
    targets = [t for t in fig["data"] if t.get("name", "").startswith("target neighbour")]
    impostors = [t for t in fig["data"] if t.get("name", "").startswith("impostor")]
    assert len(targets) == 2 and len(impostors) == 2
    n_before = int(np.isnan(values(impostors[0]["x"])).sum())
    assert n_before >= 1  # the default focus: the point with the most impostors before
    # a point chosen by the link
    other = next(i for i in labeled_points(fig) if i != focus)
    at = run({"method": "lmnn", "ds": "iris", "ov": "impostors", "pt": str(other)})
    assert any(t.get("name") == f"point {other}" for t in figures(at)[0]["data"])


def test_image_sets_show_the_clicked_point_and_its_neighbours():
    at = run({"method": "nca", "ds": "digits", "cap": "300", "pt": "5"})
    assert_clean(at)
    figs = figures(at)
    assert len(figs) == 3  # the panels, then two rows of images
    heat = [f for f in figs[1:] if f["data"][0]["type"] == "heatmap"]
    assert len(heat) == 2
    ticks = heat[0]["layout"]["xaxis"]["ticktext"]
    assert ticks[0].startswith("point 5") and len(ticks) == 6


def test_a_method_without_embedding_says_so():
    at = run({"method": "tangent_knn", "ds": "digits", "cap": "300"})
    assert not at.exception
    assert any("no embedding" in i.value for i in at.info)


def test_presentation_mode_draws_the_panels_large():
    from streamlit.testing.v1 import AppTest

    from metriclab.ui.shared.presentation import CHART_HEIGHT
    from tests.apptest_helpers import ROOT

    at = AppTest.from_file(str(ROOT / "pages" / "embed.py"), default_timeout=120)
    at.session_state["_metriclab_present"] = True  # what the router's toggle keeps
    at.query_params.update({"mode": "input", "method": "tdl", "ds": "two_moons"})
    at.run()
    assert_clean(at)
    fig = figures(at)[0]
    assert fig["layout"]["height"] == CHART_HEIGHT
    assert panel_points(fig, "x2").shape[0] == 200


def test_the_clicked_point_goes_with_its_data_set():
    """Point 176 clicked on two moons, then iris chosen in the sidebar: the click belonged to the
    other data set. It was kept in the session's view and clamped ("Clicked point: 176 is above
    the maximum here; using 149"), a notice about nothing the person did on iris."""
    at = run({"method": "tdl", "ds": "two_moons", "pt": "176"})
    assert_clean(at)
    at.sidebar.selectbox(key="ds").set_value("iris").run()
    assert_clean(at)
    assert not [w.value for w in at.warning if "Clicked point" in w.value]
    assert "pt" not in at.query_params


def test_a_collapsed_panel_says_so_in_its_title_and_a_warning():
    """Glass: TDL and Laplacian Eigenmaps put the 192 unlabelled points on a few positions (three
    dots a panel), and the input view said nothing of it; the live view warns."""
    at = run({"method": "tdl", "ds": "glass"})
    assert not at.exception and not at.error
    titles = [a["text"].replace("<br>", " ") for a in figures(at)[0]["layout"]["annotations"]]
    assert "<b>TDL (collapsed)</b>" in titles and "<b>Laplacian Eigenmaps (collapsed)</b>" in titles
    warned = [w.value for w in at.warning if "has collapsed" in w.value]
    assert len(warned) == 2 and warned[0].startswith("**TDL**")
    assert "192 unlabeled points" in warned[0]
    fine = run({"method": "tdl", "ds": "two_moons"})
    assert not [w for w in fine.warning if "has collapsed" in w.value]
    assert not [a for a in figures(fine)[0]["layout"]["annotations"] if "collapsed" in a["text"]]
