"""Which classes the Embed page's linked views draw, in every view at once: one pill per class, in
its colour, above the views (every class on by default). The link records the classes shown
(`classes=1,2`, class codes; absent: every class); switching the data set shows every class again.

A hidden class is only not drawn: nothing is refitted, and the alignment, the frames, the scores
and the coordinates files still count its points. `hide_points` takes its points out of a view's
finished figure (class traces, the edge, held-out and selected points), where they are drawn, so
that the other points do not move."""

from __future__ import annotations

import base64
import numbers
import re
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from metriclab.plots.base import class_color
from metriclab.ui.shared.fit_request import CLASSES_KEY
from metriclab.ui.shared.state import Rule, remember, seed_widget

_OWNER = "_linked_classes_owner"  # the data set the choice belongs to
LISTED = 3  # hidden classes named in the caption (more: counted, the pills show which)
CLASS_RANK = 1000  # a class trace's legendrank is CLASS_RANK + its code (plots.embedding)
_COUNT = re.compile(r" \(([0-9,]+)\)$")  # a trace named with its count: "held out (mapped) (45)"
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|<>~:.-])")
# a trace's values with one entry per point (the others are the trace's own)
PER_POINT = ("x", "y", "customdata", "text", "hovertext", "ids", "marker.color", "marker.size",
             "marker.symbol", "marker.opacity", "marker.line.color", "marker.line.width")  # fmt: skip


def dot(code: int) -> str:
    """A dot in class `code`'s colour as a Markdown image (an SVG data URI: a widget's label
    draws it at the height of its text)."""
    svg = (
        "<svg xmlns='http://www.w3.org/2000/svg' width='12' height='12'>"
        f"<circle cx='6' cy='6' r='5.5' fill='{class_color(code)}'/></svg>"
    )
    return f"![](data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()})"


def pill_label(code: int, name: str) -> str:
    """A class's pill: its dot and its name (Markdown escaped: a name is shown as it is)."""
    escaped = _MARKDOWN.sub(r"\\\1", str(name))
    return f"{dot(code)} {escaped}"


def class_picker(names: Sequence[str], owner) -> np.ndarray:
    """The pills choosing the classes drawn (seeded from the link's `classes`, every class for
    another data set than `owner`'s); the class codes shown. None chosen: a notice, and every
    class is drawn."""
    codes = [str(c) for c in range(len(names))]
    if st.session_state.get(_OWNER, owner) != owner:  # another data set: every class
        remember({CLASSES_KEY: codes})
    st.session_state[_OWNER] = owner
    shown = lambda value: ", ".join(names[int(c)] for c in value)  # noqa: E731
    rule = Rule(codes, codes, label="Classes drawn", shown=shown, max_chars=4 * len(codes) + 20)
    seed_widget(CLASSES_KEY, rule)
    chosen = st.pills(
        "Classes drawn in every view",
        codes,
        selection_mode="multi",
        wrap=True,  # every class in sight (in a column the pills would scroll sideways)
        key=CLASSES_KEY,
        format_func=lambda c: pill_label(int(c), names[int(c)]),
        help="A click hides or shows a class in every view. Nothing is refitted: the frames, the "
        "scores and the coordinates files still count every class.",
    )
    if not chosen:
        st.warning("No class chosen: every class is drawn.", icon=":material/warning:")
        return np.arange(len(names))
    return np.array(sorted(int(c) for c in chosen))


def link_value(shown: np.ndarray, n_classes: int) -> list[str] | None:
    """What the link records: the class codes shown, or None where every class is (then the
    link leaves `classes` out)."""
    if shown.size >= n_classes:
        return None
    return [str(int(c)) for c in shown]


def hidden_caption(names: Sequence[str], shown: np.ndarray) -> None:
    """Under the pills, where classes are hidden: which, and that the scores still count them."""
    hidden = [str(n) for c, n in enumerate(names) if c not in set(shown.tolist())]
    if hidden:
        which = ", ".join(hidden) if len(hidden) <= LISTED else f"{len(hidden)} of {len(names)}"
        st.caption(f"Hidden: {which}; not refitted: hidden classes are still in the scores.")


def point_ids(customdata) -> np.ndarray:
    """The data set index of each point of a trace (its customdata's first value; -1 where it is
    not a data set point: a new point's star)."""
    data = np.asarray(customdata) if isinstance(customdata, np.ndarray) else None
    if data is not None and data.ndim == 1 and data.dtype.kind in "iu":
        return data.astype(np.int64)  # WebGL: the index alone
    ids = []
    for value in customdata:
        first = value[0] if isinstance(value, list | tuple | np.ndarray) else value
        ids.append(int(first) if isinstance(first, numbers.Integral) else -1)
    return np.asarray(ids, dtype=np.int64)


def _subset(trace, keep: np.ndarray) -> None:
    """Keep the points `keep` (a mask) of every per-point value of `trace`."""
    for path in PER_POINT:
        value = trace[path]
        if value is None or isinstance(value, str) or not hasattr(value, "__len__"):
            continue
        if len(value) != keep.size:
            continue
        trace[path] = (
            value[keep]
            if isinstance(value, np.ndarray)
            else [v for v, k in zip(value, keep, strict=True) if k]
        )


def hide_points(fig: go.Figure, hidden: np.ndarray, classes: Sequence[int]) -> int:
    """Take the points `hidden` (data set indices) out of every trace of `fig` that names its
    points by index, and the traces of the hidden `classes` (codes) out of it; a trace named with
    its count ("selected (7)") and its legend entry are renamed with what is left, and one left
    with no point goes. The layout (the frame) is not touched. Returns how many points went."""
    if not len(hidden) and not len(classes):
        return 0
    gone_ranks = {CLASS_RANK + int(c) for c in classes}
    renamed: dict[tuple, str | None] = {}  # (name, legend group) -> new name (None: gone)
    kept, removed = [], 0
    for trace in fig.data:
        if trace.legendrank is not None and int(trace.legendrank) in gone_ranks:
            removed += 0 if trace.customdata is None else len(trace.customdata)
            continue
        if trace.customdata is None or not len(trace.customdata):
            kept.append(trace)
            continue
        keep = ~np.isin(point_ids(trace.customdata), hidden)
        if keep.all():
            kept.append(trace)
            continue
        removed += int((~keep).sum())
        name = str(trace.name or "")
        new = _COUNT.sub(f" ({int(keep.sum()):,})", name) if _COUNT.search(name) else name
        renamed[(name, trace.legendgroup)] = new if keep.any() else None
        if keep.any():
            _subset(trace, keep)
            trace.name = new
            kept.append(trace)
    out = []
    for trace in kept:  # a legend entry of its own (held-out points): renamed, or gone with them
        key = (str(trace.name or ""), trace.legendgroup)
        if key in renamed and trace.customdata is None:
            if renamed[key] is None:
                continue
            trace.name = renamed[key]
        out.append(trace)
    fig.data = out
    return removed
