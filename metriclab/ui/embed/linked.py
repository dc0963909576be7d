"""The Embed page's linked views (issue 37): 2 to 4 methods on the same data set, split and scaling
side by side, each embedding Procrustes-aligned to the first (rotation or reflection and scale
only: the picture is what the method computed). A click, a box or a lasso in any view selects the
same points in every view (the others dimmed, not moved) and lists them; the link records the
methods (`methods`) and the selection (`sel`, data set indices).

Each panel's figure is built by `panel_figure`; `panel_extras` is where a caller adds traces of its
own to every panel before the selection is drawn over them. The held-out share (`test=` in the
link) and the session's new points (ui/embed/new_points.py) apply to every panel: each method is
drawn fitted without the held-out points (`new_points.shown_fit`) and its held-out and new points
where its own out-of-sample map places them, carried over by the panel's alignment
(`new_point_traces`). One "Download" expander below the panels offers each panel's coordinates,
the selection and each panel's SVG (`linked_downloads`)."""

from __future__ import annotations

import html
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from scipy.linalg import orthogonal_procrustes
from scipy.spatial import procrustes

from metriclab import plots
from metriclab.methods import REGISTRY
from metriclab.plots.base import class_color
from metriclab.plots.embedding import WEBGL_ABOVE
from metriclab.ui.embed import new_points
from metriclab.ui.embed.context import EmbedPage, timing_enabled
from metriclab.ui.embed.labelling import selected_points
from metriclab.ui.embed.live import _bar_progress
from metriclab.ui.embed.shown_classes import class_picker, hidden_caption, hide_points, link_value
from metriclab.ui.shared import collapse, compute, downloads, memo, presentation
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import (
    CLASSES_KEY,
    LINK_PREFIXES,
    METHODS_KEY,
    SELECTION_KEY,
    TEST_KEY,
    FitRequest,
    param_prefix,
)
from metriclab.ui.shared.pickers import unavailable_reason, url_values
from metriclab.ui.shared.state import Rule, URLValueError, publish, seed_widget, unpublish

MIN_METHODS, MAX_METHODS = 2, 4
TABLE_ROWS = 200  # rows of the selection table (the count says how many more)
SELECTION_CHARS = 4000  # the longest selection a link records (a box on MNIST can hold 20,000)
DIMMED = 0.2  # the opacity of the points outside the selection
_GENERATION = "_linked_generation"  # bumped when the selection changes: fresh charts, no stale box
_OWNER = "_linked_owner"  # the data set the selection belongs to


# Which methods, from the link and the multiselect ------------------------------------------------


def linkable_reason(spec, dataset) -> str | None:
    """Why `spec` cannot be one of the linked views of `dataset` (None: it can): the single-method
    picker's reasons (`unavailable_reason`), and a method without an embedding to draw."""
    why = unavailable_reason(spec, dataset)
    if why is not None:
        return why
    if spec.output != "embedding":
        return "a classifier: no embedding to draw"
    if spec.has("input_space"):
        return "the input space itself: no embedding to align"
    return None


def default_methods(options: Sequence[str]) -> list[str]:
    """TDL, its own baseline (Laplacian Eigenmaps, on the same graph) and one metric learner
    (asked by tags), filled up to three from `options` where one of them is missing."""
    graph = [k for k in options if REGISTRY[k].has("graph") and REGISTRY[k].needs_labels]
    chosen = graph[:1]
    base = REGISTRY[chosen[0]].baseline if chosen else None
    if base in options:
        chosen.append(base)
    learner = [k for k in options if REGISTRY[k].has("mahalanobis", "linear_map")]
    chosen += [k for k in learner[:1] if k not in chosen]
    chosen += [k for k in options if k not in chosen]
    return chosen[:3]


def methods_picker(page: EmbedPage) -> list[str] | None:
    """The multiselect of the methods shown side by side (seeded from the link's `methods`); the
    methods this data set does not allow are listed with the reason. None, with a warning saying
    why, when fewer than MIN_METHODS are chosen."""
    reasons = {k: linkable_reason(spec, page.dataset) for k, spec in REGISTRY.items()}
    options = [k for k, why in reasons.items() if why is None]
    shown = lambda k: REGISTRY[k].label if k in REGISTRY else k  # noqa: E731
    rule = Rule(default_methods(options), options, label="Methods", shown=shown)
    seed_widget(METHODS_KEY, rule)
    chosen = list(st.session_state[METHODS_KEY])
    if len(chosen) > MAX_METHODS:
        st.session_state[METHODS_KEY] = chosen[:MAX_METHODS]
        st.warning(
            f"{len(chosen)} methods asked for: the linked views show at most {MAX_METHODS}; "
            f"the first {MAX_METHODS} are shown ("
            + ", ".join(REGISTRY[k].label for k in chosen[:MAX_METHODS])
            + ").",
            icon=":material/warning:",
        )
    chosen = st.multiselect(
        f"Methods side by side ({MIN_METHODS} to {MAX_METHODS})",
        options,
        key=METHODS_KEY,
        max_selections=MAX_METHODS,
        format_func=lambda k: REGISTRY[k].label,
        help="Each is fitted on the same data, split and scaling; views 2 to 4 are turned "
        "(rotated or reflected) and scaled to match view 1.",
    )
    if len(chosen) < MIN_METHODS:
        not_offered(page)
        st.warning(
            f"Choose {MIN_METHODS} to {MAX_METHODS} methods to see them side by side "
            f"({len(chosen)} chosen).",
            icon=":material/warning:",
        )
        return None
    return chosen


