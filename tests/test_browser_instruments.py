"""End-to-end, in headless Chromium: "Show the code", presentation mode and drawing a data set."""

import os
import re

import pytest

from tests.test_browser_app import points, settled, wait_for_app

pytestmark = pytest.mark.browser

SIDEBAR = "section[data-testid='stSidebar']"


def test_show_the_code_opens_with_the_pages_number(page, app_url):
    page.goto(f"{app_url}/embed?ds=iris&method=nca&frac=0.2")
    wait_for_app(page)
    settled(page)
    page.get_by_text("Show the code", exact=True).click()
    code = page.locator("[data-testid='stCode']").first
    code.wait_for()
    text = code.inner_text()
    assert "from metriclab import NCA" in text and "load('iris')" in text
    assert "fraction=0.2" in text and 'print(f"1-NN accuracy' in text
    shown = page.get_by_test_id("stMetricValue").first.inner_text()
    assert re.fullmatch(r"\d\.\d{3}", shown)


def test_presentation_mode_hides_the_sidebar_and_exit_brings_it_back(page, app_url):
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{app_url}/embed?ds=two_moons&method=tdl&present=1")
    wait_for_app(page)
    settled(page)
    assert not page.locator(SIDEBAR).is_visible()
    exit_button = page.get_by_role("button", name="Exit presentation")
    assert exit_button.is_visible()
    box = page.locator(".js-plotly-plot").first.bounding_box()
    assert box["height"] >= 500 and box["width"] >= 1000  # the chart fills most of the screen
    assert box["y"] >= 0 and box["y"] + box["height"] <= 1080  # and is whole on it
    root = page.evaluate("() => getComputedStyle(document.documentElement).fontSize")
    assert root == "20px"
    exit_button.click()
    page.locator(SIDEBAR).wait_for(state="visible")
    settled(page)
    assert "present=" not in page.url
    assert page.evaluate("() => getComputedStyle(document.documentElement).fontSize") != "20px"
    # and back on from the sidebar toggle
    page.locator(SIDEBAR).get_by_text("Presentation mode").click()
    page.locator(SIDEBAR).wait_for(state="hidden")
    page.wait_for_function("() => new URLSearchParams(location.search).get('present') === '1'")


def click_canvas(page, fx, fy, expect):
    """Click the canvas at (fx, fy) of its plot area; wait until `expect` points are drawn."""
    area = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    page.mouse.move(area["x"] + fx * area["width"], area["y"] + fy * area["height"])
    page.mouse.click(area["x"] + fx * area["width"], area["y"] + fy * area["height"])
    page.get_by_text(f"{expect} points drawn.").wait_for()
    settled(page)


def drawn_counts(page):
    return page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._fullData.slice(1).map(t => t.x.length)"
    )


def box_canvas(page, corner, other, expect):
    """Drag a box selection on the canvas from `corner` to `other` (fractions of the plot area)."""
    page.locator(".modebar-btn[data-title='Box Select']").first.click()
    area = page.locator(".js-plotly-plot .nsewdrag").first.bounding_box()
    x0, y0 = area["x"] + corner[0] * area["width"], area["y"] + corner[1] * area["height"]
    x1, y1 = area["x"] + other[0] * area["width"], area["y"] + other[1] * area["height"]
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=5)
    page.mouse.move(x1, y1, steps=5)
    page.mouse.up()
    page.get_by_text(re.compile(expect)).wait_for()
    settled(page)


def test_clicks_draw_points_that_become_a_data_set_the_embed_page_embeds(page, app_url):
    page.goto(f"{app_url}/draw")
    page.wait_for_selector(".js-plotly-plot")
    settled(page)
    click_canvas(page, 0.2, 0.3, 1)  # class A, by clicks
    click_canvas(page, 0.25, 0.35, 2)
    click_canvas(page, 0.25, 0.35, 1)  # a click on a drawn point removes it
    page.get_by_role("button", name="Undo").click()  # ... and Undo brings it back
    page.get_by_text("2 points drawn.").wait_for()
    settled(page)
    assert drawn_counts(page)[:2] == [2, 0]
    page.get_by_text("class B", exact=True).click()  # class B, a box of grid points
    settled(page)
    box_canvas(page, (0.62, 0.62), (0.76, 0.76), r"^(?!2 )\d+ points drawn")
    counts = drawn_counts(page)
    assert counts[0] == 2 and counts[1] >= 3
    page.get_by_text("class A", exact=True).click()
    settled(page)
    box_canvas(page, (0.18, 0.18), (0.32, 0.32), rf"^(?!{sum(counts)} )\d+ points drawn")
    counts = drawn_counts(page)
    assert counts[0] >= 5 and counts[1] >= 3
    if os.environ.get("METRICLAB_SCREENSHOTS"):
        page.screenshot(path=os.path.join(os.environ["METRICLAB_SCREENSHOTS"], "draw.png"))
    page.get_by_role("button", name="Use as data set").click()
    page.get_by_role("link", name="Embed it").click()
    page.wait_for_url(re.compile(r"/embed"))
    wait_for_app(page)
    settled(page)
    n = sum(counts)
    assert "ds=upload%3A" in page.url  # the drawn set, chosen in the Data set box
    assert len(points(page)) == n
    assert page.get_by_text("Traceback").count() == 0
    if os.environ.get("METRICLAB_SCREENSHOTS"):
        page.screenshot(path=os.path.join(os.environ["METRICLAB_SCREENSHOTS"], "draw-embed.png"))
