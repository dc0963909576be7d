"""The Embed page's downloads in a real browser (issue 37, item 4): the coordinates file the
button saves holds the points the chart draws."""

from __future__ import annotations

import numpy as np
import pytest

from metriclab.export import read_coordinates_csv
from tests.test_browser_app import points, wait_for_app

pytestmark = pytest.mark.browser


def test_the_coordinates_download_holds_the_charts_points(page, app_url):
    page.goto(f"{app_url}/embed?ds=iris&method=nca")
    wait_for_app(page)
    page.locator("[data-testid='stExpander'] summary", has_text="Download").click()
    button = page.get_by_role("button", name="Coordinates (CSV)")
    button.wait_for()
    with page.expect_download() as info:
        button.click()
    download = info.value
    assert download.suggested_filename == "metriclab-iris-nca-coordinates.csv"
    with open(download.path(), encoding="utf-8") as handle:
        table = read_coordinates_csv(handle.read())
    drawn = points(page, 0)  # (index, x, y) of every point the chart draws, by index
    np.testing.assert_array_equal(table["index"], drawn[:, 0].astype(int))
    np.testing.assert_array_equal(table["Z"], drawn[:, 1:])
    assert table["labelled"].sum() == 15
    # the click served the file without rerunning the page: the chart is still there, no error
    assert page.get_by_test_id("stException").count() == 0