def not_offered(page: EmbedPage) -> None:
    """The methods this data set does not allow as a linked view, listed with the reason."""
    by_reason: dict[str, list[str]] = {}
    for spec in REGISTRY.values():
        why = linkable_reason(spec, page.dataset)
        if why is not None:
            by_reason.setdefault(why, []).append(spec.label)
    for why, names in by_reason.items():
        st.caption(f"Not offered here ({why}): {', '.join(names)}.")


# The selection: data set indices, in the session and in the link ---------------------------------


def encode_selection(indices) -> str:
    """Sorted distinct indices as link text, runs of three or more as ranges: '3,17,40-52'."""
    values = sorted({int(i) for i in indices})
    parts, start = [], 0
    while start < len(values):
        end = start
        while end + 1 < len(values) and values[end + 1] == values[end] + 1:
            end += 1
        if end - start >= 2:
            parts.append(f"{values[start]}-{values[end]}")
            start = end + 1
        else:
            parts.append(str(values[start]))
            start += 1
    return ",".join(parts)


_TOKEN = re.compile(r"^(\d{1,9})(?:-(\d{1,9}))?$")


def decode_selection(text: str, n_points: int) -> np.ndarray:
    """The indices of link text '3,17,40-52' (raises URLValueError naming what is wrong: not an
    index, a reversed range, or an index past the data set's `n_points`)."""
    out: list[np.ndarray] = []
    for token in filter(None, text.split(",")):
        found = _TOKEN.match(token.strip())
        if found is None:
            raise URLValueError(f"{token[:20]!r} is not a point index (3) or a range (40-52)")
        low = int(found.group(1))
        high = int(found.group(2)) if found.group(2) is not None else low
        if high < low:
            raise URLValueError(f"the range {token!r} runs backwards")
        if high >= n_points:
            raise URLValueError(f"point {high} is not one of the {n_points:,} points (0 to "
                                f"{n_points - 1:,})")  # fmt: skip
        out.append(np.arange(low, high + 1))
    return np.unique(np.concatenate(out)) if out else np.zeros(0, dtype=int)


class Selection:
    """The points selected in the linked views (data set indices), kept as link text under
    SELECTION_KEY, seeded from the link (validated) and tied to one data set."""

    def __init__(self, owner, n_points: int):
        self.n_points = n_points
        if st.session_state.get(_OWNER, owner) != owner:  # another data set: nothing selected
            st.session_state[SELECTION_KEY] = ""
        st.session_state[_OWNER] = owner
        rule = Rule(
            "", parse=self._parse, label="Selection", shown=lambda v: v or "nothing selected",
            max_chars=SELECTION_CHARS,
        )  # fmt: skip
        seed_widget(SELECTION_KEY, rule)
        st.session_state.setdefault(_GENERATION, 0)

    def _parse(self, text: str) -> str:
        return encode_selection(decode_selection(text, self.n_points))

    @property
    def indices(self) -> np.ndarray:
        return decode_selection(st.session_state.get(SELECTION_KEY, ""), self.n_points)

    @property
    def generation(self) -> int:
        return int(st.session_state.get(_GENERATION, 0))

    def set(self, indices) -> None:
        st.session_state[SELECTION_KEY] = encode_selection(indices)
        st.session_state[_GENERATION] = self.generation + 1

    def clear(self) -> None:
        self.set([])

    def on_select(self, chart_key: str) -> None:
        """A click, box or lasso on a chart: its points become the selection (an empty event, a
        click beside the points, leaves it as it is; the button clears it)."""
        points = selected_points(st.session_state.get(chart_key))
        if points:
            self.set(points)

    def link_text(self) -> str | None:
        """What the link records: the selection, or None when it is empty or too long."""
        text = st.session_state.get(SELECTION_KEY, "")
        return text if text and len(text) <= SELECTION_CHARS else None


# Alignment and the panels' figures ----------------------------------------------------------------


@dataclass(frozen=True)
class Alignment:
    """Where a point of a method's own embedding is drawn: its first two coordinates centred,
    scaled to unit RMS radius and turned by `rotation` (orthogonal: a rotation or a reflection)."""

    mean: np.ndarray
    rms: float
    rotation: np.ndarray
    disparity: float | None = None  # scipy.spatial.procrustes' disparity to view 1 (view 1: None)
    aligned: bool = False  # turned onto view 1 (False: view 1 itself, or another dimension)

    def apply(self, Z: np.ndarray) -> np.ndarray:
        Z = np.asarray(Z, dtype=np.float64)
        Z = Z[:, None] if Z.ndim == 1 else Z[:, : self.mean.size]
        return (Z - self.mean) / self.rms @ self.rotation


