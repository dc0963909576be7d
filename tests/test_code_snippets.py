""" "Show the code": the snippet each page shows runs in a fresh interpreter, with only the public
metriclab API, and prints the number the page shows (several page states per page: transductive,
inductive, kernelised and image methods, scalings, label modes, a subsample, an uploaded CSV)."""

import ast
import json
import re
import subprocess
import sys
import time
from collections import OrderedDict

import numpy as np
import pytest

from metriclab import datasets
from metriclab.methods import REGISTRY
from metriclab.ui.shared import code_snippets, session_data
from tests.apptest_helpers import ROOT, figures, run_page, values

TIMEOUT = 180
RUNNER = """
import json, sys
outputs = []
for code in json.load(sys.stdin):
    import contextlib, io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<snippet>", "exec"), {"__name__": "__main__"})
    outputs.append(out.getvalue())
print(json.dumps(outputs))
"""


def run_snippets(snippets, cwd=ROOT):
    """Each snippet in its own namespace, in one fresh interpreter; their printed outputs."""
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(snippets),
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def shown_code(at):
    """The snippet in the page's "Show the code" expander."""
    blocks = [c.value for c in at.code if c.language == "python"]
    assert len(blocks) == 1, blocks
    return blocks[0]


def private_names(code):
    """Imported names or modules of the snippet that are private (an underscore) or from ui."""
    bad = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom):
            parts = node.module.split(".") + [a.name for a in node.names]
            if any(p.startswith("_") for p in parts) or "ui" in parts:
                bad.append(node.module)
    return bad


def uploaded_session(tmp_path, at, csv_text, filename="points.csv"):
    """An uploaded CSV in the AppTest session (as the Data page's uploader leaves it); the file
    is written to tmp_path/filename for the snippet to read."""
    path = tmp_path / filename
    path.write_text(csv_text)
    data = csv_text.encode()
    key = session_data.upload_key(data, None)
    ds = datasets.load_csv(str(path))
    ds.name = filename
    at.session_state["_metriclab_uploads"] = OrderedDict(
        {key: session_data._Upload(ds, time.monotonic())}
    )
    return key


EMBED_STATES = [
    {"ds": "two_moons", "method": "tdl"},
    {"ds": "iris", "method": "nca", "pp": "minmax", "frac": "0.2", "seed": "3"},
    {"ds": "wine", "method": "le", "lab": "per_class", "per": "5", "pp": "standardise"},
    {"ds": "two_rings", "method": "knca", "seed": "1"},
    {"ds": "harder_moons", "method": "tdl", "p.tdl.n_components": "1", "p.tdl.lam": "16"},
    {"ds": "digits", "method": "tangent_knn", "cap": "300", "frac": "0.3"},
]


@pytest.mark.parametrize("states", [EMBED_STATES], ids=["embed"])
def test_embed_snippets_print_the_pages_accuracy(states):
    pages, snippets = [], []
    for query in states:
        assert query["method"] in REGISTRY
        at = run_page("embed", query, timeout=TIMEOUT)
        assert not at.exception and not at.error, [e.value for e in at.error]
        code = shown_code(at)
        assert not private_names(code), private_names(code)
        pages.append(at.metric[0].value)
        snippets.append(code)
    outputs = run_snippets(snippets)
    for query, page, code, out in zip(states, pages, snippets, outputs, strict=True):
        printed = re.fullmatch(r"(1-NN accuracy|accuracy): (\d\.\d{3})\n", out)
        assert printed, (query, out)
        assert printed.group(2) == page, (query, page, out, code)


SCRUB_STATES = [
    {"ds": "two_moons", "method": "tdl", "mode": "scrub", "scrub": "lam"},
    {"ds": "iris", "method": "knca", "mode": "scrub", "pp": "minmax", "frac": "0.2"},
]


def embed_views(states, read, button=None):
    """(what `read` takes from each Embed page state, its snippet), after pressing `button`."""
    pages, snippets = [], []
    for query in states:
        at = run_page("embed", query, timeout=TIMEOUT)
        if button is not None:
            at.button(key=button).click().run(timeout=TIMEOUT)
        assert not at.exception and not at.error, [e.value for e in at.error]
        code = shown_code(at)
        assert not private_names(code), private_names(code)
        pages.append(read(at))
        snippets.append(code)
    return pages, snippets


def slider_accuracies(at):
    steps = figures(at)[0]["layout"]["sliders"][0]["steps"]
    return [re.search(r"\(acc (\d\.\d\d)\)", s["label"]).group(1) for s in steps]


def test_scrub_snippets_print_the_sliders_accuracies():
    pages, snippets = embed_views(SCRUB_STATES, slider_accuracies)
    for query, page, code, out in zip(
        SCRUB_STATES, pages, snippets, run_snippets(snippets), strict=True
    ):
        printed = re.findall(r"1-NN accuracy (\d\.\d\d)\n", out)
        assert len(page) >= 3 and printed == page, (query, page, out, code)


WINDOW_STATES = [
    {"ds": "two_moons", "method": "tdl", "mode": "window", "grid": "3"},
    {"ds": "iris", "method": "nca", "mode": "window", "grid": "3", "pp": "standardise"},
]


