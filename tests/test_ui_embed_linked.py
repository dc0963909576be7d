"""AppTest of the Embed page's linked views (issue 37, item 1): the link opens the methods it names
side by side, each aligned to view 1 by rotation and scale only; a selection in the link reopens
highlighted in every view and listed; methods a data set does not allow are listed with the
reason; bad `methods=` and `sel=` values give a warning, never a traceback. The box selection
itself, in a real browser, is tests/test_browser_linked.py."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest
from scipy.spatial.distance import pdist

from metriclab.methods import REGISTRY
from metriclab.ui.embed import linked
from metriclab.ui.embed.labelling import selected_points
from metriclab.ui.embed.linked import (
    TABLE_ROWS,
    alignment,
    decode_selection,
    default_methods,
    encode_selection,
)
from metriclab.ui.shared.full_size import FIT_CAP
from metriclab.ui.shared.state import URLValueError
from tests.apptest_helpers import figures, run_page, values

IRIS = {"ds": "iris", "mode": "linked"}


def run(query, timeout=180):
    return run_page("embed", query, timeout=timeout)


def assert_clean(at):
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def q(at, key: str) -> str:
    """The link's value of `key` (a string; some streamlit versions give a list)."""
    value = at.query_params[key]
    return value[-1] if isinstance(value, list) else value


def title(fig) -> str:
    return fig["layout"]["title"]["text"]


def panels_of(at) -> list[dict]:
    """The linked views' figures (not the "Add a new point" input panel below them)."""
    return [
        f for f in figures(at) if str(f["layout"].get("title", {}).get("text")).startswith("view ")
    ]


def drawn(fig) -> dict[int, tuple[float, float]]:
    """{data set index: (x, y)} of every point the figure draws (class and edge traces)."""
    out = {}
    for trace in fig["data"]:
        data = trace.get("customdata")
        if data is None or str(trace.get("name", "")).startswith("selected"):
            continue
        data = values(data) if isinstance(data, dict) else data
        for d, x, y in zip(data, values(trace["x"]), values(trace["y"]), strict=True):
            out[int(d[0] if isinstance(d, list) else d)] = (float(x), float(y))
    return out


def selected(fig) -> set[int]:
    """The data set indices of the figure's "selected (n)" trace (empty: none)."""
    out = set()
    for trace in fig["data"]:
        if str(trace.get("name", "")).startswith("selected"):
            data = trace["customdata"]
            data = values(data) if isinstance(data, dict) else data
            out |= {int(d[0] if isinstance(d, list) else d) for d in data}
    return out


def test_a_link_with_three_methods_opens_three_aligned_views_with_their_scores():
    at = run({**IRIS, "methods": "tdl,le,nca"})
    assert_clean(at)
    figs = panels_of(at)
    assert [title(f) for f in figs] == [
        "view 1: TDL",
        "view 2: Laplacian Eigenmaps",
        "view 3: NCA",
    ]
    for fig in figs:  # every point, named by its data set index
        assert sorted(drawn(fig)) == list(range(150))
        assert selected(fig) == set()
    assert [m.label for m in at.metric] == [
        "TDL 1-NN accuracy",
        "Laplacian Eigenmaps 1-NN accuracy",
        "NCA 1-NN accuracy",
    ]
    assert at.multiselect(key="methods").value == ["tdl", "le", "nca"]
    assert q(at, "methods") == "tdl,le,nca"
    assert "p.nca.n_components" in at.query_params  # each method's parameters in the link
    captions = " ".join(c.value for c in at.caption)
    assert "rotated (or reflected) and scaled to match view 1" in captions
    assert captions.count("Procrustes disparity to view 1") == 2
    # the score under NCA's view is the live view's 1-NN score of the same fit
    live = run({"ds": "iris", "method": "nca"})
    assert at.metric[2].value == live.metric[0].value


