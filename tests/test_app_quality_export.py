"""Issue 37, items 3 and 4 on the pages: what the Embed page's downloads hold equals what it shows
(the chart's coordinates, the learned matrix, a notebook that recomputes the view), the quality
line's numbers equal the library's (and scikit-learn's) on the downloaded coordinates, the
classifier choice changes the scores and the link, and a bad k is a message, not a traceback."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest
from sklearn.manifold import trustworthiness as sklearn_trustworthiness
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from metriclab.evaluation.quality import accuracy_with_baseline, neighbourhood_quality
from metriclab.evaluation.scoring import classifier_accuracy
from metriclab.export import notebook_code_cells, read_coordinates_csv
from metriclab.plots import normalize_embedding
from tests.apptest_helpers import figures, run_page, values

IRIS_NCA = {"ds": "iris", "method": "nca"}


@pytest.fixture
def downloads(monkeypatch):
    """read(at, key): the bytes of download button `key` as a click gets them. A button's file is
    made on click (Streamlit's deferred download: the function is recorded as it is registered,
    and called here as the server calls it, outside the script run); a button with bytes is read
    from AppTest's memory store, which drops them after each run, so they are recorded as they
    are stored."""
    files: dict[str, object] = {}
    original = MemoryMediaFileStorage.load_and_get_id
    original_deferred = MediaFileManager.add_deferred

    def record(self, path_or_data, mimetype, kind, filename=None):
        file_id = original(self, path_or_data, mimetype, kind, filename)
        files[file_id] = path_or_data
        return file_id

    def record_deferred(self, data_callable, *args, **kwargs):
        file_id = original_deferred(self, data_callable, *args, **kwargs)
        files[file_id] = data_callable
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    monkeypatch.setattr(MediaFileManager, "add_deferred", record_deferred)

    def read(at, key: str) -> bytes:
        buttons = [b for b in at.get("download_button") if b.proto.id.endswith(f"-{key}")]
        assert buttons, (
            f"no download button {key}: {[b.proto.id for b in at.get('download_button')]}"
        )
        proto = buttons[0].proto
        if proto.deferred_file_id:
            data = files[proto.deferred_file_id]()
        else:
            data = files[proto.url.rsplit("/", 1)[-1].rsplit(".", 1)[0]]
        return data.encode() if isinstance(data, str) else bytes(data)

    return read


def assert_clean(at):
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def chart_points(fig) -> dict[int, tuple[float, float]]:
    """index -> (x, y) of every point of the embedding chart's class traces."""
    points = {}
    for trace in fig["data"]:
        if "customdata" not in trace or trace.get("type", "scatter") not in (
            "scatter",
            "scattergl",
        ):
            continue
        xs, ys = values(trace["x"]), values(trace["y"])
        for data, x, y in zip(trace["customdata"], xs, ys, strict=True):
            index = data[0] if isinstance(data, list) else data
            points[int(index)] = (float(x), float(y))
    return points


def quality_text(at) -> str:
    found = [m.value for m in at.markdown if "trustworthiness" in m.value]
    assert found, "no quality line"
    return found[0]


def numbers_after(text: str, word: str) -> list[float]:
    return [float(v) for v in re.findall(rf"{word} \*\*([0-9.]+)\*\*", text)]


def test_the_downloaded_coordinates_are_the_charts(downloads):
    at = run_page("embed", IRIS_NCA)
    assert_clean(at)
    table = read_coordinates_csv(downloads(at, "dl_coordinates").decode())
    drawn = chart_points(figures(at)[0])
    assert sorted(drawn) == table["index"].tolist()
    chart = np.array([drawn[i] for i in table["index"]])
    np.testing.assert_array_equal(table["Z"], chart)  # the same floats, not close ones
    assert table["labelled"].sum() == 15 and not table["held_out"].any()
    from metriclab.datasets import load

    np.testing.assert_array_equal(table["label"], load("iris").y)
    # after a parameter change the picture is aligned to the previous one: still the chart's
    options = list(at.select_slider(key="p.nca.max_iter").options)
    at.select_slider(key="p.nca.max_iter").set_value(options[0]).run()
    assert_clean(at)
    table = read_coordinates_csv(downloads(at, "dl_coordinates").decode())
    drawn = chart_points(figures(at)[0])
    np.testing.assert_array_equal(table["Z"], np.array([drawn[i] for i in table["index"]]))


