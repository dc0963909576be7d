"""The app's pages, listed once: the router builds its menu from them, Home links them, and any
page may link another by key (the page files live in `metriclab.resources.pages()`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from metriclab import resources


@dataclass(frozen=True)
class PageSpec:
    key: str  # file stem in pages/, and the URL path (Home: the root)
    title: str
    icon: str
    blurb: str  # what Home says about it


PAGES = (
    PageSpec("home", "Home", ":material/home:", ""),
    PageSpec("lessons", "Lessons", ":material/school:", "guided lectures through each paper, "
             "step by step: what to look at, the question to ask, what to expect and why."),
    PageSpec("data", "Data", ":material/table_view:", "browse the shipped and synthetic data sets "
             "or upload a CSV."),
    PageSpec("draw", "Draw", ":material/draw:", "click points of a few classes on a canvas and "
             "use the drawing as a data set on every page."),
    PageSpec("embed", "Embed", ":material/scatter_plot:", "move λ, k, widths and the labeled "
             "share and watch the embedding, its 1-NN accuracy beside the baseline's and the "
             "spectrum; scrub λ in the browser; map where a method beats its baseline."),
    PageSpec("dissimilarity", "Dissimilarity", ":material/grid_on:", "kernel, dissimilarity and "
             "graph matrices sorted by class, Euclidean and Fisher checks, MDS spectrum and stress."),
    PageSpec("compare", "Compare", ":material/bar_chart:", "several methods on several data sets "
             "over repeated splits, with downloads."),
    PageSpec("tangent", "Tangent", ":material/gesture:", "tangent vectors of a digit and its "
             "nearest neighbours under the Euclidean and the tangent distance."),
    PageSpec("reproduce", "Reproduce", ":material/description:", "every claim of the four papers "
             "with its verdict, and the papers' tables with their numbers beside ours."),
)  # fmt: skip
BY_KEY = {page.key: page for page in PAGES}


def page_file(key: str) -> Path:
    """The script of page `key` (an absolute path: links work from the checkout's app.py and from
    the installed package's router alike)."""
    if key not in BY_KEY:
        raise KeyError(f"no page {key!r}; pages: {list(BY_KEY)}")
    return resources.pages() / f"{key}.py"


def available() -> tuple[PageSpec, ...]:
    """The pages whose script exists (a page added to PAGES before its file is not offered)."""
    return tuple(page for page in PAGES if page_file(page.key).is_file())


def navigation_pages() -> list:
    import streamlit as st

    return [
        st.Page(
            str(page_file(page.key)),
            title=page.title,
            icon=page.icon,
            default=page.key == "home",
            **({} if page.key == "home" else {"url_path": page.key}),
        )
        for page in available()
    ]


def link(key: str, label: str | None = None) -> None:
    """st.page_link to page `key`, with its title and icon (a caption naming the page where the
    page runs without the router's menu, as in tests that run one page alone)."""
    import streamlit as st

    from metriclab.ui.shared.streamlit_private import PageNotFound

    page = BY_KEY[key]
    try:
        st.page_link(str(page_file(key)), label=label or page.title, icon=page.icon)
    except PageNotFound:
        st.caption(f"{label or page.title}: the {page.title} page in the menu")