def test_views_two_and_after_are_rotated_and_scaled_only():
    """View 3 (NCA, no localised coordinate) drawn is NCA's own embedding up to one scale and an
    isometry: every distance between its points in one ratio to NCA's own."""
    from tests.apptest_helpers import fit_request

    at = run({**IRIS, "methods": "tdl,le,nca"})
    points = drawn(panels_of(at)[2])
    shown = np.array([points[i] for i in range(150)])
    from metriclab.ui.shared import memo

    request = fit_request("iris", "nca", at_params(at, "nca"), scaling=q(at, "pp"))
    own = memo.fit(request).Z[:, :2]
    apart = pdist(own) > 0  # iris has duplicate points
    ratio = pdist(shown)[apart] / pdist(own)[apart]
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-6)


def at_params(at, method: str) -> dict:
    """The parameters of `method` the page's link records, as the widgets hold them."""
    prefix = f"p.{method}."
    return {k[len(prefix) :]: at.session_state[k] for k in at.query_params if k.startswith(prefix)}


def test_a_selection_in_the_link_reopens_highlighted_in_every_view_and_listed():
    at = run({**IRIS, "methods": "tdl,le,nca", "sel": "3,17,42,100-103"})
    assert_clean(at)
    wanted = {3, 17, 42, 100, 101, 102, 103}
    figs = panels_of(at)
    assert len(figs) == 3
    for fig in figs:
        assert selected(fig) == wanted, title(fig)
        others = [t for t in fig["data"] if t.get("customdata") is not None]
        dimmed = [t for t in others if not str(t["name"]).startswith("selected")]
        assert all(t["marker"]["opacity"] < 0.5 for t in dimmed)
        # the selected points are drawn where the view draws them (not moved)
        points = drawn(fig)
        trace = next(t for t in fig["data"] if str(t["name"]).startswith("selected"))
        xs, ys = values(trace["x"]), values(trace["y"])
        for (index, _), x, y in zip(trace["customdata"], xs, ys, strict=True):
            assert points[index] == pytest.approx((x, y))
    table = at.dataframe[0].value
    assert table["index"].tolist() == sorted(wanted)
    assert set(table["class"]) == {"setosa", "virginica"}
    from metriclab.ui.shared import memo
    from tests.apptest_helpers import fit_request

    mask = memo.split(fit_request("iris", "tdl").data, fit_request("iris", "tdl").split)
    assert table["labelled"].tolist() == ["yes" if mask[i] else "no" for i in sorted(wanted)]
    assert any("7 point(s) selected" in m.value for m in at.markdown)
    assert q(at, "sel") == "3,17,42,100-103"
    assert not at.button(key="linked_clear").disabled
    at.button(key="linked_clear").click().run()  # cleared: nothing drawn, nothing in the link
    assert_clean(at)
    assert all(selected(f) == set() for f in panels_of(at))
    assert "sel" not in at.query_params


def test_a_method_the_data_set_does_not_allow_is_listed_with_its_reason():
    at = run({**IRIS, "methods": "tdl,tangent_knn,le"})
    assert_clean(at)
    assert [title(f) for f in panels_of(at)] == ["view 1: TDL", "view 2: Laplacian Eigenmaps"]
    assert any("tangent_knn" in w.value and "not available" in w.value for w in at.warning)
    captions = [c.value for c in at.main.caption]
    label = REGISTRY["tangent_knn"].label
    assert any(c.startswith("Not offered here (needs images; iris has none)") and label in c
               for c in captions)  # fmt: skip
    assert "tangent_knn" not in at.multiselect(key="methods").options


@pytest.mark.parametrize(
    "methods, reason, views",
    [
        ("tdl,nosuchmethod,nca", "'nosuchmethod'` not available", 2),
        ("tdl", "Choose 2 to 4 methods", 0),
        ("tdl,le,nca,lmnn,dne", "at most 4", 4),
        ("tdl,,le,__import__", "'__import__'` not available", 2),
    ],
)
def test_a_bad_methods_value_warns_with_the_reason(methods, reason, views):
    at = run({**IRIS, "methods": methods})
    assert_clean(at)
    assert any(reason in w.value for w in at.warning), [w.value for w in at.warning]
    assert len(panels_of(at)) == views