def _page_model(at):
    """The page's fit recomputed by its own "Show the code" snippet (the public API)."""
    code = [c.value for c in at.code if "model" in c.value][0]
    scope: dict = {}
    exec(compile(code, "<snippet>", "exec"), scope)  # noqa: S102 - the page's own snippet
    return scope


def test_the_downloaded_matrix_is_the_learners(downloads):
    at = run_page("embed", IRIS_NCA)
    assert_clean(at)
    M = np.load(io.BytesIO(downloads(at, "dl_matrix_npy")), allow_pickle=False)
    scope = _page_model(at)
    np.testing.assert_allclose(M, scope["model"].get_mahalanobis_matrix(), rtol=1e-10, atol=1e-12)
    text = downloads(at, "dl_matrix_csv").decode().splitlines()
    assert text[0].split(",") == list(scope["ds"].feature_names)
    np.testing.assert_array_equal(np.array([r.split(",") for r in text[1:]], dtype=float), M)
    L = np.load(io.BytesIO(downloads(at, "dl_map_npy")), allow_pickle=False)
    np.testing.assert_allclose(L.T @ L, M, rtol=1e-10, atol=1e-12)


def test_a_method_without_a_matrix_offers_none(downloads):
    at = run_page("embed", {"ds": "iris", "method": "tdl"})
    assert_clean(at)
    keys = [b.proto.id.rsplit("-", 1)[-1] for b in at.get("download_button")]
    assert "dl_coordinates" in keys and "dl_notebook" in keys and "dl_neighbours" in keys
    assert not [k for k in keys if k.startswith("dl_matrix")]


def test_the_notebook_runs_and_gives_the_pages_coordinates_and_number(downloads):
    at = run_page("embed", IRIS_NCA)
    assert_clean(at)
    made = downloads(at, "dl_notebook")
    assert len(notebook_code_cells(made)) == 2  # the page's code, the figure
    outputs = _execute(made, "import json\nprint('Z=' + json.dumps(Z.tolist()))")
    printed = "".join(o.get("text", "") for o in outputs)
    accuracy = at.metric[0].value
    assert f"1-NN accuracy: {accuracy}" in printed
    figure = [o for o in outputs if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert figure, "the figure cell drew nothing"
    Z = np.array(json.loads(re.search(r"Z=(\[.*\])", printed).group(1)))
    table = read_coordinates_csv(downloads(at, "dl_coordinates").decode())
    # the first picture of a session is the embedding centred and scaled (no earlier picture
    # to rotate onto)
    np.testing.assert_allclose(normalize_embedding(Z), table["Z"], rtol=0, atol=1e-9)


def test_the_quality_line_equals_the_library_and_scikit_learn(downloads):
    at = run_page("embed", IRIS_NCA)
    assert_clean(at)
    text = quality_text(at)
    table = read_coordinates_csv(downloads(at, "dl_coordinates").decode())
    Z, y, mask = table["Z"], table["label"], table["labelled"]
    scope = _page_model(at)
    X = scope["X"]  # the features as the page scaled them
    trust, cont, kept = (
        numbers_after(text, w) for w in ("trustworthiness", "continuity", "kept neighbours")
    )
    quality = neighbourhood_quality(X, Z, 5)
    assert trust[0] == pytest.approx(round(sklearn_trustworthiness(X, Z, n_neighbors=5), 3))
    assert trust[0] == pytest.approx(round(quality.trustworthiness, 3))
    assert cont[0] == pytest.approx(round(quality.continuity, 3))
    assert kept[0] == pytest.approx(round(quality.kept, 3))
    assert "all 150 points" in text
    # against NCA's learned metric: its own space, 1 by construction
    assert trust[1] == cont[1] == kept[1] == 1.0 and "by construction" in text
    # the accuracy beside chance: 20 shuffles of the labelled points' labels
    baseline = accuracy_with_baseline(Z, y, mask, "1nn")
    assert (
        f"1-NN accuracy {baseline.accuracy:.3f}** (chance {baseline.baseline_mean:.2f} ± "
        f"{baseline.baseline_std:.2f}" in text
    )
    assert "labels shuffled 20 times" in text


def test_a_bad_k_is_a_message_not_a_traceback():
    # the widget offers k below half the 150 points measured; a link's k past it is lowered to
    # the largest, with a notice (k = 100 drew an error; a drawing's 4 points erred at k = 5)
    at = run_page("embed", {**IRIS_NCA, "qk": "100"})
    assert not at.exception and not at.error
    assert at.number_input(key="qk").value == 74 and at.number_input(key="qk").max == 74
    assert "(k = 74," in quality_text(at)
    assert any("k" in n.value and "74" in n.value for n in [*at.warning, *at.info]), [
        n.value for n in [*at.warning, *at.info]
    ]
    at = run_page("embed", {**IRIS_NCA, "qk": "0"})  # a link's k below 1 is raised to 1
    assert not at.exception
    assert at.number_input(key="qk").value == 1
    assert "(k = 1," in quality_text(at)


def test_measure_names_a_bad_k():
    from metriclab.ui.shared.quality_panel import QualitySettings, measure

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), np.repeat([0, 1], 20)
    mask = np.arange(40) % 4 == 0
    for k, words in ((0, "k must be a whole number >= 1"), (41, "must be less than half")):
        with pytest.raises(ValueError, match=words):
            measure(X[:, :2], X, y, mask, QualitySettings(k=k))


