"""Take it with you (issue 37, item 4): the downloads give back what the page computed — the
coordinates CSV round-trips exactly (the trustworthiness from it equals quality's), the learned
matrix as .npy and CSV, the neighbour lists, the SVG (with the missing-extra message), and a
notebook built from a real Embed snippet that runs and prints the snippet's number."""

import importlib.util
import io
import json
import re
import shutil
import subprocess
import sys

import numpy as np
import plotly.graph_objects as go
import pytest
from sklearn.manifold import trustworthiness as sklearn_trustworthiness

from metriclab import NCA, TDL
from metriclab.datasets import load
from metriclab.evaluation import embedding_accuracy, labeled_mask, partial_labels
from metriclab.evaluation.quality import neighbourhood_quality
from metriclab.export import (
    coordinates_csv,
    figure_svg,
    learned_matrix,
    matrix_csv,
    matrix_npy,
    neighbours_csv,
    notebook_code_cells,
    notebook_from_code,
    rasterised_traces,
    read_coordinates_csv,
)
from metriclab.methods import specs_with
from metriclab.resources import MissingExtra
from tests.apptest_helpers import ROOT


@pytest.fixture(scope="module")
def iris_tdl():
    ds = load("iris")
    mask = labeled_mask(ds.y, fraction=0.2, seed=0)
    Z = TDL(n_components=2).fit(ds.X, partial_labels(ds.y, mask)).embedding_
    return ds, mask, Z


def test_coordinates_round_trip_exactly_and_give_the_same_trustworthiness(iris_tdl):
    ds, mask, Z = iris_tdl
    held = np.zeros(150, dtype=bool)
    held[::7] = True
    text = coordinates_csv(Z, ds.y, labeled=mask, held_out=held)
    header = text.splitlines()[0].split(",")
    assert header == ["index", "label", "labelled", "held_out", "dimension_1", "dimension_2"]
    back = read_coordinates_csv(text)
    np.testing.assert_array_equal(back["Z"], Z)  # bitwise: shortest round-trip floats
    np.testing.assert_array_equal(back["label"], ds.y)
    np.testing.assert_array_equal(back["labelled"], mask)
    np.testing.assert_array_equal(back["held_out"], held)
    np.testing.assert_array_equal(back["index"], np.arange(150))
    # what a person computes from the download equals what quality.py reports
    from_csv = sklearn_trustworthiness(ds.X, back["Z"], n_neighbors=7)
    assert from_csv == neighbourhood_quality(ds.X, Z, k=7).trustworthiness
    # and numpy reads the file without our reader
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    np.testing.assert_array_equal(table[:, 4:], Z)


def test_coordinates_with_a_subsample_index_and_one_column():
    text = coordinates_csv([0.25, -1.5], [1, 0], index=[40, 7])
    assert text == ("index,label,labelled,held_out,dimension_1\n40,1,0,0,0.25\n7,0,0,0,-1.5\n")
    with pytest.raises(ValueError, match="one label per point"):
        coordinates_csv(np.zeros((3, 2)), [0, 1])


def test_learned_matrix_as_npy_and_csv():
    ds = load("iris")
    model = NCA(n_components=2, random_state=0).fit(ds.X, ds.y)
    M, L = learned_matrix(model, "M"), learned_matrix(model, "L")
    np.testing.assert_array_equal(M, model.get_mahalanobis_matrix())
    np.testing.assert_array_equal(L, model.components_)
    np.testing.assert_allclose(M, L.T @ L, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.load(io.BytesIO(matrix_npy(M))), M)
    text = matrix_csv(M, row_names=ds.feature_names, column_names=ds.feature_names)
    rows = text.strip().splitlines()
    assert rows[0].split(",") == ["", *ds.feature_names]
    values = np.array([[float(v) for v in row.split(",")[1:]] for row in rows[1:]])
    np.testing.assert_array_equal(values, M)
    plain = np.loadtxt(io.StringIO(matrix_csv(L)), delimiter=",")
    np.testing.assert_array_equal(plain, L)
    tdl = TDL().fit(ds.X, partial_labels(ds.y, labeled_mask(ds.y, fraction=0.2, seed=0)))
    with pytest.raises(ValueError, match="learns no linear map"):
        learned_matrix(tdl)
    with pytest.raises(ValueError, match="no learned linear map"):
        learned_matrix(tdl, "L")


def test_neighbour_lists_are_the_nearest_points_under_the_embedding(iris_tdl):
    _, _, Z = iris_tdl
    text = neighbours_csv(Z, k=5)
    table = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    assert table.shape == (150, 11)
    np.testing.assert_array_equal(table[:, 0], np.arange(150))
    d = np.linalg.norm(Z[:, None] - Z[None], axis=2)
    np.fill_diagonal(d, np.inf)
    np.testing.assert_array_equal(table[:, 1:6], np.argsort(d, axis=1, kind="stable")[:, :5])
    np.testing.assert_allclose(table[:, 6:], np.sort(d, axis=1)[:, :5], rtol=1e-12)
    shifted = np.loadtxt(
        io.StringIO(neighbours_csv(Z, k=2, index=np.arange(150) + 1000)), delimiter=",", skiprows=1
    )
    assert shifted[:, :3].min() >= 1000


