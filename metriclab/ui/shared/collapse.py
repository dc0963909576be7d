"""The warning under an embedding that collapsed: its cause where the graph shows one (a graph in
pieces, points cut off by underflowing edges), the parameter step that undoes it, measured with the
page's own cached fit, and a button that sets it."""

from __future__ import annotations

import streamlit as st

from metriclab.ui.shared import compute, memo
from metriclab.ui.shared.fit_request import FitRequest, param_prefix
from metriclab.ui.shared.state import remember
from metriclab.ui.shared.widgets import param_values


def _options(request: FitRequest, name: str) -> list:
    """The values the widget of parameter `name` offers (`widgets.param_values`), none where the
    method has no such parameter."""
    has = any(p.name == name for p in request.spec.params)
    return param_values(request.spec.param(name)) if has else []


def remedy(request: FitRequest, result: compute.ViewResult) -> compute.Remedy | None:
    """The measured step that undoes `result`'s collapse (`compute.graph_remedy`), each trial the
    page's cached fit: pressing the button shows the fit that was measured."""
    return compute.graph_remedy(
        request,
        result,
        memo.fit,
        _options(request, "n_neighbors"),
        _options(request, "width"),
    )


def _apply(method: str, changes: tuple) -> None:
    """Set the remedy's values (a button callback, before the widgets)."""
    remember({param_prefix(method) + name: value for name, value in changes})


def collapse_counts(result: compute.ViewResult) -> tuple[int, int] | None:
    """(distinct positions, unlabeled points) of `result`'s collapse, None where it has none."""
    return None if result.Z is None else compute.collapsed_counts(result.Z, result.mask)


def show_collapse(
    request: FitRequest,
    result: compute.ViewResult,
    counts: tuple[int, int] | None,
    button_key: str | None = None,
) -> None:
    """The warning for `result`'s collapse `counts` (`collapse_counts(result)`, counted once by the
    caller, whose chart may say it too; None: nothing to say), with its cause and the measured
    remedy; `button_key` adds a button that sets the remedy's value (the view whose widgets hold
    `request`'s parameters)."""
    if counts is None:
        return
    spec = request.spec
    cause = compute.graph_cause(result.graph, spec.short_label)
    found = remedy(request, result) if cause else None
    if cause and found is None:
        cause += " No step up of the graph's neighbours or heat width the sliders offer undoes it."
    elif found is not None:
        cause += " " + found.sentence()
    st.warning(compute.collapse_sentence(counts, cause), icon=":material/warning:")
    if found is not None and button_key is not None:
        labels = {p.name: p.label for p in spec.params}
        st.button(
            "Set " + " and ".join(f"{labels[name]} to {value:g}" for name, value in found.changes),
            key=button_key,
            on_click=_apply,
            args=(spec.key, found.changes),
            help="the values measured above; every other parameter stays",
        )
