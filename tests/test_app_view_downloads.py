"""Issue 37, item 4 on the Embed page's other views: the λ scrub, the window map and the input view
offer their numbers as files equal to what they draw; the live view's coordinates say which
points were held out, and its learned matrix is drawn as the heat map the download holds."""

# ruff: noqa: F811 - the `downloads` fixture is imported from test_app_quality_export
from __future__ import annotations

import io

import numpy as np

from metriclab.export import notebook_code_cells, read_coordinates_csv
from metriclab.plots.embedding import EDGE_TRACE
from metriclab.ui.embed.new_points import HELD_OUT_NAME
from tests.apptest_helpers import add_new_point, figures, run_page, values
from tests.test_app_quality_export import (  # noqa: F401 - `downloads` is a fixture
    assert_clean,
    chart_points,
    downloads,
)


def _table(text: str) -> tuple[list[str], np.ndarray]:
    """A CSV's header and its numbers (a last column of class names is left out)."""
    import csv

    header, *rows = list(csv.reader(io.StringIO(text.strip())))
    if header[-1] == "class":
        header, rows = header[:-1], [row[:-1] for row in rows]
    return header, np.array(rows, dtype=float)


def test_the_scrubs_frames_file_holds_every_frame_as_drawn(downloads):
    at = run_page("embed", {"ds": "two_moons", "method": "tdl", "mode": "scrub", "scrub": "lam"})
    assert_clean(at)
    fig = figures(at)[0]
    header, rows = _table(downloads(at, "dl_frames").decode())
    assert header[:6] == ["lam", "index", "label", "labelled", "held_out", "dimension_1"]
    assert len(rows) == 200 * len(fig["frames"])
    for k, frame in enumerate(fig["frames"]):  # the file's frames in the slider's order
        mine = rows[200 * k : 200 * (k + 1)]
        assert len(set(mine[:, 0])) == 1
        coords = {int(r[1]): (float(r[5]), float(r[6])) for r in mine}
        drawn = {}
        for trace in frame["data"]:  # the class traces; the edge trace's points are clipped
            if "customdata" in trace and not trace.get("name", "").startswith(EDGE_TRACE):
                xs, ys = values(trace["x"]), values(trace["y"])
                for data, x, y in zip(trace["customdata"], xs, ys, strict=True):
                    index = data[0] if isinstance(data, list) else data
                    drawn[int(index)] = (float(x), float(y))
        assert len(drawn) > 100
        assert {i: coords[i] for i in drawn} == drawn  # the same floats
        assert int(mine[:, 3].sum()) == 20  # the split's labelled points


def test_the_window_maps_grid_file_is_the_maps_colours(downloads):
    query = {"ds": "two_moons", "method": "tdl", "mode": "window", "grid": "3"}
    at = run_page("embed", {**query, "lab": "per_class", "per": "3"})
    at.button(key="run_window").click().run()
    assert_clean(at)
    heat = figures(at)[0]["data"][0]
    z = np.array(values(heat["z"]), dtype=float)
    header, rows = _table(downloads(at, "dl_grid").decode())
    assert header == ["lam", "width", "accuracy", "baseline", "difference"]
    assert len(rows) == z.size
    np.testing.assert_array_equal(rows[:, 4].reshape(z.shape), z)
    np.testing.assert_array_equal(rows[:, 2] - rows[:, 3], rows[:, 4])
    code, figure = notebook_code_cells(downloads(at, "dl_window_notebook"))
    scope: dict = {}
    exec(compile(code, "<notebook>", "exec"), scope)  # noqa: S102 - the page's own snippet
    exec(compile(figure, "<figure>", "exec"), scope)  # noqa: S102
    redrawn = np.array(values(scope["fig"].to_dict()["data"][0]["z"]), dtype=float)
    np.testing.assert_allclose(redrawn, z, rtol=0, atol=1e-12)  # the notebook draws the map


