"""Shared pickers of the pages: data set (with a synthetic generator's parameters), method, labels."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from metriclab import datasets
from metriclab.methods import REGISTRY
from metriclab.ui.shared import session_data
from metriclab.ui.shared.fit_request import (
    DATA_KEY,
    LABELS_KEY,
    SPLIT_SEED_KEY,
    generator_prefix,
    label_value_key,
)
from metriclab.ui.shared.state import (
    Rule,
    URLValueError,
    remember,
    seed_from_url,
    seed_widget,
    view_value,
)
from metriclab.ui.shared.widgets import format_value, param_widgets

SHARED_KEY = DATA_KEY  # the data set of the session's view (Data, Embed, Dissimilarity, ...)
FRACTIONS = [0.01, 0.02, 0.03, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
LARGE = 1500  # data sets above this many points are subsampled on the interactive pages
POINT_CAPS = (300, 500, 1000, 1500, 2000, 3000, 5000)  # Embed's "Points used" options


FULL_SIZE_SETS = ("mnist",)  # unlisted elsewhere: offered on Embed, where all 70,000 are drawn
STAND_INS = {"mnist": "mnist_5000"}  # shown for a full-size set by a page that does not offer it
OFFERS = ("all", "images", "full_size")  # what a picker offers: every listed set, images, + MNIST


def dataset_choices(include_uploads: bool = True, offer: str = "all") -> list[str]:
    """The data sets a picker offers: the listed ones (`offer` "all"), only image sets
    ("images"), or the listed ones and the full-size ones the Embed page draws ("full_size");
    and this session's uploads."""
    if offer not in OFFERS:
        raise ValueError(f"offer must be one of {OFFERS}")
    names = list(datasets.names())
    images_only = offer == "images"
    if offer == "full_size":
        names += [n for n in FULL_SIZE_SETS if n not in names and n in datasets.names(None, True)]
    if images_only:
        names = [n for n in names if _is_image(n)]
    if include_uploads:
        names += list(session_data.uploaded_names())
    return names


def _is_image(name: str) -> bool:
    try:
        entry = datasets.entry(name)
    except ValueError:
        return False
    if entry.kind != "file":
        return False
    from metriclab.datasets.core import read_catalog

    return bool(read_catalog().get(name, {}).get("image_shape"))


def dataset_label(name: str) -> str:
    if name.startswith(session_data.UPLOAD_PREFIX):
        shown = session_data.uploaded_names().get(name, name)
        return shown if shown.startswith("drawn (") else f"uploaded: {shown}"
    try:
        summary = datasets.entry(name).summary
    except ValueError:
        return name
    return f"{name} — {summary}" if summary else name


def dataset_picker(
    container=None,
    key: str = DATA_KEY,
    default: str = "two_moons",
    offer: str = "all",
    show_params: bool = True,
) -> tuple[str, dict[str, Any]]:
    """Data set select box (and the generator's parameter widgets for synthetic sets); `offer`:
    see `dataset_choices` ("images" adds no uploads)."""
    c = container or st.sidebar
    include_uploads = offer != "images"
    if include_uploads and key not in st.session_state:
        adopt_linked_upload(key)
    options = dataset_choices(include_uploads, offer)
    if not options:
        raise ValueError(
            "no data sets to choose from" + (" with images" if offer == "images" else "")
        )
    chosen = view_value(SHARED_KEY)  # the data set chosen on any page opens every page
    default = chosen if chosen in options else default if default in options else options[0]
    labels = {n: dataset_label(n) for n in options}  # read now, in this session
    parse = lambda text: _dataset_from_text(text, options)  # noqa: E731
    seed_widget(
        key,
        Rule(
            default,
            options,
            parse,
            label="Data set",
            shown=lambda n: labels.get(n, dataset_label(n)),
            near=STAND_INS.get,
        ),
    )
    name = c.selectbox(
        "Data set",
        options,
        key=key,
        format_func=lambda n: labels.get(n, n),
        on_change=None if key == SHARED_KEY else _share_choice,
        args=None if key == SHARED_KEY else (key,),
    )
    params: dict[str, Any] = {}
    if show_params and not name.startswith(session_data.UPLOAD_PREFIX):
        entry = datasets.entry(name)
        if entry.params:
            with c.expander("Generator parameters", expanded=False):
                params = param_widgets(entry.params, generator_prefix(name))
    return name, params


