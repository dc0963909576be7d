"""The documentation site works offline and its tables read as tables (issue 38, item 4), checked
without building the site (`make docs` builds it and runs tools/check_docs_offline.py on it, in
Chromium with every request refused): the generated reStructuredText of the claims and of each
reproduced table renders to real tables with emphasis, not literal asterisks, and the offline
check finds what a page would load from another host."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "source"))
sys.path.insert(0, str(ROOT / "tools"))

import check_docs_offline  # noqa: E402
import metriclab_docs  # noqa: E402

docutils_core = pytest.importorskip("docutils.core")


def _html(rst: str) -> str:
    """reStructuredText to HTML by docutils, any warning an error (as sphinx -W)."""
    # :doc: and :download: are Sphinx's roles: plain text here
    rst = re.sub(r":(doc|download):`([^`<]*?)\s*(<[^>]*>)?`", r"\2", rst)
    parts = docutils_core.publish_parts(
        rst,
        writer="html5",
        settings_overrides={"report_level": 2, "halt_level": 2, "output_encoding": "unicode"},
    )
    return parts["body"]


def test_markdown_emphasis_becomes_emphasis_not_asterisks():
    rst = metriclab_docs.rst_inline(
        "*symmetric* (fixed before looking): TDL 1.46 — **yes**, `code_x`, a*b, n_splits, x|y"
    )
    html = _html(rst)
    assert "<em>symmetric</em>" in html and "<strong>yes</strong>" in html
    assert "code_x</span>" in html or "<code" in html
    assert "a*b" in html and "n_splits" in html and "x|y" in html
    assert "*symmetric*" not in html


def test_claims_tables_are_tables_with_emphasis():
    from metriclab.reproduce import verdicts

    tables = metriclab_docs.claims_tables()
    claims = verdicts.claims()
    for paper in verdicts.PAPERS:
        html = _html(tables[f"claims_{paper}"])
        assert html.count("<table") == 1
        rows = re.findall(r"<tr", html)
        assert len(rows) == 1 + sum(c["paper"] == paper for c in claims)
        assert "*symmetric*" not in html and "*unnormalized*" not in html
        assert "**" not in html
        assert len(re.findall(r"<col ", html)) == 4  # claim, ours, holds?, why: not five
    tdl = _html(tables["claims_tdl"])
    assert "<em>symmetric</em> (partly)" in tdl  # a reading's name in emphasis
    assert re.search(r'class="[^"]*metriclab-verdict-(yes|partly|no)', tdl)
    rule = _html(tables["claims_rule"])
    assert "<strong>The verdict rule</strong>" in rule and "*" not in rule


def test_every_committed_table_is_a_page_of_the_site():
    pages = metriclab_docs.table_pages()
    committed = sorted(p.stem for p in (ROOT / "docs" / "reproduction").glob("*.csv"))
    assert sorted(pages) == committed and len(committed) >= 17
    toc = metriclab_docs.tables_toc(list(pages))
    assert [line.strip() for line in toc.splitlines()[3:]] == [
        f"tables/{name}" for name in _order(pages)
    ]
    for name, rst in pages.items():
        html = _html(rst)
        rows = len(pd.read_csv(ROOT / "docs" / "reproduction" / f"{name}.csv"))
        assert html.count("<table") == 1, name
        assert len(re.findall(r"<tr", html)) == rows + 1, name
        text = re.sub(r"<[^>]+>", "", html)
        assert f"metriclab reproduce {name}" in text
        assert "| --- |" not in html and "|---|" not in html
    reproduction = (ROOT / "docs" / "source" / "reproduction.rst").read_text()
    assert ".. include:: _generated/tables_toc.rst" in reproduction


def _order(pages) -> list[str]:
    from metriclab.reproduce import experiments

    order = [n for n in experiments() if n in pages]
    return order + [n for n in pages if n not in order]


def test_the_offline_check_finds_loads_from_other_hosts(tmp_path):
    site = tmp_path / "html"
    (site / "_static").mkdir(parents=True)
    (site / "index.html").write_text(
        '<html><head><script src="_static/mathjax/tex-chtml.js"></script>'
        '<link rel="stylesheet" href="_static/theme.css"></head>'
        '<body><a href="https://github.com/somewhere">a link is not a load</a></body></html>'
    )
    (site / "_static" / "theme.css").write_text("body { color: black }")
    assert check_docs_offline.external_loads(site) == {}
    assert check_docs_offline.main([str(site)]) == 0
    (site / "math.html").write_text(
        '<script defer src="https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js"></script>'
        '<link href="//cdn.datatables.net/1.13.6/css/x.css" rel="stylesheet" />'
    )
    (site / "_static" / "fonts.css").write_text("@import url('https://fonts.example.org/a.css');")
    found = check_docs_offline.external_loads(site)
    assert set(found) == {"math.html", "_static/fonts.css"}
    assert any("cdn.jsdelivr.net" in a for a in found["math.html"])
    assert any("cdn.datatables.net" in a for a in found["math.html"])
    assert check_docs_offline.main([str(site)]) == 1


def test_the_docs_build_ships_mathjax_and_checks_the_site():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert any(d.startswith("sphinx-mathjax-offline") for d in extras["docs"])
    conf = (ROOT / "docs" / "source" / "conf.py").read_text()
    assert 'extensions.append("sphinx-mathjax-offline")' in conf
    assert 'sphinx_gallery_conf["write_computation_times"] = False' in conf
    recipe = re.search(r"^docs:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M).group(1)
    assert "tools/check_docs_offline.py docs/_build/html --browser" in recipe
    assert recipe.index("sphinx-build") < recipe.index("check_docs_offline")