def test_the_classifier_choice_scores_every_tile_and_goes_into_the_link(downloads):
    at = run_page("embed", IRIS_NCA)
    at.selectbox(key="clf").set_value("nearest_mean").run()
    assert_clean(at)
    assert at.metric[0].label == "nearest class mean accuracy"
    table = read_coordinates_csv(downloads(at, "dl_coordinates").decode())
    Z, y, mask = table["Z"], table["label"], table["labelled"]
    expected = classifier_accuracy(Z[mask], y[mask], Z[~mask], y[~mask], "nearest_mean")
    assert float(at.metric[0].value) == pytest.approx(round(expected, 3))
    assert "nearest class mean accuracy" in quality_text(at)
    assert at.query_params["clf"] in ("nearest_mean", ["nearest_mean"])
    reopened = run_page("embed", {**IRIS_NCA, "clf": "knn:5"})
    assert_clean(reopened)
    assert reopened.metric[0].label == "5-NN accuracy"


def test_the_overlay_colours_each_point_by_its_own_trustworthiness(downloads):
    at = run_page("embed", IRIS_NCA)
    at.selectbox(key="qcolour").set_value("trustworthiness").run()
    assert_clean(at)
    overlay = [f for f in figures(at) if any("colorbar" in t.get("marker", {}) for t in f["data"])]
    assert len(overlay) == 1
    trace = [t for t in overlay[0]["data"] if "colorbar" in t.get("marker", {})][0]
    shown = values(trace["marker"]["color"])
    scope = _page_model(at)
    table = read_coordinates_csv(downloads(at, "dl_coordinates").decode())
    expected = neighbourhood_quality(scope["X"], table["Z"], 5).trustworthiness_per_point
    index = values(trace["customdata"])[:, 0].astype(int)
    np.testing.assert_allclose(shown, expected[index], rtol=0, atol=1e-12)
    assert "trustworthiness" in trace["hovertemplate"]


def test_compare_scores_by_the_chosen_classifier(downloads):
    at = run_page("compare", {"cds": "iris", "cm": "pca", "splits": "2", "clf": "nearest_mean"})
    at.button[0].click().run()
    assert_clean(at)
    results = downloads(at, "dl_csv").decode()
    import pandas as pd

    frame = pd.read_csv(io.StringIO(results))
    assert set(frame["classifier"]) == {"nearest_mean"}
    notebook = notebook_code_cells(downloads(at, "dl_notebook"))
    assert "classifier='nearest_mean'" in notebook[0] and "comparison(results)" in notebook[1]


def test_a_large_set_is_measured_on_a_named_sample(monkeypatch):
    """Past FULL_MAX_POINTS (10,000: all of MNIST's 70,000 are past it) the measures run on a
    stratified sample of SAMPLE_SIZE and the page says its size; here both are lowered so that
    iris is such a set."""
    from metriclab.evaluation import quality

    monkeypatch.setattr(quality, "FULL_MAX_POINTS", 100)
    monkeypatch.setattr(quality, "SAMPLE_SIZE", 60)
    at = run_page("embed", {**IRIS_NCA, "qk": "4"})  # a k of its own: not a cached report
    assert_clean(at)
    assert "(k = 4, a stratified sample of 60 of the 150 points (seed 0))" in quality_text(at)
    captions = " ".join(c.value for c in at.caption)
    assert "Measured on a stratified sample of 60 of the 150 points (seed 0)" in captions


