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
sys.path.insert(0, str(HERE.parents[1]))  # this checkout's metriclab, whatever is installed

import metriclab  # noqa: E402

project = "metriclab"
author = "the metriclab developers"
copyright = "2026, the metriclab developers"
release = version = metriclab.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "sphinx.ext.doctest",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "metriclab_docs",
]
autosummary_generate = True
# a key present is an option switched on (Sphinx 9), so only the ones wanted are named
autodoc_default_options = {"members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False

# --- API reference and gallery figures (issue 38, items 2 and 3) -------------------------------
# Kept together in this block; the offline-docs work keeps its own block below.
#
# numpydoc validates every docstring the API reference documents; a failed check is a warning,
# so `make docs` (-W) fails on a regression. Checks not enforced, and why:
#   EX01  an Examples section: tests/test_api_docs.py requires one, run as doctests, on every
#         class and function of the API reference (a method is shown in its class's example);
#   ES01  an extended summary: many small functions need none;
#   SA01  See Also: given where it helps, not everywhere;
#   SS05  the summary in the infinitive ("Fit", not "Fits"): our summaries are noun phrases for
#         attributes-like functions ("Dataset by name");
#   RT02  a name in Returns: we name a returned value only where it helps;
#   GL01, GL02  docstring whitespace conventions (the code's formatter owns them);
#   PR06, PR08, PR09, RT04, RT05, SS03, SS06  punctuation, capitals and types' spelling
#         ("int" not "integer") inside descriptions.
numpydoc_validation_checks = {
    "all",
    "EX01",
    "ES01",
    "SA01",
    "SS05",
    "RT02",
    "GL01",
    "GL02",
    "PR06",
    "PR08",
    "PR09",
    "RT04",
    "RT05",
    "SS03",
    "SS06",
}
# Documented objects not validated: what a class inherits from scikit-learn unchanged (its own
# docstrings, not ours) and the named-tuple/dataclass fields autodoc lists.
numpydoc_validation_exclude = {
    r"\.get_params$",
    r"\.set_params$",
    r"\.set_output$",
    r"\.get_feature_names_out$",
    r"\.get_metadata_routing$",
    r"\.(NCA|NeighborhoodComponentsAnalysis|LMNN|DNE|KernelPCATrick)\.fit_transform$",
    r"\.(TangentDistanceKNN|TangentMetricKNN)\.score$",
    r"\.__init__$",
}
numpydoc_xref_param_type = True
numpydoc_xref_aliases = {
    "ndarray": "numpy.ndarray",
    "array-like": ":term:`array-like <array_like>`",
    "DataFrame": "pandas.DataFrame",
    "pandas.DataFrame": "pandas.DataFrame",
    "RandomState": "numpy.random.RandomState",
    "Figure": "plotly.graph_objects.Figure",
    "Dataset": "metriclab.datasets.Dataset",
    "estimator": ":term:`estimator <sklearn:estimators>`",
}
numpydoc_xref_ignore = {"of", "or", "shape", "optional", "default", "and", "to", "str", "int"}

# intersphinx without a network: the build machine and CI reach no documentation site, so each
# project's inventory is a small objects.inv committed under _inventories/, written by
# tools/build_intersphinx_inventories.py with the targets our pages link (the URLs are the real
# sites'; only the inventories are local).
INVENTORIES = HERE / "_inventories"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3/", str(INVENTORIES / "python.inv")),
    "numpy": ("https://numpy.org/doc/stable/", str(INVENTORIES / "numpy.inv")),
    "scipy": ("https://docs.scipy.org/doc/scipy/", str(INVENTORIES / "scipy.inv")),
    "sklearn": ("https://scikit-learn.org/stable/", str(INVENTORIES / "sklearn.inv")),
    "pandas": ("https://pandas.pydata.org/docs/", str(INVENTORIES / "pandas.inv")),
    "plotly": ("https://plotly.com/python-api-reference/", str(INVENTORIES / "plotly.inv")),
}
intersphinx_timeout = 1

# The gallery draws Plotly figures: `fig.show()` in an example hands the figure to a renderer
# that keeps it, and the scraper below writes it into the page as HTML (plotly.js is served from
# _static, copied from the plotly package: no CDN). No matplotlib is needed.
import shutil  # noqa: E402
import textwrap  # noqa: E402

import plotly  # noqa: E402
import plotly.io as pio  # noqa: E402
from plotly.io._base_renderers import ExternalRenderer  # noqa: E402


class _GalleryRenderer(ExternalRenderer):
    """Keeps each figure an example shows, for the scraper."""

    def __init__(self):
        self.shown: list[dict] = []

    def render(self, fig_dict):
        self.shown.append(fig_dict)


_GALLERY_RENDERER = _GalleryRenderer()
pio.renderers["metriclab_gallery"] = _GALLERY_RENDERER


def _reset_plotly(gallery_conf, fname):
    pio.renderers.default = "metriclab_gallery"
    _GALLERY_RENDERER.shown.clear()


def plotly_scraper(block, block_vars, gallery_conf):
    """The figures an example's code block showed, as raw HTML in the page."""
    figures, _GALLERY_RENDERER.shown[:] = list(_GALLERY_RENDERER.shown), []
    parts = []
    for fig in figures:
        html = pio.to_html(
            fig, include_plotlyjs=False, full_html=False, config={"responsive": True}
        )
        parts.append(".. raw:: html\n\n" + textwrap.indent(html, "    ") + "\n")
    return "\n".join(parts)


STATIC = HERE / "_generated" / "static"
STATIC.mkdir(parents=True, exist_ok=True)
shutil.copy2(Path(plotly.__file__).parent / "package_data" / "plotly.min.js", STATIC)
html_static_path = [str(STATIC)]
html_js_files = ["plotly.min.js"]

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parents[1] / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": (plotly_scraper,),
    "reset_modules": (_reset_plotly,),
    "capture_repr": (),
    # each API page lists the examples that use its object (sphinx-gallery's backreferences)
    "backreferences_dir": "generated/backreferences",
    "doc_module": ("metriclab",),
    "reference_url": {"metriclab": None},
}
# --- end of the API reference and gallery block ------------------------------------------------

# The repository, linked from every page's header and from the changelog.
REPOSITORY_URL = "https://github.com/metriclab/metriclab"
rst_epilog = f".. |repository| replace:: {REPOSITORY_URL}\n"

html_theme = "pydata_sphinx_theme"
html_title = "metriclab"
html_logo = str(HERE.parents[1] / "metriclab" / "ui" / "assets" / "favicon.png")
html_favicon = html_logo
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    # the repository (issue 38.2); the icon is the theme's own font, no request leaves the page
    "icon_links": [
        {
            "name": "Source code",
            "url": REPOSITORY_URL,
            "icon": "fa-brands fa-github",
        }
    ],
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
