"""AppTest of the linked views with new points and downloads (issue 37, items 2 and 4 in the
linked mode): `test=0.3` in the link holds the same points out of every method's fit, each view
draws them where its own out-of-sample map places them (carried over by the view's alignment) with
the held-out 1-NN accuracy under it; a new point added on the page is a star in every view at
`Panel.place` of where the method maps it; the download expander's coordinates are the views'."""

from __future__ import annotations

import numpy as np
import pytest

from metriclab.evaluation.held_out import fit_held_out, held_out_mask
from metriclab.export import read_coordinates_csv
from metriclab.ui.embed import linked
from metriclab.ui.embed.new_points import HELD_OUT_NAME, QUERY_NAME
from tests.apptest_helpers import add_new_point, run_page, values
from tests.test_app_quality_export import downloads  # noqa: F401 - the fixture
from tests.test_ui_embed_linked import assert_clean, drawn, panels_of
from tests.test_ui_new_points import library_new_point, no_map_method, page_fit, traces

METHODS = ["tdl", "le", "nca"]


@pytest.fixture
def panels(monkeypatch):
    """{method: the Panel of its view} of the last run (a PANEL_EXTRAS hook records them)."""
    seen: dict = {}
    monkeypatch.setattr(linked, "PANEL_EXTRAS", [lambda p: seen.__setitem__(p.request.method, p)])
    return seen


def xy(trace) -> np.ndarray:
    return np.column_stack([values(trace["x"]), values(trace["y"])])


def test_a_held_out_share_is_drawn_and_scored_in_every_view(panels):
    at = run_page("embed", {"ds": "iris", "mode": "linked", "methods": ",".join(METHODS),
                            "test": "0.3"}, 240)  # fmt: skip
    assert_clean(at)
    figs = panels_of(at)
    assert len(figs) == 3
    accuracies = [m.value for m in at.metric if m.label == "1-NN, held out"]
    assert len(accuracies) == 3
    for method, fig, shown in zip(METHODS, figs, accuracies, strict=True):
        ds, mask, request, seed = page_fit(at, "iris", method)
        expected = held_out_mask(ds.y, 0.3, mask, seed)
        (held,) = traces(fig, HELD_OUT_NAME)
        assert held["marker"]["symbol"] == "diamond-open"
        assert sorted(int(c[0]) for c in held["customdata"]) == np.flatnonzero(expected).tolist()
        assert len(held["customdata"]) == 45
        assert len(drawn(fig)) == 150  # every point once: the held-out ones only in their trace
        fit = fit_held_out(request, test=0.3, seed=seed)
        assert shown == f"{fit.held_out_accuracy:.3f}"
        # the view draws the fit without them, and places them by its own alignment
        panel = panels[method]
        np.testing.assert_array_equal(panel.result.Z, fit.embedding)
        index = [int(c[0]) for c in held["customdata"]]
        np.testing.assert_allclose(xy(held), panel.place(fit.embedding[index]), atol=1e-9)
    assert at.query_params["test"] in ("0.3", ["0.3"])


def test_a_new_point_is_a_star_in_every_view_where_each_method_maps_it(panels):
    at = run_page("embed", {"ds": "two_moons", "mode": "linked", "methods": ",".join(METHODS),
                            "test": "0.3"}, 240)  # fmt: skip
    assert_clean(at)
    add_new_point(at, 0.5, 0.25)
    assert_clean(at)
    figs = panels_of(at)
    assert len(figs) == 3
    for method, fig in zip(METHODS, figs, strict=True):
        (star,) = traces(fig, QUERY_NAME)
        assert star["marker"]["symbol"] == "star"
        _, new, _ = library_new_point(at, "two_moons", method, [0.5, 0.25])
        expected = panels[method].place(np.asarray(new.coordinates).reshape(1, -1))
        np.testing.assert_allclose(xy(star), expected, atol=1e-9)
    # the controls once, the neighbours under each method's metric, a tab each
    assert len(at.get("plotly_chart")) == 4  # three views and one input panel
    assert len(at.tabs) == 3
    assert all(len(t.dataframe[0].value) == 5 for t in at.tabs)


def test_a_method_without_a_map_says_so_under_its_view():
    with no_map_method():
        query = {"ds": "iris", "mode": "linked", "methods": "tdl,_no_map", "test": "0.3"}
        at = run_page("embed", query, 240)
    assert_clean(at)
    tdl, no_map = panels_of(at)
    assert len(traces(tdl, HELD_OUT_NAME)) == 1 and not traces(no_map, HELD_OUT_NAME)
    said = [c.value for c in at.caption if "no held-out or new points in this view" in c.value]
    assert len(said) == 1 and "has no out-of-sample map" in said[0]
    assert len([m for m in at.metric if m.label == "1-NN, held out"]) == 1


def test_the_coordinates_download_is_each_views_drawing(downloads):  # noqa: F811
    query = {"ds": "iris", "mode": "linked", "methods": ",".join(METHODS), "test": "0.3",
             "sel": "0-9"}  # fmt: skip
    at = run_page("embed", query, 240)
    assert_clean(at)
    for position, fig in enumerate(panels_of(at), start=1):
        table = read_coordinates_csv(downloads(at, f"dl_linked_{position}").decode())
        points = drawn(fig)
        assert table["index"].tolist() == sorted(points) == list(range(150))
        # where each point lies as drawn: a point carrying a coordinate is drawn on the frame's
        # edge (its hover says where it lies, which the file gives)
        ranges = [fig["layout"][axis]["range"] for axis in ("xaxis", "yaxis")]
        on_chart = np.column_stack([np.clip(table["Z"][:, a], *ranges[a]) for a in (0, 1)])
        np.testing.assert_array_equal(on_chart, np.array([points[i] for i in table["index"]]))
        assert table["held_out"].sum() == 45
        own = read_coordinates_csv(downloads(at, f"dl_linked_own_{position}").decode())
        assert own["Z"].shape[0] == 150
    selection = downloads(at, "dl_linked_selection").decode().splitlines()
    # "label" is the class code as in the coordinates files (it held the class's name there)
    assert selection[0] == "index,label,labelled,class"
    assert [int(r.split(",")[0]) for r in selection[1:]] == list(range(10))
    assert {r.split(",", 3)[1] for r in selection[1:]} == {"0"}
    assert {r.split(",", 3)[3] for r in selection[1:]} == {"setosa"}
