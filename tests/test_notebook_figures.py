"""metriclab.plotting's figures in a notebook (issue 38.3): executed by a real Jupyter kernel and
exported with nbconvert to HTML, they are still there (an HTML copy with plotly.js embedded), and
the exported page draws them in Chromium with every request outside the file refused."""

from __future__ import annotations

import re

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
nbconvert = pytest.importorskip("nbconvert")
pytest.importorskip("ipykernel")

CELLS = [
    "from metriclab import NCA\n"
    "from metriclab.datasets import load\n"
    "from metriclab.plotting import embedding\n"
    "ds = load('iris')\n"
    "nca = NCA(n_components=2, max_iter=10).fit(ds.X, ds.y)",
    "embedding(nca, ds.y, X=ds.X, target_names=ds.target_names, title='NCA on Iris')",
]


@pytest.fixture(scope="module")
def exported_html(tmp_path_factory):
    import os
    import sys

    folder = tmp_path_factory.mktemp("notebook")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    # the kernel runs this interpreter, from the checkout (cwd first on sys.path)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    path_before = os.environ.get("PATH", "")
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + path_before
    try:
        client = nbclient.NotebookClient(
            notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": "."}}
        )
        client.execute()
    finally:
        os.environ["PATH"] = path_before
    html, _ = nbconvert.HTMLExporter().from_notebook_node(notebook)
    path = folder / "figures.html"
    path.write_text(html, encoding="utf-8")
    return notebook, html, path


def test_a_figure_cell_keeps_an_html_copy_with_plotly_js(exported_html):
    notebook, html, _ = exported_html
    outputs = [o for cell in notebook.cells for o in cell.get("outputs", [])]
    figure = [o for o in outputs if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert len(figure) == 1, "the figure's Plotly data (drawn by JupyterLab) is missing"
    assert "text/html" in figure[0]["data"], "no HTML copy: nbconvert --to html drops the figure"
    assert "plotly-graph-div" in html and "NCA on Iris" in html
    # plotly.js itself is in the page (the notebook renderer's activation), not a CDN link
    scripts = re.findall(r"<script[^>]*src=[\"']([^\"']+)", html)
    assert not [s for s in scripts if "plot" in s.lower()], scripts
    assert "plotly.js v" in html or "plotly.js" in html
    assert html.count("Plotly.newPlot") >= 1 and len(html) > 1_000_000


@pytest.mark.browser
def test_the_exported_page_draws_the_figure_offline(exported_html, browser):
    _, _, path = exported_html
    page = browser.new_page()
    try:
        outside = []

        def refuse(route):
            if not route.request.url.startswith("file://"):
                outside.append(route.request.url)
                return route.abort()
            return route.continue_()

        page.route("**/*", refuse)
        page.goto(path.as_uri())
        page.wait_for_selector(".plotly-graph-div .main-svg", timeout=60_000)
        legend = page.locator(".plotly-graph-div .legendtext").all_text_contents()
        assert {"setosa", "versicolor", "virginica"} <= set(legend)
    finally:
        page.close()
