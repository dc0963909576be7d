"""Labels made by hand on the Embed page's input view: the session's label vector, kept as the
compact text of `label_codes` under the session/URL key `lbl` (absent: the split's labels), the
buttons that reset, clear or redraw it, and what a click or a lasso on the view does to it.

The labels belong to one data view and one split: when either changes, they go back to the
split's. A link's `lbl` is validated (`state.seed_from_url` with `label_codes.canonical`): a
hostile, oversize or stale value gives a notice and the split's labels."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import streamlit as st

from metriclab.ui.embed.label_codes import MAX_LABEL_CHARS, canonical, decode_labels, encode_labels
from metriclab.ui.shared.state import Rule, remember, seed_from_url, seed_widget

KEY = "lbl"
SPLIT = "split"  # the session value meaning "the split's labels"
PAINT_KEY = "paint"  # what a click gives: a class number, or UNLABEL
UNLABEL = -1
FOCUS_KEY = "pt"  # the point last clicked (LMNN's neighbourhood, the image panel)
_OWNER = "_lbl_owner"
_GENERATION = "_lbl_generation"
_RANDOM_PRESSES = "_lbl_random_presses"


def split_labels(y: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The split's labels: the true class on labeled points, -1 elsewhere."""
    return np.where(np.asarray(mask, dtype=bool), np.asarray(y), -1).astype(np.int64)


def painted(labels: np.ndarray, points: Sequence[int], paint: int) -> np.ndarray:
    """`labels` with `points` given class `paint` (UNLABEL: their label removed)."""
    out = np.asarray(labels, dtype=np.int64).copy()
    idx = np.asarray([int(i) for i in points if 0 <= int(i) < out.size], dtype=int)
    out[idx] = int(paint) if paint >= 0 else -1
    return out


def random_labels(y: np.ndarray, mask: np.ndarray, seed: int) -> np.ndarray:
    """As many labeled points per class as the split has, drawn at random (their true classes)."""
    y = np.asarray(y)
    rng = np.random.default_rng(seed)
    out = np.full(y.shape[0], -1, dtype=np.int64)
    for c in np.unique(y):
        members = np.flatnonzero(y == c)
        take = int(np.sum(np.asarray(mask, dtype=bool)[members]))
        out[rng.choice(members, min(take, members.size), replace=False)] = c
    return out


def selected_points(event) -> list[int]:
    """Data indices of the points of a plotly selection event (their `customdata[0]`, or the
    customdata itself where it is the index alone: WebGL traces); overlay traces carry no
    customdata and are left out."""
    try:
        points = event["selection"]["points"]
    except (KeyError, TypeError):
        return []
    out = []
    for point in points or []:
        data = point.get("customdata") if isinstance(point, dict) else None
        value = data[0] if isinstance(data, list | tuple) and data else data
        if isinstance(value, int | float) and not isinstance(value, bool):
            out.append(int(value))
    return list(dict.fromkeys(out))


class LabelState:
    """The session's hand labels for one data view and split (`owner`), seeded from the link."""

    def __init__(self, owner, y: np.ndarray, mask: np.ndarray):
        self.y = np.asarray(y)
        self.mask = np.asarray(mask, dtype=bool)
        self.n = self.y.shape[0]
        self.n_classes = int(self.y.max()) + 1 if self.n else 0
        if st.session_state.get(_OWNER, owner) != owner:  # another data view or split
            st.session_state[KEY] = SPLIT
            remember({FOCUS_KEY: -1})  # the click was on the other data set (its view forgets it)
        st.session_state[_OWNER] = owner
        seed_widget(
            KEY, Rule(SPLIT, parse=self._parse, label="Labels by hand", max_chars=MAX_LABEL_CHARS)
        )
        seed_from_url(FOCUS_KEY, -1, bounds=(-1, self.n - 1), label="Clicked point")
        st.session_state.setdefault(_GENERATION, 0)

    def _parse(self, text: str) -> str:
        return SPLIT if text == SPLIT else canonical(text, self.n, self.n_classes)

    @property
    def text(self) -> str:
        return st.session_state.get(KEY, SPLIT)

    @property
    def labels(self) -> np.ndarray:
        if self.text == SPLIT:
            return split_labels(self.y, self.mask)
        return decode_labels(self.text, self.n, self.n_classes)

    @property
    def edited(self) -> bool:
        return self.text != SPLIT

    @property
    def focus(self) -> int | None:
        value = st.session_state.get(FOCUS_KEY, -1)
        return int(value) if value is not None and 0 <= int(value) < self.n else None

    @property
    def generation(self) -> int:
        return int(st.session_state.get(_GENERATION, 0))

    def set(self, labels: np.ndarray) -> None:
        """Store `labels` (the split's again when they equal it)."""
        same = np.array_equal(labels, split_labels(self.y, self.mask))
        st.session_state[KEY] = SPLIT if same else encode_labels(labels)
        st.session_state[_GENERATION] = self.generation + 1

    # ---- callbacks of the buttons and the chart (run before the rerun that draws the result)

    def use_split(self) -> None:
        self.set(split_labels(self.y, self.mask))

    def clear(self) -> None:
        self.set(np.full(self.n, -1, dtype=np.int64))

    def randomise(self) -> None:
        presses = int(st.session_state.get(_RANDOM_PRESSES, 0)) + 1
        st.session_state[_RANDOM_PRESSES] = presses
        self.set(random_labels(self.y, self.mask, seed=presses))

    def on_select(self, chart_key: str, relabel: bool) -> None:
        """A click or a lasso on the view: the clicked point becomes the focus; with `relabel`
        the selected points get the class chosen in `paint` (or lose their label)."""
        points = selected_points(st.session_state.get(chart_key))
        if not points:
            return
        if len(points) == 1:
            st.session_state[FOCUS_KEY] = points[0]
        if relabel:
            paint = int(st.session_state.get(PAINT_KEY, 0))
            self.set(painted(self.labels, points, paint))
        else:
            st.session_state[_GENERATION] = self.generation + 1

    def url_values(self) -> dict:
        """What the link records: the labels when edited, the focus point when there is one."""
        out = {}
        if self.edited:
            out[KEY] = self.text
        if self.focus is not None:
            out[FOCUS_KEY] = self.focus
        return out
