"""End-to-end in headless Chromium: the Embed page opened on a link with a held-out share draws the
held-out points as their own trace with their accuracy, and a click on an empty place of the
input-space panel adds a new point, drawn as a star in the embedding with its neighbours listed.
Screenshots at 1280×800 go to METRICLAB_SCREENSHOTS when it is set."""

import os

import numpy as np
import pytest

from metriclab.datasets import load
from metriclab.ui.embed.new_points import HELD_OUT_NAME, QUERY_NAME
from tests.test_browser_app import no_red_box, settled

pytestmark = pytest.mark.browser

PANEL = "click to add a point"
TRACES_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(g =>
  (g._fullData || []).filter(t => t.customdata)
  .map(t => [t.name, t.x ? t.x.length : 0, t.marker ? t.marker.symbol : null]))"""
# the click layer's points of the input panel (its data coordinates)
GRID_JS = f"""() => {{ const g = Array.from(document.querySelectorAll('.js-plotly-plot'))
  .find(g => (g._fullData || []).some(t => t.name === '{PANEL}'));
  if (!g) return null; const t = g._fullData.find(t => t.name === '{PANEL}');
  return [Array.from(t.x), Array.from(t.y)]; }}"""
# the page position of data coordinates (x, y) on the input panel
PIXEL_JS = f"""([x, y]) => {{ const g = Array.from(document.querySelectorAll('.js-plotly-plot'))
  .find(g => (g._fullData || []).some(t => t.name === '{PANEL}'));
  const fl = g._fullLayout, r = g.getBoundingClientRect();
  return [r.left + fl.xaxis._offset + fl.xaxis.l2p(x), r.top + fl.yaxis._offset + fl.yaxis.l2p(y)];
}}"""
STAR_JS = f"""() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(g =>
  (g._fullData || []).filter(t => t.name && t.name.startsWith('{QUERY_NAME}'))
  .map(t => [Array.from(t.x), Array.from(t.y)]))"""


def shot(page, name):
    folder = os.environ.get("METRICLAB_SCREENSHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, f"newpoints-{name}.png"))


def empty_place(grid) -> tuple[float, float]:
    """The click layer's point inside the picture farthest from every data point."""
    X = load("two_moons").X
    G = np.column_stack(grid)
    lo, hi = G.min(axis=0), G.max(axis=0)
    inner = np.all((G > lo + 0.2 * (hi - lo)) & (G < hi - 0.2 * (hi - lo)), axis=1)
    G = G[inner]
    far = np.sqrt(((G[:, None] - X[None]) ** 2).sum(-1)).min(axis=1)
    return tuple(G[np.argmax(far)])


def test_held_out_points_and_a_point_dropped_by_a_click(browser, app_url):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(90_000)
    try:
        page.goto(f"{app_url}/embed?ds=two_moons&method=tdl&test=0.3")
        settled(page)
        page.wait_for_selector(".js-plotly-plot")
        no_red_box(page)
        embedding = page.evaluate(TRACES_JS)[0]
        held = [t for t in embedding if t[0].startswith(HELD_OUT_NAME)]
        assert held == [[f"{HELD_OUT_NAME} (60)", 60, "diamond-open"]]
        page.get_by_text("1-NN on held-out (mapped)").first.wait_for()
        page.get_by_text("1-NN transductive").first.wait_for()
        page.get_by_text("kept out of").first.wait_for()
        page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
        shot(page, "held-out")
        # drop a point: the input panel, a click on an empty place
        page.get_by_text("Add a new point").first.click()  # the switch: the panel is built
        page.wait_for_function(f"() => ({GRID_JS})() !== null")
        x, y = empty_place(page.evaluate(GRID_JS))
        panel = page.locator(".js-plotly-plot").filter(has_text="Input space")
        panel.scroll_into_view_if_needed()
        px, py = page.evaluate(PIXEL_JS, [x, y])
        page.mouse.move(px, py)
        page.mouse.click(px, py)
        page.wait_for_function(f"() => ({STAR_JS})()[0].length === 1", polling=200)
        settled(page)
        no_red_box(page)
        stars = page.evaluate(STAR_JS)
        marks = [s for s in stars if s]
        assert len(marks) == 2  # in the embedding and on the input panel, where it was clicked
        np.testing.assert_allclose([marks[1][0][0][0], marks[1][0][1][0]], [x, y], rtol=1e-9)
        page.get_by_text("Nearest neighbours of the new points").first.wait_for()
        assert page.get_by_text("Traceback").count() == 0
        page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
        shot(page, "dropped")
    finally:
        context.close()


def test_the_live_views_look_closer_settings_survive_two_sessions_and_a_sidebar_trip(
    browser, app_url
):
    """Issue 37 in a real browser: the classifier (`clf`), the quality's k (`qk`) and the held-out
    share (`test`) of a link open in two sessions alike, the scores say which classifier, and a
    trip through the sidebar (Dissimilarity and back) brings them back with their traces."""
    from tests.test_browser_sessions import query
    from tests.test_browser_view import nav

    link = f"{app_url}/embed?ds=two_moons&method=tdl&clf=knn:5&qk=7&test=0.3"
    pages = [browser.new_context(viewport={"width": 1280, "height": 800}).new_page() for _ in "ab"]
    for page in pages:
        page.goto(link)
        settled(page)
        page.wait_for_function(
            "() => document.body.innerText.includes('5-NN accuracy')", timeout=120_000
        )
        assert "k = 7" in page.inner_text("body")
    a = pages[0]
    nav(a, "Dissimilarity")
    nav(a, "Embed")
    settled(a)
    q = query(a)
    assert (q["clf"], q["qk"], q["test"]) == ("knn:5", "7", "0.3")
    a.wait_for_function(
        f"() => ({TRACES_JS})().flat().some(t => t[0] === '{HELD_OUT_NAME} (60)' && t[1] === 60)",
        timeout=120_000,
    )
    assert "5-NN accuracy" in a.inner_text("body")
    for page in pages:
        no_red_box(page)
        page.context.close()
