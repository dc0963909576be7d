"""Hand-made labels in a link: the compact text round-trips, and every malformed text is refused
with a reason (never evaluated, never a crash)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metriclab.ui.embed.label_codes import (
    MAX_LABEL_CHARS,
    NONE,
    canonical,
    decode_labels,
    encode_labels,
)
from metriclab.ui.embed.labelling import painted, random_labels, selected_points, split_labels
from metriclab.ui.shared.state import URLValueError


def test_known_text():
    labels = np.full(300, -1)
    labels[[5, 10, 11, 12, 13, 14, 15]] = 0
    labels[[100, 101]] = 1
    labels[299] = 2
    text = encode_labels(labels)
    assert text == "0~5.a-f_1~2s.2t_2~8b"
    np.testing.assert_array_equal(decode_labels(text, 300, 3), labels)
    assert encode_labels(np.full(4, -1)) == NONE
    np.testing.assert_array_equal(decode_labels(NONE, 4, 2), np.full(4, -1))


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.lists(st.integers(-1, 11), min_size=1, max_size=400))
def test_round_trip(values):
    labels = np.asarray(values)
    n_classes = 12
    text = encode_labels(labels)
    assert set(text) <= set("0123456789abcdefghijklmnopqrstuvwxyz.-_~")  # URL-safe as is
    np.testing.assert_array_equal(decode_labels(text, labels.size, n_classes), labels)
    assert canonical(text, labels.size, n_classes) == text


@pytest.mark.parametrize(
    "text, reason",
    [
        ("0~zz", "outside the data"),
        ("5~1", "class 5 does not exist"),
        ("0~5-1", "backwards"),
        ("0~1_1~1", "two classes"),
        ("0~1-4_1~3", "two classes"),
        ("x", "not a class~points group"),
        ("0~1..2", "not a class~points group"),
        ("0~", "not a class~points group"),
        ("none_0~1", "not a class~points group"),
        ("0~1%202", "not a class~points group"),
        ("", "empty"),
        ("0~" + ".".join(["1"] * 2000), "characters long"),
        ("0~-1", "not a class~points group"),
        ("0~1e5", "outside the data"),
        ("<script>", "not a class~points group"),
    ],
)
def test_malformed_texts_are_refused_with_a_reason(text, reason):
    with pytest.raises(URLValueError, match=reason):
        decode_labels(text, 300, 3)
    assert len("0~" + ".".join(["1"] * 2000)) > MAX_LABEL_CHARS


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.text(max_size=60))
def test_any_text_decodes_or_raises_url_value_error(text):
    try:
        labels = decode_labels(text, 50, 3)
    except URLValueError:
        return
    assert labels.shape == (50,) and labels.min() >= -1 and labels.max() < 3


def test_painting_random_and_selection_events():
    y = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    mask = np.array([1, 0, 0, 1, 0, 0, 1, 0], bool)
    base = split_labels(y, mask)
    np.testing.assert_array_equal(base, [0, -1, -1, 1, -1, -1, 2, -1])
    np.testing.assert_array_equal(painted(base, [1, 3], 2), [0, 2, -1, 2, -1, -1, 2, -1])
    np.testing.assert_array_equal(painted(base, [0, 99], -1), [-1, -1, -1, 1, -1, -1, 2, -1])
    drawn = random_labels(y, mask, seed=3)
    assert [int(np.sum(drawn == c)) for c in range(3)] == [1, 1, 1]  # as many as the split
    assert np.all((drawn == -1) | (drawn == y))  # their true classes
    big = np.repeat([0, 1], 50)
    big_mask = np.zeros(100, bool)
    big_mask[[0, 50]] = True
    assert not np.array_equal(random_labels(big, big_mask, 1), random_labels(big, big_mask, 2))
    event = {
        "selection": {
            "points": [
                {"customdata": [7, "class"], "point_index": 0},
                {"x": 1.0, "y": 2.0},  # an overlay trace: no customdata
                {"customdata": [2, "c"]},
                {"customdata": [7, "class"]},
            ]
        }
    }
    assert selected_points(event) == [7, 2]
    assert selected_points(None) == [] and selected_points({"selection": {}}) == []