def test_svg_export_names_the_extra_when_kaleido_is_missing(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "kaleido" else real(name, *a)
    )
    with pytest.raises(MissingExtra, match=r"'kaleido': pip install \".+\[static\]\"") as error:
        figure_svg(go.Figure(go.Scatter(x=[0, 1], y=[0, 1])))
    assert "\n" not in str(error.value)  # one line


def test_webgl_traces_are_named_as_rasterised():
    fig = go.Figure([go.Scatter(x=[0], y=[0], name="vector"), go.Scattergl(x=[1], y=[1])])
    assert rasterised_traces(fig) == ["scattergl"]


@pytest.mark.skipif(
    importlib.util.find_spec("kaleido") is None
    or not any(shutil.which(b) for b in ("chromium", "google-chrome", "chrome")),
    reason="SVG export needs Kaleido (the 'static' extra) and a Chrome/Chromium browser",
)
def test_svg_export_is_vector_except_webgl():
    vector = figure_svg(go.Figure(go.Scatter(x=[0, 1, 2], y=[2, 0, 1], mode="markers")))
    assert vector.lstrip().startswith(b"<svg") and b"<image" not in vector
    raster = figure_svg(go.Figure(go.Scattergl(x=[0, 1, 2], y=[2, 0, 1], mode="markers")))
    assert b"<image" in raster  # the WebGL layer is a bitmap inside the SVG


RUNNER = """
import contextlib, io, json, sys
namespace = {"__name__": "__main__"}
outputs = []
for code in json.load(sys.stdin):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<cell>", "exec"), namespace)
    outputs.append(out.getvalue())
fig = namespace.get("fig")
outputs.append(f"{type(fig).__module__}.{type(fig).__name__}:{sum(len(t.x) for t in fig.data if t.x is not None)}" if fig is not None else "")
print(json.dumps(outputs))
"""


def _run_cells(cells):
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(cells),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _check_notebook_structure(raw: bytes):
    nb = json.loads(raw)
    assert nb["nbformat"] == 4 and nb["nbformat_minor"] >= 5
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    ids = [c["id"] for c in nb["cells"]]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids)
    for cell in nb["cells"]:
        assert cell["cell_type"] in ("markdown", "code")
        assert isinstance(cell["source"], list) and isinstance(cell["metadata"], dict)
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
    if importlib.util.find_spec("nbformat") is not None:  # the schema itself, where installed
        import nbformat

        nbformat.validate(nbformat.reads(raw.decode(), as_version=4))
    return nb


def test_a_notebook_from_a_real_embed_snippet_runs_and_prints_its_number():
    from metriclab.ui.shared.code_snippets import embed_snippet
    from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef

    spec = next(s for s in specs_with("transductive", "out_of_sample") if s.needs_labels)
    request = FitRequest(
        DataRef("iris"), SplitRef("fraction", 0.2, 1), spec.key, {"lam": 4.0}, "standard"
    )
    snippet = embed_snippet(request)
    raw = notebook_from_code(snippet, f"{spec.label} on iris")
    nb = _check_notebook_structure(raw)
    cells = notebook_code_cells(raw)
    assert cells[0] == snippet.rstrip("\n") and "embedding_scatter" in cells[1]
    assert [c["cell_type"] for c in nb["cells"]] == ["markdown", "code", "markdown", "code"]
    snippet_alone = _run_cells([snippet])[0]
    outputs = _run_cells(cells)
    assert outputs[0] == snippet_alone
    # the number the page shows: the same fit in this process
    ds = load("iris")
    mask = labeled_mask(ds.y, fraction=0.2, seed=1)
    from metriclab.evaluation import SplitRequest, fit_split

    fit = fit_split(SplitRequest.of(spec, ds, mask, {"lam": 4.0}, preprocess="standard"))
    accuracy = embedding_accuracy(fit.embedding(), ds.y, mask)
    assert outputs[0].strip() == f"1-NN accuracy: {accuracy:.3f}"
    # the notebook's figure is the library's scatter of the same embedding (every point drawn)
    from metriclab.plots import embedding_scatter

    drawn = embedding_scatter(fit.embedding(), ds.y, labeled=mask, target_names=ds.target_names)
    assert outputs[-1] == f"plotly.graph_objs._figure.Figure:{sum(len(t.x) for t in drawn.data)}"


def test_a_notebook_without_an_embedding_has_no_figure_cell():
    raw = notebook_from_code('accuracy = 0.5\nprint(f"accuracy: {accuracy:.3f}")\n', "A classifier")
    nb = _check_notebook_structure(raw)
    assert [c["cell_type"] for c in nb["cells"]] == ["markdown", "code"]
    assert _run_cells(notebook_code_cells(raw))[0] == "accuracy: 0.500\n"
    with pytest.raises(ValueError, match="not valid Python"):
        notebook_from_code("print(", "broken")
    with pytest.raises(ValueError, match="non-empty"):
        notebook_from_code("  ", "empty")
