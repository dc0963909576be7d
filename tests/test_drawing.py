"""Draw your own data: clicks (plotly selections on the invisible grid) become points, undo and
clear, the drawing becomes a per-session data set that the Embed page embeds and the "Show the
code" snippet reproduces, and drawings no method can use give clear errors."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from metriclab.datasets import from_points
from metriclab.ui import draw as drawing
from tests.apptest_helpers import ROOT
from tests.test_code_snippets import run_snippets, shown_code

TIMEOUT = 180


def two_blobs(n=12, seed=0):
    """Strokes of two classes on grid positions, as clicks leave them."""
    rng = np.random.default_rng(seed)
    grid = drawing.grid_points()
    left = grid[(grid[:, 0] < -0.3) & (np.abs(grid[:, 1]) < 0.4)]
    right = grid[(grid[:, 0] > 0.3) & (np.abs(grid[:, 1]) < 0.4)]
    picks = [left[rng.choice(len(left), n, replace=False)], right[rng.choice(len(right), n, 0)]]
    return [[(float(x), float(y), c)] for c, pts in enumerate(picks) for x, y in pts]


def test_selection_events_become_strokes_and_a_click_on_a_drawn_point_erases_it():
    grid_click = {"points": [{"curve_number": 0, "point_index": 7, "x": -0.5, "y": 0.25}]}
    assert drawing.stroke_from_selection(grid_click, 2) == [(-0.5, 0.25, 2)]
    lasso = {
        "points": [{"curve_number": 0, "x": 0.0, "y": 0.0}, {"curve_number": 0, "x": 0.5, "y": 0.0}]
    }
    sprayed = drawing.stroke_from_selection({"points": lasso["points"] * 20}, 1)
    assert 0 < len(sprayed) < 40 and all(c == 1 for _, _, c in sprayed)
    on_drawn = {"points": [{"curve_number": 2, "x": 0.5, "y": 0.0}]}
    assert drawing.stroke_from_selection(on_drawn, 1) == [(0.5, 0.0, -1)]
    assert drawing.stroke_from_selection({}, 0) == []


def test_from_points_refuses_drawings_no_method_can_use():
    with pytest.raises(ValueError, match="at least two classes"):
        from_points([[0, 0], [1, 1], [0, 1]], [1, 1, 1], class_names=drawing.CLASSES)
    with pytest.raises(ValueError, match="no points"):
        from_points(np.zeros((0, 2)), np.zeros(0, dtype=int))
    with pytest.raises(ValueError, match="class B has a single point"):
        from_points([[0, 0], [1, 1], [0, 1]], [0, 0, 1], class_names=drawing.CLASSES)
    with pytest.raises(ValueError, match="finite"):
        from_points([[0, np.nan], [1, 1], [0, 1], [1, 0]], [0, 0, 1, 1])
    ds = from_points([[0, 0], [1, 1], [0, 1], [1, 0]], [3, 3, 1, 1], class_names=drawing.CLASSES)
    assert ds.target_names == ["B", "D"] and list(ds.y) == [1, 1, 0, 0]


def app_on(page, state=None):
    """Page `page` in an AppTest session holding `state` (session-state values)."""
    at = AppTest.from_file(str(ROOT / "pages" / f"{page}.py"), default_timeout=TIMEOUT)
    for key, value in (state or {}).items():
        at.session_state[key] = value
    return at.run()


def same_session(at, page, query=None):
    """`page` opened in the session of `at` (its uploads, drawing and data set choice)."""
    keep = ("_metriclab_uploads", "ds", "_metriclab_drawn_key", "_metriclab_strokes")
    state = {k: at.session_state[k] for k in keep if k in at.session_state}
    other = AppTest.from_file(str(ROOT / "pages" / f"{page}.py"), default_timeout=TIMEOUT)
    for key, value in state.items():
        other.session_state[key] = value
    other.query_params.update(query or {})
    return other.run()


def test_undo_clear_and_a_one_class_drawing_gives_an_error():
    at = app_on("draw")
    assert not at.exception
    at.session_state["_metriclab_strokes"] = [[(0.0, 0.0, 0)], [(0.5, 0.5, 0)], [(0.5, 0.5, -1)]]
    at.run()
    assert any("1 points drawn" in c.value for c in at.caption)  # the third stroke erased one
    at.button(key="draw_undo").click().run()
    assert any("2 points drawn" in c.value for c in at.caption)
    at.button(key="draw_use").click().run()
    assert [e.value for e in at.error] and "at least two classes" in at.error[0].value
    assert not str(at.session_state["ds"] if "ds" in at.session_state else "").startswith("upload")
    assert at.error[0].value.startswith("Use as data set: the drawing has only class A")
    at.button(key="draw_clear").click().run()
    assert any("0 points drawn" in c.value for c in at.caption)
    assert at.button(key="draw_use").disabled  # nothing to use (it said "this drawing: the
    # drawing has no points: ..." in red)


def test_a_drawing_becomes_a_data_set_that_the_embed_page_embeds_and_the_snippet_reproduces():
    at = app_on("draw")
    at.session_state["_metriclab_strokes"] = two_blobs()
    at.run()
    at.button(key="draw_use").click().run()
    assert not at.error, [e.value for e in at.error]
    key = at.session_state["ds"]
    assert key.startswith("upload:") and key == at.session_state["_metriclab_drawn_key"]
    embed = same_session(at, "embed", {"method": "tdl", "p.tdl.n_neighbors": "5", "p.tdl.k": "3"})
    assert not embed.exception and not embed.error, [e.value for e in embed.error]
    assert embed.sidebar.selectbox(key="ds").value == key
    assert embed.get("plotly_chart"), "no embedding"
    code = shown_code(embed)
    assert "from_points(" in code
    (out,) = run_snippets([code])
    assert out == f"1-NN accuracy: {embed.metric[0].value}\n"
    # a drawing that changes replaces the previous one (one drawn set per session)
    at.session_state["_metriclab_strokes"] = two_blobs(seed=1)
    at.run()
    at.button(key="draw_use").click().run()
    assert at.session_state["ds"] != key
    drawn = [n for n in at.session_state["_metriclab_uploads"] if n.startswith("upload:")]
    assert drawn == [at.session_state["ds"]]


def test_a_drawing_with_fewer_points_than_the_default_graph_neighbours_is_embedded():
    """Four points: the graph's default of 10 neighbours cannot be built, so the slider offers at
    most the 3 other points and the view opens on them (it opened on an error, "Graph neighbours
    must be <= 3, got 10", a default fitted to our data sets, not to a drawing)."""
    at = app_on("draw")
    at.session_state["_metriclab_strokes"] = [
        [(0.0, 0.0, 0), (0.1, 0.0, 0), (0.9, 0.9, 1), (1.0, 0.9, 1)]
    ]
    at.run()
    at.button(key="draw_use").click().run()
    for method in ("tdl", "le"):
        embed = same_session(at, "embed", {"method": method})
        assert not embed.exception
        assert not [e.value for e in embed.error]
        neighbours = embed.slider(key=f"p.{method}.n_neighbors")
        assert neighbours.max == 3 and neighbours.value == 3


def test_another_session_cannot_open_a_drawing():
    at = app_on("draw")
    at.session_state["_metriclab_strokes"] = two_blobs()
    at.run()
    at.button(key="draw_use").click().run()
    key = at.session_state["ds"]
    other = AppTest.from_file(str(ROOT / "pages" / "embed.py"), default_timeout=TIMEOUT)
    other.query_params["ds"] = key
    other.run()
    assert other.sidebar.selectbox(key="ds").value != key
    assert any("not available here" in w.value for w in other.warning)


def test_odd_selection_events_from_the_browser_add_nothing():
    odd = [
        None,
        {"points": "many"},
        {"points": [{"curve_number": 0, "x": "a", "y": 0}]},
        {"points": [{"curve_number": 0, "x": float("nan"), "y": 0.0}]},
        {"points": [{"curve_number": 0, "x": 1e9, "y": 0.0}]},
        {"points": [{"curve_number": 0}]},
        {"points": [["not", "a", "dict"]]},
    ]
    for selection in odd:
        assert drawing.stroke_from_selection(selection, 0) == [], selection


def _stroke_script():
    import streamlit as st

    from metriclab.ui import draw

    draw.take_stroke(st.session_state.get("class", 0))
    st.write(f"{len(draw.strokes())} strokes")


def test_each_canvas_selection_is_one_stroke_taken_once_on_one_canvas_key():
    """The canvas keeps one chart key (a new key per stroke remounted the chart after every click,
    and clicks on the chart being replaced were lost): a selection becomes a stroke once, however
    many reruns see it; the next one (another point, a box) becomes the next stroke; Undo does not
    bring a seen selection back."""
    at = AppTest.from_function(_stroke_script, default_timeout=TIMEOUT)
    click = {"selection": {"points": [{"x": -0.5, "y": 0.25, "curve_number": 0}]}}
    at.session_state[drawing.CANVAS_KEY] = click
    at.run()
    at.run()  # another widget's rerun: the same selection, no second stroke
    assert at.markdown[0].value == "1 strokes"
    assert at.session_state["_metriclab_strokes"] == [[(-0.5, 0.25, 0)]]
    other = {"selection": {"points": [{"x": 0.5, "y": 0.5, "curve_number": 0}]}}
    at.session_state[drawing.CANVAS_KEY] = other
    at.session_state["class"] = 1
    at.run()
    assert at.session_state["_metriclab_strokes"][-1] == [(0.5, 0.5, 1)]
    at.session_state["_metriclab_strokes"] = at.session_state["_metriclab_strokes"][:1]  # Undo
    at.run()
    assert at.markdown[0].value == "1 strokes"
    at.session_state[drawing.CANVAS_KEY] = {"selection": {"points": []}}  # cleared: nothing
    at.run()
    assert at.markdown[0].value == "1 strokes"
    at.session_state[drawing.CANVAS_KEY] = click  # the first point clicked again: a new stroke
    at.run()
    assert at.markdown[0].value == "2 strokes"