def test_the_input_views_points_are_its_panels(downloads):
    at = run_page("embed", {"mode": "input", "ds": "two_moons", "method": "tdl"})
    assert_clean(at)
    fig = figures(at)[0]
    for key, axis in (("dl_input_coordinates", "x"), ("dl_input_embedding", "x2")):
        table = read_coordinates_csv(downloads(at, key).decode())
        drawn = {}
        for trace in fig["data"]:
            if trace.get("xaxis") == axis and "customdata" in trace:
                xs, ys = values(trace["x"]), values(trace["y"])
                for c, x, y in zip(trace["customdata"], xs, ys, strict=True):
                    drawn[int(c[0])] = (float(x), float(y))
        assert sorted(drawn) == table["index"].tolist()
        np.testing.assert_array_equal(table["Z"], np.array([drawn[i] for i in table["index"]]))
        assert int(table["labelled"].sum()) == 20


def test_the_input_views_points_on_a_panels_edge_download_where_they_lie(downloads):
    """TDL on Iris: one point carries axis 2 and is drawn on the panel's edge; the CSV gives where
    it lies (as its hover does), the others as drawn."""
    at = run_page("embed", {"mode": "input", "ds": "iris", "method": "tdl"})
    assert_clean(at)
    table = read_coordinates_csv(downloads(at, "dl_input_embedding").decode())
    row = {int(i): z for i, z in zip(table["index"], table["Z"], strict=True)}
    marked = 0
    for trace in figures(at)[0]["data"]:
        if trace.get("xaxis") != "x2" or "customdata" not in trace:
            continue
        xs, ys = values(trace["x"]), values(trace["y"])
        for c, x, y in zip(trace["customdata"], xs, ys, strict=True):
            if trace["name"].startswith("drawn at a panel's edge"):
                marked += 1
                assert c[2] == "(" + ", ".join(f"{v:.3g}" for v in row[int(c[0])]) + ")"
                assert abs(row[int(c[0])][1]) > abs(y)  # it lies beyond where it is drawn
            else:
                np.testing.assert_array_equal(row[int(c[0])], [x, y])
    assert marked == 1


def test_the_input_view_of_nca_offers_the_learned_matrix(downloads):
    at = run_page("embed", {"mode": "input", "ds": "iris", "method": "nca"})
    assert_clean(at)
    M = np.load(io.BytesIO(downloads(at, "dl_input_matrix_npy")), allow_pickle=False)
    live = run_page("embed", {"ds": "iris", "method": "nca"})
    np.testing.assert_array_equal(
        M, np.load(io.BytesIO(downloads(live, "dl_matrix_npy")), allow_pickle=False)
    )


def test_the_live_views_coordinates_mark_the_held_out_points(downloads):
    at = run_page("embed", {"ds": "iris", "method": "nca", "test": "0.3"})
    assert_clean(at)
    table = read_coordinates_csv(downloads(at, "dl_coordinates").decode())
    fig = figures(at)[0]
    held = [t for t in fig["data"] if t.get("name", "").startswith(HELD_OUT_NAME)]
    held_index = sorted(int(c[0]) for t in held if "customdata" in t for c in t["customdata"])
    assert held_index and sorted(table["index"][table["held_out"]]) == held_index
    assert not np.any(table["labelled"] & table["held_out"])
    drawn = chart_points(fig)
    kept = ~table["held_out"]
    chart = np.array([drawn[i] for i in table["index"][kept]])
    np.testing.assert_array_equal(table["Z"][kept], chart)


def test_the_learned_matrix_is_drawn_as_the_downloaded_one(downloads):
    at = run_page("embed", {"ds": "iris", "method": "nca"})
    assert_clean(at)
    M = np.load(io.BytesIO(downloads(at, "dl_matrix_npy")), allow_pickle=False)
    L = np.load(io.BytesIO(downloads(at, "dl_map_npy")), allow_pickle=False)
    heats = [f["data"][0] for f in figures(at) if f["data"][0].get("type") == "heatmap"]
    assert len(heats) == 2
    np.testing.assert_array_equal(np.array(values(heats[0]["z"]), dtype=float), M)
    np.testing.assert_array_equal(np.array(values(heats[1]["z"]), dtype=float), L)
    from metriclab.datasets import load

    assert list(heats[0]["x"]) == list(load("iris").feature_names)