def test_the_figure_as_svg_is_made_on_request_and_a_failure_says_why(downloads, monkeypatch):
    pytest.importorskip("kaleido")
    at = run_page("embed", IRIS_NCA)
    assert not [b for b in at.get("download_button") if b.proto.id.endswith("-dl_svg")]
    at.button(key="dl_svg_make").click().run()
    assert_clean(at)
    svg = downloads(at, "dl_svg")
    assert svg.lstrip().startswith(b"<svg") and b"NCA on iris" in svg.replace(b"Iris", b"iris")
    from metriclab import export

    def no_browser(fig, **kwargs):
        raise RuntimeError("SVG export failed in Kaleido (no browser); it needs a Chrome")

    monkeypatch.setattr(export, "figure_svg", no_browser)
    at = run_page("embed", {"ds": "iris", "method": "pca"})
    at.button(key="dl_svg_make").click().run()
    assert_clean(at)
    assert any("No SVG: SVG export failed in Kaleido" in c.value for c in at.caption)


def test_dissimilarity_tangent_and_draw_offer_their_files(downloads):
    from streamlit.testing.v1 import AppTest

    from metriclab.methods.tangent import TRANSFORMS
    from tests.apptest_helpers import ROOT

    at = run_page("dissimilarity", {"ds": "iris", "dmethod": "zhang_mds"})
    assert_clean(at)
    D = np.load(io.BytesIO(downloads(at, "dl_dissimilarity__npy")))
    scope = _page_model(at)
    np.testing.assert_allclose(D, scope["model"].dissimilarity_, rtol=1e-12, atol=1e-12)
    cells = notebook_code_cells(downloads(at, "dl_notebook"))
    assert "dissimilarity(D, D_labels)" in cells[1]

    at = run_page("tangent", {"tds": "usps", "pool": "300"})
    assert_clean(at)
    T = np.load(io.BytesIO(downloads(at, "dl_tangents_npy")))
    assert T.shape[0] == len(TRANSFORMS) and T.shape[1] == 256  # 16 × 16 pixels

    at = AppTest.from_file(str(ROOT / "pages" / "draw.py"), default_timeout=120)
    at.session_state["_metriclab_strokes"] = [[(0.1, 0.2, 0), (0.3, 0.4, 1)], [(-0.5, 0.5, 1)]]
    at.run()
    assert_clean(at)
    table = read_coordinates_csv(downloads(at, "dl_drawing").decode())
    np.testing.assert_array_equal(table["Z"], [[0.1, 0.2], [0.3, 0.4], [-0.5, 0.5]])
    np.testing.assert_array_equal(table["label"], [0, 1, 1])
    assert table["class"].tolist() == ["A", "B", "B"]  # as the drawing's legend names them


def _execute(notebook_bytes: bytes, *more_cells: str):
    """Run a notebook (and `more_cells` after its own) with a Jupyter kernel of this interpreter,
    from the checkout; its outputs."""
    import os
    import sys

    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.reads(notebook_bytes.decode(), as_version=4)
    notebook.cells += [nbformat.v4.new_code_cell(code) for code in more_cells]
    path_before = os.environ.get("PATH", "")
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + path_before
    try:
        nbclient.NotebookClient(
            notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": "."}}
        ).execute()
    finally:
        os.environ["PATH"] = path_before
    return [o for cell in notebook.cells for o in cell.get("outputs", [])]


def test_the_compare_and_dissimilarity_notebooks_run_and_draw():
    from metriclab.export import notebook_from_code
    from metriclab.ui.compare import COMPARISON_FIGURE, ComparisonRequest
    from metriclab.ui.dissimilarity import DISSIMILARITY_FIGURE
    from metriclab.ui.shared.code_snippets import compare_snippet, dissimilarity_snippet
    from tests.apptest_helpers import fit_request

    comparison = ComparisonRequest(("iris",), ("pca",), 2, classifier="knn:5")
    request = fit_request("iris", "zhang_mds", scaling="standardise")
    for code, figure, printed in (
        (compare_snippet(comparison), COMPARISON_FIGURE, "accuracy_mean"),
        (dissimilarity_snippet(request), DISSIMILARITY_FIGURE, "Fisher separable"),
    ):
        outputs = _execute(notebook_from_code(code, "a page", figure))
        assert printed in "".join(o.get("text", "") for o in outputs)
        assert any("application/vnd.plotly.v1+json" in o.get("data", {}) for o in outputs)