def _share_choice(key: str) -> None:
    """A data set chosen on a page with its own picker (Tangent) becomes the session's choice."""
    remember({SHARED_KEY: st.session_state[key]})


def _dataset_from_text(text: str, options: Sequence[str]) -> str:
    if text in options:
        return text
    if text.startswith(session_data.UPLOAD_PREFIX):
        raise URLValueError(
            "that uploaded data set is not available here (an upload is private to the session "
            "that uploaded it unless shared by link, and is dropped when that session ends)"
        )
    raise URLValueError(f"{text[:40]!r} is not a data set of this page")


def adopt_linked_upload(key: str = DATA_KEY) -> None:
    """A link `?ds=upload:...` to an upload its owner shared by link makes it one of this session's
    data sets; any other upload key stays unknown here (the URL check then says so)."""
    text = st.query_params.get(key, "")
    if text.startswith(session_data.UPLOAD_PREFIX) and len(text) <= 64:
        session_data.adopt_shared(text)


def unavailable_reason(spec, dataset) -> str | None:
    """Why `spec` cannot run on `dataset` (a Dataset, or None when unknown), or None when it can."""
    if dataset is not None and spec.has("needs_images") and dataset.image_shape is None:
        return f"needs images; {dataset.name} has none"
    return None


def method_picker(
    container=None,
    key: str = "method",
    default: str | None = None,
    accept: Callable[[Any], bool] | None = None,
    dataset=None,
) -> str:
    """The method select box: the methods `accept` allows that can run on `dataset`; the others
    are listed under it, greyed, with the reason."""
    c = container or st.sidebar
    accepted = [k for k, spec in REGISTRY.items() if accept is None or accept(spec)]
    reasons = {k: unavailable_reason(REGISTRY[k], dataset) for k in accepted}
    options = [k for k in accepted if reasons[k] is None]
    if not options:
        raise ValueError("no method of this kind is registered yet")
    rule = Rule(
        default if default in options else options[0],
        options,
        label="Method",
        shown=lambda k: REGISTRY[k].label,
    )
    seed_widget(key, rule)
    if st.session_state[key] not in options:
        st.session_state[key] = default if default in options else options[0]
    chosen = c.selectbox(
        "Method",
        options,
        key=key,
        format_func=lambda k: REGISTRY[k].label,  # the label names the paper; no file slugs
    )
    by_reason: dict[str, list[str]] = {}
    for k, why in reasons.items():
        if why:
            by_reason.setdefault(why, []).append(REGISTRY[k].label)
    for why, labels in by_reason.items():
        c.caption(f"Not offered here ({why}): {', '.join(labels)}.")
    return chosen


def labels_picker(container=None, default_fraction: float = 0.1) -> tuple[str, float, int]:
    """How many points are labeled: a share of each class or a number per class, and the split seed."""
    c = container or st.sidebar
    seed_from_url(LABELS_KEY, "fraction", options=["fraction", "per_class"], label="Labels")
    mode = c.radio(
        "Labels",
        ["fraction", "per_class"],
        key=LABELS_KEY,
        horizontal=True,
        format_func=lambda m: "share of each class" if m == "fraction" else "per class",
    )
    key = label_value_key(mode)
    if mode == "fraction":
        seed_from_url(key, default_fraction, options=FRACTIONS, label="Labeled fraction")
        value = c.select_slider(
            "Labeled fraction", FRACTIONS, key=key, format_func=lambda v: f"{v:.0%}"
        )
    else:
        seed_from_url(key, 5, bounds=(1, 50), label="Labels per class")
        value = c.slider("Labels per class", 1, 50, key=key)
    seed_from_url(SPLIT_SEED_KEY, 0, bounds=(0, 10_000), label="Split seed")
    seed = int(c.number_input("Split seed", 0, 10_000, key=SPLIT_SEED_KEY, step=1))
    return mode, value, seed


def url_values(keys: Sequence[str]) -> dict[str, Any]:
    """Current session values of widget keys, for `state.publish`."""
    return {k: st.session_state[k] for k in keys if k in st.session_state}


def explainer(text: str, latex: Sequence[str] = (), expanded: bool = False) -> None:
    """The page's short 'what am I looking at' with the paper's formula."""
    with st.expander("What am I looking at?", expanded=expanded):
        st.markdown(text)
        for formula in latex:
            st.latex(formula)


__all__ = [
    "dataset_picker",
    "explainer",
    "format_value",
    "labels_picker",
    "method_picker",
    "url_values",
]