def alignment(Z: np.ndarray, reference: np.ndarray | None) -> Alignment:
    """The alignment of embedding `Z` (first two coordinates) onto `reference` (view 1 as drawn):
    unit RMS radius, then the orthogonal Procrustes rotation min ‖Z R − reference‖ where both have
    as many coordinates and points (else only the normalisation). The rotation is fitted on the
    points that carry no coordinate in either view (a localised eigenvector would decide it
    alone); with fewer than three such points, on all of them."""
    Z = np.asarray(Z, dtype=np.float64)
    Z = Z[:, None] if Z.ndim == 1 else Z[:, :2]
    mean = Z.mean(axis=0)
    rms = float(np.sqrt(np.mean(np.sum((Z - mean) ** 2, axis=1))))
    rms = rms if rms > 0 and np.isfinite(rms) else 1.0
    if reference is None or reference.shape != Z.shape:
        return Alignment(mean, rms, np.eye(Z.shape[1]))
    normalised = (Z - mean) / rms
    rows = _bulk(normalised) & _bulk(reference)
    rows = rows if rows.sum() >= 3 else np.ones(Z.shape[0], dtype=bool)
    rotation, _ = orthogonal_procrustes(normalised[rows], reference[rows])
    try:
        disparity = float(procrustes(reference[rows], normalised[rows])[2])
    except ValueError:  # a view whose points all coincide
        disparity = None
    return Alignment(mean, rms, rotation, disparity, aligned=True)


def _bulk(Z: np.ndarray) -> np.ndarray:
    """The points that carry no coordinate of `Z` (`plots.coordinate_carriers`)."""
    keep = np.ones(Z.shape[0], dtype=bool)
    for carried in plots.coordinate_carriers(Z):
        keep[carried.index] = False
    return keep


@dataclass
class Panel:
    """One linked view: the fit, where its points lie after alignment (`coords`) and where they
    are drawn (`shown`: the bulk framed, the few points that carry a coordinate on the frame's
    edge), their data set indices (`index`) and the figure a caller may add traces to."""

    request: FitRequest
    result: compute.ViewResult
    alignment: Alignment
    coords: np.ndarray
    index: np.ndarray
    shown: np.ndarray | None = None
    figure: go.Figure = field(default_factory=go.Figure)
    held_out: np.ndarray | None = None  # the points held out of the fit (drawn as their own trace)
    new: object = None  # the new points' `NewPoints` under this method, once drawn
    aspect: float = plots.AREA_ASPECT["two columns"]  # its plot area's width / height
    hidden_classes: tuple[int, ...] = ()  # the class codes not drawn (`shown_classes`)

    def __post_init__(self):
        if self.shown is None:
            self.shown = framed(self.coords, self.aspect)[0]

    def place(self, Z: np.ndarray) -> np.ndarray:
        """Coordinates of the method's own embedding (new points mapped by it) as drawn here."""
        return self.alignment.apply(Z)

    @property
    def at_edge(self) -> np.ndarray:
        """The points drawn on the frame's edge instead of where they lie."""
        return np.any(self.shown != self.coords, axis=1)

    def hidden(self, y: np.ndarray) -> np.ndarray:
        """Which of its points are of a class not drawn (`hidden_classes`), `y` the data set's."""
        return np.isin(y[self.index], self.hidden_classes)


def framed(coords: np.ndarray, aspect: float = plots.AREA_ASPECT["two columns"]) -> tuple:
    """(where each point is drawn, the axis ranges): the bulk framed, and where a coordinate is
    carried by a few points (a localised eigenvector, `plots.coordinate_carriers`) those points
    clipped to the frame's edge (as the live view's "Zoom to the bulk" draws them)."""
    carried = plots.coordinate_carriers(coords)
    ranges = [plots.bulk_range(coords, carried, axis) for axis in range(coords.shape[1])]
    ranges = plots.edge_frame(coords, ranges, aspect)  # the points outside, on the drawn edge
    return plots.clipped_to(coords, ranges)[0], ranges