def test_a_method_without_a_matrix_draws_no_heat_map():
    at = run_page("embed", {"ds": "iris", "method": "tdl"})
    assert_clean(at)
    assert not [f for f in figures(at) if f["data"][0].get("type") == "heatmap"]


def test_the_live_views_svg_is_the_chart_with_its_held_out_points(monkeypatch):
    """The SVG is made from the figure the page draws: with a held-out share its held-out trace
    and its title are in it (the SVG drew the held-out points as ordinary unlabelled ones, under
    another title: 125 unlabelled and 53 labelled points against the chart's 89, 53 and 36)."""
    from metriclab import export

    made = []

    def record(fig, **kwargs):
        made.append(fig)
        return b"<svg></svg>"

    monkeypatch.setattr(export, "figure_svg", record)
    at = run_page("embed", {"ds": "wine", "method": "lmnn", "frac": "0.3", "test": "0.2"})
    assert_clean(at)
    at.button(key="dl_svg_make").click().run()
    assert_clean(at)
    chart = figures(at)[0]
    (svg_figure,) = made
    drawn = svg_figure.to_plotly_json()
    assert drawn["layout"]["title"]["text"] == chart["layout"]["title"]["text"]
    names = [t.get("name") for t in drawn["data"]]
    assert names == [t.get("name") for t in chart["data"]]
    assert any(n and n.startswith(HELD_OUT_NAME) for n in names)
    for mine, shown in zip(drawn["data"], chart["data"], strict=True):
        for axis in ("x", "y"):
            if axis in shown:
                np.testing.assert_array_equal(values(mine[axis]), values(shown[axis]))


def test_the_dissimilarity_files_name_their_points_and_give_the_heat_maps_cells(downloads):
    """A point × point matrix's CSV names its rows and columns by the points' numbers on the page
    (the coordinates file's index): on soybean, whose classes are not in row order, the heat map
    (sorted by class) and the file differ cell by cell (at [0, 1]: 0.5219 drawn, 0.5104 in the
    file), and the file did not say which 81 of the 397 points its rows were."""
    from metriclab.plots.matrices import class_order

    at = run_page("dissimilarity", {"ds": "soybean", "dmethod": "zhang_mds", "frac": "0.2"})
    assert_clean(at)
    points = read_coordinates_csv(downloads(at, "dl_coordinates").decode())
    heat = {f["layout"]["title"]["text"]: f["data"][0] for f in figures(at) if f["data"]}
    for key, title in (("kernel_", "Kernel matrix"), ("dissimilarity_", "Dissimilarity")):
        lines = downloads(at, f"dl_{key}_csv").decode().strip().splitlines()
        header = lines[0].split(",")
        assert header[0] == "index"
        index = np.array(header[1:], dtype=int)
        rows = np.array([line.split(",") for line in lines[1:]])
        np.testing.assert_array_equal(rows[:, 0].astype(int), index)
        labelled = points["index"][points["labelled"]]
        np.testing.assert_array_equal(index, labelled)  # the labelled points, in their order
        M = rows[:, 1:].astype(float)
        np.testing.assert_array_equal(M, np.load(io.BytesIO(downloads(at, f"dl_{key}_npy"))))
        order = class_order(points["label"][np.isin(points["index"], index)])
        z = np.array(values(heat[next(t for t in heat if title in t)]["z"]), dtype=float)
        np.testing.assert_array_equal(M[np.ix_(order, order)], z)  # the heat map's cells


