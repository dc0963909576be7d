"""The lecturer's rehearsal in a real browser: what only Chromium can show (a file the browser
refuses, a click before the page has finished its first run, every page run twice in two sessions)."""

import re

import pytest

from tests.test_browser_app import no_red_box, settled, settled_together, two_sessions

pytestmark = pytest.mark.browser

BAD_CSV = b"a,b,label\n1,oops,0\n"
GOOD_CSV = b"a,b,label\n" + b"".join(f"{i},{i % 7},{i % 2}\n".encode() for i in range(40))


def upload(page, name, data):
    page.locator("input[type=file]").set_input_files(
        files=[{"name": name, "mimeType": "text/csv", "buffer": data}]
    )


def test_a_refused_oversize_file_takes_the_previous_files_error_away(page, app_url):
    page.goto(f"{app_url}/data?ds=iris")
    settled(page)
    limit_note = page.get_by_text(re.compile(r"at most 20 MB"))
    assert limit_note.is_visible()  # the limit in words, not only in a tooltip
    upload(page, "bad.csv", BAD_CSV)
    error = page.get_by_text("Could not read bad.csv")
    error.wait_for()
    refused = page.get_by_text("The browser refused the last file")
    assert not refused.is_visible()
    upload(page, "big.csv", b"a,b,label\n" + b"1.0,2.0,0\n" * (21 * 2**20 // 10))  # 21 MB
    refused.wait_for(state="visible")
    assert "larger than 20 MB" in refused.inner_text()
    assert not error.is_visible()  # was: bad.csv's error stayed on screen
    upload(page, "good.csv", GOOD_CSV)  # a good file after the refused one: its message shows
    page.get_by_text("Loaded good.csv").wait_for(state="visible")
    settled(page)
    assert not refused.is_visible() and not error.is_visible()
    no_red_box(page)


def test_compare_run_clicked_the_moment_it_can_be_clicked_twice_in_two_sessions(page, app_url):
    """No waiting for the page to settle: Run is pressed as soon as the browser lets it be pressed
    (it stays disabled until the form holds its values), twice, in two sessions at once."""
    tabs = two_sessions(page, 120_000)
    try:
        for tab in tabs:
            tab.goto(f"{app_url}/compare?cds=iris&cm=pca&splits=2", wait_until="commit")
        for _ in range(2):
            for tab in tabs:  # each session's press as soon as it can be pressed, both in flight
                tab.wait_for_function(
                    "() => { const b = document.querySelector("
                    "'[data-testid=\"stFormSubmitButton\"] button'); return b && !b.disabled; }",
                    polling="raf",
                )
                tab.locator("[data-testid='stFormSubmitButton'] button").click()
            for tab in tabs:
                tab.get_by_role("button", name="Download results (CSV)").wait_for()
                no_red_box(tab)
        settled_together(tabs)
        for tab in tabs:
            no_red_box(tab)
            assert tab.get_by_text("choose at least one").count() == 0
    finally:
        tabs[1].context.close()


# (page and query, button pressed twice or None); Compare and Reproduce are walked the same way in
# test_browser_app.py (Run twice in two sessions)
WALK = [
    ("", None),
    ("data?ds=digits", None),
    ("embed?ds=two_moons&method=tdl", None),
    ("embed?ds=two_moons&method=tdl&mode=window&grid=3", "Compute window map"),
    ("embed?ds=iris&method=nca", None),
    ("dissimilarity?ds=two_rings&dmethod=zhang_mds", None),
    ("tangent?tds=digits&pool=500", "Compute error rates"),
]


def test_every_page_twice_in_two_sessions_shows_no_red_box(page, app_url):
    """Two sessions at once, as two students in a lecture: every step (open the page, then press
    its button twice or reload it twice) is taken in both before either is awaited, so the server
    runs the two sessions' scripts side by side."""
    tabs = two_sessions(page, 300_000)
    try:
        for path, button in WALK:
            for tab in tabs:
                tab.goto(f"{app_url}/{path}")
            settled_together(tabs)
            for tab in tabs:
                no_red_box(tab)
            for _ in range(2):
                for tab in tabs:
                    if button:
                        tab.get_by_role("button", name=button, exact=True).click()
                    else:
                        tab.reload()
                settled_together(tabs)
                for tab in tabs:
                    no_red_box(tab)
                    assert tab.locator("h1").count() >= 1
    finally:
        tabs[1].context.close()


def show_on_a_projector(page, url: str, drawn: str = ".js-plotly-plot") -> None:
    """Open a lesson step in presentation mode at 1280×800 and press "Show the view"; wait for
    `drawn` and an idle app."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url)
    settled(page)
    page.get_by_role("button", name="Show the view").click()
    page.wait_for_selector(drawn)
    settled(page)


def test_a_lesson_on_a_projector_draws_its_zoomed_picture_over_the_whole_plot_area(page, app_url):
    """TDL's step 8 (ionosphere, 6 points drawn at the chart's edge) in presentation mode at
    1280×800: the view is in the right two thirds, its plot area about 379×404 px. The frame was
    shaped for the Embed page's full-width chart (1.98:1), so equal scales shrank the plot to
    379×191 px of 379×444, the picture in a band across the chart. Now it fills the area, the
    triangles on its edge."""
    show_on_a_projector(page, f"{app_url}/lessons?lesson=tdl&step=8&present=1")
    chart = page.evaluate(
        """() => { const g = document.querySelector('.js-plotly-plot'), L = g._fullLayout;
        const edge = g._fullData.find(t => String(t.name).startsWith("drawn at the chart's edge"));
        return {w: L._size.w, h: L._size.h, x: L.xaxis._length, y: L.yaxis._length,
                xr: L.xaxis.range, yr: L.yaxis.range, ex: Array.from(edge.x), ey: Array.from(edge.y)};
        }"""
    )
    assert chart["x"] >= 0.9 * chart["w"] and chart["y"] >= 0.9 * chart["h"], chart
    for x, y in zip(chart["ex"], chart["ey"], strict=True):  # each on the frame's edge
        assert (
            min(abs(x - v) for v in chart["xr"]) < 1e-9
            or min(abs(y - v) for v in chart["yr"]) < 1e-9
        ), (x, y)
    no_red_box(page)


def test_a_lesson_scrub_on_a_projector_keeps_its_slider_off_the_axis_title(page, app_url):
    """TDL's step 5 (a 1-D strip scrubbed through λ) in presentation mode at 1280×800: Streamlit's
    theme draws the chart's text at 15 px there, and the slider's value ("λ (graph penalty) = 16")
    lay on the x axis's title ("dimension 1"), 50 px under the plot."""
    show_on_a_projector(
        page, f"{app_url}/lessons?lesson=tdl&step=5&present=1", ".js-plotly-plot .slider-label"
    )
    title, value = page.evaluate(
        """() => { const g = document.querySelector('.js-plotly-plot');
        const box = e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; };
        return [box(g.querySelector('.xtitle')), box([...g.querySelectorAll('.slider-label')].find(e => e.textContent.includes(' = ')))]; }"""
    )
    assert title[1] <= value[0], (title, value)  # the value starts below the title's bottom