def panel_figure(panel: Panel, ds, position: int) -> go.Figure:
    """The figure of one view (`position` 1 to 4): the aligned embedding coloured by class,
    labelled points outlined, every trace's customdata the data set indices; the points carrying
    a coordinate on the frame's edge as their own trace; a compact layout for a column (no
    legend: the page keys every view once, `shared_legend`; a drag selects)."""
    _, ranges = framed(panel.coords, panel.aspect)
    keep = np.ones(panel.index.size, bool) if panel.held_out is None else ~panel.held_out
    fig = plots.embedding_scatter(
        panel.shown[keep],
        ds.y[keep],
        panel.result.mask[keep],
        ds.target_names,
        title=f"view {position}: {panel.request.spec.short_label}",
        x_range=ranges[0],
        y_range=ranges[1] if len(ranges) > 1 else None,
        index=panel.index[keep],
        at_edge=panel.at_edge[keep],
        true_coords=panel.coords[keep],
    )
    fig.update_layout(
        height=CHART_HEIGHT if panel.coords.shape[1] > 1 else STRIP_HEIGHT,
        margin=dict(l=10, r=10, t=fig.layout.margin.t, b=10),
        legend_itemsizing="constant",
        xaxis_title_text=None,
        yaxis_title_text=None,
        xaxis_showticklabels=False,  # the units are the view's own (unit RMS radius): the grid
        yaxis_showticklabels=panel.coords.shape[1] == 1,  # shows the scale, a strip its classes
        dragmode="select",  # a drag selects (the linked view's gesture); zoom is on the toolbar
        uirevision=f"linked-{position}",
        meta=None,  # the column's own margins: not the rows `fit_legend` had added
        showlegend=False,  # the page keys every view once, above them (`shared_legend`)
    )
    if panel.coords.shape[1] == 1:  # a strip keeps its class rows when a class is hidden
        fig.update_yaxes(range=[-0.5, len(ds.target_names) - 0.5], autorange=False)
    return fig


# The key's mark for each kind of trace besides the classes, by its marker symbol
KEY_MARKS = {
    "diamond": "&#9670;",  # labelled points: filled, outlined
    "diamond-open": "&#9671;",  # held-out points, mapped
    "triangle-up-open": "&#9651;",  # drawn at the chart's edge (each pointing its way)
    "triangle-down-open": "&#9651;",
    "triangle-left-open": "&#9651;",
    "triangle-right-open": "&#9651;",
    "star": "&#9733;",  # new points
    "circle": "&#9673;",  # the selection, ringed
}
_COUNT = re.compile(r" \([0-9,]+\)$")


def key_entries(figures: Sequence[go.Figure]) -> list[tuple[str, str]]:
    """(mark, name) of each kind of legend entry besides the classes in `figures` (labelled,
    held-out, new, edge and selected points), once each in legend order, without a view's count."""
    found: dict[str, tuple[float, str]] = {}
    for fig in figures:
        for trace in fig.data:
            rank = trace.legendrank if trace.legendrank is not None else 0
            if trace.showlegend is False or rank < FIRST_KIND_RANK:
                continue
            name = _COUNT.sub("", str(trace.name or ""))
            symbol = trace.marker.symbol or "circle"
            symbol = symbol if isinstance(symbol, str) else (list(symbol) or ["circle"])[0]
            mark = KEY_MARKS.get(str(symbol), "&#9673;")
            found.setdefault(name, (rank, mark))
    return [(mark, name) for name, (_, mark) in sorted(found.items(), key=lambda kv: kv[1][0])]


FIRST_KIND_RANK = 1998  # the new points' legendrank: the classes are 1000 + c, below it


def shared_legend(names: Sequence[str], kinds: Sequence[tuple[str, str]] = ()) -> str:
    """The key of every view, once (HTML): each class in its colour, then the other kinds of
    points the views draw (`key_entries`). Each view repeated it under its plot: soybean's 15
    classes took 13 rows, three times over, pushing the scores off a projector's screen, and a
    view with only a few entries had its plot squashed by rows estimated for another width."""
    items = [
        f'<span style="white-space:nowrap"><span style="color:{class_color(c)};'
        f'font-size:1.3em;line-height:1">&#9679;</span> {html.escape(str(name))}</span>'
        for c, name in enumerate(names)
    ]
    items += [  # the marks at the size of the classes' dots (a text glyph draws them small)
        f'<span style="white-space:nowrap"><b style="font-size:1.3em;line-height:1">{m}</b> '
        f"{html.escape(n)}</span>"
        for m, n in kinds
    ]
    return (
        '<div data-testid="linked-legend" style="display:flex;flex-wrap:wrap;'
        'column-gap:1.2em;font-size:0.9em;line-height:1.6">' + "".join(items) + "</div>"
    )


def with_legend(fig: go.Figure, width: float) -> go.Figure:
    """A copy of a view's figure with its own legend, in rows under the plot for a column about
    `width` px wide: the SVG download, which stands without the page's key (made on request)."""
    return plots.fit_legend(go.Figure(fig).update_layout(showlegend=True), width=width, under=True)


# px, the figure without its legend's rows: a plot about 250 (a strip 160) px tall under the title
CHART_HEIGHT, STRIP_HEIGHT = 336, 246
# px, a view's height at most in presentation mode: the views come below the methods, the held-out
# slider and the class pills (tops at 352 px for iris, 419 for soybean's 15 pills at 1280×800), and
# are whole on a 1280×800 projector (and iris's on 1280×720); at 560, the single chart's, they
# ran to 912 and 979 px
PRESENT_HEIGHT = 360
# A view's toolbar in one row over its title band: in a 263-px column (three views in a 1280-px
# window) its ten buttons took two rows and the second sat on the view's title. "Zoom" (a box)
# stays, and "Reset axes" undoes it
TOOLBAR = {"modeBarButtonsToRemove": ["zoomIn2d", "zoomOut2d"]}