def test_an_uploads_files_are_named_after_the_uploaded_file(monkeypatch):
    """An upload's files are named after the file the person uploaded (the chart's title says
    "NCA on my-plants.csv"); they were named after the session's key of the upload
    (metriclab-4618a4f7347c882de1a35bc5-nca-coordinates.csv)."""
    from streamlit.testing.v1 import AppTest

    from metriclab.ui.shared import downloads as ui_downloads
    from tests.apptest_helpers import ROOT

    def owner():
        import streamlit as st

        from metriclab.ui.data import handle_upload

        rows = "\n".join(f"{i % 7},{(i * 3) % 5},{i % 4},{'ab'[i % 2]}" for i in range(40))
        st.session_state["key"] = handle_upload(f"x,z,w,kind\n{rows}\n".encode(), "my-plants.csv")

    a = AppTest.from_function(owner, default_timeout=120).run()
    assert_clean(a)
    named = []
    original = ui_downloads._button
    monkeypatch.setattr(
        ui_downloads,
        "_button",
        lambda container, label, data, file, key, help="": (
            named.append(file[0]),
            original(container, label, data, file, key, help),
        ),
    )
    at = AppTest.from_file(str(ROOT / "pages" / "embed.py"), default_timeout=180)
    at.session_state["_metriclab_uploads"] = a.session_state["_metriclab_uploads"]
    at.query_params.update({"ds": a.session_state["key"], "method": "nca"})
    at.run()
    assert_clean(at)
    assert "metriclab-my-plants-nca-coordinates.csv" in named, named
    assert all(name.startswith("metriclab-my-plants-nca") for name in named), named


def test_the_coordinates_name_each_points_class_as_the_legend_does(downloads):
    """The coordinates file names each point's class as the chart's legend does: on glass the
    codes are not the names (code 3 is '5 containers'), and the file held the codes only."""
    at = run_page("embed", {"ds": "glass", "method": "nca", "test": "0.2"})
    assert_clean(at)
    table = read_coordinates_csv(downloads(at, "dl_coordinates").decode())
    legend = {}
    for trace in figures(at)[0]["data"]:
        name = trace.get("name", "").removesuffix(" (labeled)")
        if "customdata" in trace and not name.startswith(HELD_OUT_NAME):
            for data in trace["customdata"]:
                legend[int(data[0] if isinstance(data, list) else data)] = name
    assert len(legend) > 150
    named = dict(zip(table["index"].tolist(), table["class"].tolist(), strict=True))
    assert {i: named[i] for i in legend} == legend
    assert named[int(table["index"][table["label"] == 3][0])] == "5 containers"


def test_the_code_and_notebook_of_a_held_out_view_recompute_its_chart_and_tiles(downloads):
    """With a held-out share the chart is the fit without the held-out points: the page's code
    (and the notebook made from it) recomputes that fit and prints the held-out tiles' numbers
    (wine, LMNN, 20 % held out: 0.944 on the held-out points, 0.989 on the others); it
    recomputed only the fit on every point, so its Z was not the chart's."""
    at = run_page(
        "embed", {"ds": "wine", "method": "lmnn", "frac": "0.3", "seed": "3", "test": "0.2"}
    )
    assert_clean(at)
    tiles = {m.label: m.value for m in at.metric}
    cells = notebook_code_cells(downloads(at, "dl_notebook"))
    scope: dict = {}
    import contextlib

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(cells[0], "<notebook>", "exec"), scope)  # noqa: S102 - the page's own code
    out = printed.getvalue()
    assert f"1-NN accuracy: {tiles['1-NN accuracy']}" in out  # the fit on every point, as before
    assert f"1-NN on held-out (mapped): {tiles['1-NN on held-out (mapped)']}" in out
    assert f"1-NN other unlabelled: {tiles['1-NN other unlabelled']}" in out
    table = read_coordinates_csv(downloads(at, "dl_coordinates").decode())
    np.testing.assert_array_equal(scope["held"].held_out, table["held_out"])
    np.testing.assert_array_equal(scope["mask"], table["labelled"])
    # the chart draws Z centred, scaled and turned: the same picture, equal pairwise distances
    from scipy.spatial.distance import pdist

    from metriclab.plots import normalize_embedding

    shape = pdist(normalize_embedding(scope["Z"][:, :2]))
    np.testing.assert_allclose(shape, pdist(table["Z"]), rtol=1e-9, atol=1e-12)