def window_cells(at):
    """The heat map's cells as the snippet prints them, and the caption's share of cells won."""
    (heat,) = [t for t in figures(at)[0]["data"] if t.get("type") == "heatmap"]
    cells = [f"{v:+.3f}" for v in np.ravel(values(heat["z"]))]
    share = next(re.search(r"wins on (\d+%)", c.value) for c in at.caption if "wins on" in c.value)
    return cells, share.group(1)


def test_window_snippets_print_the_maps_cells_and_its_win_share():
    pages, snippets = embed_views(WINDOW_STATES, window_cells, button="run_window")
    for query, (cells, share), code, out in zip(
        WINDOW_STATES, pages, snippets, run_snippets(snippets), strict=True
    ):
        printed = re.findall(r": ([+-]\d\.\d{3})\n", out)
        assert len(cells) == 9 and printed == cells, (query, cells, out, code)
        assert f"wins on {share} of the grid" in out, (query, share, out)


def test_embed_snippet_of_an_upload_reads_the_csv_path(tmp_path):
    rows = ["a,b,c,label"] + [
        f"{i % 7 + 0.1 * i},{(i * 3) % 5},{i % 2 + 0.01 * i},{'yes' if i % 3 else 'no'}"
        for i in range(60)
    ]
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages" / "embed.py"), default_timeout=TIMEOUT)
    key = uploaded_session(tmp_path, at, "\n".join(rows) + "\n")
    at.session_state["ds"] = key
    at.query_params.update({"method": "lmnn", "frac": "0.3"})
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    code = shown_code(at)
    assert "load_csv('points.csv', label_column='label')" in code
    assert code_snippets.UPLOAD_NOTE in code
    (out,) = run_snippets([code], cwd=tmp_path)
    assert out == f"1-NN accuracy: {at.metric[0].value}\n"


DISSIMILARITY_STATES = [
    {"ds": "two_rings", "dmethod": "zhang_mds"},
    {"ds": "iris", "dmethod": "tdl", "pp": "minmax"},
    {"ds": "wine", "dmethod": "zhang_mds", "lab": "per_class", "per": "10"},
]


def test_dissimilarity_snippets_print_the_pages_checks():
    captions, snippets = [], []
    for query in DISSIMILARITY_STATES:
        at = run_page("dissimilarity", query, timeout=TIMEOUT)
        assert not at.exception and not at.error, [e.value for e in at.error]
        snippets.append(shown_code(at))
        caption = next(c.value for c in at.caption if c.value.startswith("Checks on"))
        badges = " ".join(m.value for m in at.markdown)
        captions.append((caption, badges))
    outputs = run_snippets(snippets)
    for query, (caption, badges), out in zip(DISSIMILARITY_STATES, captions, outputs, strict=True):
        verdicts = re.search(r"Euclidean: (True|False); Fisher separable: (True|False)", out)
        eigen = re.search(r"smallest/largest eigenvalue (\S+); Fisher margin (\S+)\n", out)
        assert verdicts and eigen, (query, out)
        page_eigen = re.search(r"largest (\S+); Fisher margin (\S+) ", caption)
        # the eigenvalue ratio is rounding noise for a Euclidean matrix: equal to 1e-9
        assert float(eigen.group(1)) == pytest.approx(float(page_eigen.group(1)), abs=1e-9)
        assert eigen.group(2) == page_eigen.group(2), (query, caption, out)
        euclid = "not Euclidean" not in badges
        assert verdicts.group(1) == str(euclid), (query, badges)


def _compare_page_and_snippet(query):
    """The Compare page's summary table after Run, and the lines its snippet prints (one per row:
    data set, label, mean accuracy)."""
    at = run_page("compare", query, timeout=TIMEOUT)
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    (out,) = run_snippets([shown_code(at)])
    return at.dataframe[0].value, out.strip().splitlines()[1:]


def test_compare_snippet_prints_the_pages_summary():
    query = {"cds": "iris,two_moons", "cm": "pca,tdl", "splits": "2", "cfrac": "0.2"}
    table, lines = _compare_page_and_snippet(query)
    printed = [float(line.split()[-1]) for line in lines]
    assert len(printed) == len(table) == 6
    assert printed == pytest.approx(list(table["accuracy_mean"]), abs=1e-6)  # 6 digits printed


def test_compare_snippet_prints_the_pca_baseline_rows_the_page_shows():
    """The page adds PCA to each learned map's output dimension as a baseline; the snippet (and
    the notebook made from it) printed only the chosen methods and the Euclidean baseline: on
    wine with NCA and LMNN the page's 'PCA to 2-D' row (0.894 over 3 splits) was not in it."""
    table, lines = _compare_page_and_snippet(
        {"cds": "wine", "cm": "nca,lmnn", "splits": "2", "cfrac": "0.1"}
    )
    assert len(lines) == len(table) == 4
    printed = [float(line.split()[-1]) for line in lines]
    assert printed == pytest.approx(list(table["accuracy_mean"]), abs=1e-6)
    assert [" ".join(line.split()[1:-1]) for line in lines] == list(table.iloc[:, 1])
