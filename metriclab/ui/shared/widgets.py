"""Widgets generated from `Param` specs: λ and widths on log sliders, small integer ranges on sliders,
choices as select boxes; every widget is keyed, seeded from the URL and reported back to it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from metriclab.params import Param
from metriclab.ui.shared.state import Rule, seed_widget

MAX_SLIDER_INTS = 200


def _round_sig(x: float, digits: int = 6) -> float:
    return float(f"{x:.{digits}g}")


def log_grid(low: float, high: float, include: Sequence[float] = ()) -> list[float]:
    """Geometric grid on [low, high] that contains the powers of two (λ = 16, 128, 1024 of the TDL
    paper) and has at least ~15 steps; `include` values are added."""
    if not (low > 0 and high > low):
        raise ValueError(f"log grid needs 0 < low < high, got {low}, {high}")
    span = math.log2(high / low)
    per_octave = max(1, math.ceil(14 / span))
    if span > 48:  # very wide ranges: three steps per decade (1, 2, 5)
        values = [
            m * 10.0**e
            for e in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
            for m in (1, 2, 5)
        ]
    else:
        k0 = math.ceil(math.log2(low) * per_octave - 1e-9)
        k1 = math.floor(math.log2(high) * per_octave + 1e-9)
        values = [2.0 ** (k / per_octave) for k in range(k0, k1 + 1)]
    values = [_round_sig(v) for v in values if low * (1 - 1e-9) <= v <= high * (1 + 1e-9)]
    values += [float(v) for v in include if v is not None and low <= v <= high]
    return sorted(set(values))


def linear_grid(low: float, high: float, n: int = 41, include: Sequence[float] = ()) -> list[float]:
    values = [_round_sig(v) for v in np.linspace(low, high, n)]
    values += [float(v) for v in include if v is not None]
    return sorted(set(values))


def param_options(p: Param) -> list[Any] | None:
    """The discrete values a slider offers for `p`, or None when a plain slider/number box fits."""
    if p.kind == "choice":
        return list(p.choices)
    low, high = p.ui_range
    if p.kind == "bool" or low is None or high is None:
        return None
    auto = [None] if p.default is None else []
    if p.kind == "int":
        if p.log and low > 0:
            grid = sorted({int(round(v)) for v in log_grid(low, high, [p.default])})
            return auto + grid
        if high - low <= MAX_SLIDER_INTS and not auto:
            return None  # st.slider
        return auto + sorted({int(round(v)) for v in linear_grid(low, high, 41, [p.default])})
    if p.log and low > 0:
        return auto + log_grid(low, high, [p.default])
    return auto + linear_grid(low, high, 41, [p.default])


def param_values(p: Param) -> list[Any]:
    """The concrete values a slider of `p` can take ("auto" excluded): the grid for grid sliders,
    every integer for integer sliders, nothing for choices, switches and free number boxes."""
    if p.kind not in ("int", "float"):
        return []
    options = param_options(p)
    if options is not None:
        return [v for v in options if v is not None]
    low, high = p.ui_range
    if p.kind == "int" and low is not None and high is not None:
        return list(range(int(low), int(high) + 1))
    return []


def format_value(v: Any) -> str:
    if v is None:
        return "auto"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def param_widget(p: Param, key: str, container=None, label: str | None = None) -> Any:
    """Draw the widget for `p` under session-state key `key` (seeded from the URL) and return its value."""
    c = container or st
    label = label or p.label
    options = param_options(p)
    if p.kind == "choice":
        seed_widget(
            key, Rule(p.default, options, lambda t: _choice_from_text(t, p.choices), label=label)
        )
        return c.selectbox(label, options, key=key, help=p.help or None, format_func=str)
    if p.kind == "bool":
        seed_widget(key, Rule(bool(p.default), label=label))
        return c.checkbox(label, key=key, help=p.help or None)
    if options is not None:
        seed_widget(key, Rule(p.default, options, _number_or_auto, label=label, shown=format_value))
        return c.select_slider(
            label, options=options, key=key, help=p.help or None, format_func=format_value
        )
    low, high = p.ui_range
    if p.kind == "int" and low is not None and high is not None:
        seed_widget(key, Rule(int(p.default), bounds=(low, high), label=label))
        return c.slider(label, int(low), int(high), key=key, step=1, help=p.help or None)
    seed_widget(key, Rule(p.default, None, _number_or_auto, (low, high), label, format_value))
    kwargs = dict(min_value=low, max_value=high, key=key, help=p.help or None)
    if p.kind == "int":
        return int(c.number_input(label, step=1, **kwargs))
    return c.number_input(label, format="%.6g", **kwargs)


def _choice_from_text(text: str, choices: Sequence[Any]) -> Any:
    for choice in choices:
        if str(choice) == text:
            return choice
    raise ValueError(text)


def _number_or_auto(text: str) -> float | None:
    return None if text == "auto" else float(text)


def param_widgets(params: Sequence[Param], prefix: str, container=None) -> dict[str, Any]:
    """Widgets for all `params`; returns {name: value}. Keys are `prefix + name` (the URL keys too).
    A parameter that the values drawn before it make unused (`Param.active_when`) is not drawn
    (the estimator would ignore it, and refuses a value for it); a caption names it. `container`
    may be a list of containers (columns), filled in turn."""
    values: dict[str, Any] = {}
    unused = []
    places = container if isinstance(container, list) else [container]
    for p in params:
        if p.is_active(values):
            place = places[len(values) % len(places)]
            values[p.name] = param_widget(p, prefix + p.name, place)
        else:
            other, allowed = p.active_when
            shown = " or ".join(str(a) for a in allowed)
            unused.append(f"{p.label} (used when {_label_of(params, other)} is {shown})")
    if unused:
        (places[0] or st).caption("Not used here: " + "; ".join(unused) + ".")
    return values


def _label_of(params: Sequence[Param], name: str) -> str:
    return next((p.label for p in params if p.name == name), name)


def capped(p: Param, high: float) -> Param:
    """`p` with its upper end lowered to `high` (e.g. an output dimension to the data's number of
    features); a value the session holds above it is clamped, with a notice, when the widget is
    seeded (`state.seed_widget`)."""
    low, top = p.ui_range
    if top is None or high >= top or (low is not None and high < low):
        return p
    default = p.default if p.default is None else min(p.default, high)
    slider = None if p.slider is None else (low, high)
    return replace(p, high=high, default=default, slider=slider)


def display_table(frame, formats=None):
    """A table for st.dataframe with empty cells shown as '–' instead of 'None'. The browser draws
    a missing value as 'None' whatever the styler says, so a column with gaps is shown as text;
    a column without gaps stays numeric. `formats` ({column: callable number -> text}) writes a
    column's numbers at the precision its data carries; other numbers get 6 decimals."""
    formats = dict(formats or {})
    shown = frame.copy()
    for column in shown.columns:
        values = shown[column]
        if not values.isna().any():
            continue
        if pd.api.types.is_float_dtype(values):
            write = formats.pop(column, "{:.6f}".format)
            shown[column] = ["–" if v != v else write(v) for v in values]
        else:
            shown[column] = values.astype(object).where(values.notna(), "–")
    present = {c: f for c, f in formats.items() if c in shown.columns}
    return shown.style.format(present or None, na_rep="–")