@pytest.mark.parametrize(
    "sel, reason",
    [
        ("3,abc", "is not a point index"),
        ("150", "point 150 is not one of the 150 points"),
        ("9-4", "runs backwards"),
        ("1" * 5000, "characters long"),
    ],
)
def test_a_bad_selection_in_the_link_warns_and_selects_nothing(sel, reason):
    at = run({**IRIS, "methods": "tdl,le", "sel": sel})
    assert_clean(at)
    assert any(reason in w.value for w in at.warning), [w.value for w in at.warning]
    assert all(selected(f) == set() for f in panels_of(at))
    assert "sel" not in at.query_params


def test_four_methods_are_drawn_and_each_panel_takes_extra_traces(monkeypatch):
    """The place where per-panel traces go (`PANEL_EXTRAS`, for held-out and dropped points):
    a trace added there is in every view, placed by the view's own alignment."""
    placed = []

    def extra(panel):
        xy = panel.place(panel.result.Z[:1])
        placed.append((panel.request.method, xy))
        panel.figure.add_trace(go.Scatter(x=xy[:, 0], y=xy[:, 1], name="extra point"))

    monkeypatch.setattr(linked, "PANEL_EXTRAS", [extra])
    at = run({**IRIS, "methods": "le,nca,lmnn,pca"})
    assert_clean(at)
    figs = panels_of(at)
    assert len(figs) == 4 and len(at.metric) == 4
    assert [m for m, _ in placed] == ["le", "nca", "lmnn", "pca"]
    for fig, (_, xy) in zip(figs, placed, strict=True):
        trace = next(t for t in fig["data"] if t.get("name") == "extra point")
        assert (values(trace["x"])[0], values(trace["y"])[0]) == pytest.approx(tuple(xy[0]))


def test_full_size_graph_methods_draw_every_point_and_a_learner_says_it_saw_a_sample():
    """USPS (9,298 digits) takes the full-size path: TDL and LE draw every point (WebGL), NCA is
    fitted on a sample and says so; a selection of 300 lists its first TABLE_ROWS and counts."""
    at = run(
        {"ds": "usps", "mode": "linked", "methods": "tdl,le,nca", "frac": "0.2", "sel": "0-299"},
        timeout=900,
    )
    assert_clean(at)
    figs = panels_of(at)
    for fig in figs:
        assert len(drawn(fig)) == 9298
        classes = [t for t in fig["data"] if t.get("legendgroup") in map(str, range(10))]
        assert {t["type"] for t in classes} == {"scattergl"}, title(fig)
        assert selected(fig) == set(range(300))
    text = " ".join(c.value for c in at.caption)
    assert f"NCA was fitted on {FIT_CAP:,} of the" in text and "maps all 9,298 points" in text
    assert text.count("fitted on") == 1  # TDL and LE saw every point
    assert len(at.dataframe[0].value) == TABLE_ROWS
    assert any(f"300 point(s) selected** (the first {TABLE_ROWS} listed)" in m.value
               for m in at.markdown)  # fmt: skip


# The pieces ----------------------------------------------------------------------------------------


def test_a_selection_is_written_with_ranges_and_read_back():
    assert encode_selection([42, 3, 17, 3]) == "3,17,42"
    assert encode_selection(range(40, 53)) == "40-52"
    assert encode_selection([1, 2, 5, 6, 7, 9]) == "1,2,5-7,9"
    assert encode_selection([]) == ""
    rng = np.random.default_rng(0)
    picked = np.unique(rng.choice(70_000, 500, replace=False))
    assert np.array_equal(decode_selection(encode_selection(picked), 70_000), picked)
    for bad in ("1,x", "5-2", "70000", "-1", "1e3"):
        with pytest.raises(URLValueError):
            decode_selection(bad, 70_000)


def test_a_webgl_selection_event_gives_its_indices():
    """WebGL traces (past 5,000 points) carry the index alone as customdata."""
    event = {"selection": {"points": [{"customdata": 69_999}, {"customdata": [5, "3"]}, {}]}}
    assert selected_points(event) == [69_999, 5]