def column_width(n_views: int) -> float:
    """About the px a view's column is drawn across in a 1280-px window (263 px three in a row,
    402 px two; a little less, so that a narrower window still holds the legend's rows)."""
    return 240.0 if n_views == 3 else 360.0


# Where per-panel extra traces go (issue 37 item 2, ui/embed/new_points.py): each callable gets a
# Panel and adds traces to panel.figure, placing its own coordinates with panel.place(...).
PANEL_EXTRAS: list[Callable[[Panel], None]] = []


def panel_extras(panel: Panel) -> None:
    """Add the registered extra traces (PANEL_EXTRAS) to one panel's figure."""
    for extra in PANEL_EXTRAS:
        extra(panel)


def new_point_traces(panel: Panel, test: float, seed: int) -> None:
    """The held-out points and the session's new points in one panel, where the method (fitted
    without the held-out share) maps them, carried over by the panel's alignment (`drawn`: the
    panel's aligned coordinates of the same fit, so a mapped point lands at `panel.place(z)`).
    Nothing where the method cannot place points (`_placing_note` says why)."""
    request = panel.request
    if not new_points.wanted(request, test):
        return
    panel.new = new_points.add_new_point_traces(panel.figure, request, test, seed, panel.coords)
    for trace in panel.figure.data:  # view positions -> data set indices, as the class traces
        if str(trace.name).startswith(new_points.HELD_OUT_NAME) and trace.customdata is not None:
            trace.customdata = [[int(panel.index[i]), c] for i, c in trace.customdata]


def drawn_positions(panel: Panel, y: np.ndarray) -> np.ndarray:
    """(x, y) of every point as the figure draws it (a 1-D strip: its class row, jittered as
    `plots.embedding_scatter` jitters it)."""
    if panel.shown.shape[1] > 1:
        return panel.shown[:, :2]
    jitter = np.random.default_rng(0).uniform(-0.15, 0.15, panel.shown.shape[0])
    return np.column_stack([panel.shown[:, 0], y + jitter])


def highlight(panel: Panel, selected: np.ndarray, names: Sequence[str], y: np.ndarray) -> int:
    """Dim every point of `panel` and draw the `selected` ones (data set indices) over them, in
    their class colours with a black ring, where they are drawn (not moved); returns how many are
    in this view."""
    where = np.flatnonzero(np.isin(panel.index, selected))
    for trace in panel.figure.data:
        if trace.type in ("scatter", "scattergl") and trace.customdata is not None:
            trace.marker.opacity = DIMMED
    webgl = panel.index.size > WEBGL_ABOVE
    index, classes = panel.index[where], y[where]
    xy = drawn_positions(panel, y)[where]
    panel.figure.add_trace(
        dict(
            type="scattergl" if webgl else "scatter",
            x=xy[:, 0],
            y=xy[:, 1],
            mode="markers",
            name=f"selected ({where.size:,})",
            legendrank=3000,
            marker=dict(
                color=[class_color(c) for c in classes],
                size=10,
                line=dict(width=1.5, color="black"),
                opacity=1.0,
            ),
            customdata=index
            if webgl
            else [[int(i), names[c]] for i, c in zip(index, classes, strict=True)],
            hovertemplate="index %{customdata"
            + ("" if webgl else "[0]")
            + "}<br>selected<extra></extra>",
        )
    )
    return int(where.size)


# The view ------------------------------------------------------------------------------------------


def _columns(n: int) -> list:
    """One row of columns for 2 or 3 views, two rows of two for 4 (readable on a projector)."""
    if n <= 3:
        return list(st.columns(n))
    return [*st.columns(2), *st.columns(2)]


def _requests(page: EmbedPage, methods: list[str], places: list) -> list[FitRequest]:
    """Each method's fit: the page's request with the method and its parameters, drawn as widgets
    (link keys p.<method>.<name>, defaults from the spec) in a folded expander under its view."""
    requests = []
    for method, place in zip(methods, places, strict=True):
        own = EmbedPage(page.request.with_method(method), page.dataset)
        with place.expander(f"{own.spec.short_label} parameters"):
            params = own.widgets()
        requests.append(own.with_params(params))
    return requests


def _fit(request: FitRequest):
    """The cached fit (`memo.fit`); a full-size one reports its stages on a progress bar."""
    label = request.spec.label
    if not memo.is_full_size(request.data):
        return guarded(memo.fit, request, context=label)
    bar = st.progress(0.0, text=f"{label}: load")
    result = guarded(memo.fit, request, progress=_bar_progress(bar), context=label)
    bar.empty()
    return result


