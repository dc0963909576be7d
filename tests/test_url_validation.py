"""Every URL value is validated against its widget: out-of-range numbers are clamped, invalid or
hostile values fall back to the default; either way the page opens without an error, shows a warning
naming the parameter and what was done, and the URL is rewritten to the value in use."""

from __future__ import annotations

import math

import pytest

from metriclab.methods import REGISTRY
from metriclab.ui.embed.presets import default_method
from metriclab.ui.shared.state import MAX_VALUE_CHARS, validate
from tests.apptest_helpers import run_page

LONG = "x" * 10_000


def query_value(at, key):
    value = at.query_params[key]
    return value[0] if isinstance(value, list) else value


def notices(at) -> str:
    return " | ".join(w.value for w in [*at.warning, *at.sidebar.warning])


# What the page calls each URL key: a notice names the widget by its label, never the key (issue 31).
LABELS = {
    "per": "Labels per class", "seed": "Split seed", "frac": "Labeled fraction", "lab": "Labels",
    "ds": "Data set", "method": "Method", "p.tdl.lam": "λ (graph penalty)",
    "p.tdl.k": "Label neighbours k", "p.tdl.graph": "Graph", "d.two_moons.n_samples": "Points",
    "splits": "Splits", "cfrac": "Labeled fraction", "protocol": "Protocol", "cm": "Methods",
    "cds": "Data sets", "q": "Query image", "tds": "Data set", "two": "Two-sided",
}  # fmt: skip


def named(key) -> str:
    return f"**{LABELS[key]}**"


def assert_opens(at):
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


# ---------------------------------------------------------------- validate(): one value at a time


@pytest.mark.parametrize(
    "text, expected, changed",
    [
        ("12", 12, False),
        ("99999", 50, True),  # above the maximum: clamped
        ("0", 1, True),  # below the minimum: clamped
        ("-7", 1, True),
        ("2.5", 5, True),  # not a whole number: default
        ("abc", 5, True),
        ("1e309", 5, True),  # inf
        ("nan", 5, True),
        ("", 5, True),
        (LONG, 5, True),
    ],
)
def test_integer_values_are_clamped_or_fall_back(text, expected, changed):
    value, notice = validate(text, 5, bounds=(1, 50))
    assert value == expected and type(value) is int
    assert (notice is not None) == changed


def test_grid_values_snap_to_the_nearest_option_and_clamp_at_the_ends():
    grid = [0.25, 0.5, 1.0, 2.0, 16.0, 8192.0]
    assert validate("16", 16.0, options=grid) == (16.0, None)
    assert validate("1.9", 16.0, options=grid) == (2.0, None)  # URL rounding: nearest, no notice
    value, notice = validate("1e5", 16.0, options=grid)
    assert value == 8192.0 and "maximum" in notice
    value, notice = validate("1e-9", 16.0, options=grid)
    assert value == 0.25 and "minimum" in notice
    for hostile in ("1e309", "-1e309", "1e999", "inf", "nan", "__import__"):
        value, notice = validate(hostile, 16.0, options=grid)
        assert value == 16.0 and notice, hostile  # the default, never the smallest option


def test_choice_bool_and_list_values():
    assert validate("tdl", "pca", options=list(REGISTRY)) == ("tdl", None)
    value, notice = validate("__import__", "pca", options=list(REGISTRY))
    assert value == "pca" and "'__import__'" in notice
    assert validate("0", True) == (False, None)
    value, notice = validate("maybe", True)
    assert value is True and notice
    value, notice = validate("iris,../../etc/passwd,wine", ["iris"], options=["iris", "wine"])
    assert value == ["iris", "wine"] and "'../../etc/passwd'" in notice and "left out" in notice
    value, notice = validate("../../etc/passwd", ["iris"], options=["iris", "wine"])
    assert value == ["iris"] and "default" in notice


def test_a_long_value_is_refused_unread_and_not_echoed():
    value, notice = validate(LONG, "two_moons", options=["two_moons", "iris"])
    assert value == "two_moons"
    assert "10,000 characters" in notice and len(notice) < 200
    value, notice = validate("y" * (MAX_VALUE_CHARS + 1), 1.0)
    assert value == 1.0 and notice


# ---------------------------------------------------------------- pages opened with such links