def test_alignment_undoes_a_rotation_reflection_and_scale():
    rng = np.random.default_rng(0)
    reference = rng.normal(size=(200, 2)) * [3.0, 1.0]
    angle = 0.7
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    Z = 5.0 * reference @ turn @ np.diag([1.0, -1.0]) + [4.0, -2.0]
    first = alignment(reference, None)
    drawn_reference = first.apply(reference)
    assert first.disparity is None
    second = alignment(Z, drawn_reference)
    np.testing.assert_allclose(second.apply(Z), drawn_reference, atol=1e-9)
    assert second.disparity == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(second.rotation @ second.rotation.T, np.eye(2), atol=1e-12)


def test_the_default_methods_are_tdl_its_baseline_and_a_metric_learner():
    options = [k for k, spec in REGISTRY.items() if spec.output == "embedding"]
    assert default_methods(options) == ["tdl", "le", "nca"]


# Hiding classes in every view (the pills above the views, `classes=` in the link) ----------------


def held_out_ids(fig) -> set[int]:
    """The data set indices of the figure's held-out trace (its legend entry carries none)."""
    out = set()
    for trace in fig["data"]:
        if str(trace.get("name", "")).startswith("held out") and trace.get("customdata"):
            out |= {int(d[0]) for d in trace["customdata"]}
    return out


def frames(at) -> list[tuple]:
    return [
        (tuple(f["layout"]["xaxis"]["range"]), tuple(f["layout"]["yaxis"]["range"]))
        for f in panels_of(at)
    ]


def test_hiding_a_class_takes_exactly_its_points_out_of_every_view_and_keeps_frames_and_scores():
    """Setosa (iris's indices 0 to 49) hidden: every view draws the same points as before less
    setosa's, where it drew them (class, edge and held-out traces), the selection's setosa points
    leave the "selected (n)" overlay, and nothing else changes: frames, scores, table. The link
    records the classes shown and opens the same views again."""
    query = {**IRIS, "methods": "tdl,le,nca", "test": "0.3", "sel": "3,17,60,120"}
    at = run(query)
    assert_clean(at)
    before = [drawn(f) for f in panels_of(at)]
    held_before = [held_out_ids(f) for f in panels_of(at)]
    frames_before, scores = frames(at), [(m.label, m.value) for m in at.metric]
    pills = at.button_group(key="classes")
    assert pills.value == ["0", "1", "2"] and "classes" not in at.query_params
    assert all(len(b) == 150 for b in before) and all(len(h) == 45 for h in held_before)
    pills.set_value(["1", "2"]).run()
    assert_clean(at)
    setosa = set(range(50))
    figs = panels_of(at)
    assert len(figs) == 3
    for fig, old, held in zip(figs, before, held_before, strict=True):
        now = drawn(fig)
        assert set(now) == set(old) - setosa, title(fig)
        assert all(now[i] == old[i] for i in now)  # not moved
        assert held_out_ids(fig) == held - setosa and held - setosa, title(fig)
        assert selected(fig) == {60, 120}, title(fig)
        assert not any(str(t.get("name")).startswith("setosa") for t in fig["data"])
        names = [str(t.get("name")) for t in fig["data"]]
        assert f"held out (mapped) ({len(held - setosa)})" in names  # its count, what is drawn
        assert "selected (2)" in names
    assert frames(at) == frames_before
    assert [(m.label, m.value) for m in at.metric] == scores
    assert q(at, "classes") == "1,2"
    captions = " ".join(c.value for c in at.caption)
    assert "Hidden: setosa; not refitted" in captions and "still in the scores" in captions
    assert "hold every point, those of the hidden classes too" in captions
    assert at.dataframe[0].value["index"].tolist() == [3, 17, 60, 120]  # the selection, listed
    assert any("2 of them are of a hidden class" in m.value for m in at.markdown)
    # the link reopened in a new session: the same views
    again = run({k: q(at, k) for k in at.query_params})
    assert_clean(again)
    assert again.button_group(key="classes").value == ["1", "2"]
    assert [drawn(f) for f in panels_of(again)] == [drawn(f) for f in figs]
    assert frames(again) == frames_before
    # every class shown again: the link leaves `classes` out
    at.button_group(key="classes").set_value(["0", "1", "2"]).run()
    assert "classes" not in at.query_params
    assert [drawn(f) for f in panels_of(at)] == before