def _publish(
    page: EmbedPage, requests: list[FitRequest], selection: Selection, classes: list | None = None
) -> None:
    """The link: the page's keys, the methods, their parameters, the selection and, where views
    are drawn, the classes shown (`classes`; None: every class, left out of the link)."""
    keys = [*page.url_keys, METHODS_KEY, TEST_KEY]
    keys += [param_prefix(r.method) + name for r in requests for name in r.values]
    values = url_values(keys)
    text = selection.link_text()
    if text is not None:
        values[SELECTION_KEY] = text
    if classes is not None:
        values[CLASSES_KEY] = classes
    publish(values, prune=LINK_PREFIXES)
    if text is None and SELECTION_KEY in st.query_params:
        del st.query_params[SELECTION_KEY]
    if requests and classes is None:
        unpublish(CLASSES_KEY)


HELD_OUT_LABEL = "1-NN, held out"
FULL_FIT_LABEL = "1-NN, full fit"  # the view's own score, beside the held-out one


def _panel_notes(panel: Panel, ds, position: int, n_selected: int | None, test: float) -> None:
    """Under a view: its 1-NN accuracy (and the held-out one beside it), how it was aligned, what
    it was fitted on, which points are drawn on the frame's edge, and why a method draws no
    held-out or new points."""
    result, spec = panel.result, panel.request.spec
    place = st
    if panel.held_out is not None and test > 0:
        scores = new_points.held_out_scores(panel.request, test, panel.request.split.seed)
        held_out = new_points._shown(scores.held_out)
        tiles = [(FULL_FIT_LABEL, f"{result.accuracy:.3f}"), (HELD_OUT_LABEL, held_out)]
        place, right = presentation.tile_columns(st, tiles)
        right.metric(
            HELD_OUT_LABEL,
            held_out,
            **presentation.score_difference(new_points.score_gap(scores)),
            help="the held-out points placed by the out-of-sample map, against the labelled "
            "points; the arrow: minus the other unlabelled points' score on the same fit",
        )
    place.metric(  # two tiles in a third of the page: short labels (the view's title names it)
        f"{spec.short_label} 1-NN accuracy" if place is st else FULL_FIT_LABEL,
        f"{result.accuracy:.3f}",
        help="1-NN in this method's embedding (all its coordinates) from the labelled points, "
        "scored on the unlabelled ones (the fit on every point)",
    )
    lines = []
    if panel.held_out is not None and test > 0:
        lines.append(
            f"Drawn: the fit without the {scores.n_held_out:,} held-out points (open diamonds, "
            f"mapped by its out-of-sample map); 1-NN on its other unlabelled points (what "
            f"the held-out arrow is against): {new_points._shown(scores.transductive)}."
        )
    if panel.alignment.disparity is not None:
        lines.append(f"Procrustes disparity to view 1: {panel.alignment.disparity:.3f}.")
    elif position > 1 and not panel.alignment.aligned:
        lines.append("Not aligned: view 1 draws another number of coordinates.")
    if result.Z.shape[1] > 2:
        lines.append(f"Its first 2 of {result.Z.shape[1]} coordinates are drawn.")
    edge = int((panel.at_edge & ~panel.hidden(ds.y)).sum())  # drawn ones
    if edge:
        lines.append(
            f"{edge} point(s) carry a coordinate (a localised eigenvector): drawn on the frame's "
            "edge as open triangles; hover one for where it lies."
        )
    if result.fitted_on is not None:
        lines.append(
            f"{spec.short_label} was fitted on {result.fitted_on:,} of the "
            f"{int(result.mask.sum()):,} labelled points (a stratified sample: it costs n² or "
            f"more) and maps all {ds.n_samples:,} points."
        )
    if n_selected is not None:
        lines.append(f"{n_selected:,} selected point(s) in this view.")
    if lines:
        st.caption(" ".join(lines))
    _placing_note(panel.request, test)
    counts = collapse.collapse_counts(result)
    collapse.show_collapse(panel.request, result, counts, f"collapse_remedy_{position}")


def selection_table(
    selected: np.ndarray, index: np.ndarray, ds, mask: np.ndarray, hidden_classes=()
) -> None:
    """The selected points (index, class, labelled or not): the first TABLE_ROWS and the count
    (and how many are of `hidden_classes`: listed, not drawn)."""
    where = np.flatnonzero(np.isin(index, selected))
    missing = int(selected.size - where.size)
    names = [str(t) for t in ds.target_names]
    head = f"**{where.size:,} point(s) selected**" + (
        f" (the first {TABLE_ROWS} listed)" if where.size > TABLE_ROWS else ""
    )
    if missing:
        head += f"; {missing:,} of the selection are not among the {index.size:,} points drawn"
    of_hidden = int(np.isin(ds.y[where], hidden_classes).sum())
    if of_hidden:
        head += f"; {of_hidden:,} of them are of a hidden class (listed here, not drawn)"
    st.markdown(head)
    rows = where[:TABLE_ROWS]
    frame = pd.DataFrame(
        {
            "index": index[rows],
            "class": [names[c] for c in ds.y[rows]],
            "labelled": np.where(mask[rows], "yes", "no"),
        }
    )
    st.dataframe(frame, hide_index=True, height=min(400, 38 + 35 * len(rows)), key="linked_table")


