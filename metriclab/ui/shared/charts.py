"""Every plotly chart of the app goes through `draw_chart`, which makes the browser draw exactly
the colours the figure holds.

Streamlit's plotly theme sends its own colours as placeholders "#000001" ... "#000040" and the
browser replaces every occurrence of those strings in the figure with theme colours. A figure
colour that happens to be one of them is replaced too: magma starts at "#000004", so the lowest
dissimilarities were drawn pink (#ffabab) and looked like the highest. `exact_colours` writes such
a colour as the same colour in rgb() form, which the theme does not touch."""

from __future__ import annotations

import re

import plotly.graph_objects as go
import streamlit as st

PLACEHOLDER = re.compile(r"^#0000([0-3][0-9]|40)$", re.IGNORECASE)  # Streamlit's theme colours


def rgb_of(hex_colour: str) -> str:
    """ "#rrggbb" as "rgb(r, g, b)": the same colour, another spelling."""
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


# Where a figure holds colour names (reading only these keeps a 5,000-point chart cheap).
TRACE_COLOURS = (
    "colorscale", "marker.colorscale", "marker.color", "marker.line.color", "line.color",
    "fillcolor", "textfont.color",
)  # fmt: skip
LAYOUT_COLOURS = ("colorway", "coloraxis.colorscale", "paper_bgcolor", "plot_bgcolor")


def _exact(value, changed: list):
    """`value` with colliding colours respelled; `changed` gets an entry for each."""
    if isinstance(value, str):
        if PLACEHOLDER.match(value):
            changed.append(value)
            return rgb_of(value)
        return value
    if isinstance(value, list | tuple):
        if len(value) > 64 and all(isinstance(v, str) for v in value):  # a colour per point
            if not any(PLACEHOLDER.match(v) for v in set(value)):
                return value
        return [_exact(v, changed) for v in value]
    return value  # numbers and arrays hold no colour names


def _respell(obj, paths, write: bool) -> bool:
    """Whether a colour of `obj` at `paths` collides; with `write`, respell them in place."""
    collided = False
    for path in paths:
        if path not in obj:  # a property this trace type lacks (indexing it makes plotly compute
            continue  # spelling suggestions before raising: most of this function's time)
        try:
            value = obj[path]
        except (KeyError, ValueError, TypeError):
            continue
        found: list[str] = []
        fixed = _exact(value, found)
        if found:
            collided = True
            if write:
                obj[path] = fixed
    return collided


def _collides(fig: go.Figure, write: bool) -> bool:
    hits = [_respell(trace, TRACE_COLOURS, write) for trace in fig.data]
    return _respell(fig.layout, LAYOUT_COLOURS, write) or any(hits)


def _at(props: dict, path: str):
    """The value at a dotted `path` of a plotly JSON dict (None where absent)."""
    for key in path.split("."):
        if not isinstance(props, dict):
            return None
        props = props.get(key)
    return props


def _read_collides(fig: go.Figure) -> bool:
    """`_collides(fig, write=False)` read from the objects' JSON dicts: plotly's own path lookup
    cost 4 ms a chart, on every rerun of every chart; this reads the same values in 0.05 ms."""
    parts = [(trace.to_plotly_json(), TRACE_COLOURS) for trace in fig.data]
    parts.append((fig.layout.to_plotly_json(), LAYOUT_COLOURS))
    for props, paths in parts:
        for path in paths:
            found: list[str] = []
            _exact(_at(props, path), found)
            if found:
                return True
    return False


def exact_colours(fig: go.Figure) -> go.Figure:
    """`fig` with every colour that Streamlit's theme would mistake for its own spelled in rgb()
    (a copy, made only where a colour collides: the figure given is never changed)."""
    if not _read_collides(fig):
        return fig
    out = go.Figure(fig)
    _collides(out, write=True)
    return out


def draw_chart(container, fig: go.Figure, **kwargs):
    """`container.plotly_chart(fig, **kwargs)` with the figure's colours kept exactly."""
    return (container or st).plotly_chart(exact_colours(fig), **kwargs)