@pytest.mark.parametrize(
    "query, key, expected, words",
    [
        ({"lab": "per_class", "per": "99999"}, "per", 50, "maximum 50"),
        ({"lab": "per_class", "per": "0"}, "per", 1, "minimum 1"),
        ({"seed": "-3"}, "seed", 0, "minimum 0"),
        ({"seed": LONG}, "seed", 0, "characters long"),
        ({"frac": "7"}, "frac", 0.9, "maximum"),
        ({"lab": "everything"}, "lab", "fraction", "not one of the choices"),
        ({"ds": "../../etc/passwd"}, "ds", "two_moons", "not a data set"),
        ({"ds": "nonexistent"}, "ds", "two_moons", "not a data set"),
        ({"ds": LONG}, "ds", "two_moons", "characters long"),
        ({"method": "__import__"}, "method", default_method(), "not one of the choices"),
        ({"method": LONG}, "method", default_method(), "characters long"),
        ({"method": "tdl", "p.tdl.lam": "1e309"}, "p.tdl.lam", 16.0, "not a finite number"),
        ({"method": "tdl", "p.tdl.lam": "1e999"}, "p.tdl.lam", 16.0, "not a finite number"),
        ({"method": "tdl", "p.tdl.lam": "-1e309"}, "p.tdl.lam", 16.0, "not a finite number"),
        ({"method": "tdl", "p.tdl.lam": "1e5"}, "p.tdl.lam", 8192.0, "maximum"),
        ({"method": "tdl", "p.tdl.k": "1000"}, "p.tdl.k", 50, "maximum 50"),
        ({"method": "tdl", "p.tdl.graph": "rm -rf"}, "p.tdl.graph", "knn", "not valid"),
        ({"method": "tdl", "p.tdl.lam": LONG}, "p.tdl.lam", 16.0, "characters long"),
        (
            {"ds": "two_moons", "d.two_moons.n_samples": "1e9"},
            "d.two_moons.n_samples",
            5000,
            "maximum",
        ),
    ],
)
def test_embed_link_with_a_bad_value_opens_with_a_notice_and_a_rewritten_url(
    query, key, expected, words
):
    at = run_page("embed", {"method": "pca", **query})
    assert_opens(at)
    value = at.session_state[key]
    assert value == expected and (not isinstance(value, float) or math.isfinite(value))
    text = notices(at)
    assert named(key) in text and words in text and f"`{key}`" not in text, text
    assert LONG not in text
    assert query_value(at, key) == (
        str(expected) if not isinstance(expected, float) else f"{expected:.6g}"
    )


def test_the_notice_stays_until_the_person_changes_the_value():
    at = run_page("embed", {"lab": "per_class", "per": "99999", "method": "pca"})
    assert named("per") in notices(at)
    at.run()  # another run (e.g. a fragment or a rerun): still there
    assert named("per") in notices(at)
    at.sidebar.slider(key="per").set_value(7).run()
    assert_opens(at)
    assert named("per") not in notices(at) and query_value(at, "per") == "7"


def test_a_bad_value_of_one_parameter_keeps_the_good_ones():
    at = run_page("embed", {"ds": "iris", "method": "__import__", "seed": "12"})
    assert_opens(at)
    assert at.session_state["ds"] == "iris" and at.session_state["seed"] == 12
    assert at.session_state["method"] == default_method() and named("method") in notices(at)


def test_unknown_url_keys_are_ignored():
    at = run_page("embed", {"method": "pca", "lam": "1e999", "__import__": "os", "x": LONG})
    assert_opens(at)
    assert not notices(at)


@pytest.mark.parametrize(
    "query, key, expected, words",
    [
        ({"splits": "1000"}, "splits", 30, "maximum 30"),
        ({"splits": "0"}, "splits", 1, "minimum 1"),
        ({"cfrac": "1e309"}, "cfrac", 0.1, "not a finite number"),
        ({"protocol": "../x"}, "protocol", "auto", "not one of the choices"),
        ({"cm": "__import__"}, "cm", None, "not available"),
        ({"cds": "iris,../../etc/passwd"}, "cds", ["iris"], "left out"),
    ],
)
def test_compare_link_with_a_bad_value(query, key, expected, words):
    at = run_page("compare", query)
    assert_opens(at)
    if expected is not None:
        assert at.session_state[key] == expected
    else:
        assert at.session_state[key] and all(m in REGISTRY for m in at.session_state[key])
    text = notices(at)
    assert named(key) in text and words in text and f"`{key}`" not in text, text


def test_tangent_link_with_a_query_index_out_of_range():
    at = run_page("tangent", {"q": "99999", "tds": "../../etc/passwd", "two": "maybe"})
    assert_opens(at)
    assert at.session_state["q"] < 99999 and at.session_state["tds"] == "usps"
    assert at.session_state["two"] is True
    text = notices(at)
    assert named("q") in text and named("tds") in text and named("two") in text


def test_data_page_with_a_hostile_data_set_name():
    at = run_page("data", {"ds": "../../etc/passwd"})
    assert_opens(at)
    assert at.session_state["ds"] == "two_moons" and named("ds") in notices(at)
    assert query_value(at, "ds") == "two_moons"


@pytest.mark.parametrize(
    "text, expected, words",
    [("1e309", None, "not a finite number"), ("1e5", "8192", "maximum"), ("16", "16", None)],
)
def test_window_map_link_values_are_validated_too(text, expected, words):
    """The window map reads the live view's λ from the link when the live view was not drawn;
    '1e309' used to come back as 'inf' in the URL."""
    at = run_page("embed", {"method": "tdl", "mode": "window", "p.tdl.lam": text})
    assert_opens(at)
    shown = at.query_params.get("p.tdl.lam")
    shown = shown[0] if isinstance(shown, list) else shown
    assert shown == expected
    if words:
        assert named("p.tdl.lam") in notices(at) and words in notices(at)
    else:
        assert not notices(at)