def _placing_note(request: FitRequest, test: float) -> None:
    """Where held-out or new points are asked for and this method cannot place them: why."""
    reason = new_points.cannot_place(request)
    if reason is not None and (test > 0 or new_points.query_points(request.data) is not None):
        st.caption(f":material/block: {reason}: no held-out or new points in this view.")


def _selection_csv(selected: np.ndarray, index: np.ndarray, ds, mask: np.ndarray) -> str:
    """The whole selection (not only the table's first rows) as CSV: index, label (the class
    code, as in the coordinates files), labelled, class (its name)."""
    where = np.flatnonzero(np.isin(index, selected))
    names = [str(t) for t in ds.target_names]
    frame = pd.DataFrame(
        {
            "index": index[where],
            "label": ds.y[where].astype(int),
            "labelled": mask[where].astype(int),
            "class": [names[c] for c in ds.y[where]],
        }
    )
    return frame.to_csv(index=False, lineterminator="\n")


def linked_downloads(panels: list[Panel], positions: list[int], selected, ds, stem: str) -> None:
    """One "Download" expander below the views: per view its coordinates as drawn (aligned to
    view 1) and the method's own coordinates, the figure as SVG (on request); the selection."""
    with downloads.download_area():
        for column, panel, position in zip(st.columns(len(panels)), panels, positions, strict=True):
            name = panel.request.spec.short_label
            own = f"{stem}-view{position}-{panel.request.method}"
            column.markdown(f"**View {position}: {name}**")
            points = downloads.Points(
                panel.coords, ds.y, panel.result.mask, panel.held_out, panel.index, ds.target_names
            )
            downloads.coordinates_button(
                column, points, stem=f"{own}-aligned-to-view1", key=f"dl_linked_{position}",
                label="Coordinates as drawn (CSV)",
                help="index, label, labelled (1/0), held out (1/0), then the coordinates as this "
                "view draws them: centred, unit RMS radius and turned onto view 1 (aligned to "
                "view 1; a point drawn on the frame's edge is given where it lies), and the "
                "class's name",
            )  # fmt: skip
            downloads.coordinates_button(
                column,
                replace(points, Z=panel.result.Z),
                stem=f"{own}-own",
                key=f"dl_linked_own_{position}",
                label=f"{name}'s own coordinates (CSV)",
                help=f"all {panel.result.Z.shape[1]} coordinates as {name} computed them (not "
                "aligned)",
            )
            downloads.svg_button(
                column,
                lambda fig=panel.figure: with_legend(fig, column_width(len(panels))),
                fingerprint=downloads.figure_fingerprint(panel.figure),
                stem=own,
                key=f"dl_linked_svg_{position}",
            )
        if selected.size:
            mask = panels[0].result.mask if panels else np.zeros(ds.n_samples, bool)
            st.download_button(
                f"Selection ({selected.size:,} points, CSV)",
                _selection_csv(selected, panels[0].index, ds, mask).encode(),
                file_name=f"{stem}-selection.csv",
                mime="text/csv",
                key="dl_linked_selection",
                on_click="ignore",
                help="index, label (class code), labelled (1/0) and class name of every "
                "selected point",
            )
        hidden = panels[0].hidden_classes if panels else ()
        st.caption(
            "Coordinates as drawn are aligned to view 1 (Procrustes: centred, unit RMS radius, "
            "turned); the own coordinates are each method's embedding as fitted."
            + (
                " The coordinates files hold every point, those of the hidden classes too; "
                "the SVG draws the classes shown."
                if hidden
                else ""
            )
        )


ALIGN_CAPTION = (
    "Views 2 and after are rotated (or reflected) and scaled to match view 1 by orthogonal "
    "Procrustes: each view is centred and scaled to unit RMS radius, so the shapes are what each "
    "method computed. A click, a box or a lasso in any view selects the same points in all of "
    "them (the others are dimmed, not moved); the link keeps the selection."
)


def _draw_panel(
    panel: Panel, selection: Selection, ds, position: int, test: float, width: float
) -> int | None:
    """Build, extend (held-out and new points, `panel_extras`), highlight the selection's points of
    and draw one view (its column about `width` px wide); how many of them are in it (None: nothing
    selected)."""
    panel.figure = panel_figure(panel, ds, position)
    guarded(new_point_traces, panel, test, panel.request.split.seed, context="new points")
    panel_extras(panel)
    names = [str(t) for t in ds.target_names]
    selected = selection.indices
    hidden = panel.index[panel.hidden(ds.y)]  # their points: not drawn
    drawn = np.setdiff1d(selected, hidden)
    shown = highlight(panel, drawn, names, ds.y) if selected.size else None
    hide_points(panel.figure, hidden, panel.hidden_classes)
    chart_key = f"linked_{position}_{selection.generation}"
    draw_chart(
        st,
        presentation.fit_screen(panel.figure, width=width, under=True, most=PRESENT_HEIGHT),
        key=chart_key,
        on_select=lambda: selection.on_select(chart_key),
        selection_mode=("points", "box", "lasso"),
        config=TOOLBAR,
    )
    return shown