def test_the_tangent_pages_svg_is_its_row_of_tangent_vectors(monkeypatch):
    """The Tangent page's SVG is the row of tangent vectors it draws, with its title (how many
    the distance uses) and the "not used" marks; it was a figure of its own, without them."""
    from metriclab import export

    made = []
    monkeypatch.setattr(export, "figure_svg", lambda fig, **kwargs: made.append(fig) or b"<svg/>")
    at = run_page("tangent", {"tds": "usps", "pool": "300", "tset": "translation", "q": "3"})
    assert_clean(at)
    at.button(key="dl_svg_tangents_make").click().run()
    assert_clean(at)
    (svg_figure,) = made
    drawn = svg_figure.to_plotly_json()
    row = next(
        f for f in figures(at) if "Tangent vectors" in f["layout"].get("title", {}).get("text", "")
    )
    assert drawn["layout"]["title"]["text"] == row["layout"]["title"]["text"]
    texts = drawn["layout"]["xaxis"]["ticktext"]  # the images' titles, over each
    assert list(texts) == list(row["layout"]["xaxis"]["ticktext"])
    assert sum("not used" in t for t in texts) == 5
    np.testing.assert_array_equal(values(drawn["data"][0]["z"]), values(row["data"][0]["z"]))


def test_the_compare_pages_files_say_which_comparison_they_hold(monkeypatch):
    """The Compare page's files are named after the data sets, the methods and the splits they
    hold: every comparison was saved as metriclab-comparison.csv, -summary.csv, ... alike."""
    from streamlit.elements.widgets.button import ButtonMixin

    named = []
    original = ButtonMixin.download_button

    def record(self, label, data, file_name=None, *args, **kwargs):
        named.append(file_name)
        return original(self, label, data, file_name, *args, **kwargs)

    monkeypatch.setattr(ButtonMixin, "download_button", record)
    at = run_page("compare", {"cds": "wine,glass", "cm": "nca,lmnn", "splits": "2"})
    at.button[0].click().run()
    assert_clean(at)
    stem = "metriclab-comparison-wine-glass-nca-lmnn-2-splits"
    assert f"{stem}.csv" in named and f"{stem}-summary.csv" in named, named
    assert f"{stem}.html" in named and f"{stem}.ipynb" in named, named


def test_the_new_points_file_holds_the_stars_as_drawn_and_their_neighbours(downloads):
    """A new point's star, its features and its neighbours can be taken away: the chart drew
    the star and the page listed its neighbours, but no file held them."""
    import csv

    from metriclab.ui.embed.new_points import QUERY_NAME

    at = run_page("embed", {"ds": "two_moons", "method": "tdl", "test": "0.2"})
    assert_clean(at)
    add_new_point(at, 0.5, 0.25)
    assert_clean(at)
    (star,) = [t for t in figures(at)[0]["data"] if t.get("name", "").startswith(QUERY_NAME)]
    header, *rows = list(csv.reader(io.StringIO(downloads(at, "dl_new_points").decode())))
    (row,) = rows
    got = dict(zip(header, row, strict=True))
    assert (float(got["dimension_1"]), float(got["dimension_2"])) == (
        float(values(star["x"])[0]),
        float(values(star["y"])[0]),
    )  # the star where it is drawn (inside the frame: no clip)
    assert (float(got["x1"]), float(got["x2"])) == (0.5, 0.25)
    table = at.dataframe[0].value  # the page's neighbours of the new point
    assert [int(got[f"neighbour_{r}"]) for r in range(1, 6)] == table["index"].tolist()
    assert [got[f"neighbour_{r}_class"] for r in range(1, 6)] == table["label"].tolist()
    assert [float(got[f"distance_{r}"]) for r in range(1, 6)] == table["distance"].tolist()
