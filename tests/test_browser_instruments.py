"""End-to-end, in headless Chromium: "Show the code", presentation mode and drawing a data set."""

import re

import pytest

from tests.test_browser_app import settled, wait_for_app

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
    assert box["height"] >= 700 and box["width"] >= 1000  # the chart fills most of the screen
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
