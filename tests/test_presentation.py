"""Presentation mode: the sidebar toggle and `?present=1` (validated) hide the sidebar, enlarge the
text and the main chart, and an "Exit presentation" button brings the normal view back."""

import json

from streamlit.testing.v1 import AppTest

from metriclab.ui.shared import presentation
from tests.apptest_helpers import ROOT

TIMEOUT = 180


def embed(query):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.query_params.update(query)
    at.run()
    at.switch_page("pages/embed.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def style_on(at):
    return any("stSidebar" in h.proto.body for h in at.get("html"))


def chart_height(at):
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    return spec["layout"]["height"]


def test_present_flag_hides_the_sidebar_enlarges_the_chart_and_exit_brings_it_back():
    normal = embed({"ds": "two_moons", "method": "tdl"})
    assert not style_on(normal)
    assert "present_exit" not in [b.key for b in normal.button]
    normal_height = chart_height(normal)

    at = embed({"ds": "two_moons", "method": "tdl", "present": "1"})
    assert at.session_state[presentation.KEY] is True
    assert at.sidebar.toggle(key=presentation.KEY).value is True
    assert style_on(at)
    assert chart_height(at) == presentation.CHART_HEIGHT > normal_height
    assert at.query_params["present"] == "1"
    at.button(key="present_exit").click().run()
    assert at.session_state[presentation.KEY] is False
    assert not style_on(at)
    assert chart_height(at) == normal_height
    assert "present" not in at.query_params


def test_the_sidebar_toggle_turns_it_on_and_writes_the_url():
    at = embed({"ds": "iris", "method": "pca"})
    at.sidebar.toggle(key=presentation.KEY).set_value(True).run()
    assert style_on(at) and at.query_params["present"] == "1"
    assert chart_height(at) == presentation.CHART_HEIGHT


def test_an_odd_present_value_warns_and_stays_off():
    at = embed({"ds": "two_moons", "method": "pca", "present": "projector<script>"})
    assert at.session_state[presentation.KEY] is False
    assert not style_on(at)
    notices = [w.value for w in at.warning]
    assert any("**Presentation mode**" in n and "not on/off" in n for n in notices), notices
    assert "present" not in at.query_params  # rewritten to the value in use (off: no flag)


def test_a_count_pair_fits_a_quarter_width_tile_at_a_projector_s_size():
    """The "labeled / unlabeled" tile is 140 px at 1280×800: short pairs keep their spaces, longer
    ones drop them ("929 / 8.4k", 143 px, was cut to "929 / …"; tests/test_browser_full_size.py
    measures the tile in Chromium)."""
    assert presentation.count_pair(10, 190) == "10 / 190"
    assert presentation.count_pair(12, 138) == "12 / 138"
    assert presentation.count_pair(20000, 50000) == "20k/50k"
    assert presentation.count_pair(929, 8369) == "929/8.4k"
    assert presentation.count_pair(6999, 63001) == "7.0k/63k"
    assert presentation.count_pair(201, 1799) == "201/1.8k"
    widest = presentation.count_pair(9949, 9949)
    assert widest == "9.9k/9.9k" and len(widest) == 9
    assert presentation.short_count(999) == "999" and presentation.short_count(1000) == "1.0k"


def test_the_dissimilarity_parameters_are_closed_on_a_projector_and_open_otherwise():
    for flag, expanded in (("1", False), ("0", True)):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
        at.query_params.update({"present": flag})
        at.run()
        at.query_params.update({"ds": "wine", "dmethod": "zhang_mds"})
        at.switch_page("pages/dissimilarity.py").run()
        assert not at.exception, [e.message for e in at.exception]
        (grid,) = [e for e in at.expander if e.label.endswith("parameters")]
        assert grid.proto.expanded is expanded


def test_a_score_difference_that_rounds_to_zero_claims_no_gain():
    assert presentation.score_difference(None) == {"delta": None}
    assert presentation.score_difference(0.0125) == {"delta": "+0.013"}  # (rounds half to even)
    assert presentation.score_difference(-0.02) == {"delta": "-0.020"}
    for tiny in (0.0, 0.0004, -0.0004):
        shown = presentation.score_difference(tiny)
        assert shown == {"delta": "±0.000", "delta_color": "off", "delta_arrow": "off"}
