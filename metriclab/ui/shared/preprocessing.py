"""The feature-scaling control of the Embed, Dissimilarity and Compare pages, and the line that says
which scaling is on. The choice itself is `metriclab.preprocess`; each data set's default is
`metriclab.datasets.default_scaling` (what its paper used)."""

from __future__ import annotations

import streamlit as st

from metriclab.datasets import default_scaling
from metriclab.preprocess import AUTO, PREPROCESS, resolve_preprocess, scaler_fit_rows
from metriclab.ui.shared.fit_request import SCALING_KEY
from metriclab.ui.shared.state import Rule, announce, remember, seed_widget, view_value

KEY = SCALING_KEY  # session-state key and URL parameter of Embed and Dissimilarity
COMPARE_KEY = "cpp"  # the Compare page's
HELP = (
    "How the features are scaled before the method sees them. z-score: each feature minus its "
    "mean over the fitted points, divided by its standard deviation; [0, 1]: each feature's range "
    "over the fitted points mapped to [0, 1]. The scaler is fitted on the labelled points (a "
    "held-out point never reaches it; the Euclidean baseline is scaled by the same scaler), "
    "except for transductive methods (TDL, LE), which build their graph on all points' features "
    "and whose scaler sees them too (no labels). Kernel and graph widths, and 'auto' widths, are "
    "in the scaled units."
)


_OWNER = f"_{KEY}_dataset"  # the data set the scaling was last shown for
_PRESET = f"_{KEY}_preset"  # the scaling a preset or lesson step set, until the person picks one


def preset_scaling(dataset: str, scaling: str | None) -> dict:
    """The session values that set the scaling of a preset (or lesson step) on `dataset` (None:
    the set's default). It is the preset's choice, not the person's: when the data set changes
    it moves to the new set's default, as a default does (issue 36)."""
    value = scaling or default_scaling(dataset)[0]
    return {KEY: value, _OWNER: dataset, _PRESET: value}


def _select(container, key: str, options: list[str], default: str, parse, label_of) -> str:
    """The select box, seeded from the URL (odd values fall back to `default`). Its value is set
    through the session state only (a default index beside it would make Streamlit warn)."""
    seed_widget(key, Rule(default, options, parse, label="Feature scaling", shown=label_of))
    if st.session_state[key] not in options:
        st.session_state[key] = default
    return container.selectbox(
        "Feature scaling",
        options,
        key=key,
        format_func=label_of,
        help=HELP,
    )


def scaling_picker(container, dataset) -> str:
    """A select box of the feature scaling for one data set, starting at its default; returns the
    preprocess key. When the data set changes, a scaling the person chose is kept; one that was
    the old set's default moves to the new set's default, with a notice saying so."""
    default, why = default_scaling(dataset)
    name = getattr(dataset, "name", str(dataset))
    previous = st.session_state.get(_OWNER, name)
    current = view_value(KEY)
    preset = st.session_state.get(_PRESET)
    if previous != name and current is not None:
        if preset is not None and preset == current:  # the preset's, not the person's choice
            st.session_state.pop(_PRESET, None)
            if current != default:
                announce(
                    f"**Feature scaling**: now {PREPROCESS[default]}, the default for {name} "
                    f"({why}); {PREPROCESS[current]} was the preset's choice for {previous}."
                )
            remember({KEY: default})
        elif current == default_scaling(previous)[0]:
            if current != default:
                announce(
                    f"**Feature scaling**: now {PREPROCESS[default]}, the default for {name} "
                    f"({why}); {previous} used {PREPROCESS[current]}."
                )
            remember({KEY: default})
    st.session_state[_OWNER] = name
    chosen = _select(
        container,
        KEY,
        list(PREPROCESS),
        default,
        resolve_preprocess,
        lambda k: PREPROCESS[k] + ("  (default)" if k == default else ""),
    )
    if st.session_state.get(_PRESET, chosen) != chosen:  # the person picked another: theirs now
        st.session_state.pop(_PRESET, None)
    return chosen


def scaling_picker_many(container) -> str:
    """The Compare page's select box (URL `cpp`): 'auto' (each data set's default) or one scaling
    for all data sets."""
    return _select(
        container,
        COMPARE_KEY,
        [AUTO, *PREPROCESS],
        AUTO,
        lambda t: AUTO if t.strip().lower() == AUTO else resolve_preprocess(t),
        lambda k: "each data set's default (its paper's)" if k == AUTO else PREPROCESS[k],
    )


def scaling_note(dataset, preprocess: str, spec=None, mask=None) -> str:
    """What the page says about the scaling: which one, whether it is the data set's default (and
    why), and for a fitted method which points the scaler saw."""
    key = resolve_preprocess(preprocess, dataset)
    default, why = default_scaling(dataset)
    text = f"**Feature scaling: {PREPROCESS[key]}**"
    if key == default:
        text += f" — the default for {getattr(dataset, 'name', dataset)} ({why})"
    else:
        text += f" — {getattr(dataset, 'name', dataset)}'s default is {PREPROCESS[default]} ({why})"
    if key != "none" and spec is not None and mask is not None:
        rows = scaler_fit_rows(spec, "transductive", mask)
        seen = "all points' features, no labels" if rows.all() else "the labelled points only"
        text += f"; fitted on {seen}"
    return text + "."


def scaling_notes(datasets, preprocess: str) -> str:
    """The Compare page's line: the scaling of each chosen data set."""
    parts = []
    for ds in datasets:
        key = resolve_preprocess(preprocess, ds)
        parts.append(f"{getattr(ds, 'name', ds)}: {PREPROCESS[key]}")
    where = "the labelled points; for transductive methods, all points' features"
    return f"**Feature scaling** — {'; '.join(parts)} (fitted on {where})."