def test_a_data_set_switch_shows_every_class_of_the_new_one():
    """Wine's classes are 0, 1 and 2 too: iris's choice must not carry over to them."""
    at = run({**IRIS, "methods": "tdl,le", "classes": "2"})
    assert_clean(at)
    assert all(set(drawn(f)) == set(range(100, 150)) for f in panels_of(at))
    at.sidebar.selectbox(key="ds").set_value("wine").run()
    assert_clean(at)
    assert at.button_group(key="classes").value == ["0", "1", "2"]
    assert "classes" not in at.query_params
    assert all(len(drawn(f)) == 178 for f in panels_of(at))


@pytest.mark.parametrize(
    "classes, reason, shown",
    [
        ("abc", "'abc'` not available; using the default", [0, 1, 2]),
        ("7", "'7'` not available; using the default", [0, 1, 2]),
        ("1,x", "'x'` not available; left out", [1]),
        ("9" * 300, "characters long", [0, 1, 2]),
        ("", "No class chosen: every class is drawn", [0, 1, 2]),
    ],
)
def test_a_bad_classes_value_warns_and_draws_what_it_says(classes, reason, shown):
    at = run({**IRIS, "methods": "tdl,le", "classes": classes})
    assert_clean(at)
    assert any(reason in w.value for w in at.warning), [w.value for w in at.warning]
    wanted = {i for c in shown for i in range(50 * c, 50 * c + 50)}
    assert all(set(drawn(f)) == wanted for f in panels_of(at))


def test_hide_points_takes_a_class_out_of_every_trace_and_the_svg_legend():
    """`hide_points` on a view's figure: class 0's traces (its empty placeholder too) and its
    points in the edge and held-out traces go, the counts in the names follow, the legend entry
    of a trace left empty goes with it, the frame stays; the SVG (`with_legend`) keys only the
    classes drawn, and its fingerprint changes."""
    from metriclab import plots
    from metriclab.ui.embed.new_points import HELD_OUT_NAME
    from metriclab.ui.embed.shown_classes import hide_points
    from metriclab.ui.shared.downloads import figure_fingerprint

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 10)
    Z = rng.normal(size=(30, 2)) + y[:, None]
    edge = np.zeros(30, bool)
    edge[[0, 15]] = True
    fig = plots.embedding_scatter(Z, y, np.arange(30) % 4 == 0, ["a", "b", "c"],
                                  x_range=(-3, 5), y_range=(-3, 5), index=np.arange(30) + 100,
                                  at_edge=edge)  # fmt: skip
    held = [1, 2, 25]  # one trace of class 0's and 2's held-out points, and its legend entry
    fig.add_trace(go.Scatter(x=Z[held, 0], y=Z[held, 1], name=f"{HELD_OUT_NAME} (3)",
                             legendgroup="_held_out", showlegend=False,
                             customdata=[[100 + i, "x"] for i in held]))  # fmt: skip
    fig.add_trace(go.Scatter(x=[None], y=[None], name=f"{HELD_OUT_NAME} (3)",
                             legendgroup="_held_out", legendrank=1999))  # fmt: skip
    before = figure_fingerprint(fig)
    layout = fig.layout.to_plotly_json()
    assert hide_points(fig, np.arange(100, 110), [0]) == 9 + 1 + 2  # classes, edge, held out
    ids = {int(d[0]) for t in fig.data if t.customdata is not None for d in t.customdata}
    assert ids == set(range(110, 130))
    names = [t.name for t in fig.data]
    assert not any(str(n).startswith("a") for n in names)
    assert names.count(f"{HELD_OUT_NAME} (1)") == 2 and "drawn at the chart's edge (1)" in names
    assert fig.layout.to_plotly_json() == layout
    assert figure_fingerprint(fig) != before
    svg = linked.with_legend(fig, 240.0)
    shown = [t.name for t in svg.data if t.showlegend is not False and t.name]
    assert "a" not in shown and {"b", "c"} <= set(shown)
    # a class whose points all left another trace: nothing of it stays (its placeholder too)
    assert hide_points(fig, np.arange(110, 130), [1, 2]) == 19 + 1 + 1  # classes, edge, held
    assert all(t.customdata is None or not len(t.customdata) for t in fig.data)
