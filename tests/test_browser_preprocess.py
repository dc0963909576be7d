"""End-to-end: the feature-scaling control in a real browser (Embed page, wine + NCA)."""

import re

import pytest

from tests.test_browser_app import wait_for_app

pytestmark = pytest.mark.browser


def metric_values(page) -> list[float]:
    return [float(t) for t in page.get_by_test_id("stMetricValue").all_inner_texts()[:2]]


def test_wine_nca_starts_scaled_and_switching_scaling_off_shows_the_raw_numbers(page, app_url):
    page.goto(f"{app_url}/embed?ds=wine&method=nca")
    wait_for_app(page)
    page.get_by_text(re.compile(r"Feature scaling: \[0, 1\] range")).first.wait_for()
    learner, baseline = metric_values(page)
    assert learner > 0.85 and baseline > 0.85
    box = page.get_by_role("combobox", name="Feature scaling")
    box.scroll_into_view_if_needed()  # low in the sidebar: a click that scrolls closes the list
    page.wait_for_timeout(300)
    box.click()
    page.get_by_role("option", name=re.compile(r"^none")).click()
    page.get_by_text("Feature scaling: none").first.wait_for()
    page.wait_for_function("() => new URLSearchParams(location.search).get('pp') === 'none'")
    wait_for_app(page)
    learner, baseline = metric_values(page)
    assert learner < 0.75 and baseline < 0.75