def _selection_part(page: EmbedPage, selection: Selection, ds, kept: np.ndarray, hidden=()) -> None:
    """The selection's table (or how to make one) and the button that clears it (`hidden`: the
    class codes not drawn)."""
    selected = selection.indices
    if selected.size:
        mask = memo.split(page.request.data, page.request.split)
        selection_table(selected, kept, ds, mask, hidden)
        if selection.link_text() is None:
            st.caption(
                f"This selection is too long for a link (over {SELECTION_CHARS:,} characters): "
                "the link leaves it out."
            )
    else:
        st.caption("Nothing selected: drag a box or a lasso in any view, or click a point.")
    st.button("Clear selection", key="linked_clear", on_click=selection.clear,
              disabled=not selected.size)  # fmt: skip


def _new_points_part(panels: list[Panel], test: float) -> None:
    """Below the views, once: "Add a new point" (drawn in every view that can place it) and the
    new points' nearest neighbours under each method's metric, a tab per method."""
    placing = [p for p in panels if new_points.cannot_place(p.request) is None]
    if not placing:
        return
    new_points.add_point_controls(placing[0].request, test, placing[0].request.split.seed)
    with_new = [p for p in placing if p.new is not None]
    if not with_new:
        return
    st.markdown("**Nearest neighbours of the new points** under each method's metric")
    for tab, panel in zip(
        st.tabs([p.request.spec.short_label for p in with_new]), with_new, strict=True
    ):
        tab.dataframe(
            new_points.neighbour_table(panel.request, panel.new),
            hide_index=True,
            key=f"linked_neighbours_{panel.request.method}",
        )


@st.fragment
def linked_view(page: EmbedPage) -> None:
    """The view (a fragment: a selection reruns only it)."""
    started = time.perf_counter()
    methods = methods_picker(page)
    ds, kept = memo.view_data(page.request.data)
    owner = (page.request.data.name, page.request.data.params)
    selection = Selection(owner, page.dataset.n_samples)
    if methods is None:
        _publish(page, [], selection)
        return
    share, classes = st.columns([1, 3])  # the key of every view, once, above them: the classes,
    test = new_points.held_out_share(share)  # as pills that choose which are drawn, and under
    key = share.empty()  # the slider the other kinds of points (filled once the views are drawn)
    with classes:
        shown_classes = class_picker(ds.target_names, owner)
        hidden_caption(ds.target_names, shown_classes)
    hidden_classes = tuple(sorted(set(range(len(ds.target_names))) - set(shown_classes.tolist())))
    columns = _columns(len(methods))
    tops = [column.container() for column in columns]  # the views above their parameters
    requests = _requests(page, methods, columns)
    _publish(page, requests, selection, link_value(shown_classes, len(ds.target_names)))
    reference, selected = None, selection.indices
    width = column_width(len(methods))
    layout = "three columns" if len(methods) == 3 else "two columns"
    aspect = plots.AREA_ASPECT[layout + (", presentation" if presentation.active() else "")]
    panels, positions = [], []
    for position, (request, top) in enumerate(zip(requests, tops, strict=True), start=1):
        with top:
            result = _fit(request)
            if result is None or result.Z is None:
                continue
            placed = guarded(new_points.shown_fit, request, result, test,
                             request.split.seed, context="new points")  # fmt: skip
            shown_result, held_out = placed or (result, None)
            aligned = alignment(shown_result.Z, reference)
            panel = Panel(request, shown_result, aligned, aligned.apply(shown_result.Z), kept,
                          held_out=held_out, aspect=aspect,
                          hidden_classes=hidden_classes)  # fmt: skip
            reference = panel.coords if reference is None else reference
            shown = _draw_panel(panel, selection, ds, position, test, width)
            _panel_notes(panel, ds, position, shown, test)
            panels.append(panel)
            positions.append(position)
    kinds = key_entries([panel.figure for panel in panels])
    key.markdown(shared_legend((), kinds), unsafe_allow_html=True)  # the pills key the classes
    _new_points_part(panels, test)
    _selection_part(page, selection, ds, kept, hidden_classes)
    if panels:
        stem = downloads.file_name(downloads.data_stem(page.request.data), "linked")
        linked_downloads(panels, positions, selected, ds, stem)
    st.caption(ALIGN_CAPTION)
    not_offered(page)
    if timing_enabled():
        elapsed = 1000 * (time.perf_counter() - started)
        print(f"metriclab-timing linked_view {elapsed:.1f} ms", flush=True)
