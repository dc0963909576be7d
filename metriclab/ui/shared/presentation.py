"""Presentation mode, for a projector: large fonts, no sidebar, the chart filling the screen.

A toggle in the sidebar (URL `?present=1`, validated like every URL value). When it is on, a style
block hides the sidebar, the header, the page title and the captions, widens the page and scales
the text; the page's main chart comes first in its view, sized to be whole on screen at 1280×720,
1280×800 and 1920×1080, with larger fonts (`fit_screen`), and an "Exit presentation" button at the
top right corner is the way back (the sidebar, and the toggle in it, are hidden meanwhile).
"""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from metriclab import plots
from metriclab.ui.shared.state import publish, seed_from_url

KEY = "present"  # session-state key and URL parameter
_KEPT = "_metriclab_present"  # the mode, kept across pages
# px: the main chart comes first in presentation mode, below at most the page's own heading
# (about 100 px), so that it is whole on a 720-line projector (1280×720) without scrolling
CHART_HEIGHT = 560
STRIP_HEIGHT = 380  # a 1-D strip (drawn 300 px tall off a projector): rows of classes, not a plane
CHART_FONT = 20  # px, plotly's own default is 12
SCREEN_WIDTH = 1150  # px: about the width of the main chart on a 1280-px projector
STYLE = """
<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], header[data-testid="stHeader"],
[data-testid="stMainBlockContainer"] [data-testid="stHeading"]:has(h1),
[data-testid="stMainBlockContainer"] [data-testid="stCaptionContainer"] { display: none !important; }
html { font-size: 20px; }
[data-testid="stMainBlockContainer"] { max-width: 100%; padding: 2.2rem 2rem 2rem 2rem; }
.st-key-present_exit { position: fixed; top: 0.4rem; right: 2rem; z-index: 1000; width: auto; }
.st-key-present_exit button { min-height: 0; padding: 0.1rem 0.6rem; font-size: 0.8rem; }
</style>
"""


def short_count(n: int) -> str:
    """A point count short enough for a metric tile: 929, 1.8k, 63k."""
    if n >= 10_000:
        return f"{n / 1000:.0f}k"
    return f"{n / 1000:.1f}k" if n >= 1000 else f"{n:,}"


def count_pair(first: int, second: int) -> str:
    """Two point counts ("labeled / unlabeled") for a quarter-width metric tile at 1280×800, 140 px
    wide: "10 / 190" fits with its spaces; a longer pair goes without them ("929 / 8.4k" is 143 px
    and was cut to "929 / …"; "929/8.4k" is 129 px, the widest, "9.9k/9.9k", 138 px)."""
    pair = f"{short_count(first)} / {short_count(second)}"
    return pair if len(pair) <= 8 else pair.replace(" / ", "/")


def tile_columns(container, tiles: list[tuple[str, str]]) -> list:
    """Columns for metric tiles [(label, value)], each as wide as the wider of its label (+3
    characters for the help icon) and its value (a value's character, at 36 px, is about 2.6 of
    the label's 14 px ones). Equal shares cut "Laplacian Eigenmaps" to "Laplacian Eigenm…" at
    1280×800 while "1-NN accuracy" had room to spare; by the label alone, "NCA" left "0.948" as
    "0…"."""
    return container.columns([max(len(label) + 3, 2.6 * len(value)) for label, value in tiles])


def score_difference(difference: float | None) -> dict:
    """A metric tile's delta for a difference of two scores, as `st.metric`'s keyword arguments:
    "+0.012" (an arrow up, green), "-0.012" (down, red), and one that rounds to zero "±0.000",
    grey and without an arrow (a "+0.000" drew a green arrow up: a gain there is none). None: no
    delta."""
    if difference is None:
        return {"delta": None}
    shown = f"{difference:+.3f}"
    if float(shown) != 0.0:
        return {"delta": shown}
    return {"delta": "±0.000", "delta_color": "off", "delta_arrow": "off"}


def active() -> bool:
    """Whether this session is in presentation mode."""
    return bool(st.session_state.get(_KEPT, False))


def _remember() -> None:
    st.session_state[_KEPT] = st.session_state[KEY]


def _leave() -> None:
    st.session_state[KEY] = st.session_state[_KEPT] = False


def controls() -> bool:
    """The sidebar toggle (seeded from `?present=`), the style and the way back; returns whether
    presentation mode is on. Called once per run, by the router, before the page."""
    if _KEPT in st.session_state:  # a widget's state does not follow the person to another page
        st.session_state[KEY] = st.session_state[_KEPT]
    seed_from_url(KEY, False, label="Presentation mode")
    on = st.sidebar.toggle(
        "Presentation mode",
        key=KEY,
        on_change=_remember,
        help="Large fonts, no sidebar and the chart filling the screen, for a projector "
        "(link: ?present=1). Leave it with the 'Exit presentation' button at the top right.",
    )
    st.session_state[_KEPT] = on
    publish({KEY: 1} if on else {}, prune=(KEY,))
    if on:
        st.html(STYLE)
        st.button(
            "Exit presentation",
            key="present_exit",
            icon=":material/close_fullscreen:",
            on_click=_leave,
            help="back to the normal view, with the sidebar",
        )
    return on


def fit_screen(
    fig: go.Figure, width: float = SCREEN_WIDTH, under: bool = False, most: int | None = None
) -> go.Figure:
    """The figure drawn for a projector when presentation mode is on (taller, larger text and
    markers; `width`: about the px it is drawn across, for its legend's rows; `under`: the legend
    in rows under the plot however few its entries, as `plots.fit_legend`; `most`: its height at
    most, px, for a chart below controls); unchanged otherwise."""
    if not active():
        return fig
    fig = go.Figure(fig)
    strip = plots.height_without_rows(fig) <= 300
    fig.update_layout(
        height=min(STRIP_HEIGHT if strip else CHART_HEIGHT, most or CHART_HEIGHT),
        font={"size": CHART_FONT},
        title_font={"size": CHART_FONT + 2},
        legend_font={"size": CHART_FONT},
    )
    for trace in fig.data:
        size = getattr(trace.marker, "size", None) if trace.type == "scatter" else None
        if isinstance(size, int | float):
            trace.marker.size = size * 1.6
    # the legend at this font: in rows under the plot where it would not fit beside it
    return plots.fit_legend(fig, CHART_FONT, width, fig.layout.height, under)
