"""Hand-made labels in a link: a compact text for "which points are labeled, and with which class".

The text is `none` (no point labeled) or, for each class that has labeled points, the class number,
`~` and its points, classes separated by `_`: points are base-36 indices, `.`-separated, with runs
of consecutive indices written `first-last`. Example: `0~5.a-f_1~2s` labels points 5 and 10..15
with class 0 and point 100 with class 1. Only URL-safe characters (letters, digits, `.`, `-`,
`_`, `~`) are used, so the text travels unescaped.

`decode_labels` checks everything a link can get wrong (characters, numbers out of range, a point
given two classes, a run written backwards, too long a text) and raises `URLValueError` with the
reason; nothing in the text is evaluated.
"""

from __future__ import annotations

import re

import numpy as np

from metriclab.ui.shared.state import URLValueError

NONE = "none"
MAX_LABEL_CHARS = 4000  # a link with more is refused unread (≈ 1,000 scattered labels)
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_ITEM = r"[0-9a-z]{1,4}(?:-[0-9a-z]{1,4})?"  # a point or a run first-last
_GROUP = re.compile(rf"^([0-9a-z]{{1,3}})~({_ITEM}(?:\.{_ITEM})*)$")


def _base36(value: int) -> str:
    if value == 0:
        return "0"
    out = []
    while value:
        value, digit = divmod(value, 36)
        out.append(_DIGITS[digit])
    return "".join(reversed(out))


def _runs(indices: np.ndarray) -> list[str]:
    """Sorted indices as base-36 items, consecutive ones merged into `first-last`."""
    items = []
    start = prev = None
    for i in map(int, indices):
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            items.append(_item(start, prev))
            start = prev = i
    if start is not None:
        items.append(_item(start, prev))
    return items


def _item(first: int, last: int) -> str:
    if first == last:
        return _base36(first)
    if last == first + 1:  # two points: "a.b" is no longer than "a-b"
        return f"{_base36(first)}.{_base36(last)}"
    return f"{_base36(first)}-{_base36(last)}"


def encode_labels(labels: np.ndarray) -> str:
    """The text of a label vector (class number per point, -1 = unlabeled)."""
    labels = np.asarray(labels)
    groups = []
    for c in np.unique(labels[labels >= 0]):
        groups.append(f"{_base36(int(c))}~" + ".".join(_runs(np.flatnonzero(labels == c))))
    return "_".join(groups) if groups else NONE


def decode_labels(text: str, n_points: int, n_classes: int) -> np.ndarray:
    """The label vector (length `n_points`, -1 = unlabeled) of a text from `encode_labels`;
    URLValueError saying what is wrong otherwise."""
    if len(text) > MAX_LABEL_CHARS:
        raise URLValueError(
            f"the labels are {len(text):,} characters long (at most {MAX_LABEL_CHARS:,})"
        )
    labels = np.full(n_points, -1, dtype=np.int64)
    if text == NONE:
        return labels
    if not text:
        raise URLValueError("the labels are empty (write 'none' for no labels)")
    for group in text.split("_"):
        match = _GROUP.match(group)
        if match is None:
            shown = group if len(group) <= 20 else group[:17] + "..."
            raise URLValueError(f"{shown!r} is not a class~points group")
        c = int(match.group(1), 36)
        if c >= n_classes:
            raise URLValueError(f"class {c} does not exist here ({n_classes} classes)")
        for item in match.group(2).split("."):
            first, _, last = item.partition("-")
            a, b = int(first, 36), int(last or first, 36)
            if b < a:
                raise URLValueError(f"the run {item!r} goes backwards")
            if b >= n_points:
                raise URLValueError(f"point {b} is outside the data ({n_points} points)")
            taken = labels[a : b + 1]
            clash = np.flatnonzero((taken >= 0) & (taken != c))
            if clash.size:
                raise URLValueError(f"point {a + int(clash[0])} is given two classes")
            labels[a : b + 1] = c
    return labels


def canonical(text: str, n_points: int, n_classes: int) -> str:
    """The text `encode_labels` writes for the same labels (validates it on the way)."""
    return encode_labels(decode_labels(text, n_points, n_classes))
