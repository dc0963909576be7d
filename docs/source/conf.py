"""Sphinx configuration of the metriclab documentation (`make docs`).

Sphinx with numpydoc and sphinx-gallery, the tools scikit-learn and metric-learn publish their
documentation with: the API reference is generated from the docstrings (autosummary), the gallery
runs every example in examples/ and draws its figure, and two tables are generated from the code
at build time (metriclab_docs.py): each paper's claims with their computed verdicts and each
method's parameters from its spec.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import metriclab  # noqa: E402

project = "metriclab"
author = "the metriclab developers"
copyright = "2026, the metriclab developers"
release = version = metriclab.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "metriclab_docs",
]
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False, "show-inheritance": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_validation_checks: set[str] = set()

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parents[1] / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "matplotlib_animations": False,
    "within_subsection_order": "FileNameSortKey",
}

html_theme = "pydata_sphinx_theme"
html_title = "metriclab"
html_logo = str(HERE.parents[1] / "metriclab" / "ui" / "assets" / "favicon.png")
html_favicon = html_logo
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "icon_links": [],
}
templates_path = ["_templates"]
exclude_patterns = ["_build", "_generated", "**.ipynb_checkpoints"]
suppress_warnings = ["config.cache"]
nitpicky = False

# ---- Offline site and readable tables (issue 38, item 4) -----------------------------------------
# Kept apart from the settings above, which the API reference work also edits.
# - Equations: MathJax is served by the site itself, never from a CDN. The docs extra installs
#   sphinx-mathjax-offline from the package index: it carries MathJax 3.2.2 (tex-chtml and its
#   fonts), copies it into _static/mathjax and points mathjax_path there. Chosen over rendering
#   to images with imgmath, which needs a LaTeX installation (texlive, dvipng/dvisvgm) that
#   `make docs` cannot install without root on a fresh machine; over KaTeX's prerendering, which
#   needs Node.js; and over an npm copy of MathJax, likewise (`make docs` uses pip only).
# - sphinx-gallery's computation-times pages load jQuery, Bootstrap and DataTables from CDNs:
#   not written (`make docs` fails when a built page references a script or stylesheet on another
#   host: tools/check_docs_offline.py).
# - _static/metriclab.css: the claims and reproduced tables use the page's width, verdict badges.
extensions.append("sphinx-mathjax-offline")
mathjax_path = "mathjax/tex-chtml.js"
sphinx_gallery_conf["write_computation_times"] = False
# added to what the settings above serve (the gallery's plotly.js among them), never replacing it
html_static_path = [*globals().get("html_static_path", []), "_static"]
html_css_files = [*globals().get("html_css_files", []), "metriclab.css"]
